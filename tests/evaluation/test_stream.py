"""vmb eval-stream: crash-safe results.jsonl and --resume, like vmb eval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmb_gym.cli import main

ARGS = ["eval-stream", "--writer", "rules", "--files", "1-3", "--window-days", "0.5", "--no-progress"]


def _records(out: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (out / "results.jsonl").read_text().splitlines()]


def test_resume_runs_only_missing_scenarios_and_gives_the_full_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full, part = tmp_path / "full", tmp_path / "part"
    assert main([*ARGS, "--out", str(full)]) == 0
    expected = _records(full)
    assert [r["scenario_id"] for r in expected] == [1, 2, 3]

    assert main([*ARGS, "--out", str(part)]) == 0
    lines = (part / "results.jsonl").read_text().splitlines()
    # a run killed while writing its second record: one whole line, one cut line
    (part / "results.jsonl").write_text(lines[0] + "\n" + lines[1][:40])
    capsys.readouterr()

    assert main([*ARGS, "--out", str(part)]) == 2  # results exist: --resume is needed
    assert "--resume" in capsys.readouterr().err

    assert main([*ARGS, "--out", str(part), "--resume"]) == 0
    assert "1 of 3 scenarios already done, running 2" in capsys.readouterr().err
    assert _records(part) == expected  # the cut line is gone, the order and values are the full run's
    metric = json.loads((part / "metric.json").read_text())
    assert metric["stream"]["scenarios"] == 3
    assert metric["completed_tasks"] == json.loads((full / "metric.json").read_text())["completed_tasks"]

    assert main([*ARGS, "--out", str(part), "--resume"]) == 0  # nothing left: no new lines
    assert "3 of 3 scenarios already done, running 0" in capsys.readouterr().err
    assert len(_records(part)) == 3


def test_resume_refuses_other_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main([*ARGS, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main([*ARGS, "--out", str(out), "--resume", "--top-k", "3"]) == 2
    assert "top_k differs" in capsys.readouterr().err
