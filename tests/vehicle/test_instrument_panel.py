"""Tests for the instrumentPanel module (8 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "instrumentPanel.value."


def _call(sim: VehicleSimulator, fn: str, **kwargs: Any) -> dict[str, Any]:
    return sim.call(f"carcontrol_instrumentPanel_{fn}", kwargs)


@pytest.mark.parametrize(
    ("fn", "param", "value", "field"),
    [
        ("set_theme", "theme", "map", "theme"),
        ("set_color", "color", "green", "color"),
        ("set_color", "color", "black", "color"),
        ("set_behavior_mode", "mode", "blink", "behavior_mode"),
        ("set_behavior_mode", "mode", "off", "behavior_mode"),
        ("set_language", "language", "Chinese", "language"),
        ("set_time_format", "time_format", "12h", "time_format"),
        ("set_brightness", "brightness", 5, "brightness"),
        ("set_total_mileage", "mileage", 12345, "total_mileage"),
    ],
)
def test_valid_setters_store_value(fn: str, param: str, value: Any, field: str) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, **{param: value})["success"] is True
    assert sim.flatten()[P + field] == value


@pytest.mark.parametrize(
    ("fn", "param", "value", "field", "default"),
    [
        ("set_theme", "theme", "Map", "theme", "scene"),
        ("set_color", "color", "blue", "color", "white"),
        ("set_color", "color", "Green", "color", "white"),
        ("set_color", "color", ["green"], "color", "white"),
        ("set_behavior_mode", "mode", "flash", "behavior_mode", "constant"),
        ("set_language", "language", "中文", "language", "English"),
        ("set_time_format", "time_format", "12 h", "time_format", "24h"),
        ("set_brightness", "brightness", 6, "brightness", 3),
        ("set_brightness", "brightness", False, "brightness", 3),
        ("set_brightness", "brightness", 4.0, "brightness", 3),
        ("set_total_mileage", "mileage", 0, "total_mileage", 1),
        ("set_total_mileage", "mileage", "500", "total_mileage", 1),
    ],
)
def test_rejected_values_change_nothing(fn: str, param: str, value: Any, field: str, default: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    res = _call(sim, fn, **{param: value})
    assert res["success"] is False and "error" not in res
    assert sim.flatten() == before
    assert sim.flatten()[P + field] == default


def test_total_mileage_has_no_upper_bound_and_bool_passes() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_total_mileage", mileage=10**9)["success"] is True
    assert sim.flatten()[P + "total_mileage"] == 10**9
    assert _call(sim, "set_total_mileage", mileage=True)["success"] is True
    assert sim.flatten()[P + "total_mileage"] is True


def test_rejection_after_success_keeps_previous_value() -> None:
    sim = VehicleSimulator()
    _call(sim, "set_total_mileage", mileage=500)
    assert _call(sim, "set_total_mileage", mileage=0)["success"] is False
    assert sim.flatten()[P + "total_mileage"] == 500


@pytest.mark.parametrize(("value", "expected"), [(True, True), ("false", True), (0, False), (None, False)])
def test_set_auto_brightness_coerces(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_auto_brightness", enabled=value)["success"] is True
    assert sim.module("instrumentPanel").state["auto_brightness_enabled"] is expected
