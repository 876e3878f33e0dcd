"""Light APIs: independent switches, auto-on before validation for ambient/low beam, reading-light zones."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator

SWITCHES = {
    "carcontrol_light_set_ambient_enabled": "ambient",
    "carcontrol_light_set_auto_headlight": "auto_headlight",
    "carcontrol_light_set_daytime_running": "daytime_running",
    "carcontrol_light_set_fog_light": "fog_light",
    "carcontrol_light_set_hazard": "hazard",
    "carcontrol_light_set_high_beam": "high_beam",
    "carcontrol_light_set_left_turn": "left_turn",
    "carcontrol_light_set_low_beam_enabled": "low_beam",
    "carcontrol_light_set_position": "position",
    "carcontrol_light_set_right_turn": "right_turn",
    "carcontrol_light_set_tail": "tail",
}
READING_OFF = {"is_on": False, "brightness": 1}


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("light").state


def _lit(sim: VehicleSimulator) -> set[str]:
    return {k for k, v in _state(sim).items() if k != "reading_light" and v["is_on"]}


@pytest.mark.parametrize(("name", "field"), sorted(SWITCHES.items()))
def test_switch_sets_only_its_light(name: str, field: str) -> None:
    sim = VehicleSimulator()
    assert sim.call(name, {"enabled": True})["success"] is True
    assert sim.flatten()[f"light.value.{field}.value.is_on"] is True
    assert _lit(sim) == {field}
    assert sim.call(name, {"enabled": 0})["success"] is True
    assert _lit(sim) == set()


@pytest.mark.parametrize(("name", "field"), sorted(SWITCHES.items()))
@pytest.mark.parametrize(
    ("enabled", "on"), [("false", True), ([False], True), ("", False), ({}, False), (None, False)]
)
def test_switch_coerces_with_bool(name: str, field: str, enabled: object, on: bool) -> None:
    sim = VehicleSimulator()
    assert sim.call(name, {"enabled": enabled})["success"] is True
    assert _state(sim)[field]["is_on"] is on


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_switch_wrong_keyword_is_error(name: str) -> None:
    sim = VehicleSimulator()
    res = sim.call(name, {"ENABLED": True})
    assert res["success"] is False and "error" in res
    assert _lit(sim) == set()


def test_high_and_low_beam_are_independent() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_light_set_high_beam", {"enabled": True})
    sim.call("carcontrol_light_set_low_beam_enabled", {"enabled": True})
    sim.call("carcontrol_light_set_high_beam", {"enabled": False})
    assert _lit(sim) == {"low_beam"}


@pytest.mark.parametrize(
    ("color", "stored"), [("blue", "blue"), ("pink", "pink"), ("蓝色", "blue"), ("青色", "cyan")]
)
def test_set_ambient_color(color: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_light_set_ambient_color", {"color": color})["success"] is True
    assert _state(sim)["ambient"] == {"is_on": True, "color": stored}


@pytest.mark.parametrize("color", ["Blue", " blue ", "amber", "蓝", "", None, 1, True])
def test_set_ambient_color_rejects_but_turns_on(color: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_light_set_ambient_color", {"color": color})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["ambient"] == {"is_on": True, "color": "orange"}


def test_set_ambient_color_unhashable_errors_after_auto_on() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_light_set_ambient_color", {"color": ["blue"]})
    assert "error" in res
    assert _state(sim)["ambient"] == {"is_on": True, "color": "orange"}


def test_ambient_disable_keeps_color() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_light_set_ambient_color", {"color": "green"})
    sim.call("carcontrol_light_set_ambient_enabled", {"enabled": False})
    assert _state(sim)["ambient"] == {"is_on": False, "color": "green"}


@pytest.mark.parametrize(
    ("level", "stored"), [("high", "high"), ("highest", "highest"), ("中", "medium"), ("最低", "lowest")]
)
def test_set_low_beam_level(level: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_light_set_low_beam_level", {"level": level})["success"] is True
    assert sim.flatten()["light.value.low_beam.value.level"] == stored
    assert _state(sim)["low_beam"]["is_on"] is True


@pytest.mark.parametrize("level", ["High", "max", "较高", " high ", "", None, 1])
def test_set_low_beam_level_rejects_but_turns_on(level: object) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_light_set_low_beam_enabled", {"enabled": False})
    res = sim.call("carcontrol_light_set_low_beam_level", {"level": level})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["low_beam"] == {"is_on": True, "level": "lowest"}


@pytest.mark.parametrize(
    ("target", "zones"),
    [
        ("driver", {"driver"}),
        ("rear_right", {"rear_right"}),
        ("front", {"driver", "passenger"}),
        ("rear", {"rear_left", "rear_right"}),
        ("all", {"driver", "passenger", "rear_left", "rear_right"}),
        ("副驾", {"passenger"}),
        ("左后", {"rear_left"}),
        ("后排", {"rear_left", "rear_right"}),
        ("全部", {"driver", "passenger", "rear_left", "rear_right"}),
        (None, {"driver"}),
        ("", {"driver"}),
        (0, {"driver"}),
        ({}, {"driver"}),
    ],
)
def test_set_reading_light_targets(target: object, zones: set[str]) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_light_set_reading_light", {"light": target, "enabled": True})["success"] is True
    lights = _state(sim)["reading_light"]
    assert {z for z, v in lights.items() if v["is_on"]} == zones
    assert all(v["brightness"] == 1 for v in lights.values())


@pytest.mark.parametrize("target", ["Driver", " driver ", "left", "co_driver", "副驾驶", " ", 1, True])
def test_set_reading_light_rejects_bad_target(target: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_light_set_reading_light", {"light": target, "enabled": True})
    assert res["success"] is False and "error" not in res
    assert all(v == READING_OFF for v in _state(sim)["reading_light"].values())


def test_set_reading_light_unhashable_target_is_error() -> None:
    sim = VehicleSimulator()
    assert "error" in sim.call("carcontrol_light_set_reading_light", {"light": ["driver"], "enabled": True})
    args = {"light": {"zone": "driver"}, "brightness": 5}
    assert "error" in sim.call("carcontrol_light_set_reading_light_brightness", args)


def test_set_reading_light_brightness_turns_on_targets() -> None:
    sim = VehicleSimulator()
    args = {"light": "前排", "brightness": 6}
    assert sim.call("carcontrol_light_set_reading_light_brightness", args)["success"] is True
    flat = sim.flatten()
    assert flat["light.value.reading_light.value.driver.brightness"] == 6
    assert flat["light.value.reading_light.value.passenger.is_on"] is True
    assert flat["light.value.reading_light.value.rear_left.is_on"] is False


@pytest.mark.parametrize("brightness", [0, 11, -1, "6", 6.0, False, None, [6]])
def test_set_reading_light_brightness_rejects_before_auto_on(brightness: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_light_set_reading_light_brightness", {"light": "all", "brightness": brightness})
    assert res["success"] is False and "error" not in res
    assert all(v == READING_OFF for v in _state(sim)["reading_light"].values())


def test_reading_light_off_keeps_brightness() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_light_set_reading_light_brightness", {"light": "all", "brightness": 9})
    sim.call("carcontrol_light_set_reading_light", {"light": "all", "enabled": False})
    assert all(v == {"is_on": False, "brightness": 9} for v in _state(sim)["reading_light"].values())
