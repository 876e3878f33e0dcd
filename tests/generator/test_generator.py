"""Tests of the procedural scenario generator and the shipped default benchmark."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError, DataError
from vmb_gym.generator import GeneratorOptions, build_scenario, generate, score_qa, verify_manifest
from vmb_gym.generator.catalog import catalogue, render_value
from vmb_gym.generator.validate import evidence_states_value, gold_changes_state
from vmb_gym.types import REASONING_TYPES, ToolCall
from vmb_gym.vehicle import API_SPECS, VehicleSimulator

REPO = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] [A-Z][a-z]+ [A-Z][a-z]+: \S.*$")
SMALL = GeneratorOptions(seed=7, scenarios=6, history_length=200)


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen")
    generate(SMALL, out)
    return out


@pytest.fixture(scope="module")
def small_set(small_dir: Path):
    from vmb_gym.data import load_scenarios

    return load_scenarios(str(small_dir))


def test_same_seed_same_bytes_and_different_seed_differs() -> None:
    a = build_scenario(SMALL, 0)
    b = build_scenario(SMALL, 0)
    assert a.history == b.history and a.qa == b.qa and a.meta == b.meta
    c = build_scenario(GeneratorOptions(seed=8, scenarios=6, history_length=200), 0)
    assert c.history != a.history
    assert [q["query"] for q in c.qa["related_to_vehicle_preference"]] != [
        q["query"] for q in a.qa["related_to_vehicle_preference"]]


def test_files_are_deterministic(tmp_path: Path) -> None:
    opts = GeneratorOptions(seed=3, scenarios=2, history_length=120)
    generate(opts, tmp_path / "a")
    generate(opts, tmp_path / "b")
    for f in sorted((tmp_path / "a").rglob("*.*")):
        assert f.read_bytes() == (tmp_path / "b" / f.relative_to(tmp_path / "a")).read_bytes()


def test_official_layout(small_dir: Path) -> None:
    hist = (small_dir / "history" / "history_1.txt").read_text(encoding="utf-8").splitlines()
    assert len(hist) >= SMALL.history_length
    assert all(LINE.match(line) for line in hist)
    assert all(line.isascii() for line in hist)
    stamps = [line[1:17] for line in hist]
    assert stamps == sorted(stamps)
    qa = json.loads((small_dir / "qa_data" / "qa_1.json").read_text(encoding="utf-8"))
    items = qa["related_to_vehicle_preference"]
    assert len(items) == 10
    for item in items:
        assert set(item) == {"gold_memory", "reasoning_type", "query", "new_answer"}
        assert re.match(r"^At \d{1,2}:\d{2} [AP]M, ", item["query"])
        for line in item["gold_memory"].split("\n"):
            assert re.match(r"^\[[A-Z][a-z]+ \d{1,2}, \d{4}\] At \d{1,2}:\d{2} [AP]M, ", line)
        for call in item["new_answer"]:
            assert "'" not in call.split("(", 1)[1] or '"' in call  # strings are double-quoted
            assert "True" not in call and "False" not in call
    meta = json.loads((small_dir / "meta" / "meta_1.json").read_text(encoding="utf-8"))
    assert meta["scenario_id"] == 1 and meta["generator"]["seed"] == SMALL.seed
    assert 2 <= len(meta["people"]) <= 5 and meta["people"][0]["relatives"]


def test_every_gold_succeeds_and_changes_state(small_set) -> None:
    for sc in small_set:
        for q in sc.queries:
            assert gold_changes_state(q), q.task_id
            sim = VehicleSimulator()
            before = sim.flatten()
            for c in q.gold_calls:
                assert sim.call(c.name, dict(c.arguments))["success"]
            assert sim.flatten() != before


def test_oracle_scores_exact_match(small_set) -> None:
    from vmb_gym.scoring import score_task

    for sc in small_set:
        for q in sc.queries:
            assert score_task(q, list(q.gold_calls)).exact_match, q.task_id


def test_wrong_value_is_not_exact_match(small_set) -> None:
    from vmb_gym.scoring import score_task

    q = small_set[0].queries[0]
    first = q.gold_calls[0]
    st = catalogue()[first.name]
    other = next(v for v in st.values if any(first.arguments.get(k) != x for k, x in v.items()))
    wrong = ToolCall(first.name, {**first.arguments, **other})
    assert not score_task(q, [wrong, *q.gold_calls[1:]]).exact_match


def test_evidence_lines_state_person_and_value(small_set) -> None:
    for sc in small_set:
        speakers = set(sc.speakers)
        by_id = {line.line_id: line for line in sc.lines}
        for q in sc.queries:
            assert q.evidence and all(e.line_ids for e in q.evidence)
            assert evidence_states_value(sc, q), q.task_id
            lines = [by_id[i] for i in q.evidence_line_ids]
            assert all(line.speaker in speakers for line in lines)
            # the first evidence line is before the query and each event's time is its line's time
            for e in q.evidence:
                assert by_id[e.line_ids[0]].timestamp == e.when
                assert e.when < q.as_of


def test_loader_round_trip_matches_sidecar(small_dir: Path, small_set) -> None:
    for sc in small_set:
        meta = json.loads((small_dir / "meta" / f"meta_{sc.scenario_id}.json").read_text(encoding="utf-8"))
        for q, m in zip(sc.queries, meta["queries"], strict=True):
            assert [c.to_json() for c in q.gold_calls] == m["gold_calls"]
            assert q.evidence_line_ids == tuple(sorted(i for e in m["evidence"] for i in e["line_ids"]))
            assert q.as_of is not None and f"{q.as_of:%Y-%m-%dT%H:%M}" == m["as_of"]
            assert q.qa is not None and q.qa.question == m["qa"]["question"]


def test_qa_answers_agree_with_gold_and_score_qa(small_set) -> None:
    for sc in small_set:
        for q in sc.queries:
            assert q.qa is not None and q.qa.question.endswith("argument values.")
            assert q.qa.answer == q.gold_calls[0]
            assert score_qa(q, q.gold_calls[0])
    q = small_set[0].queries[0]
    gold = q.qa.answer
    shouty = ToolCall(gold.name, {k: v.upper() if isinstance(v, str) else v for k, v in gold.arguments.items()})
    assert score_qa(q, shouty)
    assert not score_qa(q, ToolCall(gold.name, {}))
    assert not score_qa(q, ToolCall("carcontrol_HUD_switch", dict(gold.arguments)))


def test_score_qa_needs_a_qa_form(small_set) -> None:
    import dataclasses

    q = dataclasses.replace(small_set[0].queries[0], qa=None)
    with pytest.raises(DataError):
        score_qa(q, q.gold_calls[0])


def test_reasoning_types_balanced(small_set) -> None:
    counts = Counter(q.reasoning_type for sc in small_set for q in sc.queries)
    assert set(counts) == set(REASONING_TYPES)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_knobs_people_and_history_length() -> None:
    sc = build_scenario(GeneratorOptions(seed=1, scenarios=1, people=5, history_length=600), 0)
    assert len(sc.meta["people"]) == 5
    lines = sc.history.splitlines()
    assert 600 <= len(lines) <= 700  # planned talks (evidence, distractors, near misses) can overshoot a little
    speakers = {line.split("] ", 1)[1].split(":", 1)[0] for line in lines}
    assert len(speakers) == 5
    short = build_scenario(GeneratorOptions(seed=1, scenarios=1, history_length=100, distractor_ratio=0), 0)
    assert not any(e.get("distractor") for e in short.meta["events"])


def test_revision_depth_and_earlier_revisions() -> None:
    sc = build_scenario(GeneratorOptions(seed=2, scenarios=1, queries_per_scenario=40, max_revision_depth=5), 0)
    shifts = [q["situation"] for q in sc.meta["queries"] if q["reasoning_type"] == "state_shift"]
    assert max(s["depth"] for s in shifts) >= 3
    assert all(2 <= s["depth"] <= 5 for s in shifts)
    assert any(s["target_revision"] < s["depth"] - 1 for s in shifts)  # refers to an earlier revision


def test_options_are_validated() -> None:
    with pytest.raises(ConfigError):
        GeneratorOptions(people=6)
    with pytest.raises(ConfigError):
        GeneratorOptions(max_revision_depth=0)
    with pytest.raises(ConfigError):
        GeneratorOptions.from_json({"seed": 1, "colour": "red"})


def test_catalogue_values_change_state() -> None:
    cat = catalogue()
    assert len(cat) >= 100 and {s.module for s in cat.values()} == {s.module for s in API_SPECS.values()}
    assert render_value({"temperature": 22}, "carcontrol_airConditioner_set_temperature") == "22 degrees"
    assert render_value({"song_name": "A", "artist": "B"}, "carcontrol_music_play_song") == "'A' by B"


def test_small_set_covers_many_apis(small_set) -> None:
    apis = {c.name for sc in small_set for q in sc.queries for c in q.gold_calls}
    modules = {API_SPECS[a].module for a in apis}
    assert len(apis) >= 45 and len(modules) >= 18


def test_shipped_benchmark_matches_manifest() -> None:
    root = REPO / "benchmark"
    assert verify_manifest(root) == []
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["splits"]) == {"test", "validation", "train"}
    assert len([f for f in manifest["files"] if f.startswith("qa_data/")]) == 50


@pytest.mark.slow
def test_shipped_benchmark_regenerates_byte_identical(tmp_path: Path) -> None:
    from vmb_gym.generator import write_benchmark

    fresh = write_benchmark(tmp_path)
    shipped = json.loads((REPO / "benchmark" / "manifest.json").read_text(encoding="utf-8"))
    assert fresh["files"] == shipped["files"]


@pytest.mark.slow
def test_default_set_validation(tmp_path: Path) -> None:
    from vmb_gym.generator.validate import validate

    report = validate(REPO / "benchmark", tmp_path, train=GeneratorOptions(seed=20250603, scenarios=60), memory=None)
    assert report["oracle_esm"] == 1.0
    assert report["baseline"]["esm"] < 0.20
    assert report["coverage"]["modules"] == 23 and report["coverage"]["apis"] >= 90
    assert set(report["reasoning_types"].values()) == {100}
    assert all(v["passed"] == v["of"] for v in report["checks"].values())
    assert (tmp_path / "report.md").is_file()


def test_default_options_match_the_shipped_set() -> None:
    opts = GeneratorOptions()
    assert opts.history_length == 2000
    manifest = json.loads((REPO / "benchmark" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["history_length"] == opts.history_length
    meta = json.loads((REPO / "benchmark" / "meta" / "meta_1.json").read_text(encoding="utf-8"))
    assert 2000 <= meta["history_lines"] <= 2200


def test_near_misses_share_the_setting_but_are_not_evidence() -> None:
    sc = build_scenario(GeneratorOptions(seed=5, scenarios=1, history_length=600), 0)
    events = sc.meta["events"]
    near = [e for e in events if e["kind"] in ("near_miss", "mention")]
    queried = {q["gold_calls"][0]["name"] for q in sc.meta["queries"]}
    per_api = Counter(e["api"] for e in near)
    assert all(per_api[a] >= 4 for a in queried)  # 600 / 150 lines per queried setting at least
    evidence = {i for q in sc.meta["queries"] for e in q["evidence"] for i in e["line_ids"]}
    assert not evidence.intersection(e["line_id"] for e in near)
    assert all(e["distractor"] for e in near)
    # near misses by the asker of a query exist (hypotheticals, other cars, other times)
    askers = {(q["situation"]["person"], q["gold_calls"][0]["name"]) for q in sc.meta["queries"]}
    assert any((e["person"], e["api"]) in askers for e in near)
    # a coreference query's relative is never given a competing value in a near miss
    lines = sc.history.splitlines()
    for q in sc.meta["queries"]:
        rel = q["situation"].get("relative")
        if rel:
            api = q["gold_calls"][0]["name"]
            assert not any(e["api"] == api and rel in lines[e["line_id"] - 1] for e in near)


def test_no_distractors_means_no_near_misses() -> None:
    sc = build_scenario(GeneratorOptions(seed=5, scenarios=1, history_length=300, distractor_ratio=0), 0)
    assert not [e for e in sc.meta["events"] if e["kind"] in ("near_miss", "mention")]



def test_the_memory_free_baseline_never_reads_the_gold_value(tmp_path: Path) -> None:
    from vmb_gym.generator.validate import ANY_API, baseline_calls, learn_baseline, validate
    from vmb_gym.types import Query, ToolCall

    table = {(ANY_API, "level"): 1, ("carcontrol_seat_set_heating_level", "seat"): "driver"}
    gold = (ToolCall("carcontrol_seat_set_heating_level", {"seat": "rear_left", "level": 3}),
            ToolCall("carcontrol_navigation_navigate_to", {"destination": "a place no split names"}))
    query = Query(task_id="1_0", scenario_id=1, index=0, text="", reasoning_type="state_shift", gold_calls=gold,
                  gold_call_strings=(), gold_memory="", evidence=(), as_of=None)
    heat, nav = baseline_calls(query, table)
    # a pair the split never set takes the name's value over every API; a name it never set is left out
    assert heat.arguments == {"seat": "driver", "level": 1}
    assert nav.name == "carcontrol_navigation_navigate_to" and nav.arguments == {}
    assert learn_baseline(GeneratorOptions(seed=3, scenarios=2, history_length=200))[(ANY_API, "seat")]
    # a 2-scenario train split used to hand the baseline the gold of every pair it never saw (ESM 0.65)
    report = validate(REPO / "benchmark", tmp_path, train=GeneratorOptions(seed=20250603, scenarios=2), memory=None)
    assert report["baseline"]["esm"] < 0.20
