"""radio: vehicle radio system related (3 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_int

#: The hidden station catalogue of the official radio (not part of the exported state).
STATIONS: tuple[dict[str, str], ...] = (
    {"name": "News FM", "frequency": "98.7MHz"},
    {"name": "Music FM", "frequency": "103.2MHz"},
)


class Radio(VehicleModule):
    """Vehicle radio system related."""

    KEY = "radio"
    TYPE_NAME = "Radio"
    DESCRIPTION = "Vehicle radio system related"
    FIELDS = {
        "is_on": Field(False, "Whether the radio is on"),
        "volume": Field(50, "Radio volume (0-100)"),
        "current_station": Field({}, "Current radio station info"),
    }
    __slots__ = ()

    @vehicle_api()
    def carcontrol_radio_play_station(self, name: str | None = None, frequency: str | None = None) -> Result:
        """Play a station by name or frequency.

        Switches the radio on first, so it is on even when the call fails (both arguments falsy).
        The hidden catalogue (News FM/98.7MHz, Music FM/103.2MHz) is searched station by station,
        each matching on the exact name or the exact frequency, so a known frequency wins over a
        conflicting name that belongs to a later station. Without a match the arguments are stored
        as given (not stripped, not type-checked; a falsy one becomes ``""``).
        """
        self.state["is_on"] = True
        if not name and not frequency:
            raise Rejected("Either a station name or a frequency is required")
        for station in STATIONS:
            if station["name"] == name or station["frequency"] == frequency:
                self.state["current_station"] = dict(station)
                break
        else:
            self.state["current_station"] = {"name": name or "", "frequency": frequency or ""}
        shown: Any = self.state["current_station"]["name"] or self.state["current_station"]["frequency"]
        return self.ok(f"Playing station {shown}")

    @vehicle_api(volume=IntRange(0, 100, unit="percent"))
    def carcontrol_radio_set_volume(self, volume: int) -> Result:
        """Set radio volume (0-100).

        Switches the radio on first, so it is on even when the volume is rejected.
        """
        self.state["is_on"] = True
        require_int(volume, 0, 100, "Radio volume")
        self.state["volume"] = volume
        return self.ok(f"Radio volume set to {volume}")

    @vehicle_api()
    def carcontrol_radio_switch(self, switch: bool) -> Result:
        """Turn the radio on or off.

        ``switch`` is coerced with ``bool()``; the current station is kept when switching off.
        """
        on = bool(switch)
        self.state["is_on"] = on
        return self.ok("Radio turned on" if on else "Radio turned off")
