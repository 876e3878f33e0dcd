"""Overhead screen APIs: auto-on before validation, stripped enums, Chinese default language."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("overheadScreen").state


def test_initial_language_is_chinese() -> None:
    assert VehicleSimulator().flatten()["overheadScreen.value.language"] == "Chinese"


def test_set_brightness_level() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_overheadScreen_set_brightness_level", {"level": 5})["success"] is True
    assert _state(sim) == {"is_on": True, "brightness_level": 5, "time_format": "24h", "language": "Chinese"}


@pytest.mark.parametrize("level", [-1, 6, "3", 3.0, None, [3]])
def test_set_brightness_level_rejects_but_turns_on(level: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_overheadScreen_set_brightness_level", {"level": level})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True and _state(sim)["brightness_level"] == 0


@pytest.mark.parametrize(
    ("language", "stored"),
    [("English", "English"), (" English ", "English"), ("英文", "English"), (" 中文 ", "Chinese")],
)
def test_set_language_strips_and_maps_aliases(language: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_overheadScreen_set_language", {"language": language})["success"] is True
    assert sim.flatten()["overheadScreen.value.language"] == stored


@pytest.mark.parametrize(
    "language", ["ENGLISH", "chinese", "简体中文", "French", "   ", None, 1, ["English"], {"value": "English"}]
)
def test_set_language_rejects_but_turns_on(language: object) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_overheadScreen_switch", {"switch": False})
    res = sim.call("carcontrol_overheadScreen_set_language", {"language": language})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True and _state(sim)["language"] == "Chinese"


def test_set_time_format() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_overheadScreen_set_time_format", {"time_format": " 12h "})["success"] is True
    assert _state(sim)["time_format"] == "12h" and _state(sim)["is_on"] is True


@pytest.mark.parametrize("fmt", ["12H", "12", "12-hour", "", None, 12, ["12h"]])
def test_set_time_format_rejects_but_turns_on(fmt: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_overheadScreen_set_time_format", {"time_format": fmt})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True and _state(sim)["time_format"] == "24h"


@pytest.mark.parametrize(
    ("switch", "on"), [(True, True), ("false", True), (2, True), ("", False), (None, False), ({}, False)]
)
def test_switch_coerces_with_bool(switch: object, on: bool) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_overheadScreen_switch", {"switch": switch})["success"] is True
    assert sim.flatten()["overheadScreen.value.is_on"] is on


def test_switch_missing_argument_is_error() -> None:
    sim = VehicleSimulator()
    assert "error" in sim.call("carcontrol_overheadScreen_switch", {})
    assert _state(sim)["is_on"] is False
