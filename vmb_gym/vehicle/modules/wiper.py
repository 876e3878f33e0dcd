"""wiper: wiper related (2 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_int

#: Official wiper targets and the wipers each one covers.
WIPER_GROUPS: dict[str, tuple[str, ...]] = {"front": ("front",), "rear": ("rear",), "all": ("front", "rear")}
#: Chinese target aliases accepted by the official code (note: 前/后, not the sunshade's 前排/后排).
WIPER_ALIASES: dict[str, str] = {"前": "front", "后": "rear", "全部": "all"}

_TARGET = OneOf(*WIPER_GROUPS, aliases=WIPER_ALIASES, note="a falsy value means front")


def resolve_wipers(wiper: Any) -> tuple[str, ...]:
    """Resolve a wiper target to the wiper keys it covers.

    A falsy value means ``front``. Otherwise the value is looked up in the Chinese aliases (an
    unhashable value raises ``TypeError``, an ``error`` result) and must then be exactly
    ``front``, ``rear`` or ``all``.

    Raises:
        Rejected: the target is not a known wiper target.
    """
    if not wiper:
        return WIPER_GROUPS["front"]
    target = WIPER_ALIASES.get(wiper, wiper)
    if target not in WIPER_GROUPS:
        raise Rejected(f"wiper must be one of front, rear, all, got {wiper!r}")
    return WIPER_GROUPS[target]


class Wiper(VehicleModule):
    """Wiper related."""

    KEY = "wiper"
    TYPE_NAME = "Wiper"
    DESCRIPTION = "Wiper related"
    FIELDS = {
        "front": Field({"is_on": False, "speed": 1}, "Front wiper settings"),
        "rear": Field({"is_on": False, "speed": 1}, "Rear wiper settings"),
    }
    __slots__ = ()

    @vehicle_api(wiper=_TARGET)
    def carcontrol_wiper_set_open(self, wiper: str, is_on: bool) -> Result:
        """Set wiper open state for a position or group.

        ``is_on`` is coerced with ``bool()``; the speed is left untouched.
        """
        keys = resolve_wipers(wiper)
        value = bool(is_on)
        for key in keys:
            self.update_field(key, {"is_on": value})
        return self.ok(f"Wiper {', '.join(keys)} turned {'on' if value else 'off'}")

    @vehicle_api(wiper=_TARGET, speed=IntRange(1, 5, unit="level"))
    def carcontrol_wiper_set_speed(self, wiper: str, speed: int) -> Result:
        """Set wiper speed (1-5). Auto turn on wiper if needed.

        Validates the target and the speed first, so a rejected call changes nothing; on success
        the targeted wipers are switched on. ``True`` passes the integer check and is stored as is.
        """
        keys = resolve_wipers(wiper)
        require_int(speed, 1, 5, "wiper speed")
        for key in keys:
            self.update_field(key, {"is_on": True, "speed": speed})
        return self.ok(f"Wiper {', '.join(keys)} speed set to {speed}")
