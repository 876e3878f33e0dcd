"""radio: vehicle radio system related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Radio(VehicleModule):
    """Vehicle radio system related."""

    KEY = "radio"
    TYPE_NAME = "Radio"
    DESCRIPTION = "Vehicle radio system related"
    FIELDS = {
        "is_on": Field(False, "Whether the radio is on"),
        "volume": Field(50, "Radio volume (0-100)"),
        "current_station": Field({}, "Current radio station info"),
    }
    __slots__ = ()
