"""Tests for the centerInformationDisplay module (5 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "centerInformationDisplay.value."


def _call(sim: VehicleSimulator, fn: str, **kwargs: Any) -> dict[str, Any]:
    return sim.call(f"carcontrol_centerInformationDisplay_{fn}", kwargs)


def test_set_brightness_valid_switches_on() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_brightness", brightness=70)["success"] is True
    flat = sim.flatten()
    assert flat[P + "brightness"] == 70
    assert flat[P + "is_on"] is True


@pytest.mark.parametrize("bad", [101, -1, 70.0, "70", None, [70]])
def test_set_brightness_rejected_keeps_auto_on(bad: Any) -> None:
    sim = VehicleSimulator()
    res = _call(sim, "set_brightness", brightness=bad)
    assert res["success"] is False and "error" not in res
    state = sim.module("centerInformationDisplay").state
    assert state["brightness"] == 30
    assert state["is_on"] is True  # auto-on happens before validation


def test_set_brightness_bool_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_brightness", brightness=False)["success"] is True
    assert sim.flatten()[P + "brightness"] is False


def test_set_language_valid_and_rejected() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_language", language="Chinese")["success"] is True
    assert sim.flatten()[P + "language"] == "Chinese"
    sim = VehicleSimulator()
    for bad in ("中文", "chinese", " Chinese ", ["Chinese"]):
        res = _call(sim, "set_language", language=bad)
        assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + "language"] == "English"
    assert sim.flatten()[P + "is_on"] is True


def test_set_time_format_valid_and_case_sensitive() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_time_format", time_format="12h")["success"] is True
    assert sim.flatten()[P + "time_format"] == "12h"
    sim = VehicleSimulator()
    assert _call(sim, "set_time_format", time_format="12H")["success"] is False
    assert sim.flatten()[P + "time_format"] == "24h"
    assert sim.flatten()[P + "is_on"] is True


@pytest.mark.parametrize(
    ("value", "expected"), [(True, True), ("false", True), (0, False), ("", False), ([False], True)]
)
def test_set_power_coerces_with_bool(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_power", is_on=value)["success"] is True
    assert sim.flatten()[P + "is_on"] is expected


def test_set_power_off_after_on() -> None:
    sim = VehicleSimulator()
    _call(sim, "set_brightness", brightness=50)
    assert _call(sim, "set_power", is_on=False)["success"] is True
    assert sim.flatten()[P + "is_on"] is False
    assert sim.flatten()[P + "brightness"] == 50


def test_set_auto_brightness_switches_display_on_even_when_disabling() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_auto_brightness", enabled=False)["success"] is True
    assert sim.flatten()[P + "is_on"] is True
    assert sim.flatten()[P + "auto_brightness_enabled"] is False
    assert _call(sim, "set_auto_brightness", enabled="off")["success"] is True  # truthy string
    assert sim.flatten()[P + "auto_brightness_enabled"] is True


def test_wrong_keyword_is_an_error_without_side_effect() -> None:
    sim = VehicleSimulator()
    res = _call(sim, "set_brightness", level=50)
    assert res["success"] is False and "error" in res
    assert sim.flatten()[P + "is_on"] is False
