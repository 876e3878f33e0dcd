"""footPedal: foot pedal related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class FootPedal(VehicleModule):
    """Foot pedal related."""

    KEY = "footPedal"
    TYPE_NAME = "FootPedal"
    DESCRIPTION = "Foot pedal related"
    FIELDS = {
        "driver": Field({"is_on": False}, "Driver foot pedal state"),
        "passenger": Field({"is_on": False}, "Passenger foot pedal state"),
    }
    __slots__ = ()
