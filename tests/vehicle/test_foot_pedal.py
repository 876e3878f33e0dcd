"""Foot pedal API: driver/passenger/all only (+CN), falsy position means driver, bool() switch."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

API = "carcontrol_footPedal_set_switch"


def pedals(sim: VehicleSimulator) -> tuple[Any, Any]:
    st = sim.module("footPedal").state
    return st["driver"]["is_on"], st["passenger"]["is_on"]


@pytest.mark.parametrize(
    ("position", "expected"),
    [("driver", (True, False)), ("passenger", (False, True)), ("all", (True, True)),
     ("主驾", (True, False)), ("副驾", (False, True)), ("全部", (True, True))],
)
def test_positions_and_aliases(position: str, expected: tuple[bool, bool]) -> None:
    sim = VehicleSimulator()
    res = sim.call(API, {"position": position, "switch": True})
    assert res["success"] is True
    assert pedals(sim) == expected
    assert sim.flatten()["footPedal.value.passenger.value.is_on"] is expected[1]


@pytest.mark.parametrize("position", ["front", "rear", "rear_left", "前排", "Driver", " driver ", " ", 1, True])
def test_other_positions_rejected(position: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(API, {"position": position, "switch": True}) == "fail"
    assert pedals(sim) == (False, False)


@pytest.mark.parametrize("position", ["", None, 0, False, [], {}])
def test_falsy_position_means_driver(position: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(API, {"position": position, "switch": True}) == "ok"
    assert pedals(sim) == (True, False)


def test_switch_bool_coercion_and_off() -> None:
    sim = VehicleSimulator()
    sim.call(API, {"position": "all", "switch": "false"})  # truthy string
    assert pedals(sim) == (True, True)
    sim.call(API, {"position": "", "switch": 0})
    assert pedals(sim) == (False, True)


def test_unhashable_position_is_an_error() -> None:
    assert VehicleSimulator().call_kind(API, {"position": ["driver"], "switch": True}) == "error"
