"""Ctrl-C during ``vmb eval`` / ``vmb eval-stream``: one line with what is saved and the ``--resume`` command,
exit 130."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.cli.test_eval import write_tiny_dataset
from vmb_gym.cli import main
from vmb_gym.evaluation.interrupt import EXIT_INTERRUPTED, RunInterrupted, resume_command
from vmb_gym.evaluation.run import run_evaluation
from vmb_gym.evaluation.runner import EvalConfig


class _CtrlC:
    """Finishes each episode at once; raises KeyboardInterrupt when episode ``stop_at`` (0-based) starts."""

    def __init__(self, stop_at: int) -> None:
        self.stop_at, self.started = stop_at, 0

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        if self.started == self.stop_at:
            raise KeyboardInterrupt
        self.started += 1

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        return {"name": "finish", "arguments": {}}


def _records(out: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in (out / "results.jsonl").read_bytes().splitlines() if x.strip()]


def test_ctrl_c_in_vmb_eval_prints_saved_episodes_and_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import vmb_agents.factory

    data = write_tiny_dataset(tmp_path / "data")
    out = tmp_path / "run"
    argv = ["eval", "--policy", "noop", "--data", data, "--trials", "2", "--out", str(out), "--no-plots",
            "--no-progress"]
    monkeypatch.setattr(sys, "argv", ["vmb", *argv])  # main(None) reads the command line, as the console script
    monkeypatch.setattr(vmb_agents.factory, "make_policy", lambda spec, env, **kw: _CtrlC(stop_at=2))
    assert main() == EXIT_INTERRUPTED == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip() == (f"vmb eval: interrupted (Ctrl-C); 2 of 6 episodes finished and saved in "
                           f"{out / 'results.jsonl'}; continue with: {resume_command(argv)}")
    assert resume_command(argv).endswith(" --resume") and resume_command([*argv, "--resume"]) == resume_command(argv)
    saved = _records(out)
    assert len(saved) == 2 and all(r["error_kind"] is None for r in saved)
    assert not (out / "metric.json").exists()

    monkeypatch.undo()  # the real factory again; --resume skips the 2 saved episodes
    assert main([*argv, "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"resuming {out}: skipping 2 finished episodes of 6, running 4" in err
    again = _records(out)
    assert again[:2] == saved and len(again) == 6
    assert len({(r["task_id"], r["trial"]) for r in again}) == 6


def test_run_evaluation_raises_run_interrupted(tmp_path: Path) -> None:
    """The Python API: a KeyboardInterrupt subclass saying how many episodes are saved."""
    config = EvalConfig(policy="noop", data=write_tiny_dataset(tmp_path / "data"))
    with pytest.raises(RunInterrupted) as info:
        run_evaluation(config, tmp_path / "run", lambda spec, env, **kw: _CtrlC(stop_at=1), progress=False)
    assert isinstance(info.value, KeyboardInterrupt)
    assert (info.value.saved, info.value.total, info.value.out) == (1, 3, tmp_path / "run")
    assert len(_records(tmp_path / "run")) == 1


def test_ctrl_c_before_any_run_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C outside a run (e.g. while a command loads) is one line and exit 130 too."""
    import vmb_gym.cli.validate_benchmark as command

    def interrupted(args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "run", interrupted)
    assert main(["validate-benchmark", "--out", "unused"]) == 130
    assert capsys.readouterr().err.strip() == "vmb validate-benchmark: interrupted (Ctrl-C)"


def test_ctrl_c_in_vmb_eval_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    import vmb_gym.evaluation.stream as stream

    real = stream.run_scenario
    calls: list[int] = []

    def second_is_interrupted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    out = tmp_path / "run"
    argv = ["eval-stream", "--writer", "rules", "--files", "1-3", "--window-days", "0.5", "--no-progress",
            "--out", str(out)]
    monkeypatch.setattr(stream, "run_scenario", second_is_interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err.strip() == (
        f"vmb eval-stream: interrupted (Ctrl-C); 1 of 3 scenarios finished and saved in {out / 'results.jsonl'}; "
        f"continue with: {resume_command(argv)}")
    assert [r["scenario_id"] for r in _records(out)] == [1]
