"""The seat a request is for, read from its narrative: the choices a call's seat, zone or reading light may take.

A 135M model picks a call's seat from what it has read (the listing's parameter, another person's line) and sets
the passenger's massage for a driver who is alone, or the driver's seat for a passenger who asked. The request's
narrative says who asks and where they sit ("Julian was driving, alone", "Tobias sat in the front passenger
seat"). With ``HFPolicy(seat_from_request=True)`` (:mod:`vmb_agents.llm.constrained`, with ``constrain_values``) a
vehicle call's ``seat``, ``zone`` or ``light`` is that seat, or ``"all"`` where the rules reader reads the whole
car (the climate's shared functions, a request that says every seat: :func:`vmb_agents.reader.selector_value`); a
person in the back may be in either rear seat. The reading is the rules reader's (:func:`vmb_agents.reader.read_request`
with the names the request narrates, :func:`vmb_agents.llm.query_names.request_names`).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["place_choices"]


def place_choices(request: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Vehicle function -> its place parameter -> the places ``request`` allows (functions without one are left
    out; do not mutate the result, it is shared per request text)."""
    return _place_choices(request)


@lru_cache(maxsize=4096)
def _place_choices(request: str) -> dict[str, dict[str, tuple[str, ...]]]:
    from vmb_agents.llm.query_names import request_names
    from vmb_agents.reader import PERSONAL_SELECTORS, read_request, selector_param, selector_value
    from vmb_gym.vehicle import API_SPECS

    req = read_request(request, request_names(request))
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
