"""wiper: wiper related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


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
