"""airConditioner: vehicle air conditioning system related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class AirConditioner(VehicleModule):
    """Vehicle air conditioning system related."""

    KEY = "airConditioner"
    TYPE_NAME = "AirConditioner"
    DESCRIPTION = "Vehicle air conditioning system related"
    FIELDS = {
        "driver": Field({"is_on": False, "temperature": 24, "fan_speed": 5, "air_direction": "face", "mode": "auto", "circulation": "inside"}, "Driver zone settings"),
        "passenger": Field({"is_on": False, "temperature": 24, "fan_speed": 5, "air_direction": "face", "mode": "auto", "circulation": "inside"}, "Passenger zone settings"),
        "rear_left": Field({"is_on": False, "temperature": 24, "fan_speed": 5, "air_direction": "face", "mode": "auto", "circulation": "inside"}, "Rear left zone settings"),
        "rear_right": Field({"is_on": False, "temperature": 24, "fan_speed": 5, "air_direction": "face", "mode": "auto", "circulation": "inside"}, "Rear right zone settings"),
    }
    __slots__ = ()
