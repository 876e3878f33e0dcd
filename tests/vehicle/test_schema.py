"""Tool schemas are rendered from the APIs' own code and match what the official agent sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS, MODULES
from vmb_gym.vehicle.schema import all_vehicle_schemas, api_schema, module_schemas


def test_111_apis_in_23_modules() -> None:
    assert len(MODULE_KEYS) == 23
    assert len(API_SPECS) == 111
    assert sum(len(MODULES[k].APIS) for k in MODULE_KEYS) == 111


def test_official_flavour_matches_the_official_schema_file(official: Path) -> None:
    want = {f["name"]: f for f in json.loads((official / "functions_schema.json").read_text(encoding="utf-8"))}
    got = {s["function"]["name"]: s["function"] for s in all_vehicle_schemas("official")}
    assert got.keys() == want.keys()
    for name, fn in got.items():
        ref = want[name]
        assert fn["description"] == ref["description"], name
        assert fn["parameters"]["required"] == ref["parameters"]["required"], name
        assert list(fn["parameters"]["properties"]) == list(ref["parameters"]["properties"]), name
        for p, spec in fn["parameters"]["properties"].items():
            assert spec["type"] == ref["parameters"]["properties"][p]["type"], (name, p)
            assert "enum" not in spec and "minimum" not in spec  # the official agent sees no enums


def test_rich_flavour_adds_enums_ranges_aliases_and_defaults() -> None:
    color = api_schema("carcontrol_instrumentPanel_set_color", "rich")["function"]["parameters"]["properties"]["color"]
    assert set(color["enum"]) == {"yellow", "green", "red", "orange", "white", "black"}
    temp = api_schema("carcontrol_airConditioner_set_temperature", "rich")["function"]["parameters"]["properties"]
    assert (temp["temperature"]["minimum"], temp["temperature"]["maximum"]) == (15, 35)
    assert "主驾" in temp["zone"]["description"]
    nav = api_schema("carcontrol_navigation_navigate_to", "rich")["function"]["parameters"]["properties"]
    assert nav["route_preference"]["default"] is None
    assert "fastest" in nav["route_preference"]["enum"]


def test_module_schemas_are_alphabetical_like_the_official_dir_order() -> None:
    names = [s["function"]["name"] for s in module_schemas("seat")]
    assert names == sorted(names) and len(names) == 15


def test_unknown_names_and_flavours_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="unknown module 'Seat'"):
        module_schemas("Seat")
    with pytest.raises(ConfigError, match="schema flavour"):
        all_vehicle_schemas("fancy")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown vehicle function"):
        api_schema("carcontrol_fly")
