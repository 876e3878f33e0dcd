"""HUD: the head-up display (3 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_int


class HUD(VehicleModule):
    """Head-up display: power, height and brightness."""

    KEY = "HUD"
    TYPE_NAME = "HUD"
    DESCRIPTION = "Head-up display related"
    FIELDS = {
        "is_on": Field(False, "Whether the HUD is turned on or off"),
        "height_level": Field(5, "HUD height level (1-10)"),
        "brightness_level": Field(5, "HUD brightness level (1-10)"),
    }
    __slots__ = ()

    def _auto_on(self) -> None:
        if not self.state["is_on"]:
            self.state["is_on"] = True

    @vehicle_api(level=IntRange(1, 10, unit="level"))
    def carcontrol_HUD_set_brightness_level(self, level: int) -> Result:
        """Set HUD brightness level (1-10).

        Switches the HUD on first (only if it is off: a truthy raw value stays), so the HUD is on
        even when the level is rejected.
        """
        self._auto_on()
        require_int(level, 1, 10, "HUD brightness level")
        self.state["brightness_level"] = level
        return self.ok(f"HUD brightness set to {level}")

    @vehicle_api(level=IntRange(1, 10, unit="level"))
    def carcontrol_HUD_set_height_level(self, level: int) -> Result:
        """Set HUD height level (1-10).

        Switches the HUD on first (only if it is off: a truthy raw value stays), so the HUD is on
        even when the level is rejected.
        """
        self._auto_on()
        require_int(level, 1, 10, "HUD height level")
        self.state["height_level"] = level
        return self.ok(f"HUD height set to {level}")

    @vehicle_api()
    def carcontrol_HUD_switch(self, switch: bool) -> Result:
        """Turn the HUD on or off.

        Official quirk: the argument is stored as given (not coerced to bool).
        """
        self.state["is_on"] = switch
        return self.ok("HUD activated" if switch else "HUD deactivated")
