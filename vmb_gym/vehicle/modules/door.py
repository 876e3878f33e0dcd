"""door: door related (3 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import OneOf, vehicle_api
from vmb_gym.vehicle.module import ZONE_ALIASES, ZONE_GROUPS, Field, Rejected, Result, VehicleModule, resolve_targets

#: The door argument: a door or group, Chinese aliases accepted; a falsy value means driver.
DOOR = OneOf(*ZONE_GROUPS, aliases=ZONE_ALIASES, note="a falsy value means driver")


class Door(VehicleModule):
    """Door related."""

    KEY = "door"
    TYPE_NAME = "Door"
    DESCRIPTION = "Door related"
    FIELDS = {
        "driver": Field({"is_locked": False, "is_open": False, "open_warning": False}, "Driver door settings"),
        "passenger": Field({"is_locked": False, "is_open": False, "open_warning": False}, "Passenger door settings"),
        "rear_left": Field({"is_locked": False, "is_open": False, "open_warning": False}, "Rear left door settings"),
        "rear_right": Field({"is_locked": False, "is_open": False, "open_warning": False}, "Rear right door settings"),
    }
    __slots__ = ()

    def _set_flag(self, door: Any, key: str, value: bool) -> tuple[str, ...]:
        """Store ``value`` under ``key`` for each named door."""
        doors = resolve_targets(door, "door")
        for d in doors:
            self.update_field(d, {key: value})
        return doors

    @vehicle_api(door=DOOR)
    def carcontrol_door_set_locked(self, door: str, locked: bool) -> Result:
        """Set door lock state for a door or group.

        ``locked`` is coerced with ``bool()``. Locking does not close an open door.
        """
        on = bool(locked)
        doors = self._set_flag(door, "is_locked", on)
        return self.ok(f"Doors {'locked' if on else 'unlocked'}: {', '.join(doors)}")

    @vehicle_api(door=DOOR)
    def carcontrol_door_set_open(self, door: str, is_open: bool) -> Result:
        """Set door open state for a door or group.

        Interlock: opening (``bool(is_open)`` true, so ``"false"`` counts as opening) is rejected,
        with no change at all, when ANY targeted door is locked. Closing is always allowed.
        """
        opening = bool(is_open)
        doors = resolve_targets(door, "door")
        if opening:
            locked = [d for d in doors if self.state[d]["is_locked"]]
            if locked:
                raise Rejected(f"Cannot open locked door(s): {', '.join(locked)}")
        for d in doors:
            self.update_field(d, {"is_open": opening})
        return self.ok(f"Doors {'opened' if opening else 'closed'}: {', '.join(doors)}")

    @vehicle_api(door=DOOR)
    def carcontrol_door_set_open_warning(self, door: str, enabled: bool) -> Result:
        """Enable or disable door open warning for a door or group.

        ``enabled`` is coerced with ``bool()``.
        """
        on = bool(enabled)
        doors = self._set_flag(door, "open_warning", on)
        return self.ok(f"Door open warning {'enabled' if on else 'disabled'} for {', '.join(doors)}")
