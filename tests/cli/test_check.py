"""``vmb check``: the shipped contract checkers from the command line, one PASS/FAIL line per check."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vmb_gym.cli import main

#: A memory module that answers every search with every entry, whatever ``as_of`` says.
LEAKY = textwrap.dedent('''
    from vmb_gym.memory.base import BaseMemory


    class Leaky(BaseMemory):
        name = "leaky"
        provides_search = True

        def search(self, text, as_of, top_k=5, person=None):
            return [e.to_hit(1.0) for e in self.entries][:top_k]
''')


def test_check_memory_bm25_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "memory", "bm25"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["PASS  an object with the MemoryModule protocol",
                     "PASS  no hit later than as_of, no line of another scenario",
                     "PASS  instances isolated, hits deterministic",
                     "PASS  observe() line by line ends where ingest() does",
                     "memory bm25: 4 of 4 checks passed"]


def test_check_memory_fails_an_entry_point_module_that_ignores_as_of(tmp_path: Path) -> None:
    (tmp_path / "leaky_memory.py").write_text(LEAKY)
    meta = tmp_path / "leaky_memory-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: leaky-memory\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text("[vmb_gym.memory]\nleaky = leaky_memory:Leaky\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", "import sys; from vmb_gym.cli import main; "
                           "sys.exit(main(['check', 'memory', 'leaky']))"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "PASS  an object with the MemoryModule protocol"
    assert lines[1].startswith("FAIL  no hit later than as_of, no line of another scenario: expected no hit later "
                               "than as_of=")
    assert len(lines) == 5 and lines[-1].startswith("memory leaky: ") and lines[-1].endswith(" of 4 checks passed")


def test_check_memory_of_an_unknown_name_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "memory", "bm26"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("vmb check: error: unknown memory module 'bm26'") and "'bm25'" in captured.err


def test_check_policy_rules_passes(tiny_data: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "policy", "rules", "--data", tiny_data, "--tasks", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("PASS  rules on 2 task(s) of official:")
    assert lines[1] == "policy rules: 1 of 1 checks passed"


def test_check_env_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "env", "VehicleMemStream-v0", "--bombard", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["PASS  VehicleMemStream-v0: check_env, seeded determinism, pickling, 10 malformed actions",
                     "env VehicleMemStream-v0: 1 of 1 checks passed"]
