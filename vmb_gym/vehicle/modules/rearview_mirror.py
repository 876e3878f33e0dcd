"""rearviewMirror: rearview mirror related (6 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_choice, require_int

_SIDES = ("left", "right", "both")
_SIDE = OneOf(*_SIDES, note="exact; the Chinese 左/右/两侧 are rejected and there is no default")


class RearviewMirror(VehicleModule):
    """Rearview mirror related.

    Every API takes a ``side`` of exactly ``left``, ``right`` or ``both``. Unlike the zone
    arguments of other modules, Chinese aliases and falsy values are rejected (no default).
    """

    KEY = "rearviewMirror"
    TYPE_NAME = "RearviewMirror"
    DESCRIPTION = "Rearview mirror related"
    FIELDS = {
        "left": Field(
            {
                "is_on": False,
                "height_position": 0,
                "horizontal_position": 0,
                "auto_reverse_tilt": False,
                "auto_fold_on_lock": False,
                "heating_enabled": False,
            },
            "Left rearview mirror settings",
        ),
        "right": Field(
            {
                "is_on": False,
                "height_position": 0,
                "horizontal_position": 0,
                "auto_reverse_tilt": False,
                "auto_fold_on_lock": False,
                "heating_enabled": False,
            },
            "Right rearview mirror settings",
        ),
    }
    __slots__ = ()

    def _mirrors(self, side: Any) -> tuple[str, ...]:
        """The mirror fields named by ``side`` (Rejected unless exactly left/right/both)."""
        side = require_choice(side, _SIDES, "Mirror side")
        return ("left", "right") if side == "both" else (side,)

    def _set_flag(self, side: Any, key: str, enabled: Any) -> None:
        """Validate ``side``, then switch the mirrors on and store ``bool(enabled)`` at ``key``."""
        for mirror in self._mirrors(side):
            self.update_field(mirror, {"is_on": True, key: bool(enabled)})

    def _set_position(self, side: Any, key: str, value: Any, what: str) -> None:
        """Validate ``value`` then ``side``, then switch the mirrors on and store ``value``."""
        require_int(value, 0, 100, what)
        for mirror in self._mirrors(side):
            self.update_field(mirror, {"is_on": True, key: value})

    @vehicle_api(side=_SIDE)
    def carcontrol_rearviewMirror_set_auto_fold_on_lock(self, side: str, enabled: bool) -> Result:
        """Set auto fold on lock (fold mirrors automatically when the car is locked) for left, right, or both.

        Validates ``side`` first; then switches the mirror(s) on and stores ``bool(enabled)``.
        """
        self._set_flag(side, "auto_fold_on_lock", enabled)
        return self.ok(f"Auto fold on lock {'enabled' if enabled else 'disabled'} for {side} mirror")

    @vehicle_api(side=_SIDE)
    def carcontrol_rearviewMirror_set_auto_reverse_tilt(self, side: str, enabled: bool) -> Result:
        """Set auto reverse tilt for left, right, or both.

        Validates ``side`` first; then switches the mirror(s) on and stores ``bool(enabled)``.
        """
        self._set_flag(side, "auto_reverse_tilt", enabled)
        return self.ok(f"Auto reverse tilt {'enabled' if enabled else 'disabled'} for {side} mirror")

    @vehicle_api(side=_SIDE)
    def carcontrol_rearviewMirror_set_heating_enabled(self, side: str, enabled: bool) -> Result:
        """Set mirror heating for left, right, or both.

        Validates ``side`` first; then switches the mirror(s) on and stores ``bool(enabled)``.
        """
        self._set_flag(side, "heating_enabled", enabled)
        return self.ok(f"Mirror heating {'enabled' if enabled else 'disabled'} for {side} mirror")

    @vehicle_api(side=_SIDE, value=IntRange(0, 100, unit="percent"))
    def carcontrol_rearviewMirror_set_height_position(self, side: str, value: int) -> Result:
        """Set mirror height position (0-100) for left, right, or both.

        Validates ``value``, then ``side``, then switches the mirror(s) on: a rejected call
        changes nothing.
        """
        self._set_position(side, "height_position", value, "Mirror height position")
        return self.ok(f"{side} mirror height position set to {value}")

    @vehicle_api(side=_SIDE, value=IntRange(0, 100, unit="percent"))
    def carcontrol_rearviewMirror_set_horizontal_position(self, side: str, value: int) -> Result:
        """Set mirror horizontal position (0-100) for left, right, or both.

        Validates ``value``, then ``side``, then switches the mirror(s) on: a rejected call
        changes nothing.
        """
        self._set_position(side, "horizontal_position", value, "Mirror horizontal position")
        return self.ok(f"{side} mirror horizontal position set to {value}")

    @vehicle_api(side=_SIDE)
    def carcontrol_rearviewMirror_set_power(self, side: str, is_on: bool) -> Result:
        """Set mirror power for left, right, or both.

        Stores ``bool(is_on)`` in the mirror(s) named by ``side``; the other settings are kept.
        """
        for mirror in self._mirrors(side):
            self.update_field(mirror, {"is_on": bool(is_on)})
        return self.ok(f"{side} mirror power {'on' if is_on else 'off'}")
