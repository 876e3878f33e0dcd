"""steeringWheel: steering wheel related (3 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_int


class SteeringWheel(VehicleModule):
    """Steering wheel related."""

    KEY = "steeringWheel"
    TYPE_NAME = "SteeringWheel"
    DESCRIPTION = "Steering wheel related"
    FIELDS = {
        "view_display_enabled": Field(False, "Whether the view display is enabled"),
        "heating_enabled": Field(False, "Whether heating is enabled"),
        "heating_level": Field(0, "Heating level (0-10)"),
    }
    __slots__ = ()

    @vehicle_api()
    def carcontrol_steeringWheel_set_heating_enabled(self, enabled: bool) -> Result:
        """Enable or disable steering wheel heating.

        ``enabled`` is coerced with ``bool()``; the heating level is left untouched.
        """
        value = bool(enabled)
        self.state["heating_enabled"] = value
        return self.ok(f"Steering wheel heating {'enabled' if value else 'disabled'}")

    @vehicle_api(level=IntRange(0, 10, unit="level"))
    def carcontrol_steeringWheel_set_heating_level(self, level: int) -> Result:
        """Set steering wheel heating level (0-10).

        Enables heating first, so heating is on even when the level is rejected; level 0 also
        enables heating.
        """
        self.state["heating_enabled"] = True
        require_int(level, 0, 10, "steering wheel heating level")
        self.state["heating_level"] = level
        return self.ok(f"Steering wheel heating level set to {level}")

    @vehicle_api()
    def carcontrol_steeringWheel_set_view_display_enabled(self, enabled: bool) -> Result:
        """Enable or disable steering wheel view display.

        ``enabled`` is coerced with ``bool()``.
        """
        value = bool(enabled)
        self.state["view_display_enabled"] = value
        return self.ok(f"Steering wheel view display {'enabled' if value else 'disabled'}")
