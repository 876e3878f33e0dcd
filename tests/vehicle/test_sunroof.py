"""Tests for the sunroof module (2 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "sunroof.value."


def _degree(sim: VehicleSimulator, degree: Any) -> dict[str, Any]:
    return sim.call("carcontrol_sunroof_set_open_degree", {"degree": degree})


def test_set_open_degree_unlocks_and_zero_locks() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunroof_set_locked", {"locked": True})
    assert _degree(sim, 50)["success"] is True
    assert sim.flatten()[P + "open_degree"] == 50
    assert sim.flatten()[P + "is_locked"] is False
    assert _degree(sim, 0)["success"] is True
    assert sim.flatten()[P + "open_degree"] == 0
    assert sim.flatten()[P + "is_locked"] is True


@pytest.mark.parametrize("bad", [101, 20.5])
def test_positive_rejected_degree_still_unlocks(bad: Any) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunroof_set_locked", {"locked": True})
    res = _degree(sim, bad)
    assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + "is_locked"] is False
    assert sim.flatten()[P + "open_degree"] == 0


def test_negative_degree_rejected_without_locking_change() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunroof_set_locked", {"locked": True})
    assert _degree(sim, -5)["success"] is False
    assert sim.flatten()[P + "is_locked"] is True


@pytest.mark.parametrize("bad", ["40", None, [40]])
def test_non_numeric_degree_is_an_error(bad: Any) -> None:
    sim = VehicleSimulator()
    res = _degree(sim, bad)
    assert res["success"] is False and "error" in res
    assert sim.flatten()[P + "open_degree"] == 0


def test_false_degree_locks_and_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    _degree(sim, 50)
    assert _degree(sim, False)["success"] is True
    assert sim.flatten()[P + "open_degree"] is False
    assert sim.flatten()[P + "is_locked"] is True


@pytest.mark.parametrize(("value", "expected"), [(True, True), ("false", True), (0, False), ("", False)])
def test_set_locked_coerces_and_keeps_degree(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    _degree(sim, 50)
    assert sim.call("carcontrol_sunroof_set_locked", {"locked": value})["success"] is True
    assert sim.flatten()[P + "is_locked"] is expected
    assert sim.flatten()[P + "open_degree"] == 50
