"""Window APIs: zone-style targets, bool() flags, open degree coupled to is_open."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

WINDOWS = ("driver", "passenger", "rear_left", "rear_right")
FLAG_APIS = {
    "carcontrol_window_set_auto_close_on_lock": ("enabled", "auto_close_on_lock"),
    "carcontrol_window_set_child_lock": ("enabled", "child_lock"),
    "carcontrol_window_set_open": ("is_open", "is_open"),
}


def win(sim: VehicleSimulator, w: str) -> dict[str, Any]:
    return sim.module("window").state[w]


@pytest.mark.parametrize(("api", "spec"), FLAG_APIS.items())
def test_flags_set_targets_with_bool_coercion(api: str, spec: tuple[str, str]) -> None:
    param, field = spec
    sim = VehicleSimulator()
    res = sim.call(api, {"window": "后排", param: "off"})  # truthy string
    assert res["success"] is True
    assert [win(sim, w)[field] for w in WINDOWS] == [False, False, True, True]
    assert sim.flatten()[f"window.value.rear_left.value.{field}"] is True
    assert sim.call_kind(api, {"window": "rear_right", param: 0}) == "ok"
    assert win(sim, "rear_right")[field] is False


@pytest.mark.parametrize(("api", "spec"), FLAG_APIS.items())
@pytest.mark.parametrize("bad", ["Driver", " driver ", "left", " ", 1, True])
def test_flags_reject_unknown_window(api: str, spec: tuple[str, str], bad: Any) -> None:
    param, field = spec
    sim = VehicleSimulator()
    assert sim.call_kind(api, {"window": bad, param: True}) == "fail"
    assert all(win(sim, w)[field] is False for w in WINDOWS)


@pytest.mark.parametrize("falsy", ["", None, 0, False, [], {}])
def test_falsy_window_means_driver(falsy: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_window_set_child_lock", {"window": falsy, "enabled": True}) == "ok"
    assert [win(sim, w)["child_lock"] for w in WINDOWS] == [True, False, False, False]


def test_unhashable_window_is_an_error() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_window_set_open", {"window": ["driver"], "is_open": True}) == "error"


def test_set_open_does_not_touch_degree() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_window_set_open_degree", {"window": "all", "degree": 30})
    assert sim.call_kind("carcontrol_window_set_open", {"window": "all", "is_open": False}) == "ok"
    assert all(win(sim, w)["is_open"] is False and win(sim, w)["open_degree"] == 30 for w in WINDOWS)


def test_open_degree_opens_and_zero_closes() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_window_set_open_degree", {"window": "all", "degree": 70})
    assert res["success"] is True
    expected = {"is_open": True, "open_degree": 70, "child_lock": False, "auto_close_on_lock": False}
    assert all(win(sim, w) == expected for w in WINDOWS)
    assert sim.call_kind("carcontrol_window_set_open_degree", {"window": "rear", "degree": 0}) == "ok"
    assert [win(sim, w)["is_open"] for w in WINDOWS] == [True, True, False, False]
    assert sim.flatten()["window.value.rear_left.value.open_degree"] == 0


def test_open_degree_zero_closes_a_flag_opened_window() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_window_set_open", {"window": "driver", "is_open": True})
    sim.call("carcontrol_window_set_open_degree", {"window": "driver", "degree": 0})
    assert win(sim, "driver")["is_open"] is False


@pytest.mark.parametrize("degree", [-1, 101, "40", 40.0, None, [40]])
def test_open_degree_rejected_without_side_effect(degree: Any) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_window_set_open_degree", {"window": "passenger", "degree": 55})
    assert sim.call_kind("carcontrol_window_set_open_degree", {"window": "passenger", "degree": degree}) == "fail"
    assert win(sim, "passenger")["open_degree"] == 55 and win(sim, "passenger")["is_open"] is True


def test_open_degree_bools_are_stored_raw() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_window_set_open_degree", {"window": "driver", "degree": True}) == "ok"
    assert win(sim, "driver")["open_degree"] is True and win(sim, "driver")["is_open"] is True
    assert sim.call_kind("carcontrol_window_set_open_degree", {"window": "driver", "degree": False}) == "ok"
    assert win(sim, "driver")["open_degree"] is False and win(sim, "driver")["is_open"] is False


def test_child_lock_does_not_block_opening() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_window_set_child_lock", {"window": "rear", "enabled": True})
    assert sim.call_kind("carcontrol_window_set_open_degree", {"window": "rear", "degree": 20}) == "ok"
    assert win(sim, "rear_left")["is_open"] is True
