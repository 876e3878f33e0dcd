"""The command line builds its parser without heavy imports; the env and scorer import without torch.

Each check runs in a fresh interpreter (``sys.modules`` of the test process already holds torch).
Speed itself is printed by ``scripts/bench.py``, not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vmb_gym.cli import COMMANDS, build_parser, main
from vmb_gym.cli.train import TRAINERS, trainer_parser

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "stable_baselines3", "sb3_contrib", "sklearn", "agents")


def _loaded_after(code: str) -> dict[str, bool]:
    """Which of HEAVY (and gymnasium) a fresh interpreter holds after running ``code``."""
    probe = (code + "\nimport json, sys\n"
             f"print(json.dumps({{m: m in sys.modules for m in {list(HEAVY) + ['gymnasium']!r}}}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_parser_build_imports_nothing_heavy() -> None:
    loaded = _loaded_after("from vmb_gym.cli import build_parser\nbuild_parser().format_help()")
    # gymnasium (and numpy behind it) is not needed to print the help either.
    assert loaded == {name: False for name in loaded}, loaded


def test_env_and_scorer_import_without_torch() -> None:
    loaded = _loaded_after("import vmb_gym, gymnasium as gym\ngym.make('VehicleMem-v0')\n"
                           "gym.make('VehicleMemStream-v0')\nimport vmb_gym.scoring")
    assert loaded.pop("gymnasium") is True
    assert loaded == {name: False for name in loaded}, loaded


@pytest.mark.parametrize("order", ["import vmb_gym\nimport gymnasium as gym",
                                   "import gymnasium as gym\nimport vmb_gym"])
def test_envs_registered_in_either_import_order(order: str) -> None:
    code = order + "\nprint(type(gym.make('VehicleMem-v0').unwrapped).__name__)"
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "VehicleMemEnv"


def test_every_command_has_a_module_and_bench_is_gone() -> None:
    assert "bench" not in COMMANDS
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_help_formats(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A help string with a bare "%" (argparse formats help with %) breaks --help of the whole command.
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: vmb {command}")


def test_unknown_option_of_a_plain_command_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["score", "--predictions", "p.jsonl", "--out", "o", "--no-such-flag"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


def test_train_without_trainer_names_the_trainers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train"]) == 2
    out = capsys.readouterr().out
    assert all(f"vmb train {name} --help" in out for name in TRAINERS)


@pytest.mark.parametrize(("trainer", "options"), [
    ("sb3", {"--design", "--algo", "--timesteps", "--train-scenarios", "--out", "--seed"}),
    ("lm", {"--model", "--train-tasks", "--grpo-steps", "--kl-beta", "--out", "--seed"}),
    ("stream", {"--budget", "--timesteps", "--out", "--seed"}),
])
def test_trainer_parser_lists_its_options(trainer: str, options: set[str]) -> None:
    parser = trainer_parser(trainer)
    known = {s for action in parser._actions for s in action.option_strings}
    assert options <= known, sorted(options - known)
    assert parser.prog == f"vmb train {trainer}"


def _oracle_file(path: Path, files: range) -> Path:
    from vmb_gym.data import load_gold

    rows = [{"task_id": q.task_id, "calls": [{"name": c.name, "arguments": c.arguments} for c in q.gold_calls]}
            for q in load_gold("default", files)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_score_imports_nothing_heavy_and_reads_no_history(tmp_path: Path) -> None:
    predictions = _oracle_file(tmp_path / "pred.jsonl", range(1, 3))
    code = ("import vmb_gym.data.official as official\n"
            "def refuse(*args, **kwargs):\n    raise AssertionError('vmb score read a history file')\n"
            "official.read_history = refuse\n"
            "from vmb_gym.cli import main\n"
            f"assert main(['score', '--data', 'default', '--files', '1-2', '--predictions', {str(predictions)!r}, "
            f"'--out', {str(tmp_path / 'out')!r}]) == 0")
    loaded = _loaded_after(code)
    assert loaded == {name: False for name in loaded}, loaded  # not even gymnasium
    metric = json.loads((tmp_path / "out" / "metric.json").read_text())
    assert metric["valid_tasks"] == 20 and metric["exact_match_rate"] == 1
