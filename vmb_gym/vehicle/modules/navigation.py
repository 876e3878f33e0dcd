"""navigation: vehicle navigation system related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Navigation(VehicleModule):
    """Vehicle navigation system related."""

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
        "current_destination": Field({"name": "", "route_preference": "fastest", "is_navigating": False}, "Current destination info (name, route_preference, is_navigating)"),
    }
    __slots__ = ()
