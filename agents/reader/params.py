"""Which parameter of a vehicle function carries the value, which selects the seat, and their spellings."""

from __future__ import annotations

import re

from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec
from vmb_gym.vehicle.lexicon import VALUE_SYNONYMS


#: Selectors of a person's own place (a seat, a climate zone, a reading light), unlike a window, door or mirror.
PERSONAL_SELECTORS = ("seat", "zone", "light")


def value_param(spec: ApiSpec) -> ParamSpec | None:
    """The parameter that carries the setting's value (not the seat/zone/side selector)."""
    selectors = {"seat", "zone", "side", "window", "door", "light", "sunshade", "wiper", "position"}
    for p in spec.params:
        if p.name in selectors and p.constraint is not None and p.constraint.choices:
            continue
        if p.name in ("route_preference", "artist", "frequency"):
            continue
        return p
    return None


def selector_param(spec: ApiSpec) -> ParamSpec | None:
    """The seat/zone/side selector of ``spec``, if it has one."""
    value = value_param(spec)
    for p in spec.params:
        if p is not value and p.constraint is not None and p.constraint.choices and p.required:
            return p
    return None


def enum_spellings(spec: ApiSpec, param: ParamSpec) -> dict[str, str]:
    """Lower-case phrase -> canonical value for an enum parameter (choices, aliases, synonyms)."""
    c = param.constraint
    table: dict[str, str] = {}
    if c is not None:
        for choice in c.choices:
            table[choice.lower()] = choice
            table[choice.lower().replace("_", " ")] = choice
        for alias, canon in c.aliases.items():
            table[alias.lower()] = canon
    table.update(VALUE_SYNONYMS.get(f"{param.name}@{spec.name}", VALUE_SYNONYMS.get(param.name, {})))
    if c is not None and c.choices:
        table = {k: v for k, v in table.items() if v in c.choices}
    return table


def enable_api(api: str) -> tuple[str, dict[str, object]] | None:
    """The minimal "switch it on" call for ``api``'s device: (function, fixed arguments) or None.

    Prefers a boolean function of the same module whose name shares the field word
    (``seat_set_heating_level`` -> ``seat_set_heating_mode``), then the module's switch/power.
    """
    spec = API_SPECS[api]
    own = value_param(spec)
    if own is not None and own.py_type is bool:
        return api, {own.name: True}
    generic = {"set", "level", "speed", "brightness", "color", "mode", "enabled", "light", "on", "lock", "auto",
               "open", "degree", "position", "switch"}

    def field_tokens(name: str) -> set[str]:
        """The non-generic words of a function name's field part."""
        return set(re.findall(r"[a-z]+", name.split(f"_{spec.module}_", 1)[-1])) - generic

    words = field_tokens(api)
    same_module = [s for s in API_SPECS.values() if s.module == spec.module and s.name != api]

    def bool_param(s: ApiSpec) -> str | None:
        """The name of ``s``'s boolean value parameter, if it has one."""
        vp = value_param(s)
        return vp.name if vp is not None and vp.py_type is bool else None

    best: ApiSpec | None = None
    overlap = 0
    for s in same_module:
        shared = len(words & field_tokens(s.name))
        if bool_param(s) is not None and shared > overlap:
            best, overlap = s, shared
    if best is None:
        for s in same_module:
            if bool_param(s) is not None and re.search(r"_(switch|set_power|set_open)$", s.name):
                best = s
                break
    if best is None:
        return None
    name = bool_param(best)
    assert name is not None
    return best.name, {name: True}


def clamp_to_param(value: int, vp: ParamSpec) -> int:
    """``value`` moved into the parameter's allowed integer range."""
    c = vp.constraint
    if c is not None and c.minimum is not None:
        value = max(c.minimum, value)
    if c is not None and c.maximum is not None:
        value = min(c.maximum, value)
    return value
