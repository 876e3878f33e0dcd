"""instrumentPanel: instrument panel related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class InstrumentPanel(VehicleModule):
    """Instrument panel related."""

    KEY = "instrumentPanel"
    TYPE_NAME = "InstrumentPanel"
    DESCRIPTION = "Instrument panel related"
    FIELDS = {
        "total_mileage": Field(1, "Total mileage"),
        "theme": Field("scene", "Display theme"),
        "brightness": Field(3, "Brightness (1-5)"),
        "color": Field("white", "Display color"),
        "behavior_mode": Field("constant", "Behavior mode"),
        "auto_brightness_enabled": Field(False, "Whether auto brightness is enabled"),
        "time_format": Field("24h", "Time format"),
        "language": Field("English", "Display language"),
    }
    __slots__ = ()
