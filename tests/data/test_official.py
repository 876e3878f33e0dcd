"""Loading release-style folders: history, QA, evidence, sidecars, errors, official data."""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import date, datetime
from pathlib import Path

import pytest

from vmb_gym.data import (
    clear_cache,
    embedded_benchmark_dir,
    load_official,
    load_scenarios,
    parse_file_range,
    parse_gold_memory,
)
from vmb_gym.errors import ConfigError, DataError
from vmb_gym.types import REASONING_TYPES, ToolCall

HISTORY = """\
[2025-03-01 08:00] Gary Allen: Morning! Set the panel to green please.
[2025-03-01 08:00] Justin Martinez: Sure, green it is.
[2025-03-01 08:02] Patricia Garcia: I prefer white at night.

[2025-03-02 19:31] Gary Allen: Seat heating to 2, thanks.
[2025-03-02 19:31] [2025-03-02 19:31] Patricia Garcia: Actually make it 3.
[2025-03-03 07:00] Gary Allen: Let's go.
"""

ITEMS = [
    {
        "gold_memory": "[March 1, 2025] At 8:00 AM, Gary set the panel to green.\n"
        "[March 2, 2025] At 7:30 PM, Patricia wanted the seat heating at 3.",
        "reasoning_type": "preference_conflict",
        "query": "At 9:00 AM, Gary asks for his usual panel colour.",
        "new_answer": ['carcontrol_instrumentPanel_set_color(color="green")'],
    },
    {
        "gold_memory": "[March 1, 2025] At 8:05 AM, Patricia said white.",
        "reasoning_type": "state_shift",
        "query": "At 8:00 PM, Patricia is cold.",
        "new_answer": [
            'carcontrol_seat_set_heating_level(seat="driver", level=3)',
            "carcontrol_seat_set_heating_enabled(seat='driver', enabled=true)",
        ],
    },
]


