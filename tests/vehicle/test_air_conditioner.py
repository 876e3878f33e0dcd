"""Air conditioner APIs: zone targets, validation before auto-on, exact enums, bool power."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

ZONES = ("driver", "passenger", "rear_left", "rear_right")
# name -> (parameter, field, valid value, rejected values)
SETTERS = {
    "carcontrol_airConditioner_set_air_direction": (
        "direction", "air_direction", "face_feet", ["Face", "foot", "feet ", "", None, 1]
    ),
    "carcontrol_airConditioner_set_circulation": (
        "circulation", "circulation", "outside", ["Outside", "内循环", "", None, True]
    ),
    "carcontrol_airConditioner_set_fan_speed": ("speed", "fan_speed", 10, [0, 11, "7", 7.0, None, [7]]),
    "carcontrol_airConditioner_set_mode": ("mode", "mode", "defrost", ["Defrost", "cool", " defrost ", "", 0]),
    "carcontrol_airConditioner_set_temperature": ("temperature", "temperature", 15, [14, 36, "22", 22.0, True, None]),
}


def zone(sim: VehicleSimulator, z: str) -> dict[str, Any]:
    return sim.module("airConditioner").state[z]


@pytest.mark.parametrize(("api", "spec"), SETTERS.items())
def test_setter_stores_value_and_turns_zone_on(api: str, spec: tuple[str, str, Any, list[Any]]) -> None:
    param, field, value, _ = spec
    sim = VehicleSimulator()
    res = sim.call(api, {"zone": "passenger", param: value})
    assert res["success"] is True
    assert sim.flatten()[f"airConditioner.value.passenger.value.{field}"] == value
    assert zone(sim, "passenger")["is_on"] is True
    assert zone(sim, "driver")["is_on"] is False
    assert set(res["current_state"]) == {"passenger"}


@pytest.mark.parametrize(("api", "spec"), SETTERS.items())
def test_rejected_value_has_no_side_effect(api: str, spec: tuple[str, str, Any, list[Any]]) -> None:
    param, _, _, bad_values = spec
    sim = VehicleSimulator()
    before = sim.flatten()
    for bad in bad_values:
        assert sim.call_kind(api, {"zone": "all", param: bad}) == "fail", bad
    assert sim.flatten() == before


@pytest.mark.parametrize(("api", "spec"), SETTERS.items())
def test_rejected_zone_has_no_side_effect(api: str, spec: tuple[str, str, Any, list[Any]]) -> None:
    param, _, value, _ = spec
    sim = VehicleSimulator()
    for bad_zone in ("Driver", " driver ", "left", "副驾驶", " ", 1, True):
        assert sim.call_kind(api, {"zone": bad_zone, param: value}) == "fail"
    assert all(zone(sim, z)["is_on"] is False for z in ZONES)


@pytest.mark.parametrize("api", ["carcontrol_airConditioner_set_mode", "carcontrol_airConditioner_set_air_direction"])
@pytest.mark.parametrize("value", [[], ["defrost"], {"value": "feet"}])
def test_unhashable_enum_value_is_an_error(api: str, value: Any) -> None:
    param = SETTERS[api][0]
    res = VehicleSimulator().call(api, {"zone": "driver", param: value})
    assert "error" in res


@pytest.mark.parametrize(
    ("z", "targets"),
    [("front", ("driver", "passenger")), ("rear", ("rear_left", "rear_right")), ("all", ZONES), ("全部", ZONES),
     ("主驾", ("driver",)), ("副驾", ("passenger",)), ("左后", ("rear_left",)), ("右后", ("rear_right",)),
     ("前排", ("driver", "passenger")), ("后排", ("rear_left", "rear_right"))],
)
def test_zone_groups_and_aliases(z: str, targets: tuple[str, ...]) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_temperature", {"zone": z, "temperature": 20}) == "ok"
    assert {k for k in ZONES if zone(sim, k)["temperature"] == 20} == set(targets)
    assert {k for k in ZONES if zone(sim, k)["is_on"]} == set(targets)


@pytest.mark.parametrize("falsy", ["", None, 0, False, [], {}])
def test_falsy_zone_means_driver(falsy: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_fan_speed", {"zone": falsy, "speed": 7}) == "ok"
    assert zone(sim, "driver")["fan_speed"] == 7
    assert all(zone(sim, z)["fan_speed"] == 5 for z in ZONES[1:])


def test_unhashable_zone_is_an_error() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_power", {"zone": ["driver"], "is_on": True}) == "error"


def test_power_coerces_with_bool_and_keeps_settings() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_temperature", {"zone": "all", "temperature": 20}) == "ok"
    assert sim.call_kind("carcontrol_airConditioner_set_power", {"zone": "all", "is_on": 0}) == "ok"
    assert all(zone(sim, z)["is_on"] is False and zone(sim, z)["temperature"] == 20 for z in ZONES)
    assert sim.call_kind("carcontrol_airConditioner_set_power", {"zone": "rear", "is_on": "false"}) == "ok"
    assert [zone(sim, z)["is_on"] for z in ZONES] == [False, False, True, True]


def test_power_rejects_bad_zone() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_power", {"zone": "ALL", "is_on": True}) == "fail"
    assert all(zone(sim, z)["is_on"] is False for z in ZONES)


def test_fan_speed_true_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_airConditioner_set_fan_speed", {"zone": "driver", "speed": True}) == "ok"
    assert zone(sim, "driver")["fan_speed"] is True
