"""rearviewMirror: rearview mirror related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class RearviewMirror(VehicleModule):
    """Rearview mirror related."""

    KEY = "rearviewMirror"
    TYPE_NAME = "RearviewMirror"
    DESCRIPTION = "Rearview mirror related"
    FIELDS = {
        "left": Field({"is_on": False, "height_position": 0, "horizontal_position": 0, "auto_reverse_tilt": False, "auto_fold_on_lock": False, "heating_enabled": False}, "Left rearview mirror settings"),
        "right": Field({"is_on": False, "height_position": 0, "horizontal_position": 0, "auto_reverse_tilt": False, "auto_fold_on_lock": False, "heating_enabled": False}, "Right rearview mirror settings"),
    }
    __slots__ = ()
