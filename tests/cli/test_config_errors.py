"""Every command turns a configuration problem into one line ``vmb CMD: error: ...`` and exit 2.

Also: ``--memory-llm`` for the LLM-built memories, ``--memory A,B`` side by side, the refused
``--policy-kwargs`` memory and the data spec's folder lookup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_eval import write_tiny_dataset
from vmb_gym.cli import main
from vmb_gym.data import data_folder
from vmb_gym.memory.chat_backends import register_chat_backend


@pytest.fixture()
def tiny(tmp_path: Path) -> str:
    return write_tiny_dataset(tmp_path / "data")


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of a failed command (no traceback)."""
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and "%|" not in ln]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def eval_cli(tiny: str, out: Path, *args: str) -> int:
    return main(["eval", "--policy", "rules", "--data", tiny, "--out", str(out), "--no-plots", "--no-progress", *args])


@pytest.mark.parametrize(("args", "expected"), [
    (["--memory", "bm2"], ["vmb eval: error: unknown memory module 'bm2'", "did you mean 'bm25'?", "layered"]),
    (["--memory", "dense", "--memory-kwargs", '{"embeder": null}'],
     ["memory 'dense' takes no option(s) 'embeder'", "it accepts embedder, use_disk_cache",
      "did you mean 'embedder'?"]),
    (["--memory", "bm25", "--memory-kwargs", '{"top_k": 3}'], ["memory 'bm25' takes no option(s) 'top_k'"]),
    (["--memory", "summary"], ["summary memory needs an LLM backend", "--memory-llm openai:MODEL"]),
    (["--memory", "bm25", "--memory-llm", "openai:gpt-4o-mini"], ["memory 'bm25' takes none"]),
    (["--memory", "summary", "--memory-llm", "nope:x"], ["unknown LLM backend kind 'nope'", "hf, openai"]),
    (["--memory", "bm25", "--policy-kwargs", '{"memory": "layered"}'],
     ["--policy-kwargs sets memory 'layered' but --memory is 'bm25'", "pass --memory layered"]),
])
def test_eval_config_errors_are_one_line(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         args: list[str], expected: list[str]) -> None:
    assert eval_cli(tiny, tmp_path / "run", *args) == 2
    line = error_line(capsys)
    assert line.startswith("vmb eval: error: ")
    for text in expected:
        assert text in line, line
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_unknown_policy_suggests_close_name(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--policy", "orcale", "--data", tiny, "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    line = error_line(capsys)
    assert "found 'orcale'; did you mean 'oracle'?" in line and "openai:MODEL" in line


def test_data_near_miss_and_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--policy", "oracle", "--data", "defualt", "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    line = error_line(capsys)
    assert "'default'" in line and "'official:DIR'" in line and "did you mean 'default'?" in line
    missing = tmp_path / "nowhere"
    assert main(["memory-audit", "--data", f"official:{missing}", "--out", str(tmp_path / "a"), "--no-progress"]) == 2
    line = error_line(capsys)
    assert line.startswith("vmb memory-audit: error: ") and "does not exist" in line and str(missing) in line


def test_names_are_case_insensitive(tiny: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["eval", "--policy", "Oracle", "--memory", "BM25", "--data", tiny.replace("official:", "OFFICIAL:"),
                 "--out", str(out), "--no-plots", "--no-progress"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert (config["policy"], config["memory"]) == ("oracle", "bm25")


def test_memory_audit_and_eval_stream_report_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory-audit", "--memory", "bm25,hybird", "--limit", "1", "--out", str(tmp_path / "a"),
                 "--no-progress"]) == 2
    line = error_line(capsys)
    assert line.startswith("vmb memory-audit: error: unknown memory module 'hybird'") and "'hybrid'" in line
    assert main(["memory-audit", "--k", "5,x", "--out", str(tmp_path / "a")]) == 2
    assert error_line(capsys).startswith("vmb memory-audit: error: --k must be comma-separated integers")
    assert main(["eval-stream", "--writer", "everything", "--store", "bm2", "--files", "1",
                 "--out", str(tmp_path / "s"), "--no-progress"]) == 2
    assert "did you mean 'bm25'?" in error_line(capsys)


def test_relative_official_folder_is_found_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_gym.data.spec import official_candidates, package_root

    monkeypatch.chdir(tmp_path)
    rel = "vmb_gym/data"  # exists under the package root, not under tmp_path
    assert Path(data_folder(f"official:{rel}")) == package_root() / rel
    monkeypatch.setenv("VMB_OFFICIAL_DIR", str(tmp_path))
    assert Path(data_folder("official")) == tmp_path
    assert official_candidates()[-1] == (package_root() / ".." / "shared" / "vehiclemembench").resolve()


class _EchoLLM:
    """A chat backend that writes each day's first line into the summary (no network)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0

    def chat(self, messages: Any, tools: Any = None) -> dict[str, Any]:
        self.calls += 1
        day = str(messages[-1]["content"]).strip().splitlines()[-1]
        return {"content": "", "tool_calls": [{"name": "memory_update", "arguments": {"new_memory": f"- {day}"}}]}


def test_memory_llm_builds_the_summary_memory(tiny: str, tmp_path: Path) -> None:
    built: list[_EchoLLM] = []
    register_chat_backend("echo", lambda arg: built.append(_EchoLLM(arg)) or built[-1])
    out = tmp_path / "run"
    assert eval_cli(tiny, out, "--memory", "summary", "--memory-llm", "echo:tiny") == 0
    assert built and built[0].name == "tiny" and built[0].calls >= 1
    config = json.loads((out / "config.json").read_text())
    assert config["memory"] == "summary" and config["memory_kwargs"] == {"llm": "echo:tiny"}
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert records and all(r["error_kind"] is None and r["memory"]["name"] == "summary" for r in records)


def test_several_memories_run_side_by_side(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cmp"
    assert eval_cli(tiny, out, "--memory", "none,BM25,gold") == 0
    printed = capsys.readouterr().out
    for name in ("none", "bm25", "gold"):
        config = json.loads((out / name / "config.json").read_text())
        assert config["memory"] == name
        assert f"== memory {name}: {out / name}" in printed
    assert (out / "comparison.md").read_text().strip() in printed
    metric = json.loads((out / "bm25" / "metric.json").read_text())
    assert metric["memory_score_gold_run"] == str(out / "gold")  # the gold sibling is found


def test_train_reports_a_bad_memory_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``vmb train TRAINER`` goes through the same handler (a stand-in trainer: the real ones import torch)."""
    import argparse

    from vmb_gym.cli import train
    from vmb_gym.memory import make_memory

    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--memory", default="bm25")

    monkeypatch.setitem(train.TRAINERS, "sb3", train.Trainer("stand-in", add, lambda a, argv: make_memory(a.memory)))
    assert main(["train", "sb3", "--memory", "bm2"]) == 2
    line = error_line(capsys)
    assert line.startswith("vmb train sb3: error: unknown memory module 'bm2'") and "did you mean 'bm25'?" in line
