"""Tests for the trunk module (2 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "trunk.value."


def test_set_open_degree_opens_then_zero_closes() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_trunk_set_open_degree", {"degree": 60})["success"] is True
    assert sim.flatten()[P + "open_degree"] == 60
    assert sim.flatten()[P + "is_on"] is True
    assert sim.call("carcontrol_trunk_set_open_degree", {"degree": 0})["success"] is True
    assert sim.flatten()[P + "is_on"] is False
    assert sim.flatten()[P + "open_degree"] == 0


@pytest.mark.parametrize("bad", [101, 60.5, 60.0])
def test_positive_rejected_degree_still_switches_on(bad: Any) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_trunk_set_open_degree", {"degree": bad})
    assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + "is_on"] is True
    assert sim.flatten()[P + "open_degree"] == 0


def test_negative_degree_rejected_without_side_effect() -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    assert sim.call("carcontrol_trunk_set_open_degree", {"degree": -1})["success"] is False
    assert sim.flatten() == before


@pytest.mark.parametrize("bad", ["60", None, [60], {"value": 60}])
def test_non_numeric_degree_is_an_error(bad: Any) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_trunk_set_open_degree", {"degree": bad})
    assert res["success"] is False and "error" in res
    assert sim.flatten()[P + "is_on"] is False


def test_bool_degree_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_trunk_set_open_degree", {"degree": True})["success"] is True
    assert sim.flatten()[P + "open_degree"] is True
    assert sim.flatten()[P + "is_on"] is True


@pytest.mark.parametrize(("value", "expected"), [(True, True), ("false", True), (0, False), ([], False)])
def test_switch_coerces_and_keeps_degree(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_trunk_set_open_degree", {"degree": 30})
    assert sim.call("carcontrol_trunk_switch", {"switch": value})["success"] is True
    assert sim.flatten()[P + "is_on"] is expected
    assert sim.flatten()[P + "open_degree"] == 30
