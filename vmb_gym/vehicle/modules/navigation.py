"""navigation: vehicle navigation system related (9 APIs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_choice, require_int

_VOICE_MODES = ("simple", "detailed", "mute")
_VOICE_ALIASES = {"简洁": "simple", "详细": "detailed", "静音": "mute"}
_MAP_VIEWS = ("2d", "3d", "heading_up", "north_up")
_ROUTES = ("fastest", "shortest", "no_highway", "no_toll")
_ROUTE_ALIASES = {"最快": "fastest", "最短": "shortest", "不走高速": "no_highway", "避免收费": "no_toll"}


def _empty_destination() -> dict[str, Any]:
    return {"name": "", "route_preference": "fastest", "is_navigating": False}


def _enum_with_aliases(value: Any, choices: tuple[str, ...], aliases: Mapping[str, str], what: str) -> str:
    """Exact enum match after alias lookup, rejecting (not raising on) unhashable values.

    The official code converts through an ``Enum``, whose lookup falls back to equality for
    unhashable values, so a list or a dict is a handled rejection rather than an error.
    """
    if isinstance(value, str):
        value = aliases.get(value, value)
    return require_choice(value, choices, what)


class Navigation(VehicleModule):
    """Vehicle navigation system related.

    Every setter except ``switch`` and ``stop`` switches navigation on BEFORE validating, so a
    rejected value still leaves ``is_on`` True.
    """

    KEY = "navigation"
    TYPE_NAME = "Navigation"
    DESCRIPTION = "Vehicle navigation system related"
    FIELDS = {
        "is_on": Field(False, "Whether navigation is on"),
        "voice_mode": Field("detailed", "Voice guidance mode"),
        "volume": Field(50, "Navigation volume (0-100)"),
        "map_view": Field("2d", "Map view"),
        "map_zoom": Field(5, "Map zoom level (1-10)"),
        "traffic_display_enabled": Field(True, "Whether traffic is shown"),
        "speed_camera_enabled": Field(True, "Whether speed camera alerts are on"),
        "current_destination": Field(
            {"name": "", "route_preference": "fastest", "is_navigating": False},
            "Current destination info (name, route_preference, is_navigating)",
        ),
    }
    __slots__ = ()

    @vehicle_api(
        route_preference=OneOf(
            *_ROUTES, aliases=_ROUTE_ALIASES, note="optional; a missing or falsy value means fastest"
        )
    )
    def carcontrol_navigation_navigate_to(self, destination: str, route_preference: str | None = None) -> Result:
        """Navigate to a destination. This is the primary navigation function.

        A falsy or whitespace-only destination is rejected with no side effect; a truthy
        non-string one (a number, a list) raises (an ``error`` result). Then navigation is
        switched on, and only then is the route preference checked, so a bad preference fails
        with ``is_on`` True. A falsy preference means ``"fastest"``; the Chinese aliases
        最快/最短/不走高速/避免收费 are accepted. The destination is stored stripped.
        """
        if not destination or not destination.strip():
            raise Rejected("Destination cannot be empty")
        self.state["is_on"] = True
        preference = _enum_with_aliases(route_preference or "fastest", _ROUTES, _ROUTE_ALIASES, "Route preference")
        name = destination.strip()
        self.state["current_destination"] = {"name": name, "route_preference": preference, "is_navigating": True}
        return self.ok(f"Navigating to {name} ({preference})")

    @vehicle_api(view=OneOf(*_MAP_VIEWS))
    def carcontrol_navigation_set_map_view(self, view: str) -> Result:
        """Set map view (2d/3d/heading_up/north_up).

        Switches navigation on first. Exact, case-sensitive match (``"3D"`` is rejected).
        """
        self.state["is_on"] = True
        self.state["map_view"] = require_choice(view, _MAP_VIEWS, "Map view")
        return self.ok(f"Map view set to {view}")

    @vehicle_api(zoom=IntRange(1, 10, unit="level"))
    def carcontrol_navigation_set_map_zoom(self, zoom: int) -> Result:
        """Set map zoom (1-10).

        Switches navigation on first, so it is on even when the zoom is rejected.
        """
        self.state["is_on"] = True
        require_int(zoom, 1, 10, "Map zoom")
        self.state["map_zoom"] = zoom
        return self.ok(f"Map zoom set to {zoom}")

    @vehicle_api()
    def carcontrol_navigation_set_speed_camera_alert(self, enabled: bool) -> Result:
        """Enable or disable speed camera alerts.

        Switches navigation on and stores ``bool(enabled)``; never fails.
        """
        self.state["is_on"] = True
        self.state["speed_camera_enabled"] = bool(enabled)
        return self.ok(f"Speed camera alerts {'enabled' if enabled else 'disabled'}")

    @vehicle_api()
    def carcontrol_navigation_set_traffic_display(self, enabled: bool) -> Result:
        """Enable or disable traffic display on map.

        Switches navigation on and stores ``bool(enabled)``; never fails.
        """
        self.state["is_on"] = True
        self.state["traffic_display_enabled"] = bool(enabled)
        return self.ok(f"Traffic display {'enabled' if enabled else 'disabled'}")

    @vehicle_api(mode=OneOf(*_VOICE_MODES, aliases=_VOICE_ALIASES))
    def carcontrol_navigation_set_voice_mode(self, mode: str) -> Result:
        """Set voice guidance mode (simple/detailed/mute).

        Switches navigation on first. Exact, case-sensitive match; the Chinese aliases
        简洁/详细/静音 are accepted (not trimmed).
        """
        self.state["is_on"] = True
        value = _enum_with_aliases(mode, _VOICE_MODES, _VOICE_ALIASES, "Voice mode")
        self.state["voice_mode"] = value
        return self.ok(f"Voice mode set to {value}")

    @vehicle_api(volume=IntRange(0, 100, unit="percent"))
    def carcontrol_navigation_set_volume(self, volume: int) -> Result:
        """Set voice volume (0-100).

        Switches navigation on first, so it is on even when the volume is rejected.
        """
        self.state["is_on"] = True
        require_int(volume, 0, 100, "Navigation volume")
        self.state["volume"] = volume
        return self.ok(f"Navigation volume set to {volume}")

    @vehicle_api()
    def carcontrol_navigation_stop(self) -> Result:
        """Stop current navigation and clear destination.

        Resets ``current_destination`` to its initial value; ``is_on`` is left unchanged.
        Always succeeds, even with no destination.
        """
        self.state["current_destination"] = _empty_destination()
        return self.ok("Navigation stopped")

    @vehicle_api()
    def carcontrol_navigation_switch(self, switch: bool) -> Result:
        """Turn the navigation device on or off.

        Stores ``bool(switch)``; switching off (a falsy value) also clears the destination.
        """
        self.state["is_on"] = bool(switch)
        if not switch:
            self.state["current_destination"] = _empty_destination()
        return self.ok("Navigation turned on" if switch else "Navigation turned off")
