"""steeringWheel: steering wheel related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


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
