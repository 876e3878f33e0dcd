"""Tests of the generator's ``whole_car`` option: cabin-wide settings set for every seat (target "all")."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, build_scenario, generate
from vmb_gym.generator.banks import WHOLE_CAR
from vmb_gym.generator.catalog import catalogue
from vmb_gym.generator.scenario import whole_car_api
from vmb_gym.generator.validate import gold_changes_state
from vmb_gym.types import ToolCall
from vmb_gym.vehicle import API_SPECS

SMALL = GeneratorOptions(seed=7, scenarios=8, history_length=200)
SELECTORS = ("zone", "window", "door", "light", "position", "seat")


def gold_target(call: dict) -> str | None:
    """The seat/zone argument of a gold call (None without one)."""
    return next((call["arguments"][k] for k in SELECTORS if k in call["arguments"]), None)


def whole_queries(options: GeneratorOptions) -> tuple[list[tuple[dict, str]], list[dict]]:
    """``(query meta, request)`` of every query whose first gold call targets "all", and every query meta."""
    found, every = [], []
    for k in range(options.scenarios):
        sc = build_scenario(options, k)
        items = sc.qa["related_to_vehicle_preference"]
        for meta, item in zip(sc.meta["queries"], items, strict=True):
            every.append(meta)
            if gold_target(meta["gold_calls"][0]) == "all":
                found.append((meta, item["query"]))
    return found, every


def test_option_is_validated_and_left_out_of_json_when_off() -> None:
    assert "whole_car" not in GeneratorOptions().to_json()
    on = GeneratorOptions(whole_car=0.5)
    assert on.to_json()["whole_car"] == 0.5
    assert GeneratorOptions.from_json(on.to_json()) == on
    with pytest.raises(ConfigError, match="whole_car"):
        GeneratorOptions(whole_car=1.5)


def test_off_plans_no_all_target() -> None:
    found, every = whole_queries(SMALL)
    assert found == [] and len(every) == 80


def test_cabin_wide_settings_only_and_no_seats() -> None:
    cat = catalogue()
    wide = {a for a, st in cat.items() if whole_car_api(st)}
    assert "carcontrol_airConditioner_set_temperature" in wide and "carcontrol_window_set_open_degree" in wide
    assert not any(a.startswith("carcontrol_seat_") for a in wide)
    assert all("all" in API_SPECS[a].param(cat[a].seat_param).constraint.choices for a in wide)


def test_share_one_sets_every_cabin_wide_request_for_the_whole_car() -> None:
    options = dataclasses.replace(SMALL, whole_car=1.0)
    found, every = whole_queries(options)
    cat = catalogue()
    eligible = [m for m in every if m["reasoning_type"] != "coreference_resolution"
                and whole_car_api(cat[m["gold_calls"][0]["name"]])]
    assert found and len(found) == len(eligible)
    for meta, request in found:
        assert meta["situation"]["seat"] == "all"
        assert any(w in request for w in WHOLE_CAR), request
        assert meta["qa"]["question"].endswith(
            "for the whole car? Answer with the vehicle function and its argument values.")
        calls = [ToolCall(c["name"], c["arguments"]) for c in meta["gold_calls"]]
        assert gold_changes_state(SimpleNamespace(gold_calls=calls))
    assert all(gold_target(m["gold_calls"][0]) != "all" for m in every if m not in [f for f, _ in found])


def test_half_share_mixes_and_keeps_other_queries() -> None:
    options = dataclasses.replace(SMALL, whole_car=0.5)
    found, every = whole_queries(options)
    _, off = whole_queries(SMALL)
    cat = catalogue()
    eligible = [m for m in every if m["reasoning_type"] != "coreference_resolution"
                and whole_car_api(cat[m["gold_calls"][0]["name"]])]
    assert 0 < len(found) < len(eligible)
    # the option draws from its own generator: the functions asked about stay those of the set without it
    assert [m["gold_calls"][0]["name"] for m in every] == [m["gold_calls"][0]["name"] for m in off]


def test_written_sidecar_records_the_option(tmp_path: Path) -> None:
    import json

    generate(dataclasses.replace(SMALL, scenarios=1, whole_car=0.6), tmp_path)
    meta = json.loads((tmp_path / "meta" / "meta_1.json").read_text(encoding="utf-8"))
    assert meta["generator"]["options"]["whole_car"] == 0.6


def test_cli_refuses_the_option_for_the_embedded_benchmark(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "vmb_gym.cli", "generate", "--benchmark", "--whole-car", "0.5",
                          "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert out.returncode == 2
    assert "--whole-car, --device-requests, " in out.stderr and "go with --out DIR" in out.stderr


def test_unsaid_share_keeps_the_target_without_the_words() -> None:
    options = dataclasses.replace(SMALL, whole_car=1.0, whole_car_words=0.0)
    found, _ = whole_queries(options)
    said, _ = whole_queries(dataclasses.replace(SMALL, whole_car=1.0))
    assert len(found) == len(said) > 0
    assert not any(w in request for _, request in found for w in WHOLE_CAR)
    assert "whole_car_words" not in GeneratorOptions(whole_car=0.5).to_json()
    assert GeneratorOptions(whole_car=0.5, whole_car_words=0.25).to_json()["whole_car_words"] == 0.25
    with pytest.raises(ConfigError, match="whole_car_words"):
        GeneratorOptions(whole_car_words=-0.1)


def test_training_split_with_the_option_gets_its_own_cache_folder(tmp_path: Path) -> None:
    import json

    from vmb_agents.train.common import generated_train

    out = generated_train(SimpleNamespace(train_scenarios=1, cache_dir=str(tmp_path), whole_car=1.0))
    assert out.name == "train_1_whole1"
    meta = json.loads((out / "meta" / "meta_1.json").read_text(encoding="utf-8"))
    assert meta["generator"]["options"]["whole_car"] == 1.0 and meta["generator"]["options"]["scenarios"] == 1
    plain = generated_train(SimpleNamespace(train_scenarios=1, cache_dir=str(tmp_path), whole_car=0.0))
    assert plain.name == "train_1"
    plain_meta = json.loads((plain / "meta" / "meta_1.json").read_text(encoding="utf-8"))
    assert "whole_car" not in plain_meta["generator"]["options"]
