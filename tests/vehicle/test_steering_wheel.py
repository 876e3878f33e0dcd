"""Steering wheel APIs: heating level enables heating before validation, even at level 0."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("steeringWheel").state


def test_set_heating_enabled_keeps_level() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_steeringWheel_set_heating_level", {"level": 4})
    assert sim.call("carcontrol_steeringWheel_set_heating_enabled", {"enabled": False})["success"] is True
    assert _state(sim) == {"view_display_enabled": False, "heating_enabled": False, "heating_level": 4}


@pytest.mark.parametrize(
    ("enabled", "on"), [("false", True), ("0", True), (-1, True), (0.0, False), ([], False), (None, False)]
)
def test_set_heating_enabled_coerces(enabled: object, on: bool) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_steeringWheel_set_heating_enabled", {"enabled": enabled})["success"] is True
    assert sim.flatten()["steeringWheel.value.heating_enabled"] is on


def test_set_heating_level_enables_heating() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_steeringWheel_set_heating_level", {"level": 10})["success"] is True
    assert _state(sim) == {"view_display_enabled": False, "heating_enabled": True, "heating_level": 10}


def test_set_heating_level_zero_still_enables() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_steeringWheel_set_heating_level", {"level": 0})["success"] is True
    assert _state(sim)["heating_enabled"] is True and _state(sim)["heating_level"] == 0


@pytest.mark.parametrize("level", [-1, 11, "5", 5.0, None, [5], {"value": 5}])
def test_set_heating_level_rejects_but_enables(level: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_steeringWheel_set_heating_level", {"level": level})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["heating_enabled"] is True and _state(sim)["heating_level"] == 0


def test_set_heating_level_true_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_steeringWheel_set_heating_level", {"level": True})["success"] is True
    assert sim.flatten()["steeringWheel.value.heating_level"] is True


def test_set_view_display_enabled() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_steeringWheel_set_view_display_enabled", {"enabled": "off"})["success"] is True
    assert _state(sim) == {"view_display_enabled": True, "heating_enabled": False, "heating_level": 0}
    sim.call("carcontrol_steeringWheel_set_view_display_enabled", {"enabled": 0})
    assert _state(sim)["view_display_enabled"] is False
    assert "error" in sim.call("carcontrol_steeringWheel_set_view_display_enabled", {"ENABLED": True})