def write_folder(root: Path, n: int = 1, history: str = HISTORY, items: list | None = None) -> Path:
    (root / "history").mkdir(parents=True, exist_ok=True)
    (root / "qa_data").mkdir(parents=True, exist_ok=True)
    (root / "history" / f"history_{n}.txt").write_text(history, encoding="utf-8")
    payload = {"related_to_vehicle_preference": ITEMS if items is None else items}
    (root / "qa_data" / f"qa_{n}.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


# ------------------------------------------------------------------------------ small folder


def test_history_lines_speakers_and_doubled_timestamp(tmp_path: Path) -> None:
    (scenario,) = load_official(write_folder(tmp_path, 7))
    assert scenario.scenario_id == 7
    assert [line.line_id for line in scenario.lines] == [1, 2, 3, 5, 6, 7]  # blank line 4 skipped
    assert scenario.lines[0].timestamp == datetime(2025, 3, 1, 8, 0)
    assert scenario.lines[0].speaker == "Gary Allen"
    assert scenario.lines[0].text == "Morning! Set the panel to green please."
    doubled = scenario.lines[4]
    assert (doubled.line_id, doubled.speaker, doubled.text) == (6, "Patricia Garcia", "Actually make it 3.")
    # Gary 3 lines, Patricia 2, Justin 1
    assert scenario.speakers == ("Gary Allen", "Patricia Garcia", "Justin Martinez")
    assert scenario.source.endswith("history_7.txt")


def test_speaker_ties_keep_first_appearance(tmp_path: Path) -> None:
    history = "[2025-01-01 10:00] B Two: x\n[2025-01-01 10:00] A One: y\n"
    (scenario,) = load_official(write_folder(tmp_path, 1, history=history, items=ITEMS[:1]))
    assert scenario.speakers == ("B Two", "A One")


def test_queries_gold_and_evidence(tmp_path: Path) -> None:
    (scenario,) = load_official(write_folder(tmp_path, 3))
    first, second = scenario.queries
    assert (first.task_id, first.index, first.scenario_id) == ("3_0", 0, 3)
    assert second.task_id == "3_1"
    assert first.as_of == datetime(2025, 3, 3, 7, 0)  # end of history
    assert first.gold_calls == (ToolCall("carcontrol_instrumentPanel_set_color", {"color": "green"}),)
    assert second.gold_calls[1].arguments == {"seat": "driver", "enabled": True}
    assert second.gold_call_strings == tuple(ITEMS[1]["new_answer"])
    assert first.unparsed_gold == ()
    assert first.qa is None
    # event 1: exact minute -> both 08:00 lines; event 2: 19:30 -> nearest minute 19:31
    assert first.evidence[0].when == datetime(2025, 3, 1, 8, 0)
    assert first.evidence[0].line_ids == (1, 2)
    assert first.evidence[1].line_ids == (5, 6)
    assert first.evidence_line_ids == (1, 2, 5, 6)
    # 08:05 -> 3 minutes from 08:02 (line 3): within the window
    assert second.evidence[0].line_ids == (3,)


def test_evidence_outside_window_is_empty(tmp_path: Path) -> None:
    items = [dict(ITEMS[0], gold_memory="[March 1, 2025] At 8:06 AM, too far.\nno time here")]
    (scenario,) = load_official(write_folder(tmp_path, 1, items=items))
    far, untimed = scenario.queries[0].evidence
    assert far.when == datetime(2025, 3, 1, 8, 6) and far.line_ids == ()
    assert untimed.when is None and untimed.line_ids == ()


def test_gold_memory_times() -> None:
    events = parse_gold_memory(
        "[April 15, 2025] At 12:05 AM, a.\n[June 1, 2025] 'At 2:00 PM, b.\n[May 3, 2025] At 12:30 PM, c."
    )
    assert [when for _, when in events] == [
        datetime(2025, 4, 15, 0, 5),
        datetime(2025, 6, 1, 14, 0),
        datetime(2025, 5, 3, 12, 30),
    ]


def test_unparsed_gold_is_reported(tmp_path: Path) -> None:
    items = [dict(ITEMS[0], new_answer=["f(v=1.2.3)", 'g(a="b")'])]
    (scenario,) = load_official(write_folder(tmp_path, 1, items=items))
    query = scenario.queries[0]
    assert query.gold_calls == (ToolCall("g", {"a": "b"}),)
    assert query.unparsed_gold == ("f(v=1.2.3)",)


def test_sidecar_overrides(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 2)
    (root / "meta").mkdir()
    meta = {
        "scenario_id": 2,
        "generator": "ignored",
        "queries": [
            {
                "index": 1,
                "as_of": "2025-03-02T20:00",
                "evidence": [{"text": "seat heat 3", "when": "2025-03-02T19:31", "line_ids": [6]}],
                "qa": {
                    "question": "Which seat heating level does Patricia like?",
                    "answer": {"name": "carcontrol_seat_set_heating_level", "arguments": {"level": 3}},
                },
            }
        ],
    }
    (root / "meta" / "meta_2.json").write_text(json.dumps(meta), encoding="utf-8")
    (scenario,) = load_official(root)
    untouched, overridden = scenario.queries
    assert untouched.as_of == datetime(2025, 3, 3, 7, 0)
    assert untouched.evidence[0].line_ids == (1, 2)
    assert overridden.as_of == datetime(2025, 3, 2, 20, 0)
    assert overridden.evidence_line_ids == (6,)
    assert overridden.evidence[0].when == datetime(2025, 3, 2, 19, 31)
    assert overridden.qa is not None
    assert overridden.qa.answer == ToolCall("carcontrol_seat_set_heating_level", {"level": 3})


def test_sidecar_bad_index(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 2)
    (root / "meta").mkdir()
    (root / "meta" / "meta_2.json").write_text(
        json.dumps({"scenario_id": 2, "queries": [{"index": 9}]}, indent=2), encoding="utf-8"
    )
    with pytest.raises(DataError, match="index") as info:
        load_official(root)
    assert info.value.path.endswith("meta_2.json")


def test_files_subset_order_and_missing(tmp_path: Path) -> None:
    for n in (1, 2, 5):
        write_folder(tmp_path, n)
    assert [s.scenario_id for s in load_official(tmp_path)] == [1, 2, 5]
    assert [s.scenario_id for s in load_official(tmp_path, files=[5, 1])] == [5, 1]
    with pytest.raises(DataError, match=r"\[3\].*1-2,5"):
        load_official(tmp_path, files=[3])


def test_cache_hit_and_invalidation(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 1)
    first = load_official(root)[0]
    assert load_official(root)[0] is first
    qa = root / "qa_data" / "qa_1.json"
    qa.write_text(json.dumps({"related_to_vehicle_preference": ITEMS[:1]}), encoding="utf-8")
    stat = qa.stat()
    os.utime(qa, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    reloaded = load_official(root)[0]
    assert reloaded is not first and len(reloaded.queries) == 1


# ------------------------------------------------------------------------------ malformed files


def test_bad_history_line_names_file_and_line(tmp_path: Path) -> None:
    history = HISTORY.replace("[2025-03-01 08:02] Patricia", "2025-03-01 08:02 Patricia")
    with pytest.raises(DataError) as info:
        load_official(write_folder(tmp_path, 4, history=history))
    assert info.value.path.endswith("history_4.txt")
    assert info.value.line == 3
    assert "history_4.txt:3" in str(info.value)


def test_history_line_without_speaker(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="Full Name") as info:
        load_official(write_folder(tmp_path, 1, history="[2025-03-01 08:00] no speaker here\n"))
    assert info.value.line == 1


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 1)
    (root / "qa_data" / "qa_1.json").write_text('{\n  "related_to_vehicle_preference": [\n    {,}\n]}')
    with pytest.raises(DataError, match="JSON") as info:
        load_official(root)
    assert info.value.path.endswith("qa_1.json") and info.value.line == 3


def test_missing_key_names_item_and_line(tmp_path: Path) -> None:
    items = [ITEMS[0], {k: v for k, v in ITEMS[1].items() if k != "new_answer"}]
    with pytest.raises(DataError, match=r"item 1 .*new_answer") as info:
        load_official(write_folder(tmp_path, 1, items=items))
    assert info.value.path.endswith("qa_1.json")
    # json.dumps(indent=2): item 0 opens at line 3 and spans 8 lines
    assert info.value.line == 11


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"new_answer": "f(a=1)"}, "list"),
        ({"new_answer": [1]}, "list of strings"),
        ({"reasoning_type": "guessing"}, "reasoning_type"),
        ({"query": " "}, "non-empty"),
    ],
)
def test_wrong_types(tmp_path: Path, change: dict, needle: str) -> None:
    with pytest.raises(DataError, match=needle):
        load_official(write_folder(tmp_path, 1, items=[dict(ITEMS[0], **change)]))


