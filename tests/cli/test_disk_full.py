"""A full disk (a simulated ENOSPC) ends every writing command in one line: what is saved where, the command that
goes on, no traceback, nothing half-written; the printed command then finishes the job."""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import shlex
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.cli.test_eval import write_tiny_dataset
from vmb_gym import outdir
from vmb_gym.cli import main
from vmb_gym.evaluation.records import ResultsWriter
from vmb_gym.outdir import EXIT_DISK_FULL, MARKER

ENOSPC = OSError(errno.ENOSPC, "No space left on device")


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in (MARKER, ".lock")}


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and ": warning: " not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _again(line: str) -> list[str]:
    """The argv of the command the line says to run (after ``with: vmb``)."""
    command = shlex.split(line.split("with: ", 1)[1])
    assert command[0] == "vmb"
    return command[1:]


def _no_temporaries(folder: Path) -> None:
    assert not [p for p in folder.rglob("*") if p.name.endswith(".tmp")], list(folder.rglob("*.tmp"))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_tiny_dataset(tmp_path_factory.mktemp("data"))


def _records(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    assert data.endswith(b"\n")  # every line whole
    return [orjson.loads(line) for line in data.splitlines()]


def _full_after(monkeypatch: pytest.MonkeyPatch, lines: int) -> None:
    """``results.jsonl`` takes ``lines`` whole lines, then half of the next one before the disk is full."""
    calls = {"lines": 0}
    real = ResultsWriter._raw_write

    def raw_write(self: ResultsWriter, data: memoryview) -> int:
        if calls["lines"] >= lines:
            if len(data) > 1:
                return real(self, data[: len(data) // 2])  # a short write, then ENOSPC on the rest
            raise ENOSPC
        calls["lines"] += 1
        return real(self, data)

    monkeypatch.setattr(ResultsWriter, "_raw_write", raw_write)


def test_eval_stops_in_one_line_and_resume_gives_the_uninterrupted_run(
        tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    whole, out = tmp_path / "whole", tmp_path / "run"
    base = ["eval", "--policy", "random", "--data", tiny, "--trials", "2", "--no-plots", "--no-progress"]
    assert main([*base, "--out", str(whole)]) == 0
    capsys.readouterr()

    argv = [*base, "--out", str(out)]
    _full_after(monkeypatch, 2)
    assert main(argv) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert line == (f"vmb eval: error: the disk is full ([Errno 28] No space left on device); 2 of 6 episodes "
                    f"finished and saved in {out / 'results.jsonl'}; free space, then continue with: "
                    f"{shlex.join(['vmb', *argv, '--resume'])}")
    assert len(_records(out / "results.jsonl")) == 2  # the half line was cut off again
    assert not (out / "metric.json").exists()
    _no_temporaries(out)

    monkeypatch.undo()  # space freed
    assert main(_again(line)) == 0
    key = lambda r: (r["task_id"], r["trial"])  # noqa: E731
    resumed, expected = _records(out / "results.jsonl"), _records(whole / "results.jsonl")
    assert sorted((key(r), r["metrics"], r["trajectory"]) for r in resumed) == \
        sorted((key(r), r["metrics"], r["trajectory"]) for r in expected)
    metric, reference = (json.loads((d / "metric.json").read_text()) for d in (out, whole))
    volatile = {"avg_seconds", "seconds", "wall_seconds", "created"}
    assert {k: v for k, v in metric.items() if k not in volatile and "second" not in k} == \
        {k: v for k, v in reference.items() if k not in volatile and "second" not in k}


def test_eval_with_overwrite_resumes_without_it(tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    base = ["eval", "--policy", "noop", "--data", tiny, "--no-plots", "--no-progress", "--out", str(out)]
    assert main(base) == 0
    _full_after(monkeypatch, 1)
    assert main([*base, "--overwrite"]) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert "1 of 3 episodes" in line and line.endswith(shlex.join(["vmb", *base, "--resume"]))
    monkeypatch.undo()
    assert main(_again(line)) == 0 and len(_records(out / "results.jsonl")) == 3


def test_eval_stream_stops_in_one_line_and_resumes(tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stream"
    argv = ["eval-stream", "--writer", "rules", "--files", "1-3", "--window-days", "0.5", "--no-progress",
            "--out", str(out)]
    _full_after(monkeypatch, 1)
    assert main(argv) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert line.startswith("vmb eval-stream: error: the disk is full ([Errno 28] No space left on device); 1 of 3 "
                           f"scenarios finished and saved in {out / 'results.jsonl'}; free space, then continue with:")
    assert len(_records(out / "results.jsonl")) == 1
    monkeypatch.undo()
    assert main(_again(line)) == 0 and len(_records(out / "results.jsonl")) == 3


def _fail_file_writes(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Whole-file writes (:func:`vmb_gym.outdir.write_atomic`): ``after`` succeed, the next writes half and fails."""
    calls = {"n": 0}
    real = outdir._write_file

    def write_file(path: Path, data: bytes, fsync: bool) -> None:
        calls["n"] += 1
        if calls["n"] > after:
            path.write_bytes(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, fsync)

    monkeypatch.setattr(outdir, "_write_file", write_file)


def test_score_writes_both_files_or_neither(tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"task_id": "1_0", "calls": []}) + "\n")
    out = tmp_path / "scores"
    argv = ["score", "--data", tiny, "--predictions", str(preds), "--out", str(out)]
    _fail_file_writes(monkeypatch, after=2)  # the marker and results.jsonl go through; metric.json does not
    assert main(argv) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert line == (f"vmb score: error: the disk is full ([Errno 28] No space left on device); nothing was written to "
                    f"{out} (results.jsonl and metric.json are replaced whole and together, or not at all); free "
                    f"space, then run again with: {shlex.join(['vmb', *argv])}")
    assert _tree(out) == {}
    _no_temporaries(out)
    monkeypatch.undo()
    assert main(_again(line)) == 0
    first = _tree(out)
    assert set(first) == {"results.jsonl", "metric.json"}

    # --overwrite over an earlier score run: a full disk leaves that run as it was
    preds.write_text(json.dumps({"task_id": "1_1", "calls": []}) + "\n")
    _fail_file_writes(monkeypatch, after=1)
    assert main([*argv, "--overwrite"]) == EXIT_DISK_FULL
    assert _one_line(capsys).endswith(shlex.join(["vmb", *argv, "--overwrite"]))
    assert _tree(out) == first
    _no_temporaries(out)


def test_generate_leaves_whole_files_and_reruns_with_overwrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    small = ["--scenarios", "3", "--queries-per-scenario", "2", "--history-length", "60", "--days", "7",
             "--renderer", "template", "--seed", "4"]
    whole, out = tmp_path / "whole", tmp_path / "set"
    assert main(["generate", "--out", str(whole), *small]) == 0
    capsys.readouterr()
    argv = ["generate", "--out", str(out), *small]
    _fail_file_writes(monkeypatch, after=1 + 4)  # the marker, then scenario 1 (3 files) and one file of scenario 2
    assert main(argv) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert line == (f"vmb generate: error: the disk is full ([Errno 28] No space left on device); 1 of 3 scenarios "
                    f"were written whole to {out}, an incomplete set; free space, then run again with: "
                    f"{shlex.join(['vmb', *argv, '--overwrite'])}")
    partial, expected = _tree(out), _tree(whole)
    assert len(partial) == 4 and all(expected[name] == digest for name, digest in partial.items())  # no half file
    _no_temporaries(out)
    monkeypatch.undo()
    assert main(_again(line)) == 0
    assert _tree(out) == expected


def test_a_training_run_stops_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Through the dispatcher, as every trainer: a full disk after the trainer claimed --out and saved a checkpoint;
    also when a library wraps the error (safetensors reports ``StorageFull`` in a message of its own)."""
    from vmb_agents.train.common import prepare_out
    from vmb_gym.cli import train

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--out")
        parser.add_argument("--overwrite", action="store_true")
        parser.add_argument("--wrapped", action="store_true")

    def run(args: argparse.Namespace, argv: Any) -> int:
        prepare_out(Path(args.out), args.overwrite, ("checkpoints",))
        outdir.write_atomic(Path(args.out) / "checkpoints" / "step_64.json", "{}")
        if args.wrapped:
            raise RuntimeError('Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: '
                               '"No space left on device" })')
        raise OSError(errno.EDQUOT, "Disk quota exceeded")

    monkeypatch.setitem(train.TRAINERS, "sb3", train.Trainer("fake", add_arguments, run))
    out = tmp_path / "sb3"
    argv = ["train", "sb3", "--out", str(out)]
    assert main(argv) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert line == (f"vmb train sb3: error: the disk is full ([Errno 122] Disk quota exceeded); what was written so "
                    f"far is in {out} (each file whole; the run is not complete); free space, then run again with: "
                    f"{shlex.join(['vmb', *argv, '--overwrite'])}")
    assert main([*argv, "--overwrite", "--wrapped"]) == EXIT_DISK_FULL
    line = _one_line(capsys)
    assert "the disk is full (Error while serializing: IoError(Os { code: 28, kind: StorageFull" in line
    assert line.endswith(shlex.join(["vmb", *argv, "--overwrite", "--wrapped"]))


def test_other_errors_are_not_taken_for_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_gym.cli import train

    def run(args: argparse.Namespace, argv: Any) -> int:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setitem(train.TRAINERS, "sb3", train.Trainer("fake", lambda p: p.add_argument("--out"), run))
    with pytest.raises(PermissionError):
        main(["train", "sb3", "--out", str(tmp_path / "x")])
