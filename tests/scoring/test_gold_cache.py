"""The batch scorer of ``vmb score`` and its on-disk gold cache: same records and lines as score_task, never stale."""

from __future__ import annotations

import json
import logging
import marshal
import os
import shutil
from pathlib import Path

import pytest

from vmb_gym.data import embedded_benchmark_dir, load_gold
from vmb_gym.scoring import gold_cache, score_task
from vmb_gym.scoring.batch import GoldTask, json_native, replayable, score_counted, score_tasks, tool_part
from vmb_gym.scoring.gold_cache import load_gold_tasks, scoring_cache_dir
from vmb_gym.scoring.tool_f1 import multiset_tool_score, official_tool_score
from vmb_gym.types import Query, ToolCall


@pytest.fixture(autouse=True)
def _cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("VMB_CACHE_DIR", str(root))
    return root


def _predictions(queries: list[Query]) -> dict[str, list[ToolCall]]:
    """Oracle, empty, perturbed, doubled and memory-tool predictions, one kind per task in turn."""
    out: dict[str, list[ToolCall]] = {}
    for i, q in enumerate(queries):
        gold = list(q.gold_calls)
        kind = i % 6
        if kind == 0:
            out[q.task_id] = gold
        elif kind == 1:
            out[q.task_id] = []
        elif kind == 2 and gold:
            first = gold[0]
            bent = {k: (v + 1 if type(v) is int else str(v).upper()) for k, v in first.arguments.items()}
            out[q.task_id] = [ToolCall(first.name, bent)] + gold[1:]
        elif kind == 3:
            out[q.task_id] = gold + gold
        elif kind == 4:
            out[q.task_id] = [ToolCall("list_module_tools", {"module_name": "seat"})] + gold
        # kind 5 (and 2 without gold): no prediction
    return out


def _expected(queries: list[Query], predictions: dict[str, list[ToolCall]]) -> tuple[list[dict], list[str]]:
    records = [score_task(q, predictions.get(q.task_id, ())).to_record() for q in queries]
    return records, [json.dumps(r, ensure_ascii=False) + "\n" for r in records]


def test_batch_records_and_lines_equal_score_task_cold_warm_and_uncached(monkeypatch: pytest.MonkeyPatch) -> None:
    queries = load_gold("default", [1, 2, 3, 4, 5, 6])
    predictions = _predictions(queries)
    expected = _expected(queries, predictions)
    assert score_tasks(load_gold_tasks("default", [1, 2, 3, 4, 5, 6], use_cache=False), predictions) == expected
    assert not scoring_cache_dir().exists()  # use_cache=False writes nothing
    cold = score_tasks(load_gold_tasks("default", [1, 2, 3, 4, 5, 6]), predictions)
    assert len(list(scoring_cache_dir().glob("gold-*.marshal"))) == 1
    with monkeypatch.context() as m:
        m.setattr(gold_cache, "read_gold_file", lambda *a: pytest.fail("a warm load parsed a QA file"))
        warm_tasks = load_gold_tasks("default", [1, 2, 3, 4, 5, 6])
    assert cold == expected and score_tasks(warm_tasks, predictions) == expected
    assert [json.loads(line) for line in expected[1]] == expected[0]


def _copy_set(tmp_path: Path, numbers: list[int]) -> Path:
    src, dst = embedded_benchmark_dir(), tmp_path / "set"
    for sub, name in (("history", "history_{}.txt"), ("qa_data", "qa_{}.json")):
        (dst / sub).mkdir(parents=True)
        for n in numbers:
            shutil.copy(src / sub / name.format(n), dst / sub / name.format(n))
    return dst


def test_an_edited_qa_file_is_never_served_from_the_cache(tmp_path: Path) -> None:
    folder = _copy_set(tmp_path, [1, 2])
    before = load_gold_tasks(str(folder))
    qa = folder / "qa_data" / "qa_2.json"
    data = json.loads(qa.read_text(encoding="utf-8"))
    data["related_to_vehicle_preference"][0]["new_answer"] = ['carcontrol_HUD_set_height_level(level=7)']
    qa.write_text(json.dumps(data), encoding="utf-8")
    after = load_gold_tasks(str(folder))
    assert len(list(scoring_cache_dir().glob("gold-*.marshal"))) == 2  # a new key, a new file
    assert [t.keys for t in after] == [t.keys for t in load_gold_tasks(str(folder), use_cache=False)]
    assert after[10].keys == (("carcontrol_HUD_set_height_level", '{"level":7}'),) != before[10].keys