def test_wrong_top_level(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 1)
    (root / "qa_data" / "qa_1.json").write_text("[]")
    with pytest.raises(DataError, match="related_to_vehicle_preference"):
        load_official(root)


def test_missing_qa_and_folder(tmp_path: Path) -> None:
    root = write_folder(tmp_path, 1)
    (root / "qa_data" / "qa_1.json").unlink()
    with pytest.raises(DataError, match="QA file"):
        load_official(root)
    with pytest.raises(DataError, match="history/"):
        load_official(tmp_path / "nowhere")


# ------------------------------------------------------------------------------ specs and ranges


def test_load_scenarios_specs(tmp_path: Path) -> None:
    write_folder(tmp_path, 1)
    assert load_scenarios(f"official:{tmp_path}")[0].scenario_id == 1
    assert load_scenarios(str(tmp_path), files=[1])[0].scenario_id == 1
    with pytest.raises(ConfigError):
        load_scenarios("official:")


def test_embedded_dir_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VMB_BENCHMARK_DIR", str(tmp_path / "empty"))
    with pytest.raises(DataError, match="generator"):
        embedded_benchmark_dir()
    write_folder(tmp_path / "set", 1)
    monkeypatch.setenv("VMB_BENCHMARK_DIR", str(tmp_path / "set"))
    assert embedded_benchmark_dir() == (tmp_path / "set").resolve()
    assert load_scenarios("default")[0].scenario_id == 1


