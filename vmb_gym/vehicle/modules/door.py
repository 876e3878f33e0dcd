"""door: door related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


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