def test_other_code_gives_another_cache_file(monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = gold_cache.cache_path([(1, b"{}")])
    monkeypatch.setattr(gold_cache, "code_fingerprint", lambda: "another scorer")
    assert gold_cache.cache_path([(1, b"{}")])[0] != path
    assert gold_cache.cache_path([(2, b"{}")])[0] != gold_cache.cache_path([(1, b"{}")])[0]


@pytest.mark.parametrize("garbage", [b"", b"\x00not marshal", None])
def test_a_corrupt_cache_file_is_rebuilt_with_one_log_line(garbage: bytes | None,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    expected = [t.to_plain() for t in load_gold_tasks("default", [3], use_cache=False)]
    load_gold_tasks("default", [3])
    (path,) = scoring_cache_dir().glob("gold-*.marshal")
    if garbage is None:  # a well-formed file stored under another key
        garbage = marshal.dumps(("another key", ([], [])))
    path.write_bytes(garbage)
    with caplog.at_level(logging.WARNING, logger="vmb_gym.scoring.gold_cache"):
        rebuilt = load_gold_tasks("default", [3])
    assert [t.to_plain() for t in rebuilt] == expected
    assert [r.levelname for r in caplog.records] == ["WARNING"] and "rebuilding" in caplog.text
    assert [t.to_plain() for t in load_gold_tasks("default", [3])] == expected  # the file was rewritten


def test_json_native_and_a_gold_that_is_not_replayed() -> None:
    assert json_native({"a": [1, 2.5, "x", None, True, {"b": -0.0}]})
    assert not json_native((1, 2)) and not json_native(float("nan")) and not json_native({1: 2})
    q = load_gold("default", [1])[0]
    call = q.gold_calls[0]
    tupled = Query(task_id="t", scenario_id=1, index=0, text="x", reasoning_type=q.reasoning_type,
                   gold_calls=(ToolCall(call.name, {**call.arguments, "extra": (1,)}),), gold_call_strings=(),
                   gold_memory="", evidence=(), as_of=None)
    task = GoldTask.from_query(tupled)
    assert not task.replayable  # a tuple argument is not what a JSON prediction would pass
    replay = [ToolCall(c.name, json.loads(json.dumps(c.arguments))) for c in tupled.gold_calls]
    assert score_tasks([task], {"t": replay}) == _expected([tupled], {"t": replay})


def test_gold_parser_warnings_are_logged_on_cold_and_warm_loads(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    folder = _copy_set(tmp_path, [1])
    qa = folder / "qa_data" / "qa_1.json"
    data = json.loads(qa.read_text(encoding="utf-8"))
    data["related_to_vehicle_preference"][4]["new_answer"].append("this is not a call(")
    qa.write_text(json.dumps(data), encoding="utf-8")
    logs = []
    for use_cache in (False, True, True):  # uncached, cold, warm
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            load_gold_tasks(str(folder), use_cache=use_cache)
        logs.append([(r.name, r.getMessage()) for r in caplog.records])
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        load_gold(str(folder))
    assert logs[0] and "item 4" in logs[0][0][1] and str(qa.resolve()) in logs[0][0][1]
    assert logs[0] == logs[1] == logs[2] == [(r.name, r.getMessage()) for r in caplog.records]


def test_vmb_score_no_cache_writes_no_cache_file(tmp_path: Path) -> None:
    from vmb_gym.cli import main

    q = load_gold("default", [1])[0]
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"task_id": q.task_id, "calls": [c.to_json() for c in q.gold_calls]}) + "\n")
    outs = []
    for flags in (["--no-cache"], [], []):
        out = tmp_path / f"out{len(outs)}"
        assert main(["score", "--files", "1", "--predictions", str(preds), "--out", str(out), *flags]) == 0
        outs.append(((out / "results.jsonl").read_bytes(), (out / "metric.json").read_bytes()))
        if flags:
            assert not scoring_cache_dir().exists()
    assert outs[0] == outs[1] == outs[2] and len(list(scoring_cache_dir().glob("gold-*"))) == 1


