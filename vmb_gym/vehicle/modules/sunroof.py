"""sunroof: sunroof related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Sunroof(VehicleModule):
    """Sunroof related."""

    KEY = "sunroof"
    TYPE_NAME = "Sunroof"
    DESCRIPTION = "Sunroof related"
    FIELDS = {
        "is_locked": Field(False, "Whether the sunroof is locked"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()
