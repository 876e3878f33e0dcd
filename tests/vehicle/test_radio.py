"""Radio APIs: hidden station catalogue, auto-on before validation, bool() switch."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator

PLAY = "carcontrol_radio_play_station"
NAME = "radio.value.current_station.value.name"
FREQ = "radio.value.current_station.value.frequency"


def station(sim: VehicleSimulator) -> Any:
    return sim.module("radio").state["current_station"]


def test_fresh_radio_has_no_station_paths() -> None:
    flat = VehicleSimulator().flatten()
    assert NAME not in flat and FREQ not in flat
    assert flat["radio.value.current_station.type"] == "dict"


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"name": "News FM"}, {"name": "News FM", "frequency": "98.7MHz"}),
     ({"name": "Music FM"}, {"name": "Music FM", "frequency": "103.2MHz"}),
     ({"frequency": "98.7MHz"}, {"name": "News FM", "frequency": "98.7MHz"}),
     ({"frequency": "103.2MHz"}, {"name": "Music FM", "frequency": "103.2MHz"}),
     # per-station match on name OR frequency: News FM (first) wins through its frequency
     ({"name": "Music FM", "frequency": "98.7MHz"}, {"name": "News FM", "frequency": "98.7MHz"}),
     ({"name": "News FM", "frequency": "88.1MHz"}, {"name": "News FM", "frequency": "98.7MHz"}),
     ({"name": "Jazz FM", "frequency": "103.2MHz"}, {"name": "Music FM", "frequency": "103.2MHz"})],
)
def test_catalogue_lookup(args: dict[str, str], expected: dict[str, str]) -> None:
    sim = VehicleSimulator()
    res = sim.call(PLAY, args)
    assert res["success"] is True
    assert station(sim) == expected
    flat = sim.flatten()
    assert flat[NAME] == expected["name"] and flat[FREQ] == expected["frequency"]
    assert flat["radio.value.is_on"] is True


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"name": "Jazz FM"}, {"name": "Jazz FM", "frequency": ""}),
     ({"name": "news fm"}, {"name": "news fm", "frequency": ""}),
     ({"name": " News FM "}, {"name": " News FM ", "frequency": ""}),
     ({"name": "98.7MHz"}, {"name": "98.7MHz", "frequency": ""}),  # names are not matched against frequencies
     ({"frequency": "News FM"}, {"name": "", "frequency": "News FM"}),
     ({"name": "Jazz FM", "frequency": "88.1MHz"}, {"name": "Jazz FM", "frequency": "88.1MHz"}),
     ({"name": 5}, {"name": 5, "frequency": ""})],
)
def test_unknown_station_is_stored_as_given(args: dict[str, Any], expected: dict[str, Any]) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(PLAY, args) == "ok"
    assert station(sim) == expected


def test_list_name_is_stored_raw() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(PLAY, {"name": ["News FM"]}) == "ok"
    flat = sim.flatten()
    assert flat[NAME] == 1 and flat[NAME + "[0]"] == "News FM"


@pytest.mark.parametrize(
    "args", [{}, {"name": ""}, {"name": None}, {"frequency": 0}, {"name": "", "frequency": ""}, {"name": []}]
)
def test_nothing_to_play_fails_after_switching_on(args: dict[str, Any]) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(PLAY, args) == "fail"
    assert sim.module("radio").state["is_on"] is True
    assert station(sim) == {}
    assert NAME not in sim.flatten()


def test_failed_play_keeps_previous_station() -> None:
    sim = VehicleSimulator()
    sim.call(PLAY, {"name": "News FM"})
    assert sim.call_kind(PLAY, {"name": "", "frequency": ""}) == "fail"
    assert station(sim) == {"name": "News FM", "frequency": "98.7MHz"}


def test_play_station_rejects_unknown_keyword() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind(PLAY, {"name": "News FM", "unexpected_arg": 1}) == "error"
    assert sim.module("radio").state["is_on"] is False


def test_set_volume() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_radio_set_volume", {"volume": 30}) == "ok"
    assert sim.flatten()["radio.value.volume"] == 30
    assert sim.module("radio").state["is_on"] is True
    assert sim.call_kind("carcontrol_radio_set_volume", {"volume": False}) == "ok"
    assert sim.module("radio").state["volume"] is False


@pytest.mark.parametrize("volume", [-1, 101, "30", 30.0, None])
def test_set_volume_rejected_but_radio_switched_on(volume: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_radio_set_volume", {"volume": volume}) == "fail"
    st = sim.module("radio").state
    assert st["is_on"] is True and st["volume"] == 50


def test_switch_coerces_and_keeps_station() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_radio_switch", {"switch": "false"}) == "ok"
    assert sim.module("radio").state["is_on"] is True
    sim.call(PLAY, {"name": "News FM"})
    assert sim.call_kind("carcontrol_radio_switch", {"switch": []}) == "ok"
    assert sim.module("radio").state["is_on"] is False
    assert station(sim) == {"name": "News FM", "frequency": "98.7MHz"}


def test_switch_requires_argument() -> None:
    assert VehicleSimulator().call_kind("carcontrol_radio_switch", {}) == "error"
