"""One ``--out`` rule for every writing command: no command writes into a folder holding a run it did not make."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.cli.test_eval import write_tiny_dataset
from vmb_gym.cli import build_parser, main
from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.report import PLOT_FILES
from vmb_gym.evaluation.run import EVAL_OUTPUTS
from vmb_gym.outdir import MARKER, OVERWRITE_HELP, check_out, claim_out, run_maker


def snapshot(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (the lock file and the marker included), by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_tiny_dataset(tmp_path_factory.mktemp("data"))


@pytest.fixture()
def eval_run(tiny: str, tmp_path: Path) -> Path:
    """A finished ``vmb eval`` run (plots included)."""
    out = tmp_path / "oracle"
    assert main(["eval", "--policy", "oracle", "--data", tiny, "--out", str(out), "--no-progress"]) == 0
    assert {"config.json", "results.jsonl", "metric.json", "report.md", MARKER} <= {p.name for p in out.iterdir()}
    return out


def _predictions(tmp_path: Path) -> Path:
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps({"task_id": "1_0", "calls": []}) + "\n", encoding="utf-8")
    return path


def _attempts(tiny: str, tmp_path: Path, out: Path) -> list[list[str]]:
    """Every writing command pointed at ``out`` (each with and without --overwrite, eval-stream with --resume)."""
    preds = _predictions(tmp_path)
    other = tmp_path / "other-eval"
    assert main(["eval", "--policy", "noop", "--data", tiny, "--out", str(other), "--no-progress", "--no-plots"]) == 0
    commands = [
        ["score", "--data", tiny, "--predictions", str(preds), "--out", str(out)],
        ["eval-stream", "--writer", "rules", "--data", tiny, "--out", str(out), "--no-progress"],
        ["generate", "--out", str(out), "--scenarios", "1", "--queries-per-scenario", "2", "--history-length", "60",
         "--days", "7", "--renderer", "template"],
        ["memory-audit", "--data", tiny, "--memory", "bm25", "--out", str(out), "--no-progress"],
        ["regrade", str(other / "results.jsonl"), "--out", str(out), "--no-plots"],
        ["validate-benchmark", "--data", tiny.removeprefix("official:"), "--out", str(out), "--memory", "none"],
    ]
    return [
        *([*c, *extra] for c in commands for extra in ([], ["--overwrite"])),
        commands[1] + ["--resume"],
        ["eval", "--policy", "noop", "--data", tiny, "--out", str(out), "--no-progress"],  # eval without --resume
    ]


def test_a_finished_eval_run_survives_every_other_command_byte_for_byte(
        tiny: str, tmp_path: Path, eval_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(eval_run)
    for argv in _attempts(tiny, tmp_path, eval_run):
        capsys.readouterr()
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        err = (captured.err or captured.out).strip()  # vmb generate prints its errors on stdout
        assert len(err.splitlines()) == 1 and "Traceback" not in err, (argv, err)
        assert f"--out {eval_run}" in err and "--overwrite" in err, (argv, err)
        if argv[0] != "eval":
            assert "holds a run of `vmb eval`" in err and "not even with --overwrite" in err, (argv, err)
        else:
            assert "earlier `vmb eval` run" in err and "--resume to continue it" in err
        assert snapshot(eval_run) == before, argv  # nothing written, nothing removed, not even a lock file


def test_a_run_from_before_the_marker_is_told_by_its_files(tiny: str, tmp_path: Path, eval_run: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (eval_run / MARKER).unlink()
    before = snapshot(eval_run)
    assert run_maker(eval_run) == "vmb eval"
    preds = _predictions(tmp_path)
    assert main(["score", "--data", tiny, "--predictions", str(preds), "--out", str(eval_run), "--overwrite"]) == 2
    assert "holds a run of `vmb eval`" in capsys.readouterr().err
    assert snapshot(eval_run) == before
    # ... and it still resumes (nothing left to run), getting its marker
    resume = ["eval", "--policy", "oracle", "--data", tiny, "--out", str(eval_run), "--resume", "--no-progress"]
    assert main(resume) == 0
    assert json.loads((eval_run / MARKER).read_text())["command"] == "vmb eval"


def test_the_same_command_replaces_its_own_run_only_with_overwrite(tiny: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    preds = _predictions(tmp_path)
    out = tmp_path / "score"
    argv = ["score", "--data", tiny, "--predictions", str(preds), "--out", str(out)]
    assert main(argv) == 0
    first = snapshot(out)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "holds an earlier `vmb score` run" in err and "pass --overwrite to replace" in err and "--resume" not in err
    assert snapshot(out) == first
    assert main([*argv, "--overwrite"]) == 0
    assert json.loads((out / MARKER).read_text())["command"] == "vmb score"

    # eval: --overwrite starts again, --resume continues, both at once is refused
    run = tmp_path / "eval"
    base = ["eval", "--data", tiny, "--out", str(run), "--no-progress", "--no-plots"]
    assert main([*base, "--policy", "noop"]) == 0
    assert main([*base, "--policy", "oracle", "--overwrite", "--resume"]) == 2
    assert "pass only one of them" in capsys.readouterr().err
    assert main([*base, "--policy", "oracle", "--overwrite"]) == 0
    assert json.loads((run / "config.json").read_text())["policy"] == "oracle"
    assert json.loads((run / "metric.json").read_text())["exact_match_rate"] == 1.0


def test_generate_and_memory_audit_keep_their_own_runs(tmp_path: Path, tiny: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "set"
    argv = ["generate", "--out", str(out), "--scenarios", "2", "--queries-per-scenario", "2", "--history-length",
            "60", "--days", "7", "--renderer", "template"]
    assert main(argv) == 0
    first = snapshot(out)
    assert main(argv) == 2 and "earlier `vmb generate` run" in capsys.readouterr().err
    (out / "history" / "history_99.txt").write_text("stale")  # replaced outputs go: no stale scenario stays
    assert main([*argv, "--overwrite"]) == 0
    again = snapshot(out)
    assert again.pop(MARKER) and first.pop(MARKER) and again == first  # the same set again, the stale file gone
    audit = tmp_path / "audit"
    audit_argv = ["memory-audit", "--data", tiny, "--memory", "bm25", "--out", str(audit), "--no-progress"]
    assert main(audit_argv) in (0, 1)
    assert main(audit_argv) == 2 and "earlier `vmb memory-audit` run" in capsys.readouterr().err
    assert main(["score", "--data", tiny, "--predictions", str(_predictions(tmp_path)), "--out", str(out)]) == 2
    assert "holds a run of `vmb generate`" in capsys.readouterr().err


def test_a_folder_of_other_files_is_written_beside_them(tiny: str, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    preds = _predictions(folder)  # scores next to their predictions: the files there stay
    assert main(["score", "--data", tiny, "--predictions", str(preds), "--out", str(folder)]) == 0
    assert {p.name for p in folder.iterdir()} >= {"predictions.jsonl", "results.jsonl", "metric.json", MARKER}
    # a file no command made but named like an output needs --overwrite
    other = tmp_path / "notes"
    other.mkdir()
    (other / "report.md").write_text("my notes")
    with pytest.raises(ConfigError, match=r"report\.md there would be replaced.*--overwrite"):
        check_out(other, "vmb eval", outputs=EVAL_OUTPUTS)
    check_out(other, "vmb eval", outputs=EVAL_OUTPUTS, overwrite=True)
    check_out(other, "vmb score", outputs=())  # a command that does not write report.md may go beside it


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_score_never_replaces_its_own_predictions_file(tiny: str, tmp_path: Path, overwrite: list[str],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    preds = folder / "results.jsonl"  # the user's predictions, named like the scores
    preds.write_text(json.dumps({"task_id": "1_0", "calls": []}) + "\n", encoding="utf-8")
    before = preds.read_bytes()
    assert main(["score", "--data", tiny, "--predictions", str(preds), "--out", str(folder), *overwrite]) == 2
    assert "would replace your predictions" in capsys.readouterr().err
    assert preds.read_bytes() == before and {p.name for p in folder.iterdir()} == {"results.jsonl"}


@pytest.mark.parametrize("command", [
    ["eval", "--policy", "oracle", "--no-plots"],
    ["eval-stream", "--writer", "rules"],
])
def test_eval_and_eval_stream_write_beside_a_users_files(tiny: str, tmp_path: Path, command: list[str]) -> None:
    # both claim --out, then their library function claims it again: the inner claim must not
    # take the outer one's marker for an earlier run and refuse the user's folder
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert main([*command, "--data", tiny, "--out", str(folder), "--no-progress"]) == 0
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"
    metric = json.loads((folder / "metric.json").read_text(encoding="utf-8"))
    assert metric  # the run finished and wrote its metrics
    assert json.loads((folder / MARKER).read_text(encoding="utf-8"))["command"] == f"vmb {command[0]}"
    # and the folder now holds that run: the same command again is refused without --overwrite
    assert main([*command, "--data", tiny, "--out", str(folder), "--no-progress"]) == 2


def test_every_trainer_keeps_to_the_rule(tmp_path: Path, eval_run: Path) -> None:
    from vmb_agents.train.common import prepare_out

    before = snapshot(eval_run)
    for command in ("vmb train sb3", "vmb train lm"):
        with pytest.raises(ConfigError, match="holds a run of `vmb eval`.*not even with --overwrite"):
            prepare_out(eval_run, True, ("checkpoints", "summary.json", "metric.json"), command)
    for command in ("vmb train stream", "vmb train reader", "vmb train ensemble"):
        with pytest.raises(ConfigError, match="holds a run of `vmb eval`"):
            claim_out(eval_run, command, overwrite=True, outputs=("metric.json",))
    assert snapshot(eval_run) == before
    sb3 = tmp_path / "sb3"
    prepare_out(sb3, False, ("checkpoints", "summary.json"))
    assert run_maker(sb3) is None  # a marked but still empty folder is free (a run that failed at once)
    (sb3 / "summary.json").write_text("{}")
    assert run_maker(sb3) == "vmb train sb3"
    with pytest.raises(ConfigError, match="holds a run of `vmb train sb3`"):
        prepare_out(sb3, True, ("adapter", "summary.json"), "vmb train lm")  # another trainer's run: refused too


@pytest.mark.parametrize("files", [
    {"config.json": '{"writer": "rules"}', "results.jsonl": ""},
    {"results.jsonl": "", "metric.json": '{"predictions": "p.jsonl"}'},
    {"history/history_1.txt": "x", "qa_data/qa_1.json": "{}"},
    {"audit.json": "{}"},
    {"report.json": "{}", "report.md": "x"},
    {"args.json": "{}", "checkpoints/bc.zip": "x"},
    {"sft_log.csv": "", "adapter/adapter_config.json": "{}"},
    {"adapter/reader.json": "{}"},
    {"bc.json": "{}", "model.safetensors": "x"},
    {"final.safetensors": "x", "final.vmb.json": "{}"},
])
def test_runs_without_a_marker_are_told_by_their_files(tmp_path: Path, files: dict[str, str]) -> None:
    makers = ["vmb eval-stream", "vmb score", "vmb generate", "vmb memory-audit", "vmb validate-benchmark",
              "vmb train sb3", "vmb train lm", "vmb train reader", "vmb train stream", "vmb train ensemble"]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert run_maker(tmp_path) in makers
    assert run_maker(tmp_path) == {
        "config.json": "vmb eval-stream", "results.jsonl": "vmb score", "history/history_1.txt": "vmb generate",
        "audit.json": "vmb memory-audit", "report.json": "vmb validate-benchmark", "args.json": "vmb train sb3",
        "sft_log.csv": "vmb train lm",
        "adapter/reader.json": "vmb train reader", "bc.json": "vmb train stream",
        "final.safetensors": "vmb train ensemble"}[next(iter(files))]


def test_every_writing_command_documents_overwrite() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in ("eval", "eval-stream", "score", "generate", "regrade", "memory-audit", "validate-benchmark"):
        text = " ".join(sub.choices[name].format_help().split())  # type: ignore[union-attr]
        assert "--overwrite" in text and "not even with --overwrite" in text, name
    assert "not even with --overwrite" in OVERWRITE_HELP
    assert set(EVAL_OUTPUTS) >= set(PLOT_FILES.values())  # --overwrite removes every plot of an earlier run


@pytest.mark.slow
def test_every_trainer_has_overwrite() -> None:
    from vmb_gym.cli.train import TRAINERS, trainer_parser

    for name in ("sb3", "lm", "stream", "reader", "ensemble"):  # the trainers that write a run folder
        assert name in TRAINERS
        text = " ".join(trainer_parser(name).format_help().split())
        assert "--overwrite" in text and "not even with --overwrite" in text, name
