"""overheadScreen: overhead screen related (4 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_int

LANGUAGES: tuple[str, ...] = ("Chinese", "English")
LANGUAGE_ALIASES: dict[str, str] = {"中文": "Chinese", "英文": "English"}
TIME_FORMATS: tuple[str, ...] = ("12h", "24h")


def _stripped_choice(value: Any, choices: tuple[str, ...], what: str, aliases: dict[str, str] | None = None) -> str:
    """Official overhead-screen enum check: strip, alias lookup, then exact match.

    Any non-string (including a list or a map) is a handled rejection.

    Raises:
        Rejected: not a string, or not one of ``choices`` after stripping and alias lookup.
    """
    if isinstance(value, str):
        text = value.strip()
        text = (aliases or {}).get(text, text)
        if text in choices:
            return text
    raise Rejected(f"{what} must be one of {', '.join(choices)}, got {value!r}")


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

    @vehicle_api(level=IntRange(0, 5, unit="level"))
    def carcontrol_overheadScreen_set_brightness_level(self, level: int) -> Result:
        """Set overhead screen brightness level (0-5).

        Switches the screen on first, so it is on even when the level is rejected.
        """
        self.state["is_on"] = True
        require_int(level, 0, 5, "overhead screen brightness level")
        self.state["brightness_level"] = level
        return self.ok(f"Overhead screen brightness set to {level}")

    @vehicle_api(language=OneOf(*LANGUAGES, aliases=LANGUAGE_ALIASES, note="surrounding whitespace is stripped"))
    def carcontrol_overheadScreen_set_language(self, language: str) -> Result:
        """Set display language ('Chinese' or 'English').

        Switches the screen on first, so it is on even when the language is rejected. The input
        is stripped, then Chinese aliases are applied; matching is case-sensitive.
        """
        self.state["is_on"] = True
        value = _stripped_choice(language, LANGUAGES, "overhead screen language", LANGUAGE_ALIASES)
        self.state["language"] = value
        return self.ok(f"Overhead screen language set to {value}")

    @vehicle_api(time_format=OneOf(*TIME_FORMATS, note="surrounding whitespace is stripped"))
    def carcontrol_overheadScreen_set_time_format(self, time_format: str) -> Result:
        """Set time format ('12h' or '24h').

        Switches the screen on first, so it is on even when the format is rejected. The input is
        stripped; matching is case-sensitive (``"12H"`` is rejected).
        """
        self.state["is_on"] = True
        value = _stripped_choice(time_format, TIME_FORMATS, "overhead screen time format")
        self.state["time_format"] = value
        return self.ok(f"Overhead screen time format set to {value}")

    @vehicle_api()
    def carcontrol_overheadScreen_switch(self, switch: bool) -> Result:
        """Turn the overhead screen on or off.

        ``switch`` is coerced with ``bool()``.
        """
        value = bool(switch)
        self.state["is_on"] = value
        return self.ok("Overhead screen turned on" if value else "Overhead screen turned off")
