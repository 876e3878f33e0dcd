"""Tests for the fuelPort module (2 APIs): the locked-port interlock."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "fuelPort.value."


def test_starts_locked_and_cannot_open() -> None:
    sim = VehicleSimulator()
    assert sim.flatten()[P + "is_locked"] is True
    res = sim.call("carcontrol_fuelPort_set_open", {"open_state": True})
    assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + "is_open"] is False


def test_unlock_then_open() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_fuelPort_set_locked", {"locked": False})["success"] is True
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": True})["success"] is True
    flat = sim.flatten()
    assert flat[P + "is_open"] is True
    assert flat[P + "is_locked"] is False


def test_locking_does_not_close_and_blocks_reopen() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_fuelPort_set_locked", {"locked": False})
    sim.call("carcontrol_fuelPort_set_open", {"open_state": True})
    assert sim.call("carcontrol_fuelPort_set_locked", {"locked": True})["success"] is True
    assert sim.flatten()[P + "is_open"] is True
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": True})["success"] is False
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": False})["success"] is True
    assert sim.flatten()[P + "is_open"] is False


@pytest.mark.parametrize("falsy", [False, 0, "", None, [], {}])
def test_closing_while_locked_succeeds(falsy: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": falsy})["success"] is True
    assert sim.flatten()[P + "is_open"] is False


def test_truthy_string_false_does_not_unlock() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_fuelPort_set_locked", {"locked": "false"})["success"] is True
    assert sim.flatten()[P + "is_locked"] is True
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": True})["success"] is False


def test_open_with_string_false_opens_when_unlocked() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_fuelPort_set_locked", {"locked": 0})
    assert sim.call("carcontrol_fuelPort_set_open", {"open_state": "false"})["success"] is True
    assert sim.flatten()[P + "is_open"] is True
