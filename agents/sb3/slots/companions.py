"""Companion slots: a second setting stated at the end of a candidate value's line ("Plus the sunroof lock locked").

The catalogue's classifier names the clause's function; the companion slot carries the clause's
value with the evidence of the line it ends.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from vmb_agents.reader import extract_value, selector_value
from vmb_agents.sb3.slots.layout import N_COMPANION_SLOTS, N_MEMORY_VALUES
from vmb_agents.sb3.slots.reading import companion_clause
from vmb_agents.sb3.slots.records import ApiSlot
from vmb_agents.reader import selector_param, value_param
from vmb_gym.vehicle import API_SPECS

#: ``make_slot(api, values, first_target, companion=True)``: builds an :class:`ApiSlot`.
SlotMaker = Callable[..., ApiSlot]


def _clause_value(capi: str, clause: str, req: Any) -> Any:
    """The value a routine clause sets (a switch clause without one switches on)."""
    cspec = API_SPECS[capi]
    cval = extract_value(cspec, clause, req)
    vp = value_param(cspec)
    if cval is None and vp is not None and vp.py_type is bool:
        cval = True
    return cval


def _clause_target(capi: str, clause: str, req: Any) -> str | None:
    """The seat or zone a clause names, else the request's (``""``: the function has no selector)."""
    cspec = API_SPECS[capi]
    sel = selector_param(cspec)
    first = next((c for c in (sel.constraint.choices if sel and sel.constraint else ())
                  if re.search(rf"\b{c.replace('_', ' ')}\b", clause, re.I)), None) if sel else ""
    if first is None and sel is not None:
        first = selector_value(cspec, sel, req)
    return first


def companion_slots(first: ApiSlot, by_render: Mapping[str, Any], req: Any, classify: Any,
                    make_slot: SlotMaker) -> list[ApiSlot]:
    """The companion API slots of the first API slot's values (at most :data:`N_COMPANION_SLOTS`)."""
    comp: dict[str, ApiSlot] = {}
    pairs = [(val, src) for val in first.values for src in dict.fromkeys([val.source, *val.sources])]
    for val, src in pairs:
        clause = companion_clause(by_render[src].text if src in by_render else "")
        if not clause or classify is None:
            continue
        capi = classify(clause)
        if capi is None or capi == first.api:
            continue
        cval = _clause_value(capi, clause, req)
        if cval is None:
            continue
        slot = comp.get(capi)
        if slot is None:
            slot = comp[capi] = make_slot(capi, [], _clause_target(capi, clause, req), companion=True)
        if len(slot.values) < N_MEMORY_VALUES and all(v.value != cval for v in slot.values):
            slot.values.append(dataclasses.replace(val, value=cval, cues=dict(val.cues)))
    return list(comp.values())[:N_COMPANION_SLOTS]
