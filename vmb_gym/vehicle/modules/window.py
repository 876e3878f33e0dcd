"""window: window related (4 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import ZONE_ALIASES, ZONE_GROUPS, Field, Result, VehicleModule, require_int, resolve_targets

#: The window argument: a window or group, Chinese aliases accepted; a falsy value means driver.
WINDOW = OneOf(*ZONE_GROUPS, aliases=ZONE_ALIASES, note="a falsy value means driver")


class Window(VehicleModule):
    """Window related."""

    KEY = "window"
    TYPE_NAME = "Window"
    DESCRIPTION = "Window related"
    FIELDS = {
        "driver": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Driver window settings",
        ),
        "passenger": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Passenger window settings",
        ),
        "rear_left": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Rear left window settings",
        ),
        "rear_right": Field(
            {"is_open": False, "open_degree": 0, "child_lock": False, "auto_close_on_lock": False},
            "Rear right window settings",
        ),
    }
    __slots__ = ()

    def _set_flag(self, window: Any, key: str, value: Any) -> tuple[str, ...]:
        """Store ``bool(value)`` under ``key`` for each named window."""
        windows = resolve_targets(window, "window")
        flag = bool(value)
        for w in windows:
            self.update_field(w, {key: flag})
        return windows

    @vehicle_api(window=WINDOW)
    def carcontrol_window_set_auto_close_on_lock(self, window: str, enabled: bool) -> Result:
        """Enable or disable auto close on lock.

        ``enabled`` is coerced with ``bool()``.
        """
        windows = self._set_flag(window, "auto_close_on_lock", enabled)
        return self.ok(f"Auto close on lock {'enabled' if enabled else 'disabled'} for {', '.join(windows)}")

    @vehicle_api(window=WINDOW)
    def carcontrol_window_set_child_lock(self, window: str, enabled: bool) -> Result:
        """Enable or disable window child lock.

        ``enabled`` is coerced with ``bool()``; the child lock does not block the window APIs.
        """
        windows = self._set_flag(window, "child_lock", enabled)
        return self.ok(f"Child lock {'enabled' if enabled else 'disabled'} for {', '.join(windows)}")

    @vehicle_api(window=WINDOW)
    def carcontrol_window_set_open(self, window: str, is_open: bool) -> Result:
        """Set window open state for a window or group.

        ``is_open`` is coerced with ``bool()``; ``open_degree`` is left unchanged.
        """
        windows = self._set_flag(window, "is_open", is_open)
        return self.ok(f"Windows {'opened' if is_open else 'closed'}: {', '.join(windows)}")

    @vehicle_api(window=WINDOW, degree=IntRange(0, 100, unit="percent"))
    def carcontrol_window_set_open_degree(self, window: str, degree: int) -> Result:
        """Set window open degree (0-100). Auto open when > 0, auto close when = 0.

        The degree is validated before anything changes; ``is_open`` becomes ``degree > 0``
        (``True`` is stored as the degree and opens the window, ``False`` closes it).
        """
        require_int(degree, 0, 100, "Window open degree")
        windows = resolve_targets(window, "window")
        for w in windows:
            self.update_field(w, {"open_degree": degree, "is_open": degree > 0})
        return self.ok(f"Window open degree set to {degree} for {', '.join(windows)}")
