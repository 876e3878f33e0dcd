"""Options that bring generated tasks close to the official ones: fewer valued near misses, the driver's seat,
the ``official`` preset, and the two measures that motivate them (whose seat, other values outside the evidence)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from vmb_agents.train.common import generator_extra
from vmb_gym.cli import main
from vmb_gym.errors import ConfigError
from vmb_gym.generator import OFFICIAL_LIKE, GeneratorOptions, build_scenario, generate
from vmb_gym.generator.conflict_profile import conflict_profile
from vmb_gym.generator.request_profile import target_of, target_profile

#: Longer histories than the request-option tests: several near misses per queried setting.
OPTS = GeneratorOptions(seed=4, scenarios=3, history_length=600)


def _event_kinds(options: GeneratorOptions) -> Counter[str]:
    return Counter(e["kind"] for k in range(options.scenarios) for e in build_scenario(options, k).meta["events"])


def test_options_are_validated_and_defaults_left_out_of_json() -> None:
    assert "valued_near_misses" not in OPTS.to_json() and "driver_seat" not in OPTS.to_json()
    tuned = dataclasses.replace(OPTS, **OFFICIAL_LIKE)
    assert GeneratorOptions.from_json(tuned.to_json()) == tuned
    for bad in ({"valued_near_misses": 1.5}, {"driver_seat": -0.1}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            dataclasses.replace(OPTS, **bad)


def test_valued_near_misses_sets_how_many_near_misses_state_a_value() -> None:
    valued = _event_kinds(dataclasses.replace(OPTS, valued_near_misses=1.0))
    bare = _event_kinds(dataclasses.replace(OPTS, valued_near_misses=0.0))
    assert valued["mention"] == 0 and valued["near_miss"] > 0
    # with none valued, the only valued near misses left are the same-condition rules of others (two per rule)
    assert bare["mention"] == valued["near_miss"] - bare["near_miss"] > 0
    assert bare["near_miss"] <= 2 * bare["condition"] + 2 * OPTS.scenarios
    # the preference chains and the queries are the same
    assert bare["preference"] == valued["preference"] and bare["revision"] == valued["revision"]


def test_driver_seat_puts_a_persons_seat_requests_at_the_driver() -> None:
    def seats(options: GeneratorOptions) -> Counter[str]:
        out: Counter[str] = Counter()
        for k in range(options.scenarios):
            for q in build_scenario(options, k).meta["queries"]:
                if q["reasoning_type"] != "coreference_resolution":  # a relative's seat stays theirs
                    out[target_of(q["gold_calls"][0]["arguments"])] += 1
        return out

    plain, driver = seats(OPTS), seats(dataclasses.replace(OPTS, driver_seat=1.0))
    assert plain["other seat"] > 0
    assert driver["driver"] > plain["driver"]
    assert driver["other seat"] < plain["other seat"]


@pytest.mark.parametrize(("arguments", "target"), [
    ({"seat": "driver", "value": 3}, "driver"),
    ({"zone": "all", "temperature": 22}, "whole car"),
    ({"side": "both", "value": 40}, "whole car"),
    ({"seat": "rear_left", "level": 2}, "other seat"),
    ({"color": "green"}, "no seat"),
])
def test_target_of(arguments: dict, target: str) -> None:
    assert target_of(arguments) == target


def test_fewer_valued_near_misses_show_in_the_conflict_profile(tmp_path: Path) -> None:
    generate(dataclasses.replace(OPTS, valued_near_misses=1.0), tmp_path / "many")
    generate(dataclasses.replace(OPTS, valued_near_misses=0.0), tmp_path / "few")
    many, few = conflict_profile(tmp_path / "many"), conflict_profile(tmp_path / "few")
    assert many.tasks == few.tasks == 30
    # the same lines name the setting; far fewer of them state a value
    assert many.summary()["valued_mean"] >= few.summary()["valued_mean"] + 1.0, (many.summary(), few.summary())
    assert target_profile(tmp_path / "many").queries == 30


def test_generator_extra_reads_the_preset_and_json_and_names_bad_fields() -> None:
    assert generator_extra("") == {} and generator_extra("official") == OFFICIAL_LIKE
    assert generator_extra('{"driver_seat": 0.8}') == {"driver_seat": 0.8}
    with pytest.raises(ConfigError, match="JSON object"):
        generator_extra("{driver_seat: 0.8")
    with pytest.raises(ConfigError, match=r"unknown GeneratorOptions fields \['driver_sit'\]"):
        generator_extra('{"driver_sit": 0.8}')


def test_vmb_generate_like_official_records_the_options(tmp_path: Path) -> None:
    out = tmp_path / "like"
    assert main(["generate", "--like", "official", "--driver-seat", "1.0", "--scenarios", "1",
                 "--history-length", "200", "--renderer", "template", "--out", str(out)]) == 0
    options = json.loads(next((out / "meta").iterdir()).read_text(encoding="utf-8"))["generator"]["options"]
    assert options["driver_seat"] == 1.0  # the flag overrides the preset
    assert {k: options[k] for k in ("whole_car", "indirect_requests", "valued_near_misses")} == {
        k: OFFICIAL_LIKE[k] for k in ("whole_car", "indirect_requests", "valued_near_misses")}


def test_validate_benchmark_reports_whose_seat_and_the_other_values(tmp_path: Path) -> None:
    from vmb_gym.cli.validate_benchmark import add_domain_gap

    generate(dataclasses.replace(OPTS, valued_near_misses=1.0), tmp_path / "gen")
    generate(dataclasses.replace(OPTS, seed=9, valued_near_misses=0.0, driver_seat=1.0), tmp_path / "ref")
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.md").write_text("# Benchmark validation report\n", encoding="utf-8")
    section = add_domain_gap({"ok": True}, str(out), str(tmp_path / "gen"), str(tmp_path / "ref"), lines=300)
    saved = json.loads((out / "report.json").read_text(encoding="utf-8"))
    conflicts = saved["conflict_profile"]
    assert conflicts["generated"]["tasks"] == conflicts["official"]["tasks"] == 30
    assert conflicts["generated"]["valued_mean"] > conflicts["official"]["valued_mean"]
    targets = saved["request_profile"]["targets"]
    assert targets["official"]["shares"]["driver"] > targets["generated"]["shares"]["driver"]
    assert 0 < targets["distance"] <= 1
    assert "Other values of the asked setting" in section and "| the request is for |" in section
