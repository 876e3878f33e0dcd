"""sunshade: sunshade related (3 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_choice

#: Official sunshade targets and the sunshades each one covers.
SUNSHADE_GROUPS: dict[str, tuple[str, ...]] = {"front": ("front",), "rear": ("rear",), "all": ("front", "rear")}
#: Chinese target aliases accepted by the official code (note: not the wiper's 前/后).
SUNSHADE_ALIASES: dict[str, str] = {"前排": "front", "后排": "rear", "全部": "all"}
#: Official open degrees, in increasing order.
DEGREES: tuple[str, ...] = ("close", "min", "low", "medium", "high", "max")
DEGREE_ALIASES: dict[str, str] = {
    "关闭": "close",
    "最小": "min",
    "较低": "low",
    "中等": "medium",
    "较高": "high",
    "最大": "max",
}

_TARGET = OneOf(*SUNSHADE_GROUPS, aliases=SUNSHADE_ALIASES, note="a falsy value means front")
_DEGREE = OneOf(*DEGREES, aliases=DEGREE_ALIASES, note="close sets is_open False, any other degree sets it True")


def resolve_sunshades(sunshade: Any) -> tuple[str, ...]:
    """Resolve a sunshade target to the sunshade keys it covers.

    A falsy value (``None``, ``""``, ``0``, ``[]``, ``{}``) means ``front``. Otherwise the value is
    looked up in the Chinese aliases (an unhashable value raises ``TypeError``, an ``error`` result)
    and must then be exactly ``front``, ``rear`` or ``all`` (case-sensitive, no trimming).

    Raises:
        Rejected: the target is not a known sunshade target.
    """
    if not sunshade:
        return SUNSHADE_GROUPS["front"]
    target = SUNSHADE_ALIASES.get(sunshade, sunshade)
    if target not in SUNSHADE_GROUPS:
        raise Rejected(f"sunshade must be one of front, rear, all, got {sunshade!r}")
    return SUNSHADE_GROUPS[target]


class Sunshade(VehicleModule):
    """Sunshade related."""

    KEY = "sunshade"
    TYPE_NAME = "Sunshade"
    DESCRIPTION = "Sunshade related"
    FIELDS = {
        "front": Field(
            {"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Front sunshade settings"
        ),
        "rear": Field(
            {"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Rear sunshade settings"
        ),
    }
    __slots__ = ()

    @vehicle_api(sunshade=_TARGET)
    def carcontrol_sunshade_set_auto_close_on_lock(self, sunshade: str, enabled: bool) -> Result:
        """Enable or disable auto close on lock for all sunshades.

        Official quirk: the ``sunshade`` target is only validated; the setting always applies to
        both the front and the rear sunshade. ``enabled`` is coerced with ``bool()``.
        """
        resolve_sunshades(sunshade)
        value = bool(enabled)
        for key in SUNSHADE_GROUPS["all"]:
            self.update_field(key, {"auto_close_on_lock": value})
        return self.ok(f"Sunshade auto close on lock {'enabled' if value else 'disabled'}")

    @vehicle_api(sunshade=_TARGET)
    def carcontrol_sunshade_set_open(self, sunshade: str, is_open: bool) -> Result:
        """Set sunshade open state for a position or group.

        ``is_open`` is coerced with ``bool()``; ``open_degree`` is left untouched.
        """
        keys = resolve_sunshades(sunshade)
        value = bool(is_open)
        for key in keys:
            self.update_field(key, {"is_open": value})
        return self.ok(f"Sunshade {', '.join(keys)} {'opened' if value else 'closed'}")

    @vehicle_api(sunshade=_TARGET, degree=_DEGREE)
    def carcontrol_sunshade_set_open_degree(self, sunshade: str, degree: str) -> Result:
        """Set sunshade open degree (close/min/low/medium/high/max). Auto open/close based on degree.

        Both arguments are validated before anything changes. ``"close"`` sets ``is_open`` False,
        any other degree sets it True. An unhashable degree (a list or a map) is an ``error``.
        """
        keys = resolve_sunshades(sunshade)
        level = require_choice(degree, DEGREES, "sunshade degree", DEGREE_ALIASES)
        for key in keys:
            self.update_field(key, {"open_degree": level, "is_open": level != "close"})
        return self.ok(f"Sunshade {', '.join(keys)} open degree set to {level}")