def test_parse_file_range() -> None:
    assert parse_file_range("1-3,12, 5") == [1, 2, 3, 5, 12]
    assert parse_file_range("7") == [7]
    assert parse_file_range("2-4,3-5") == [2, 3, 4, 5]
    for bad in ("", "3-1", "0", "a", "1-", "1,,2"):
        with pytest.raises(ConfigError):
            parse_file_range(bad)


# ------------------------------------------------------------------------------ official data

@pytest.fixture(scope="module")
def official_scenarios(official: Path) -> list:
    """Every scenario of the official release (the root ``official`` fixture skips when it is absent)."""
    clear_cache()  # load speed is measured by scripts/bench.py, not asserted here
    return load_official(official)


def test_official_counts_and_ids(official_scenarios: list) -> None:
    assert [s.scenario_id for s in official_scenarios] == list(range(1, 41))
    queries = [q for s in official_scenarios for q in s.queries]
    assert len(queries) == 400
    assert all(len(s.queries) == 10 for s in official_scenarios)
    assert [q.task_id for q in official_scenarios[11].queries] == [f"12_{i}" for i in range(10)]
    counts = Counter(q.reasoning_type for q in queries)
    assert set(counts) <= set(REASONING_TYPES)
    assert sum(counts.values()) == 400


def test_official_history_shape(official_scenarios: list) -> None:
    first = official_scenarios[0]
    assert len(first.lines) == 2438
    assert first.speakers == ("Gary Allen", "Justin Martinez", "Patricia Garcia")
    assert first.end_time is not None and first.end_time.date() == date(2025, 6, 18)
    eighteen = official_scenarios[17]
    line = next(line for line in eighteen.lines if line.line_id == 1870)
    assert line.speaker == "Kathleen Ramirez" and line.text.startswith("Wait, screen brightness 80")
    assert len(eighteen.speakers) == 3
    assert [len(s.speakers) for s in official_scenarios if len(s.speakers) == 4] == [4, 4, 4, 4]
    assert all(q.as_of == s.end_time for s in official_scenarios for q in s.queries)


def test_official_gold_all_parsed(official_scenarios: list) -> None:
    from vmb_gym.data import parse_gold_calls

    queries = [q for s in official_scenarios for q in s.queries]
    assert sum(len(q.unparsed_gold) for q in queries) == 0
    for query in queries:
        assert len(query.gold_calls) == len(query.gold_call_strings) >= 1
        warnings: list[str] = []
        parse_gold_calls(query.gold_call_strings, warnings)
        assert warnings == [], (query.task_id, warnings)
    assert official_scenarios[0].queries[0].gold_calls == (
        ToolCall("carcontrol_instrumentPanel_set_color", {"color": "green"}),
    )


def test_official_evidence_located(official_scenarios: list) -> None:
    events = [e for s in official_scenarios for q in s.queries for e in q.evidence]
    assert len(events) >= 400
    assert all(e.when is not None for e in events)
    located = sum(1 for e in events if e.line_ids)
    assert located >= 0.99 * len(events)
    by_id = {(s.scenario_id, line.line_id): line for s in official_scenarios for line in s.lines}
    exact = sum(
        1
        for s in official_scenarios
        for q in s.queries
        for e in q.evidence
        if e.line_ids and by_id[(s.scenario_id, e.line_ids[0])].timestamp == e.when
    )
    assert exact >= 0.97 * len(events)
