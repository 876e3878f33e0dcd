"""The slot (pointer) design of the SB3 bridge: a small action space over *candidate* calls.

The actions name slots (the k-th candidate API of the request, the k-th candidate value read
from the memory hits for that API, the k-th seat or zone), resolved into a concrete call for the
episode at hand; per-slot features let one shared scorer learn which slot is right across
households. Candidates and their ranking come from the rules baseline (:mod:`vmb_agents.reader`,
:mod:`vmb_agents.reader`), which is why this design lives in ``agents``.

Modules: :mod:`.layout` (slot counts, index arithmetic), :mod:`.reading` (request and line
reading), :mod:`.records` (the slot records, the episode record), :mod:`.hits` (hit pooling and
follow-ups), :mod:`.values` (value slots), :mod:`.companions`, :mod:`.analysis` (one episode's
slots), :mod:`.catalogue` (the action space and resolver), :mod:`.features`, :mod:`.env` (the env
wrappers), :mod:`.policy` (the pointer policy; imports torch), :mod:`.line_prior`.

This package exports the env side (no torch); the policy classes come from :mod:`.policy`.
"""

from vmb_agents.sb3.slots.catalogue import SlotCatalogue
from vmb_agents.sb3.slots.env import SlotActionWrapper, SlotFeatureWrapper, make_slot_env, slot_call, speakers_of
from vmb_agents.sb3.slots.features import SlotFeaturizer
from vmb_agents.sb3.slots.layout import (
    N_API_SLOTS,
    N_MEMORY_VALUES,
    N_SLOT_ACTIONS,
    N_TARGET_SLOTS,
    N_VALUE_SLOTS,
    SLOT_FINISH,
    SLOT_SEARCH,
    VALUE_EXPLICIT,
    VALUE_MINIMAL,
)
from vmb_agents.sb3.slots.records import ApiSlot, SlotAnalysis, SlotEpisodeText, ValueSlot, search_rounds

__all__ = [
    "N_API_SLOTS", "N_MEMORY_VALUES", "N_SLOT_ACTIONS", "N_TARGET_SLOTS", "N_VALUE_SLOTS", "SLOT_FINISH",
    "SLOT_SEARCH", "VALUE_EXPLICIT", "VALUE_MINIMAL", "ApiSlot", "SlotActionWrapper", "SlotAnalysis",
    "SlotCatalogue", "SlotEpisodeText", "SlotFeatureWrapper", "SlotFeaturizer", "ValueSlot", "make_slot_env",
    "search_rounds", "slot_call", "speakers_of",
]
