"""window: window related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Window(VehicleModule):
    """Window related."""

    KEY = "window"
    TYPE_NAME = "Window"
    DESCRIPTION = "Window related"
    FIELDS = {
        "driver": Field({"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False}, "Driver window settings"),
        "passenger": Field({"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False}, "Passenger window settings"),
        "rear_left": Field({"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False}, "Rear left window settings"),
        "rear_right": Field({"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False}, "Rear right window settings"),
    }
    __slots__ = ()
