"""Tests for the frontTrunk module (2 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "frontTrunk.value."


def test_set_open_degree_opens() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_frontTrunk_set_open_degree", {"degree": 60})["success"] is True
    flat = sim.flatten()
    assert flat[P + "open_degree"] == 60
    assert flat[P + "is_on"] is True


def test_set_open_degree_zero_closes() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_frontTrunk_set_open_degree", {"degree": 60})
    assert sim.call("carcontrol_frontTrunk_set_open_degree", {"degree": 0})["success"] is True
    assert sim.flatten()[P + "is_on"] is False
    assert sim.flatten()[P + "open_degree"] == 0


@pytest.mark.parametrize("bad", [101, -1, 60.0, "60", None, [60]])
def test_set_open_degree_rejects_without_side_effect(bad: Any) -> None:
    """Unlike the rear trunk, the front trunk validates before anything changes."""
    sim = VehicleSimulator()
    before = sim.flatten()
    res = sim.call("carcontrol_frontTrunk_set_open_degree", {"degree": bad})
    assert res["success"] is False and "error" not in res
    assert sim.flatten() == before


@pytest.mark.parametrize(("value", "expected"), [(True, True), ("false", True), (0, False), ({}, False)])
def test_switch_coerces(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_frontTrunk_switch", {"switch": value})["success"] is True
    assert sim.flatten()[P + "is_on"] is expected


def test_switch_off_keeps_open_degree() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_frontTrunk_set_open_degree", {"degree": 60})
    sim.call("carcontrol_frontTrunk_switch", {"switch": False})
    assert sim.flatten()[P + "is_on"] is False
    assert sim.flatten()[P + "open_degree"] == 60
