"""scripts/learning_curves.py: the evaluation callback's rows in curves.csv, the refused runs, the plot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from vmb_gym.errors import ConfigError

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "learning_curves.py"
_SPEC = importlib.util.spec_from_file_location("learning_curves", _SCRIPT)
assert _SPEC is not None and _SPEC.loader is not None
curves = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("learning_curves", curves)  # dataclasses look their module up
_SPEC.loader.exec_module(curves)


def _args(tiny_data: str, out: Path, runs: str) -> Any:
    return curves.Args(runs=runs, timesteps=16, eval_every=8, n_steps=8, batch_size=8, eval_tasks=3,
                       train_eval_tasks=2, eval_data=tiny_data, eval_files="", data=tiny_data, max_steps=4,
                       bc_epochs=20, out=str(out))


def test_runs_are_parsed_and_bad_ones_refused() -> None:
    assert curves.parse_runs("slots:0, catalogue:2,slots:1:imitation,catalogue:3:random,slots:4:esm") == [
        ("slots", 0, "ppo"), ("catalogue", 2, "ppo"), ("slots", 1, "imitation+ppo"), ("catalogue", 3, "random"),
        ("slots", 4, "ppo-esm-reward")]
    for bad in ("slot:0", "slots:x", "catalogue:0:imitation", "slots:0:bc", "slots", "catalogue:0:esm"):
        with pytest.raises(ConfigError, match="ENV:SEED"):
            curves.parse_runs(bad)


@pytest.mark.slow
def test_each_run_writes_one_real_evaluation_per_set_and_interval(tiny_data: str, tmp_path: Path) -> None:
    out = tmp_path / "curves"
    rows = curves.main(_args(tiny_data, out, "catalogue:0,slots:0:imitation,slots:0:random"))
    assert rows == curves.read_rows(out / "curves.csv")
    for env, run in (("catalogue", "ppo"), ("slots", "imitation+ppo")):
        mine = [r for r in rows if r["env"] == env and r["run"] == run]
        # step 0, then every 8 env steps; 16 steps of 8-step rollouts
        assert sorted((r["timestep"], r["set"]) for r in mine) == [
            (t, s) for t in (0.0, 8.0, 16.0) for s in ("held_out", "train")]
        assert all(0.0 <= r["esm"] <= 1.0 and 0.0 <= r["f1"] <= 1.0 for r in mine)
        assert all(r["episodes"] == (3 if r["set"] == "held_out" else 2) for r in mine)
    chance = [r for r in rows if r["run"] == "random"]
    assert sorted(r["set"] for r in chance) == ["held_out", "train"] and all(r["timestep"] == 0 for r in chance)
    # a real evaluation: the imitated policy solves training tasks at step 0, where a random init solves none
    start = [r for r in rows if r["run"] == "imitation+ppo" and r["timestep"] == 0]
    assert max(r["esm"] for r in start) > 0.0
    assert (out / "curves.png").stat().st_size > 0
    with pytest.raises(ConfigError, match="already holds"):
        curves.main(_args(tiny_data, out, "catalogue:0"))
