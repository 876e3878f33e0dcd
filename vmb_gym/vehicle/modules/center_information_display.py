"""centerInformationDisplay: center information display related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class CenterInformationDisplay(VehicleModule):
    """Center information display related."""

    KEY = "centerInformationDisplay"
    TYPE_NAME = "CenterInformationDisplay"
    DESCRIPTION = "Center information display related"
    FIELDS = {
        "is_on": Field(False, "Whether the center display is on"),
        "brightness": Field(30, "Display brightness (0-100)"),
        "auto_brightness_enabled": Field(False, "Whether auto brightness is enabled"),
        "time_format": Field("24h", "Time format (12h/24h)"),
        "language": Field("English", "Display language"),
    }
    __slots__ = ()
