"""centerInformationDisplay: center information display related (5 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_choice, require_int

_TIME_FORMATS = ("12h", "24h")
_LANGUAGES = ("Chinese", "English")


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

    @vehicle_api()
    def carcontrol_centerInformationDisplay_set_auto_brightness(self, enabled: bool) -> Result:
        """Enable or disable auto brightness mode.

        Switches the display on (even when disabling) and stores ``bool(enabled)``; never fails.
        """
        self.state["is_on"] = True
        self.state["auto_brightness_enabled"] = bool(enabled)
        return self.ok(f"Center display auto brightness {'enabled' if enabled else 'disabled'}")

    @vehicle_api(brightness=IntRange(0, 100, unit="percent"))
    def carcontrol_centerInformationDisplay_set_brightness(self, brightness: int) -> Result:
        """Set center display brightness (0-100).

        Switches the display on first, so it is on even when the brightness is rejected.
        ``True``/``False`` pass the integer check and are stored as booleans.
        """
        self.state["is_on"] = True
        require_int(brightness, 0, 100, "Center display brightness")
        self.state["brightness"] = brightness
        return self.ok(f"Center display brightness set to {brightness}")

    @vehicle_api(language=OneOf(*_LANGUAGES))
    def carcontrol_centerInformationDisplay_set_language(self, language: str) -> Result:
        """Set display language ('Chinese' or 'English').

        Switches the display on first. Exact, case-sensitive match; no Chinese aliases.
        """
        self.state["is_on"] = True
        self.state["language"] = require_choice(language, _LANGUAGES, "Center display language")
        return self.ok(f"Center display language set to {language}")

    @vehicle_api()
    def carcontrol_centerInformationDisplay_set_power(self, is_on: bool) -> Result:
        """Set center display power state.

        Stores ``bool(is_on)``, so any truthy value (even ``"false"``) turns the display on.
        """
        self.state["is_on"] = bool(is_on)
        return self.ok("Center display turned on" if is_on else "Center display turned off")

    @vehicle_api(time_format=OneOf(*_TIME_FORMATS))
    def carcontrol_centerInformationDisplay_set_time_format(self, time_format: str) -> Result:
        """Set time format ('12h' or '24h').

        Switches the display on first. Exact, case-sensitive match (``"12H"`` is rejected).
        """
        self.state["is_on"] = True
        self.state["time_format"] = require_choice(time_format, _TIME_FORMATS, "Center display time format")
        return self.ok(f"Center display time format set to {time_format}")
