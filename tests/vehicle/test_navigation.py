"""Tests for the navigation module (9 APIs)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

P = "navigation.value."
D = P + "current_destination.value."
EMPTY = {"name": "", "route_preference": "fastest", "is_navigating": False}


def _call(sim: VehicleSimulator, fn: str, **kwargs: Any) -> dict[str, Any]:
    return sim.call(f"carcontrol_navigation_{fn}", kwargs)


def _state(sim: VehicleSimulator) -> dict[str, Any]:
    return sim.module("navigation").state


# ------------------------------------------------------------------ navigate_to
def test_navigate_to_strips_and_switches_on() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "navigate_to", destination="  Central Station  ", route_preference="shortest")["success"] is True
    flat = sim.flatten()
    assert flat[P + "is_on"] is True
    assert flat[D + "name"] == "Central Station"
    assert flat[D + "route_preference"] == "shortest"
    assert flat[D + "is_navigating"] is True


@pytest.mark.parametrize(
    ("pref", "expected"),
    [
        ("最快", "fastest"),
        ("最短", "shortest"),
        ("不走高速", "no_highway"),
        ("避免收费", "no_toll"),
        ("no_toll", "no_toll"),
        (None, "fastest"),
        ("", "fastest"),
        (0, "fastest"),
        ([], "fastest"),
    ],
)
def test_navigate_to_route_preference_aliases_and_falsy_default(pref: Any, expected: str) -> None:
    sim = VehicleSimulator()
    assert _call(sim, "navigate_to", destination="Airport", route_preference=pref)["success"] is True
    assert _state(sim)["current_destination"]["route_preference"] == expected


def test_navigate_to_omitted_preference_resets_to_fastest() -> None:
    sim = VehicleSimulator()
    _call(sim, "navigate_to", destination="Airport", route_preference="no_highway")
    assert _call(sim, "navigate_to", destination="Harbour")["success"] is True
    assert _state(sim)["current_destination"] == {
        "name": "Harbour",
        "route_preference": "fastest",
        "is_navigating": True,
    }


@pytest.mark.parametrize(
    "pref", ["Shortest", " shortest ", " 最快 ", "eco", 1, True, ["shortest"], {"value": "shortest"}]
)
def test_navigate_to_bad_preference_fails_after_auto_on(pref: Any) -> None:
    sim = VehicleSimulator()
    res = _call(sim, "navigate_to", destination="Airport", route_preference=pref)
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True
    assert _state(sim)["current_destination"] == EMPTY


@pytest.mark.parametrize("dest", ["", "   ", "\t\n", None, 0, False, []])
def test_navigate_to_empty_destination_fails_without_side_effect(dest: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    res = _call(sim, "navigate_to", destination=dest, route_preference="shortest")
    assert res["success"] is False and "error" not in res
    assert sim.flatten() == before


@pytest.mark.parametrize("dest", [5, True, 1.5, ["Airport"], {"name": "Airport"}])
def test_navigate_to_non_string_destination_is_an_error(dest: Any) -> None:
    sim = VehicleSimulator()
    res = _call(sim, "navigate_to", destination=dest)
    assert res["success"] is False and "error" in res
    assert _state(sim)["is_on"] is False


# ------------------------------------------------------------------ stop / switch
def test_stop_clears_destination_but_keeps_power() -> None:
    sim = VehicleSimulator()
    _call(sim, "navigate_to", destination="Airport", route_preference="shortest")
    assert _call(sim, "stop")["success"] is True
    assert _state(sim)["current_destination"] == EMPTY
    assert _state(sim)["is_on"] is True
    assert _call(sim, "stop")["success"] is True  # stopping again still succeeds


def test_stop_rejects_arguments() -> None:
    sim = VehicleSimulator()
    assert "error" in _call(sim, "stop", unexpected_arg=1)


@pytest.mark.parametrize("off", [False, 0, "", None])
def test_switch_off_clears_destination(off: Any) -> None:
    sim = VehicleSimulator()
    _call(sim, "navigate_to", destination="Airport", route_preference="no_toll")
    assert _call(sim, "switch", switch=off)["success"] is True
    assert _state(sim)["is_on"] is False
    assert _state(sim)["current_destination"] == EMPTY


@pytest.mark.parametrize("on", [True, "false", 1])
def test_switch_truthy_keeps_destination(on: Any) -> None:
    sim = VehicleSimulator()
    _call(sim, "navigate_to", destination="Airport")
    assert _call(sim, "switch", switch=on)["success"] is True
    assert _state(sim)["is_on"] is True
    assert _state(sim)["current_destination"]["name"] == "Airport"


# ------------------------------------------------------------------ setters with auto-on before validation
@pytest.mark.parametrize(
    ("fn", "param", "value", "field", "stored"),
    [
        ("set_map_view", "view", "3d", "map_view", "3d"),
        ("set_map_view", "view", "north_up", "map_view", "north_up"),
        ("set_map_zoom", "zoom", 10, "map_zoom", 10),
        ("set_volume", "volume", 0, "volume", 0),
        ("set_voice_mode", "mode", "mute", "voice_mode", "mute"),
        ("set_voice_mode", "mode", "简洁", "voice_mode", "simple"),
        ("set_voice_mode", "mode", "静音", "voice_mode", "mute"),
    ],
)
def test_setters_switch_on_and_store(fn: str, param: str, value: Any, field: str, stored: Any) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, **{param: value})["success"] is True
    assert sim.flatten()[P + field] == stored
    assert sim.flatten()[P + "is_on"] is True


@pytest.mark.parametrize(
    ("fn", "param", "value", "field", "default"),
    [
        ("set_map_view", "view", "3D", "map_view", "2d"),
        ("set_map_view", "view", ["3d"], "map_view", "2d"),
        ("set_map_zoom", "zoom", 0, "map_zoom", 5),
        ("set_map_zoom", "zoom", 11, "map_zoom", 5),
        ("set_map_zoom", "zoom", False, "map_zoom", 5),
        ("set_volume", "volume", 101, "volume", 50),
        ("set_volume", "volume", "70", "volume", 50),
        ("set_voice_mode", "mode", "Mute", "voice_mode", "detailed"),
        ("set_voice_mode", "mode", " 简洁 ", "voice_mode", "detailed"),
        ("set_voice_mode", "mode", ["simple"], "voice_mode", "detailed"),
    ],
)
def test_setters_rejected_value_still_switches_on(fn: str, param: str, value: Any, field: str, default: Any) -> None:
    sim = VehicleSimulator()
    res = _call(sim, fn, **{param: value})
    assert res["success"] is False and "error" not in res
    assert sim.flatten()[P + field] == default
    assert sim.flatten()[P + "is_on"] is True


def test_set_volume_bool_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert _call(sim, "set_volume", volume=False)["success"] is True
    assert sim.flatten()[P + "volume"] is False


@pytest.mark.parametrize(
    ("fn", "field"),
    [("set_speed_camera_alert", "speed_camera_enabled"), ("set_traffic_display", "traffic_display_enabled")],
)
@pytest.mark.parametrize(("value", "expected"), [(False, False), ("", False), ("false", True), (True, True)])
def test_bool_setters_switch_on_and_coerce(fn: str, field: str, value: Any, expected: bool) -> None:
    sim = VehicleSimulator()
    assert _call(sim, fn, enabled=value)["success"] is True
    assert _state(sim)[field] is expected
    assert _state(sim)["is_on"] is True


def test_switch_off_then_setter_turns_back_on() -> None:
    sim = VehicleSimulator()
    _call(sim, "switch", switch=False)
    assert _call(sim, "set_map_view", view="3d")["success"] is True
    assert _state(sim)["is_on"] is True and _state(sim)["map_view"] == "3d"
