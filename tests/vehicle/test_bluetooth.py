"""Tests for the bluetooth module (1 API)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

PATH = "bluetooth.value.is_connected"


@pytest.mark.parametrize(
    ("value", "expected"), [(True, True), (False, False), ("false", True), (0, False), (0.5, True), (None, False)]
)
def test_set_connection_coerces_with_bool(value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_bluetooth_set_connection", {"connected": value})["success"] is True
    assert sim.flatten()[PATH] is expected


def test_toggle() -> None:
    sim = VehicleSimulator()
    for value in (True, False, True):
        sim.call("carcontrol_bluetooth_set_connection", {"connected": value})
    assert sim.flatten()[PATH] is True
    sim.call("carcontrol_bluetooth_set_connection", {"connected": False})
    assert sim.flatten()[PATH] is False


def test_wrong_or_missing_keyword_is_an_error() -> None:
    sim = VehicleSimulator()
    for args in ({}, {"Connected": True}, {"connected": True, "unexpected_arg": 1}):
        res = sim.call("carcontrol_bluetooth_set_connection", args)
        assert res["success"] is False and "error" in res
    assert sim.flatten()[PATH] is False
