"""light: light related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Light(VehicleModule):
    """Light related."""

    KEY = "light"
    TYPE_NAME = "Light"
    DESCRIPTION = "Light related"
    FIELDS = {
        "fog_light": Field({"is_on": False}, "Fog light settings"),
        "high_beam": Field({"is_on": False}, "High beam settings"),
        "low_beam": Field({"is_on": False, "level": "lowest"}, "Low beam settings"),
        "daytime_running": Field({"is_on": False}, "Daytime running light settings"),
        "left_turn": Field({"is_on": False}, "Left turn signal settings"),
        "right_turn": Field({"is_on": False}, "Right turn signal settings"),
        "auto_headlight": Field({"is_on": False}, "Auto headlight settings"),
        "hazard": Field({"is_on": False}, "Hazard light settings"),
        "position": Field({"is_on": False}, "Position light settings"),
        "tail": Field({"is_on": False}, "Tail light settings"),
        "ambient": Field({"is_on": False, "color": "orange"}, "Ambient light settings"),
        "reading_light": Field({"driver": {"is_on": False, "brightness": 1}, "passenger": {"is_on": False, "brightness": 1}, "rear_left": {"is_on": False, "brightness": 1}, "rear_right": {"is_on": False, "brightness": 1}}, "Reading light settings"),
    }
    __slots__ = ()
