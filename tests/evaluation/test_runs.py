"""vmb_gym.evaluation.runs: loading eval and eval-stream run directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evaluation.run_dirs import eval_record, write_eval_run, write_stream_run
from vmb_gym.errors import DataError
from vmb_gym.evaluation.runs import load_run, load_runs

ROWS = [("1_0", "state_shift", True, 1.0, 100, None),
        ("1_1", "error_correction", False, 0.5, 300, "wrong_value")]


def test_eval_run_records(tmp_path: Path) -> None:
    run = load_run(write_eval_run(tmp_path / "a", "rules", "bm25", ROWS))
    assert run.kind == "eval" and run.label == "rules/bm25"
    assert run.config.data == "default" and run.config.files is None and run.config.trials == 1
    assert [t.task_id for t in run.tasks] == ["1_0", "1_1"]
    first, second = run.tasks
    assert (first.exact_match, first.f1_change, first.f1_positive, first.tool_f1) == (1.0, 1.0, 0.5, 1.0)
    assert first.modules == ("seat",) and second.modules == ("light", "seat")
    assert (second.memory_tokens, second.memory_searches, second.seconds) == (300.0, 2.0, 0.5)
    assert first.failure_label is None and second.failure_label == "wrong_value"
    assert second.audit == {"recall@5": 0.5, "recall@10": 1.0, "mrr": 0.5}
    assert run.esm == 0.5


def test_infrastructure_errors_and_resumed_lines(tmp_path: Path) -> None:
    redo = [eval_record("1_1", "error_correction", False, 0.5, 300, None, error=True),
            eval_record("1_2", "state_shift", False, 0.0, 10, None, error=True)]
    out = write_eval_run(tmp_path / "a", "rules", "bm25", ROWS, metric=False, extra=redo)
    run = load_run(out)
    # 1_1's later line (an infrastructure failure) supersedes the first one; 1_2 failed too
    assert [(t.task_id, t.error_kind) for t in run.tasks] == [("1_0", None), ("1_1", "infrastructure"),
                                                               ("1_2", "infrastructure")]
    assert [t.task_id for t in run.scored()] == ["1_0"] and run.task_ids() == ["1_0"]
    assert run.metric == {} and run.esm == 1.0


def test_stream_run(tmp_path: Path) -> None:
    out = write_stream_run(tmp_path / "s", "rules", {1: [("1_0", "state_shift", True), ("1_1", "state_shift", False)],
                                                      2: [("2_0", "error_correction", False)]})
    run = load_run(out)
    assert run.kind == "stream" and run.label == "rules/bm25"
    assert [t.task_id for t in run.tasks] == ["1_0", "1_1", "2_0"]
    assert [t.seconds for t in run.tasks] == [1.0, 1.0, 2.0]
    assert run.tasks[0].memory_tokens == 300.0 and run.tasks[0].memory_searches is None
    assert run.esm == pytest.approx(1 / 3)


def test_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="found no directory"):
        load_run(tmp_path / "missing")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "config.json").write_text("{}")
    with pytest.raises(DataError, match="found no results.jsonl"):
        load_run(tmp_path / "half")
    (tmp_path / "half" / "results.jsonl").write_text(json.dumps({"x": 1}) + "\n")
    with pytest.raises(DataError, match="neither"):
        load_run(tmp_path / "half")


def test_load_runs_keeps_order(tmp_path: Path) -> None:
    a = write_eval_run(tmp_path / "a", "rules", "bm25", ROWS)
    b = write_eval_run(tmp_path / "b", "rules", "gold", ROWS)
    assert [r.label for r in load_runs([b, a])] == ["rules/gold", "rules/bm25"]

