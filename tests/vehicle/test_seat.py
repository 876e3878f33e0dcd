"""Seat APIs: 9 position setters, 3 level setters (auto-enable), 4 flags, no falsy seat default."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

SEATS = ("driver", "passenger", "rear_left", "rear_right")
POSITION_APIS = {
    "carcontrol_seat_set_backrest_angle": "backrest_angle",
    "carcontrol_seat_set_cushion_angle": "cushion_angle",
    "carcontrol_seat_set_cushion_extension": "cushion_extension",
    "carcontrol_seat_set_foot_support_height": "foot_support_height",
    "carcontrol_seat_set_headrest_height": "headrest_height",
    "carcontrol_seat_set_horizontal_position": "horizontal_position",
    "carcontrol_seat_set_leg_support_height": "leg_support_height",
    "carcontrol_seat_set_vertical_position": "vertical_position",
}
# name -> (parameter, field, switch field, maximum)
LEVEL_APIS = {
    "carcontrol_seat_set_heating_level": ("level", "heating_level", "heating_mode", 3),
    "carcontrol_seat_set_massage_level": ("level", "massage_level", "massage_mode", 3),
    "carcontrol_seat_set_ventilation_speed": ("speed", "ventilation_speed", "ventilation_enabled", 5),
}
FLAG_APIS = {
    "carcontrol_seat_set_heating_mode": ("enabled", "heating_mode"),
    "carcontrol_seat_set_massage_mode": ("enabled", "massage_mode"),
    "carcontrol_seat_set_ventilation_enabled": ("enabled", "ventilation_enabled"),
    "carcontrol_seat_set_folded": ("folded", "folded"),
}


def seat_state(sim: VehicleSimulator, seat: str) -> dict[str, Any]:
    return sim.module("seat").state[seat]


@pytest.mark.parametrize(("api", "field"), POSITION_APIS.items())
def test_position_setters_store_value_for_one_seat(api: str, field: str) -> None:
    sim = VehicleSimulator()
    res = sim.call(api, {"seat": "passenger", "value": 30})
    assert res["success"] is True
    assert res["current_state"] == {"passenger": {**seat_state(VehicleSimulator(), "passenger"), field: 30}}
    assert sim.flatten()[f"seat.value.passenger.value.{field}"] == 30
    assert seat_state(sim, "driver")[field] == 50


@pytest.mark.parametrize("api", POSITION_APIS)
@pytest.mark.parametrize("value", [-1, 101, "30", 30.0, None, [30]])
def test_position_setters_reject_bad_values_without_change(api: str, value: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    res = sim.call(api, {"seat": "driver", "value": value})
    assert res == {"success": False, "message": res["message"], "current_state": {}}
    assert sim.flatten() == before


def test_position_boundaries_and_bool_passthrough() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_seat_set_backrest_angle", {"seat": "driver", "value": 0}) == "ok"
    assert seat_state(sim, "driver")["backrest_angle"] == 0
    assert sim.call_kind("carcontrol_seat_set_backrest_angle", {"seat": "driver", "value": 100}) == "ok"
    assert seat_state(sim, "driver")["backrest_angle"] == 100
    # bool is an int subclass: accepted and stored with its bool type
    assert sim.call_kind("carcontrol_seat_set_headrest_height", {"seat": "driver", "value": False}) == "ok"
    assert seat_state(sim, "driver")["headrest_height"] is False


@pytest.mark.parametrize(("api", "spec"), LEVEL_APIS.items())
def test_level_setters_enable_their_switch(api: str, spec: tuple[str, str, str, int]) -> None:
    param, field, switch, maximum = spec
    sim = VehicleSimulator()
    assert sim.call_kind(api, {"seat": "rear", param: maximum}) == "ok"
    for s in ("rear_left", "rear_right"):
        assert seat_state(sim, s)[field] == maximum
        assert seat_state(sim, s)[switch] is True
    for s in ("driver", "passenger"):
        assert seat_state(sim, s)[switch] is False


@pytest.mark.parametrize(("api", "spec"), LEVEL_APIS.items())
def test_level_setters_validate_before_enabling(api: str, spec: tuple[str, str, str, int]) -> None:
    param, field, switch, maximum = spec
    sim = VehicleSimulator()
    for bad in (0, maximum + 1, "2", 2.0, False):
        assert sim.call_kind(api, {"seat": "driver", param: bad}) == "fail"
    assert seat_state(sim, "driver")[switch] is False
    assert seat_state(sim, "driver")[field] == 1


def test_level_accepts_true_as_one_and_stores_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_seat_set_heating_level", {"seat": "driver", "level": True}) == "ok"
    assert seat_state(sim, "driver")["heating_level"] is True


@pytest.mark.parametrize(("api", "spec"), FLAG_APIS.items())
def test_flags_coerce_with_bool(api: str, spec: tuple[str, str]) -> None:
    param, field = spec
    sim = VehicleSimulator()
    assert sim.call_kind(api, {"seat": "all", param: "false"}) == "ok"  # truthy string
    assert all(seat_state(sim, s)[field] is True for s in SEATS)
    assert sim.call_kind(api, {"seat": "前排", param: 0}) == "ok"
    assert [seat_state(sim, s)[field] for s in SEATS] == [False, False, True, True]


@pytest.mark.parametrize(("api", "spec"), FLAG_APIS.items())
def test_flags_reject_unknown_seat(api: str, spec: tuple[str, str]) -> None:
    param, field = spec
    sim = VehicleSimulator()
    assert sim.call_kind(api, {"seat": "Driver", param: True}) == "fail"
    assert all(seat_state(sim, s)[field] is False for s in SEATS)


def test_mode_off_keeps_level() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_seat_set_heating_level", {"seat": "all", "level": 3})
    sim.call("carcontrol_seat_set_heating_mode", {"seat": "all", "enabled": False})
    assert all(seat_state(sim, s)["heating_mode"] is False for s in SEATS)
    assert all(seat_state(sim, s)["heating_level"] == 3 for s in SEATS)


@pytest.mark.parametrize(
    ("seat", "targets"),
    [("主驾", ("driver",)), ("副驾", ("passenger",)), ("左后", ("rear_left",)), ("右后", ("rear_right",)),
     ("后排", ("rear_left", "rear_right")), ("全部", SEATS), ("front", ("driver", "passenger"))],
)
def test_seat_aliases_and_groups(seat: str, targets: tuple[str, ...]) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_seat_set_massage_mode", {"seat": seat, "enabled": True}) == "ok"
    assert {s for s in SEATS if seat_state(sim, s)["massage_mode"]} == set(targets)


@pytest.mark.parametrize("seat", ["", None, 0, False, " ", "DRIVER", " driver ", "副驾驶"])
def test_seat_has_no_falsy_default(seat: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_seat_set_folded", {"seat": seat, "folded": True}) == "fail"
    assert all(seat_state(sim, s)["folded"] is False for s in SEATS)


@pytest.mark.parametrize("seat", [[], {}, ["driver"]])
def test_unhashable_seat_is_an_error(seat: Any) -> None:
    res = VehicleSimulator().call("carcontrol_seat_set_folded", {"seat": seat, "folded": True})
    assert res["success"] is False and "error" in res


def test_missing_argument_is_an_error() -> None:
    assert VehicleSimulator().call_kind("carcontrol_seat_set_heating_level", {"seat": "driver"}) == "error"
