"""Compatibility shim: the slot design moved to :mod:`vmb_agents.sb3.slots` (split into modules).

Checkpoints saved before the split pickle the policy class as ``vmb_agents.sb3_slots.SlotPointerPolicy``;
this module keeps that name (and the old entry points) importable.
"""

from vmb_agents.sb3.slots import *  # noqa: F403
from vmb_agents.sb3.slots import __all__ as _slots_all
from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy, slot_pointer_policy

__all__ = [*_slots_all, "SlotPointerPolicy", "SlotSB3Policy", "slot_pointer_policy"]
