"""Tests for the rearviewMirror module (6 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "rearviewMirror.value."
BAD_SIDES = ["Left", " left ", "左", "右", "两侧", "all", "driver", "", None, ["left"], {"zone": "left"}]
FLAG_APIS = [
    ("set_auto_fold_on_lock", "auto_fold_on_lock"),
    ("set_auto_reverse_tilt", "auto_reverse_tilt"),
    ("set_heating_enabled", "heating_enabled"),
]
POSITION_APIS = [("set_height_position", "height_position"), ("set_horizontal_position", "horizontal_position")]


def _call(sim: VehicleSimulator, fn: str, **kwargs: Any) -> dict[str, Any]:
    return sim.call(f"carcontrol_rearviewMirror_{fn}", kwargs)


@pytest.mark.parametrize(("fn", "field"), FLAG_APIS)
def test_flag_setters_switch_mirror_on(fn: str, field: str) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, side="left", enabled=True)["success"] is True
    flat = sim.flatten()
    assert flat[P + f"left.value.{field}"] is True
    assert flat[P + "left.value.is_on"] is True
    assert flat[P + f"right.value.{field}"] is False
    assert flat[P + "right.value.is_on"] is False


@pytest.mark.parametrize(("fn", "field"), FLAG_APIS)
def test_flag_setters_both_and_bool_coercion(fn: str, field: str) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, side="both", enabled="false")["success"] is True  # truthy string
    state = sim.module("rearviewMirror").state
    assert state["left"][field] is True and state["right"][field] is True
    assert _call(sim, fn, side="right", enabled=0)["success"] is True
    assert state["right"][field] is False and state["right"]["is_on"] is True


@pytest.mark.parametrize(("fn", "field"), FLAG_APIS)
@pytest.mark.parametrize("side", BAD_SIDES)
def test_flag_setters_reject_bad_side_without_side_effect(fn: str, field: str, side: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    res = _call(sim, fn, side=side, enabled=True)
    assert res["success"] is False and "error" not in res
    assert sim.flatten() == before


@pytest.mark.parametrize(("fn", "field"), POSITION_APIS)
def test_position_setters(fn: str, field: str) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, side="right", value=30)["success"] is True
    flat = sim.flatten()
    assert flat[P + f"right.value.{field}"] == 30
    assert flat[P + "right.value.is_on"] is True
    assert flat[P + f"left.value.{field}"] == 0
    assert _call(sim, fn, side="both", value=100)["success"] is True
    state = sim.module("rearviewMirror").state
    assert state["left"][field] == 100 and state["right"][field] == 100
    assert state["left"]["is_on"] is True


@pytest.mark.parametrize(("fn", "field"), POSITION_APIS)
@pytest.mark.parametrize(
    ("side", "value"),
    [("left", 101), ("left", -1), ("left", 30.0), ("left", "30"), ("left", None), ("左", 30), ([], 30)],
)
def test_position_setters_reject_without_side_effect(fn: str, field: str, side: Any, value: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    res = _call(sim, fn, side=side, value=value)
    assert res["success"] is False and "error" not in res
    assert sim.flatten() == before


def test_set_power_targets_sides_and_keeps_settings() -> None:
    sim = VehicleSimulator()
    _call(sim, "set_horizontal_position", side="both", value=80)
    assert _call(sim, "set_power", side="both", is_on=False)["success"] is True
    flat = sim.flatten()
    assert flat[P + "left.value.is_on"] is False and flat[P + "right.value.is_on"] is False
    assert flat[P + "left.value.horizontal_position"] == 80
    assert _call(sim, "set_power", side="right", is_on="off")["success"] is True  # truthy string
    assert sim.flatten()[P + "right.value.is_on"] is True
    assert sim.flatten()[P + "left.value.is_on"] is False


@pytest.mark.parametrize("side", BAD_SIDES)
def test_set_power_rejects_bad_side(side: Any) -> None:
    sim = VehicleSimulator()
    res = _call(sim, "set_power", side=side, is_on=True)
    assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + "left.value.is_on"] is False


def test_missing_side_is_an_error() -> None:
    sim = VehicleSimulator()
    res = _call(sim, "set_power", is_on=True)
    assert res["success"] is False and "error" in res
