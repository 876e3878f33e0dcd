"""Wiper APIs: front/rear/all targets (with 前/后/全部), speed validated before auto-on."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator

OFF = {"is_on": False, "speed": 1}


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("wiper").state


def test_set_open_all_and_back_off() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_wiper_set_open", {"wiper": "all", "is_on": True})["success"] is True
    flat = sim.flatten()
    assert flat["wiper.value.front.value.is_on"] is True and flat["wiper.value.rear.value.is_on"] is True
    sim.call("carcontrol_wiper_set_open", {"wiper": "all", "is_on": 0})
    assert _state(sim) == {"front": OFF, "rear": OFF}


@pytest.mark.parametrize(("alias", "on"), [("前", ("front",)), ("后", ("rear",)), ("全部", ("front", "rear"))])
def test_chinese_aliases(alias: str, on: tuple[str, ...]) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_wiper_set_open", {"wiper": alias, "is_on": True})["success"] is True
    assert {k for k, v in _state(sim).items() if v["is_on"]} == set(on)


@pytest.mark.parametrize("target", ["前排", "后排", "Front", " front ", "driver", " ", 1, True])
def test_set_open_rejects_bad_target(target: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_wiper_set_open", {"wiper": target, "is_on": True})
    assert res["success"] is False and "error" not in res
    assert _state(sim) == {"front": OFF, "rear": OFF}


def test_set_open_falsy_target_is_front_and_unhashable_is_error() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_wiper_set_open", {"wiper": None, "is_on": "off"})["success"] is True
    assert _state(sim)["front"]["is_on"] is True  # "off" is a truthy string
    assert "error" in sim.call("carcontrol_wiper_set_open", {"wiper": ["rear"], "is_on": True})
    assert _state(sim)["rear"]["is_on"] is False


def test_set_speed_turns_wiper_on() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_wiper_set_speed", {"wiper": "rear", "speed": 4})["success"] is True
    assert _state(sim) == {"front": OFF, "rear": {"is_on": True, "speed": 4}}


@pytest.mark.parametrize("speed", [0, 6, -1, "3", 3.0, None, False, [3]])
def test_set_speed_rejects_before_auto_on(speed: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_wiper_set_speed", {"wiper": "all", "speed": speed})
    assert res["success"] is False and "error" not in res
    assert _state(sim) == {"front": OFF, "rear": OFF}


def test_set_speed_true_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_wiper_set_speed", {"wiper": "front", "speed": True})["success"] is True
    assert sim.flatten()["wiper.value.front.value.speed"] is True


def test_speed_survives_switch_off() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_wiper_set_speed", {"wiper": "all", "speed": 4})
    sim.call("carcontrol_wiper_set_open", {"wiper": "all", "is_on": False})
    assert _state(sim) == {"front": {"is_on": False, "speed": 4}, "rear": {"is_on": False, "speed": 4}}
