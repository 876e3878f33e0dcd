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
    ("lm", {"--model", "--backend", "--sft-episodes", "--out", "--seed"}),
    ("stream", {"--budget", "--timesteps", "--out", "--seed"}),
])
def test_trainer_parser_lists_its_options(trainer: str, options: set[str]) -> None:
    parser = trainer_parser(trainer)
    known = {s for action in parser._actions for s in action.option_strings}
    assert options <= known, sorted(options - known)
    assert parser.prog == f"vmb train {trainer}"
