"""Module state is copy-on-write: APIs replace field values, never mutate the shared defaults."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator
from vmb_gym.vehicle.api import ApiSpec, ParamSpec
from vmb_gym.vehicle.conformance import mutated_defaults
from vmb_gym.vehicle.simulator import API_SPECS, initial_flat_state
from vmb_gym.vehicle.state import exact_diff


def _values(p: ParamSpec) -> list[Any]:
    """A few values of every kind for one parameter: allowed, boundary and out of range."""
    c = p.constraint
    if c is not None and c.choices:
        return [c.choices[0], c.choices[-1], *list(c.aliases)[:1], "not-a-choice"]
    if c is not None and c.minimum is not None:
        hi = c.maximum if c.maximum is not None else c.minimum + 5
        return [c.minimum, hi, hi + 1, True]
    if p.py_type is bool:
        return [True, False]
    if p.py_type is str:
        return ["Alice", ""]
    return [1, 0]


def _calls(spec: ApiSpec) -> list[dict[str, Any]]:
    params = [p for p in spec.params if p.required] or list(spec.params)[:1]
    combos = itertools.product(*[_values(p) for p in params])
    return [dict(zip([p.name for p in params], combo, strict=True)) for combo in itertools.islice(combos, 12)]


@pytest.mark.parametrize("name", sorted(API_SPECS))
def test_every_api_leaves_defaults_intact_and_reports_its_exact_diff(name: str) -> None:
    for arguments in _calls(API_SPECS[name]):
        sim = VehicleSimulator()
        before = sim.flatten()
        result = sim.call(name, arguments)
        changed = exact_diff(before, sim.flatten())
        key = API_SPECS[name].module
        shown = {f"{key}.value.{f}" for f in result.get("current_state", {})}
        # every changed path belongs to a field the result shows, and every shown field changed
        assert {".".join(p.split(".")[:3]) for p in changed} == shown, (arguments, result)
        assert mutated_defaults() == [], (name, arguments)
        assert VehicleSimulator().flatten() == initial_flat_state()


def test_the_result_is_a_copy_that_cannot_reach_into_the_car() -> None:
    sim = VehicleSimulator()
    result = sim.call("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3})
    result["current_state"]["driver"]["heating_level"] = 1
    assert sim.module("seat").state["driver"]["heating_level"] == 3
    assert VehicleSimulator().module("seat").state["driver"]["heating_level"] == 1


def test_a_copy_is_independent_of_its_source() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_play_song", {"song_name": "Yellow"})["success"]
    assert sim.call("carcontrol_music_set_favorite", {"favorite": True})["success"]
    other = sim.copy()
    other.call("carcontrol_light_set_reading_light_brightness", {"light": "rear", "brightness": 7})
    sim.call("carcontrol_music_set_favorite", {"favorite": False})
    assert sim.module("light").state == VehicleSimulator().module("light").state
    assert other.module("light").state["reading_light"]["rear_left"] == {"is_on": True, "brightness": 7}
    assert other.module("music").state["favorite_list"] == ["Yellow"]
    assert sim.module("music").state["favorite_list"] == []
    assert other.module("music").state["current_song"]["is_favorited"] is True
    assert sim.module("music").state["current_song"]["is_favorited"] is False
    assert mutated_defaults() == []


def test_in_place_mutation_is_detected() -> None:
    seat = VehicleSimulator().module("seat")
    seat.state["driver"]["heating_level"] = 3  # breaks copy-on-write on purpose
    try:
        assert mutated_defaults() == ["seat"]
    finally:
        seat.state["driver"]["heating_level"] = 1
    assert mutated_defaults() == []
