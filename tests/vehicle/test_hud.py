"""HUD: validation, auto-on before validation, and the raw-stored switch argument."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator


@pytest.mark.parametrize("api,field", [("carcontrol_HUD_set_height_level", "height_level"),
                                       ("carcontrol_HUD_set_brightness_level", "brightness_level")])
def test_levels_set_and_switch_on(api: str, field: str) -> None:
    sim = VehicleSimulator()
    res = sim.call(api, {"level": 9})
    assert res["success"] is True
    assert res["current_state"] == {"is_on": True, field: 9}
    assert sim.module("HUD").state[field] == 9


@pytest.mark.parametrize("bad", [0, 11, 5.0, "5", None])
def test_rejected_level_still_switches_on(bad: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_HUD_set_height_level", {"level": bad})
    assert res["success"] is False and "error" not in res
    assert sim.module("HUD").state == {"is_on": True, "height_level": 5, "brightness_level": 5}


def test_bool_level_passes_as_int_subclass() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_HUD_set_brightness_level", {"level": True})["success"] is True
    assert sim.module("HUD").state["brightness_level"] is True


def test_switch_stores_raw_argument_and_setters_keep_truthy_value() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_HUD_switch", {"switch": "false"})
    sim.call("carcontrol_HUD_set_height_level", {"level": 3})
    assert sim.module("HUD").state["is_on"] == "false"
    assert sim.flatten()["HUD.value.is_on"] == "false"


def test_switch_with_object_changes_flattened_paths() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_HUD_switch", {"switch": {"a": 1}})
    flat = sim.flatten()
    assert "HUD.value.is_on" not in flat
    assert flat["HUD.value.is_on.value.a"] == 1
    assert flat["HUD.value.is_on.type"] == "dict"


def test_bad_keyword_is_an_error_result() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_HUD_switch", {"on": True})
    assert res["success"] is False and "error" in res
    assert sim.flatten() == VehicleSimulator().flatten()
