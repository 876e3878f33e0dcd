"""Door APIs: lock/open/warning flags and the locked-door interlock on opening."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

DOORS = ("driver", "passenger", "rear_left", "rear_right")
LOCK, OPEN, WARN = "carcontrol_door_set_locked", "carcontrol_door_set_open", "carcontrol_door_set_open_warning"


def door(sim: VehicleSimulator, d: str) -> dict[str, Any]:
    return sim.module("door").state[d]


def test_fresh_doors_are_unlocked() -> None:
    assert all(not door(VehicleSimulator(), d)["is_locked"] for d in DOORS)


@pytest.mark.parametrize(
    ("api", "param", "field"),
    [(LOCK, "locked", "is_locked"), (OPEN, "is_open", "is_open"), (WARN, "enabled", "open_warning")],
)
def test_flag_apis_with_groups_aliases_and_bool(api: str, param: str, field: str) -> None:
    sim = VehicleSimulator()
    res = sim.call(api, {"door": "前排", param: "false"})  # truthy string
    assert res["success"] is True
    assert [door(sim, d)[field] for d in DOORS] == [True, True, False, False]
    assert sim.flatten()[f"door.value.passenger.value.{field}"] is True
    assert sim.call_kind(api, {"door": "", param: 0}) == "ok"  # falsy door means driver
    assert [door(sim, d)[field] for d in DOORS] == [False, True, False, False]


@pytest.mark.parametrize("api", [LOCK, OPEN, WARN])
@pytest.mark.parametrize("bad", ["Driver", "ALL", " driver ", "副驾驶", " ", 1, True])
def test_unknown_door_rejected(api: str, bad: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    param = {LOCK: "locked", OPEN: "is_open", WARN: "enabled"}[api]
    assert sim.call_kind(api, {"door": bad, param: True}) == "fail"
    assert sim.flatten() == before


@pytest.mark.parametrize("api", [LOCK, OPEN, WARN])
def test_unhashable_door_is_an_error(api: str) -> None:
    param = {LOCK: "locked", OPEN: "is_open", WARN: "enabled"}[api]
    assert VehicleSimulator().call_kind(api, {"door": {"zone": "driver"}, param: True}) == "error"


def test_locked_door_cannot_be_opened() -> None:
    sim = VehicleSimulator()
    sim.call(LOCK, {"door": "主驾", "locked": True})
    assert sim.call_kind(OPEN, {"door": "", "is_open": True}) == "fail"
    assert sim.call_kind(OPEN, {"door": "driver", "is_open": "false"}) == "fail"  # truthy: an open request
    assert door(sim, "driver")["is_open"] is False
    assert sim.call_kind(OPEN, {"door": "passenger", "is_open": True}) == "ok"
    assert door(sim, "passenger")["is_open"] is True


def test_one_locked_door_blocks_the_whole_group() -> None:
    sim = VehicleSimulator()
    sim.call(LOCK, {"door": "rear_right", "locked": True})
    assert sim.call_kind(OPEN, {"door": "all", "is_open": True}) == "fail"
    assert all(door(sim, d)["is_open"] is False for d in DOORS)


def test_closing_a_locked_door_is_allowed_and_lock_does_not_close() -> None:
    sim = VehicleSimulator()
    sim.call(OPEN, {"door": "all", "is_open": True})
    sim.call(LOCK, {"door": "all", "locked": True})
    assert all(door(sim, d)["is_open"] is True for d in DOORS)  # locking does not close
    assert sim.call_kind(OPEN, {"door": "all", "is_open": 0}) == "ok"
    assert all(door(sim, d) == {"is_locked": True, "is_open": False, "open_warning": False} for d in DOORS)


def test_unlock_then_open() -> None:
    sim = VehicleSimulator()
    sim.call(LOCK, {"door": "driver", "locked": True})
    sim.call(LOCK, {"door": "driver", "locked": False})
    assert sim.call_kind(OPEN, {"door": "driver", "is_open": True}) == "ok"
    assert door(sim, "driver")["is_open"] is True


def test_open_warning_allowed_on_locked_doors() -> None:
    sim = VehicleSimulator()
    sim.call(LOCK, {"door": "all", "locked": True})
    assert sim.call_kind(WARN, {"door": "全部", "enabled": True}) == "ok"
    assert all(door(sim, d)["open_warning"] is True for d in DOORS)
