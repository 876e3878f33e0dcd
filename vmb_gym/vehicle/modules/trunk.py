"""trunk: trunk related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Trunk(VehicleModule):
    """Trunk related."""

    KEY = "trunk"
    TYPE_NAME = "Trunk"
    DESCRIPTION = "Trunk related"
    FIELDS = {
        "is_on": Field(False, "Whether the trunk is open"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()
