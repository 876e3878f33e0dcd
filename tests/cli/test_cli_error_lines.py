"""A user's mistake is one line ``vmb COMMAND: error: ...`` on stderr and exit status 2, never a traceback.

The cases a new-user walkthrough found: a conformance folder that is the release root (or absent),
an unregistered env id for ``vmb check env``, a bad ``vmb generate`` option or ``--renderer``, and an
unknown ``--writer`` (a misspelt name or a missing ``sb3:`` checkpoint) for ``vmb eval-stream``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vmb_gym.cli import main
from vmb_gym.vehicle.conformance import check_vectors


def error_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    """The one stderr line of a failed ``vmb COMMAND`` (no traceback, nothing on stdout)."""
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    lines = [ln for ln in captured.err.splitlines() if ln.strip() and "%|" not in ln]
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"vmb {command}: error: "), lines[0]
    assert not captured.out.strip(), captured.out
    return lines[0]


# --- vmb conformance -------------------------------------------------------------------------------------------


def test_conformance_on_a_release_root_suggests_its_conformance_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inner = tmp_path / "conformance"
    inner.mkdir()
    (inner / "vectors.jsonl").write_text("", encoding="utf-8")
    (inner / "initial_state.json").write_text("{}", encoding="utf-8")
    assert main(["conformance", str(tmp_path)]) == 2
    line = error_line(capsys, "conformance")
    assert f"did you mean {inner}?" in line
    assert "initial_state.json" in line


@pytest.mark.parametrize("where", ["absent", "empty", "file"])
def test_conformance_on_a_wrong_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   where: str) -> None:
    folder = tmp_path / "nope"
    if where == "empty":
        folder.mkdir()
    elif where == "file":
        folder.write_text("x", encoding="utf-8")
    assert main(["conformance", str(folder)]) == 2
    line = error_line(capsys, "conformance")
    found = {"absent": "found no such folder", "empty": "found no vectors.jsonl or initial_state.json",
             "file": "found a file, not a folder"}[where]
    assert found in line and str(folder) in line
    assert "DIR/conformance" in line  # what to do
    assert "did you mean" not in line  # no conformance/ inside to suggest


def test_conformance_on_the_official_release_root(official: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(official)]) == 2
    assert f"did you mean {official / 'conformance'}?" in error_line(capsys, "conformance")


def test_conformance_still_runs_on_the_official_conformance_folder(
        official: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(official / "conformance"), "--prefix", "zzz-none"]) == 0
    assert "checked 0 vectors; initial state ok: True" in capsys.readouterr().out
    assert check_vectors(official / "conformance", "zzz-none").initial_state_ok


def test_conformance_error_through_the_console_script(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "vmb_gym.cli", "conformance", str(tmp_path / "nope")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("vmb conformance: error: ")


# --- vmb check env ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env_id", "suggested", "not_suggested"), [
    ("VehicleMem-v1", "did you mean 'VehicleMem-v0'", None),
    ("vehiclemem-v0", "did you mean 'VehicleMem-v0'?", "'VehicleMemStream-v0'?"),
    ("VEHICLEMEMSTREAM-V0", "did you mean 'VehicleMemStream-v0'?", "'VehicleMem-v0'"),
])
def test_check_env_unknown_id_is_one_line_with_did_you_mean(
        capsys: pytest.CaptureFixture[str], env_id: str, suggested: str, not_suggested: str | None) -> None:
    assert main(["check", "env", env_id]) == 2
    line = error_line(capsys, "check")
    assert f"no env registered as {env_id!r}" in line
    assert "VehicleMem-v0, VehicleMemStream-v0" in line  # the registered vmb env ids
    assert suggested in line
    if not_suggested:
        assert not_suggested not in line.split("did you mean")[1]


def test_check_env_far_off_id_says_what_to_give(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "env", "Zzz-v9"]) == 2
    line = error_line(capsys, "check")
    assert "did you mean" not in line and "fix: give one of those" in line


def test_check_env_module_that_does_not_import(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "env", "no_such_module_vmb:X-v0"]) == 2
    assert "cannot import 'no_such_module_vmb'" in error_line(capsys, "check")


# --- vmb generate ----------------------------------------------------------------------------------------------


def test_generate_bad_people_is_one_stderr_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g"
    assert main(["generate", "--people", "9", "--out", str(out)]) == 2
    assert "people must be 2-5 regular users per car, got 9" in error_line(capsys, "generate")


@pytest.mark.parametrize(("renderer", "suggested"), [("natrual", "natural"), ("templte", "template"),
                                                     ("openai", "openai:MODEL")])
def test_generate_misspelt_renderer_suggests_and_lists_every_form(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], renderer: str, suggested: str) -> None:
    out = tmp_path / "g"
    assert main(["generate", "--renderer", renderer, "--out", str(out)]) == 2
    line = error_line(capsys, "generate")
    assert f"unknown --renderer {renderer!r}" in line
    assert f"did you mean {suggested!r}?" in line
    for form in ("template", "natural", "openai:MODEL", "hf:PATH"):
        assert form in line
    assert not out.exists()  # refused before the folder is claimed


def test_generate_renderer_name_ignores_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g"
    assert main(["generate", "--renderer", "Template", "--scenarios", "1", "--queries-per-scenario", "2",
                 "--history-length", "60", "--out", str(out)]) == 0
    assert (out / "meta").is_dir()


@pytest.mark.parametrize("where", [["--benchmark"], ["--split", "validation"]])
def test_generate_refuses_size_options_its_manifest_would_override(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], where: list[str]) -> None:
    out = tmp_path / "set"
    assert main(["generate", *where, "--out", str(out), "--people", "4", "--days", "9"]) == 2
    line = error_line(capsys, "generate")
    assert "--people, --days would be ignored" in line and "--out DIR" in line
    assert not out.exists()  # refused before the folder is claimed
    # a size option at its default changes nothing and passes
    assert main(["generate", *where, "--out", str(out), "--people", "3"]) == 0


def test_generate_error_through_the_console_script(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "vmb_gym.cli", "generate", "--people", "9", "--out",
                           str(tmp_path / "g")], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "vmb generate: error: people must be 2-5 regular users per car, got 9\n"


# --- vmb eval-stream --writer / vmb eval --policy sb3: ---------------------------------------------------------


def test_eval_stream_missing_writer_checkpoint_names_the_shipped_writer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval-stream", "--writer", "sb3:streem", "--out", str(tmp_path / "run")]) == 2
    line = error_line(capsys, "eval-stream")
    assert "name a shipped one (stream)" in line and "did you mean 'stream'?" in line
    assert "`vmb train stream`" in line
    assert "slots" not in line  # slot policies are not writers


def test_eval_stream_unknown_writer_suggests_and_names_the_budget_form(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-stream", "--writer", "rulez", "--out", str(tmp_path / "run")]) == 2
    line = error_line(capsys, "eval-stream")
    assert "unknown writer 'rulez'" in line and "did you mean 'rules'?" in line
    assert "everything, nothing, rules, layered" in line
    assert "NAME@TOKENS" in line and "sb3:stream" in line and "sb3:CHECKPOINT" in line
    for internal in ("store_everything", "store_nothing", "'rule'"):
        assert internal not in line


def test_eval_policy_missing_checkpoint_still_names_the_slot_policies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--policy", "sb3:slotz", "--out", str(tmp_path / "run"), "--no-plots",
                 "--no-progress"]) == 2
    line = error_line(capsys, "eval")
    assert "name a shipped one (slots, slots-rl)" in line
    assert "did you mean 'slots'" in line
    assert "'stream'" not in line


def test_make_writer_and_load_checkpoint_word_the_missing_checkpoint_by_kind(tmp_path: Path) -> None:
    from vmb_agents.sb3.checkpoint import load_checkpoint, read_sidecar
    from vmb_agents.stream.factory import make_writer
    from vmb_gym.errors import ConfigError

    with pytest.raises(ConfigError, match=r"vmb train stream`, or name a shipped one \(stream\)$"):
        make_writer(f"sb3:{tmp_path / 'none'}")
    with pytest.raises(ConfigError, match=r"write one with `vmb train stream`$"):
        load_checkpoint(tmp_path / "none", design="stream_writer")  # no slot policies offered to a writer
    with pytest.raises(ConfigError, match=r"`vmb train sb3`, or name a shipped one \(slots, slots-rl\)$"):
        load_checkpoint(tmp_path / "none", design="slots")
    with pytest.raises(ConfigError, match=r"or name a shipped one \(slots, slots-rl\)$"):
        read_sidecar(tmp_path / "none")
