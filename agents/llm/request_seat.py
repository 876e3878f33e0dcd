"""The seat a request is for, read from its narrative: the choices a call's seat, zone or reading light may take.

A 135M model picks a call's seat from what it has read (the listing's parameter, another person's line) and sets
the passenger's massage for a driver who is alone, or the driver's seat for a passenger who asked. The request's
narrative says who asks and where they sit ("Julian was driving, alone", "Tobias sat in the front passenger
seat"). With a guide's ``seat_from_request`` (:class:`~vmb_agents.llm.guide.RulesGuide`, with ``constrain_values``;
:mod:`vmb_agents.llm.constrained`) a vehicle call's ``seat``, ``zone`` or ``light`` is that seat, or ``"all"`` where
the rules reader reads the whole car (the climate's shared functions, a request that says every seat:
:func:`vmb_agents.reader.selector_value`); a person in the back may be in either rear seat. The reading is the
step's :class:`~vmb_agents.reader.reading.Reading` (the rules reader's, with the names the request narrates,
:func:`vmb_agents.llm.query_names.request_names`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vmb_agents.reader.reading import Reading

__all__ = ["place_choices"]


def place_choices(reading: Reading) -> dict[str, dict[str, tuple[str, ...]]]:
    """Vehicle function -> its place parameter -> the places the request of ``reading`` allows (functions without
    one are left out; computed once per reading and kept with it: do not mutate the result)."""
    places = reading.memo.get("places")
    if places is None:
        places = reading.memo["places"] = _place_choices(reading)
    return places


def _place_choices(reading: Reading) -> dict[str, dict[str, tuple[str, ...]]]:
    from vmb_agents.reader import PERSONAL_SELECTORS, selector_param, selector_value
    from vmb_gym.vehicle import API_SPECS

    req = reading.request
    seats = ("rear_left", "rear_right") if req.seat == "rear_left" else (req.seat,)  # the reading has no right
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for api, spec in API_SPECS.items():
        sel = selector_param(spec)
        if sel is None or sel.name not in PERSONAL_SELECTORS or sel.constraint is None:
            continue
        allowed = [c for c in (selector_value(spec, sel, req), *seats) if c in sel.constraint.choices]
        if allowed:
            out[api] = {sel.name: tuple(dict.fromkeys(allowed))}
    return out
