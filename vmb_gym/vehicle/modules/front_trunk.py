"""frontTrunk: front trunk related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class FrontTrunk(VehicleModule):
    """Front trunk related."""

    KEY = "frontTrunk"
    TYPE_NAME = "FrontTrunk"
    DESCRIPTION = "Front trunk related"
    FIELDS = {
        "is_on": Field(False, "Whether the front trunk is open"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()
