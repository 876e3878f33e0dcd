"""``vmb score`` end to end on a temporary predictions file."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from vmb_gym.cli import main
from vmb_gym.types import Query


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_score_end_to_end(tmp_path: Path, official: Path, official_queries: dict[str, Query],
                          capsys: pytest.CaptureFixture[str]) -> None:
    q = official_queries["1_0"]
    lines = [
        json.dumps({"task_id": "1_0", "calls": [c.to_json() for c in q.gold_calls]}),
        "",
        json.dumps({"task_id": "1_1", "calls": [{"name": "carcontrol_HUD_switch", "args": {"switch": True}}]}),
        json.dumps({"task_id": "1_2", "calls": [{"name": "carcontrol_HUD_switch", "arguments": "{not json"}]}),
        json.dumps({"task_id": "77_1", "calls": []}),
    ]
    preds = _write(tmp_path / "p.jsonl", lines)
    out = tmp_path / "out"
    rc = main(["score", "--data", f"official:{official}", "--files", "1", "--predictions", str(preds),
               "--out", str(out)])
    assert rc == 0 and gc.isenabled()  # the collector paused while scoring is running again
    captured = capsys.readouterr()
    assert "7 task(s) have no prediction" in captured.err and "77_1" in captured.err
    assert "conditional_constraint" in captured.out or "preference_conflict" in captured.out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["task_id"] for r in records] == [f"1_{i}" for i in range(10)]
    assert records[0]["exact_match"] is True and records[0]["tool_f1"] == 1.0
    assert records[1]["exact_match"] is False and records[1]["FP"] == 1
    assert records[2]["num_pred_calls"] == 1  # unparsable argument text becomes {} (official executor)
    metric = json.loads((out / "metric.json").read_text(encoding="utf-8"))
    assert metric["completed_tasks"] == 10 and metric["exact_match_rate"] == 0.1
    assert metric["missing_predictions"] == [f"1_{i}" for i in range(3, 10)]
    assert metric["unknown_predictions"] == ["77_1"]
    assert set(metric["by_reasoning_type"]) <= {q.reasoning_type for q in official_queries.values()}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"task_id": "1_0", "calls": [', "invalid JSON"),
        ('["1_0"]', "expected a JSON object"),
        ('{"task_id": 3, "calls": []}', '"task_id"'),
        ('{"task_id": "1_0", "calls": {}}', '"calls" to be a list'),
        ('{"task_id": "1_0", "calls": [{"arguments": {}}]}', '"name"'),
        ('{"task_id": "1_0", "calls": [{"name": "f", "arguments": [1]}]}', '"arguments" to be a JSON object'),
    ],
)
def test_bad_line_is_a_clear_error_with_its_line_number(tmp_path: Path, official: Path, line: str, message: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    preds = _write(tmp_path / "p.jsonl", ['{"task_id": "1_1", "calls": []}', line])
    rc = main(["score", "--data", f"official:{official}", "--files", "1", "--predictions", str(preds),
               "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{preds}:2:" in err and message in err and "Traceback" not in err
    assert not (tmp_path / "out" / "metric.json").exists()


def test_duplicate_task_and_missing_file(tmp_path: Path, official: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = _write(tmp_path / "p.jsonl", ['{"task_id": "1_1", "calls": []}'] * 2)
    assert main(["score", "--data", f"official:{official}", "--predictions", str(preds), "--out", str(tmp_path)]) == 2
    assert "appears twice (first on line 1)" in capsys.readouterr().err
    assert main(["score", "--data", f"official:{official}", "--predictions", str(tmp_path / "nope.jsonl"),
                 "--out", str(tmp_path)]) == 2
    assert "cannot read the predictions file" in capsys.readouterr().err


def test_scoring_exact_replays_imports_no_simulator(tmp_path: Path) -> None:
    """A warm ``vmb score`` of exact replays needs neither the simulator nor the gold side's modules."""
    import os
    import subprocess
    import sys

    from vmb_gym.data import load_gold

    preds = _write(
        tmp_path / "p.jsonl",
        [
            json.dumps({"task_id": q.task_id, "calls": [c.to_json() for c in q.gold_calls]})
            for q in load_gold("default", [1])
        ],
    )
    argv = ["score", "--data", "default", "--files", "1", "--predictions", str(preds), "--out", str(tmp_path / "o"),
            "--overwrite"]  # the second run replaces the first's outputs
    env = {**os.environ, "VMB_CACHE_DIR": str(tmp_path / "cache")}
    probe = (
        "import json, sys\nfrom vmb_gym.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        "print(json.dumps([m for m in ('vmb_gym.vehicle.simulator', 'vmb_gym.scoring.gold') if m in sys.modules]))"
    )
    loaded = []
    for _ in range(2):  # the first run builds the gold cache (executing the gold), the second reads it
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        loaded.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert loaded == [["vmb_gym.vehicle.simulator", "vmb_gym.scoring.gold"], []]
