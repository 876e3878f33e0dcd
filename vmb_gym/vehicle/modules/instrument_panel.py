"""instrumentPanel: instrument panel related (8 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_choice, require_int

_THEMES = ("scene", "map")
_COLORS = ("yellow", "green", "red", "orange", "white", "black")
_BEHAVIOR_MODES = ("constant", "blink", "off")
_TIME_FORMATS = ("12h", "24h")
_LANGUAGES = ("Chinese", "English")


class InstrumentPanel(VehicleModule):
    """Instrument panel related.

    The panel has no power field: no setter switches anything on, and every rejection leaves
    the state unchanged.
    """

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

    @vehicle_api()
    def carcontrol_instrumentPanel_set_auto_brightness(self, enabled: bool) -> Result:
        """Enable or disable auto brightness mode.

        Stores ``bool(enabled)``; never fails.
        """
        self.state["auto_brightness_enabled"] = bool(enabled)
        return self.ok(f"Instrument panel auto brightness {'enabled' if enabled else 'disabled'}")

    @vehicle_api(mode=OneOf(*_BEHAVIOR_MODES))
    def carcontrol_instrumentPanel_set_behavior_mode(self, mode: str) -> Result:
        """Set behavior mode ('constant', 'blink', or 'off').

        Exact, case-sensitive match.
        """
        self.state["behavior_mode"] = require_choice(mode, _BEHAVIOR_MODES, "Instrument panel behavior mode")
        return self.ok(f"Instrument panel behavior mode set to {mode}")

    @vehicle_api(brightness=IntRange(1, 5, unit="level"))
    def carcontrol_instrumentPanel_set_brightness(self, brightness: int) -> Result:
        """Set brightness (1-5).

        ``True`` passes as 1 and is stored as a boolean; ``False`` (0) is out of range.
        """
        require_int(brightness, 1, 5, "Instrument panel brightness")
        self.state["brightness"] = brightness
        return self.ok(f"Instrument panel brightness set to {brightness}")

    @vehicle_api(color=OneOf(*_COLORS, note="the official schema text lists no colours; blue is not accepted"))
    def carcontrol_instrumentPanel_set_color(self, color: str) -> Result:
        """Set display color.

        Accepts exactly yellow, green, red, orange, white or black (lower case; no blue).
        """
        self.state["color"] = require_choice(color, _COLORS, "Instrument panel color")
        return self.ok(f"Instrument panel color set to {color}")

    @vehicle_api(language=OneOf(*_LANGUAGES))
    def carcontrol_instrumentPanel_set_language(self, language: str) -> Result:
        """Set display language ('Chinese' or 'English').

        Exact, case-sensitive match; no Chinese aliases.
        """
        self.state["language"] = require_choice(language, _LANGUAGES, "Instrument panel language")
        return self.ok(f"Instrument panel language set to {language}")

    @vehicle_api(theme=OneOf(*_THEMES))
    def carcontrol_instrumentPanel_set_theme(self, theme: str) -> Result:
        """Set instrument panel theme ('scene' or 'map').

        Exact, case-sensitive match.
        """
        self.state["theme"] = require_choice(theme, _THEMES, "Instrument panel theme")
        return self.ok(f"Instrument panel theme set to {theme}")

    @vehicle_api(time_format=OneOf(*_TIME_FORMATS))
    def carcontrol_instrumentPanel_set_time_format(self, time_format: str) -> Result:
        """Set time format ('12h' or '24h').

        Exact, case-sensitive match.
        """
        self.state["time_format"] = require_choice(time_format, _TIME_FORMATS, "Instrument panel time format")
        return self.ok(f"Instrument panel time format set to {time_format}")

    @vehicle_api(mileage=IntRange(1, None))
    def carcontrol_instrumentPanel_set_total_mileage(self, mileage: int) -> Result:
        """Set total mileage (>0).

        Any integer >= 1 is accepted (no upper bound); ``True`` passes and is stored as a boolean.
        """
        require_int(mileage, 1, None, "Total mileage")
        self.state["total_mileage"] = mileage
        return self.ok(f"Total mileage set to {mileage}")