@pytest.mark.parametrize("copies", [0, 1, 2, 3])
def test_replay_and_empty_tool_parts_are_those_of_the_gold_keys(copies: int) -> None:
    q = load_gold("default", [1])[1]
    calls = (q.gold_calls * copies) + (q.gold_calls[:1] if copies else ())  # repeated keys, as in qa_18[8]
    query = Query(task_id="t", scenario_id=1, index=0, text="x", reasoning_type=q.reasoning_type, gold_calls=calls,
                  gold_call_strings=(), gold_memory="", evidence=(), as_of=None)
    task = GoldTask.from_query(query)
    keys = task.keys
    assert task.replay_tool == tool_part(official_tool_score(keys, keys), multiset_tool_score(keys, keys))
    assert task.empty_tool == tool_part(official_tool_score((), keys), multiset_tool_score((), keys))


def test_only_the_most_recent_cache_files_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gold_cache, "MAX_FILES", 2)
    load_gold_tasks("default", [1])
    (first,) = scoring_cache_dir().glob("gold-*.marshal")
    load_gold_tasks("default", [2])
    (second,) = set(scoring_cache_dir().glob("gold-*.marshal")) - {first}
    os.utime(first, ns=(10**18, 10**18))  # the older of the two, whatever the clock's resolution
    os.utime(second, ns=(15 * 10**17, 15 * 10**17))  # both before the third one is written
    load_gold_tasks("default", [3])
    kept = set(scoring_cache_dir().glob("gold-*.marshal"))
    assert len(kept) == 2 and second in kept and first not in kept


def test_replayable_leaves_out_what_the_keys_do_not_fix() -> None:
    assert replayable([ToolCall("f", {"a": 1, "b": [1, "x", None, 2.5]})])
    assert not replayable([ToolCall("f", {"a": {"x": 1, "y": 2}})])  # keys sort inside dict values
    assert not replayable([ToolCall("f", {"a": (1,)})]) and not replayable([ToolCall("f", {"a": float("inf")})])
    assert all(replayable(q.gold_calls) for q in load_gold("default"))  # the shipped gold always is


def test_counted_records_give_the_lines_and_metric_of_one_record_per_task() -> None:
    from vmb_gym.scoring import aggregate
    from vmb_gym.scoring.aggregate import aggregate_counted

    queries = load_gold("default", [1, 2, 3, 4, 5, 6])
    predictions = _predictions(queries)
    records, lines = _expected(queries, predictions)
    for tasks in (load_gold_tasks("default", [1, 2, 3, 4, 5, 6]), load_gold_tasks("default", [1, 2, 3, 4, 5, 6])):
        counted, counted_lines = score_counted(tasks, predictions)  # cold, then warm (shared parts)
        assert counted_lines == lines
        assert sum(count for _, count in counted) == len(records) and len(counted) < len(records)
        assert json.dumps(aggregate_counted(counted)) == json.dumps(aggregate(records))


def test_a_warm_load_decodes_the_cold_parts_only_for_a_prediction_that_needs_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_gym.scoring.batch import ColdParts

    queries = load_gold("default", [1, 2])
    load_gold_tasks("default", [1, 2])  # cold: builds and writes the file
    warm = load_gold_tasks("default", [1, 2])
    oracle = {q.task_id: list(q.gold_calls) for q in queries}
    with monkeypatch.context() as m:
        m.setattr(ColdParts, "get", lambda self, i: pytest.fail("an exact replay decoded the cold parts"))
        assert score_tasks(warm, oracle) == _expected(queries, oracle)
    perturbed = {queries[0].task_id: []}  # no call: the untouched part, from the cold blob
    assert score_tasks(warm, perturbed) == _expected(queries, perturbed)
