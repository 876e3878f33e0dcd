"""The light core: the paths ``pip install vmb_gym`` (no extras) promises import none of the extras' heavy modules.

Each path runs in a fresh interpreter that then lists ``sys.modules``: the env through
``gym.make``, ``vmb --help``, ``vmb eval`` with the rules baseline on bm25 memory, ``vmb score``,
``vmb generate``, ``vmb compare``, ``vmb dashboard`` and ``vmb eval-stream`` with the rules
writer. ``vmb serve`` needs the ``server`` extra and says so in one line when it is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: What the light core never imports (the ``sb3``, ``lm`` and ``dense`` extras).
HEAVY = ("torch", "transformers", "stable_baselines3", "sb3_contrib", "sklearn")

_CLI = """
import json, sys
from vmb_gym.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:  # --help
    code = exc.code
with open(sys.argv[2], "w") as f:
    json.dump({"rc": code, "modules": sorted(sys.modules)}, f)
"""

_MAKE = """
import json, sys
import gymnasium as gym
import vmb_gym
env = gym.make("VehicleMem-v0")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step({"name": "finish", "arguments": {}})
with open(sys.argv[1], "w") as f:
    json.dump({"rc": 0 if terminated else 1, "modules": sorted(sys.modules)}, f)
"""


def _run(code: str, args: list[str], cwd: Path) -> tuple[int, set[str], str]:
    """Run ``code`` in a fresh interpreter; its exit code, the top-level modules it imported, its output."""
    report = cwd / "modules.json"
    env = {**os.environ, "MPLBACKEND": "Agg", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", code, *args, str(report)], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and report.is_file(), done.stdout + done.stderr
    result = json.loads(report.read_text())
    report.unlink()
    return int(result["rc"] or 0), {name.split(".")[0] for name in result["modules"]}, done.stdout + done.stderr


def _cli(argv: list[str], cwd: Path) -> tuple[int, set[str], str]:
    return _run(_CLI, [json.dumps(argv)], cwd)


@pytest.fixture(scope="module")
def eval_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """``vmb eval --policy rules --memory bm25 --data default --limit 5``: its folder and what it imported."""
    cwd = tmp_path_factory.mktemp("light")
    rc, modules, output = _cli(["eval", "--policy", "rules", "--memory", "bm25", "--data", "default", "--limit", "5",
                                "--out", str(cwd / "run")], cwd)
    assert rc == 0, output
    return cwd / "run", modules


def test_gym_make_imports_no_heavy_module(tmp_path: Path) -> None:
    rc, modules, output = _run(_MAKE, [], tmp_path)
    assert rc == 0, output
    assert "vmb_gym" in modules and modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_vmb_help_imports_no_heavy_module(tmp_path: Path) -> None:
    rc, modules, output = _cli(["--help"], tmp_path)
    assert rc == 0 and "eval" in output and "score" in output, output
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_eval_rules_on_bm25_imports_no_heavy_module(eval_run: tuple[Path, set[str]]) -> None:
    run, modules = eval_run
    records = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    assert [r["policy"] for r in records] == ["rules"] * 5
    assert json.loads((run / "metric.json").read_text())["completed_tasks"] == 5
    assert {"vmb_agents", "bm25s"} <= modules  # the rules baseline and its memory really ran
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_score_imports_no_heavy_module_and_scores_gold_calls_exact(eval_run: tuple[Path, set[str]],
                                                                     tmp_path: Path) -> None:
    run, _ = eval_run
    records = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"task_id": r["task_id"], "calls": r["gold_calls"]}) + "\n"
                                   for r in records))
    rc, modules, output = _cli(["score", "--data", "default", "--predictions", str(predictions), "--files", "1",
                                "--out", str(tmp_path / "scored")], tmp_path)
    assert rc == 0, output
    scored = {row["task_id"]: row for row in map(json.loads, (tmp_path / "scored" / "results.jsonl").open())}
    assert [scored[r["task_id"]]["exact_match"] for r in records] == [True] * 5
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


@pytest.mark.parametrize("command", ["generate", "compare", "dashboard", "eval-stream"])
def test_generate_compare_dashboard_stream_import_no_heavy_module(command: str, eval_run: tuple[Path, set[str]],
                                                                  tmp_path: Path) -> None:
    run, _ = eval_run
    argv = {"generate": ["generate", "--scenarios", "1", "--out", str(tmp_path / "out")],
            "eval-stream": ["eval-stream", "--writer", "rules", "--files", "1", "--no-progress",
                            "--out", str(tmp_path / "out")],
            "compare": ["compare", str(run), "--out", str(tmp_path / "out")],
            "dashboard": ["dashboard", str(run), "--out", str(tmp_path / "out")]}[command]
    rc, modules, output = _cli(argv, tmp_path)
    assert rc == 0, output
    assert any((tmp_path / "out").iterdir())
    assert modules.isdisjoint(HEAVY), sorted(modules.intersection(HEAVY))


def test_serve_without_the_server_extra_names_the_fix(tmp_path: Path) -> None:
    hide = "import sys; sys.modules['openenv'] = None  # as if the server extra were not installed\n"
    rc, _, output = _run(hide + _CLI, [json.dumps(["serve", "--port", "0"])], tmp_path)
    assert rc == 2
    assert "pip install 'vmb_gym[server]'" in output and "openenv" in output
