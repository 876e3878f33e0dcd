"""``vmb train self-imitation``: which episode a task keeps, a tiny run that fits and saves a loadable slot
checkpoint with its start recorded, and the settings refused before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import torch as th

from vmb_agents.train import slot_self_imitation as si
from vmb_gym.errors import ConfigError


def test_the_greedy_episode_is_kept_when_it_solves_the_task() -> None:
    assert si.best_episodes([True, True, False], [0.0, -0.1, -0.2]).kept == 0


def test_else_the_most_probable_solving_sample_is_kept() -> None:
    group = si.best_episodes([False, True, False, True], [0.0, -2.5, -0.1, -0.7])
    assert group.kept == 3  # -0.7 beats -2.5; the more probable sample 2 did not solve the task
    assert group.solved == [False, True, False, True]


def test_a_task_nobody_solved_keeps_nothing() -> None:
    assert si.best_episodes([False, False, False], [0.0, -1.0, -2.0]).kept is None


def test_a_tiny_run_fits_the_start_and_saves_a_checkpoint_that_loads(tmp_path: Path) -> None:
    from vmb_agents.sb3.checkpoint import load_checkpoint

    out = tmp_path / "run"
    args = si.Args(out=str(out), train_scenarios=2, train_files="1-2", samples=2, epochs=2,
                   cache_dir=str(tmp_path / "cache"))
    summary = si.main(args)
    assert summary["tasks"] == 20  # two generated households of ten requests
    assert 0 < summary["greedy_solved"] <= summary["any_solved"] <= summary["tasks"]
    assert summary["kept_states"] >= 3 * summary["any_solved"]  # each kept episode: search, a call, finish at least
    model, sidecar = load_checkpoint(out / "final", design="slots")
    start, start_sidecar = load_checkpoint("slots", design="slots")
    assert sidecar["start"]["checkpoint"] == "slots" and sidecar["start"]["self_imitation"]["samples"] == 2
    assert sidecar["settings"]["max_steps"] == start_sidecar["settings"]["max_steps"]
    assert sidecar["catalogue"] == start_sidecar["catalogue"]
    moved = [not th.equal(a, b) for a, b in zip(model.policy.state_dict().values(),
                                                  start.policy.state_dict().values(), strict=True)]
    assert any(moved)


@pytest.mark.parametrize(("field", "value", "message"), [("samples", 0, "--samples"), ("epochs", 0, "--epochs"),
                                                          ("learning_rate", 0.0, "--learning-rate")])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path: Path, field: str, value: object,
                                                             message: str) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=message):
        si.main(si.Args(out=str(out), **{field: value}))
    assert not out.exists()


def test_households_the_split_lacks_are_refused_before_out_is_claimed(tmp_path: Path) -> None:
    from vmb_gym.errors import DataError

    out = tmp_path / "run"
    with pytest.raises(DataError, match=r"\[3, 4\].*found only 1-2"):
        si.main(si.Args(out=str(out), train_scenarios=2, train_files="3-4", cache_dir=str(tmp_path / "cache")))
    assert not out.exists()


def test_the_cli_names_the_trainer_and_reports_a_refused_setting(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    assert main(["train", "self-imitation", "--samples", "0", "--out", str(tmp_path / "run")]) == 2
    assert "vmb train self-imitation: error: --samples" in capsys.readouterr().err


def test_the_greedy_episode_scores_as_vmb_eval_scores_the_policy() -> None:
    """The trainer's "greedy solved" is the evaluation's exact match on the same tasks."""
    import gymnasium as gym
    import numpy as np

    from vmb_agents.factory import make_policy
    from vmb_agents.sb3.checkpoint import load_checkpoint
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_gym.policy import run_episode

    model, sidecar = load_checkpoint("slots", design="slots")
    env_args = si.SlotArgs(memory="bm25", max_steps=6)
    envs = [si.slot_env(si.slot_env_thunk("default", [1], env_args, SlotCatalogue.from_json(sidecar["catalogue"]))())
            for _ in range(2)]
    eval_env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    policy = make_policy("sb3:slots", eval_env)
    solved = []
    for q in envs[0].unwrapped.tasks.queries[:6]:
        group, kept = si.run_group(model.policy, envs, q.task_id, np.random.default_rng(0))
        episode = run_episode(eval_env, policy, task_id=q.task_id)
        assert group.solved[0] == bool(episode.metrics["exact_match"]), q.task_id
        assert (group.kept is None) == (not kept)
        solved.append(group.solved[0])
    assert any(solved)  # the shipped policy solves some of them, so the comparison covers both outcomes
    eval_env.close()
