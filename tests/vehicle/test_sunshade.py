"""Sunshade APIs: targets, the open-degree/open-flag coupling, the all-sunshades auto close."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator

CLOSED = {"is_open": False, "auto_close_on_lock": False, "open_degree": "close"}


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("sunshade").state


def test_set_open_degree_opens_target_only() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "rear", "degree": "medium"})
    assert res["success"] is True
    flat = sim.flatten()
    assert flat["sunshade.value.rear.value.open_degree"] == "medium"
    assert flat["sunshade.value.rear.value.is_open"] is True
    assert _state(sim)["front"] == CLOSED


def test_set_open_degree_close_clears_open_flag() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunshade_set_open", {"sunshade": "all", "is_open": True})
    res = sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "all", "degree": "close"})
    assert res["success"] is True
    assert _state(sim) == {"front": CLOSED, "rear": CLOSED}


@pytest.mark.parametrize(
    ("alias", "degree"), [("最小", "min"), ("较低", "low"), ("中等", "medium"), ("最大", "max")]
)
def test_set_open_degree_chinese_degree_alias(alias: str, degree: str) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "全部", "degree": alias})["success"] is True
    assert _state(sim)["front"]["open_degree"] == degree
    assert _state(sim)["rear"]["open_degree"] == degree


@pytest.mark.parametrize("degree", ["Close", "MAX", " medium ", "half", "", None, 1, True])
def test_set_open_degree_rejects_bad_degree_without_side_effect(degree: object) -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "front", "degree": "low"})
    res = sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "front", "degree": degree})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["front"] == {"is_open": True, "auto_close_on_lock": False, "open_degree": "low"}


def test_set_open_degree_unhashable_degree_is_an_error() -> None:
    res = VehicleSimulator().call("carcontrol_sunshade_set_open_degree", {"sunshade": "front", "degree": ["medium"]})
    assert res["success"] is False and "error" in res


@pytest.mark.parametrize("target", [None, "", 0, False, [], {}])
def test_falsy_target_means_front(target: object) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_sunshade_set_open", {"sunshade": target, "is_open": True})["success"] is True
    assert _state(sim)["front"]["is_open"] is True
    assert _state(sim)["rear"]["is_open"] is False


@pytest.mark.parametrize("target", ["Front", " front ", "driver", "前", "后", " ", 1, True])
def test_set_open_rejects_bad_target(target: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_sunshade_set_open", {"sunshade": target, "is_open": True})
    assert res["success"] is False and "error" not in res
    assert _state(sim) == {"front": CLOSED, "rear": CLOSED}


def test_set_open_coerces_with_bool_and_keeps_degree() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_sunshade_set_open_degree", {"sunshade": "all", "degree": "max"})
    assert sim.call("carcontrol_sunshade_set_open", {"sunshade": "前排", "is_open": ""})["success"] is True
    assert _state(sim)["front"] == {"is_open": False, "auto_close_on_lock": False, "open_degree": "max"}
    sim.call("carcontrol_sunshade_set_open", {"sunshade": "front", "is_open": "false"})  # truthy string
    assert _state(sim)["front"]["is_open"] is True


def test_set_auto_close_on_lock_applies_to_both_sunshades() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_sunshade_set_auto_close_on_lock", {"sunshade": "rear", "enabled": 1})["success"] is True
    flat = sim.flatten()
    assert flat["sunshade.value.front.value.auto_close_on_lock"] is True
    assert flat["sunshade.value.rear.value.auto_close_on_lock"] is True
    sim.call("carcontrol_sunshade_set_auto_close_on_lock", {"sunshade": "front", "enabled": False})
    assert _state(sim) == {"front": CLOSED, "rear": CLOSED}


def test_set_auto_close_on_lock_still_validates_target() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_sunshade_set_auto_close_on_lock", {"sunshade": "All", "enabled": True})
    assert res["success"] is False and "error" not in res
    assert _state(sim) == {"front": CLOSED, "rear": CLOSED}
    err = sim.call("carcontrol_sunshade_set_auto_close_on_lock", {"sunshade": {"zone": "front"}, "enabled": True})
    assert "error" in err
