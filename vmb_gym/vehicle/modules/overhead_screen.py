"""overheadScreen: overhead screen related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class OverheadScreen(VehicleModule):
    """Overhead screen related."""

    KEY = "overheadScreen"
    TYPE_NAME = "OverheadScreen"
    DESCRIPTION = "Overhead screen related"
    FIELDS = {
        "is_on": Field(False, "Whether the overhead screen is on"),
        "brightness_level": Field(0, "Brightness level (0-5)"),
        "time_format": Field("24h", "Time format"),
        "language": Field("Chinese", "Display language"),
    }
    __slots__ = ()
