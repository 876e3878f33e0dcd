"""seat: seat related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Seat(VehicleModule):
    """Seat related."""

    KEY = "seat"
    TYPE_NAME = "Seat"
    DESCRIPTION = "Seat related"
    FIELDS = {
        "driver": Field({"heating_mode": False, "heating_level": 1, "massage_mode": False, "massage_level": 1, "ventilation_enabled": False, "ventilation_speed": 1, "horizontal_position": 50, "vertical_position": 50, "folded": False, "cushion_extension": 50, "cushion_angle": 50, "backrest_angle": 50, "leg_support_height": 50, "foot_support_height": 50, "headrest_height": 50}, "Driver seat settings"),
        "passenger": Field({"heating_mode": False, "heating_level": 1, "massage_mode": False, "massage_level": 1, "ventilation_enabled": False, "ventilation_speed": 1, "horizontal_position": 50, "vertical_position": 50, "folded": False, "cushion_extension": 50, "cushion_angle": 50, "backrest_angle": 50, "leg_support_height": 50, "foot_support_height": 50, "headrest_height": 50}, "Passenger seat settings"),
        "rear_left": Field({"heating_mode": False, "heating_level": 1, "massage_mode": False, "massage_level": 1, "ventilation_enabled": False, "ventilation_speed": 1, "horizontal_position": 50, "vertical_position": 50, "folded": False, "cushion_extension": 50, "cushion_angle": 50, "backrest_angle": 50, "leg_support_height": 50, "foot_support_height": 50, "headrest_height": 50}, "Rear left seat settings"),
        "rear_right": Field({"heating_mode": False, "heating_level": 1, "massage_mode": False, "massage_level": 1, "ventilation_enabled": False, "ventilation_speed": 1, "horizontal_position": 50, "vertical_position": 50, "folded": False, "cushion_extension": 50, "cushion_angle": 50, "backrest_angle": 50, "leg_support_height": 50, "foot_support_height": 50, "headrest_height": 50}, "Rear right seat settings"),
    }
    __slots__ = ()
