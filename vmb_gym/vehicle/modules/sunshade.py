"""sunshade: sunshade related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Sunshade(VehicleModule):
    """Sunshade related."""

    KEY = "sunshade"
    TYPE_NAME = "Sunshade"
    DESCRIPTION = "Sunshade related"
    FIELDS = {
        "front": Field({"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Front sunshade settings"),
        "rear": Field({"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}, "Rear sunshade settings"),
    }
    __slots__ = ()
