"""The shipped slot checkpoint (``agents/sb3/checkpoints/slots``) loads by name and plays an episode."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.factory import make_policy
from vmb_agents.sb3.checkpoint import SHIPPED_DIR, read_sidecar, training_settings
from vmb_gym.policy import run_episode

pytest.importorskip("sb3_contrib")


def test_the_shipped_checkpoint_is_small_and_records_its_settings() -> None:
    files = [SHIPPED_DIR / "slots.safetensors", SHIPPED_DIR / "slots.vmb.json"]
    assert all(f.is_file() for f in files)
    assert sum(f.stat().st_size for f in files) < 5 * 2 ** 20  # a few MB at most
    sidecar = read_sidecar("slots")
    assert sidecar["design"] == "slots" and sidecar["catalogue"]["line_prior"]["kind"] == "vocab"
    assert training_settings("slots") == {"memory": "bm25", "max_steps": 6, "schema": "official"}


def test_sb3_slots_names_the_shipped_policy_and_it_plays_a_task() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    policy = make_policy("sb3:slots", env)
    assert type(policy).__name__ == "SlotSB3Policy"
    task = env.unwrapped.tasks.queries[0]
    episode = run_episode(env, policy, task_id=task.task_id)
    first = episode.actions[0]
    calls = first if isinstance(first, list) else [first]
    assert calls[0]["name"] == "search_memory"  # the slot policy looks in memory first
    assert episode.terminated or episode.truncated
    env.close()


def test_the_rl_end_ships_beside_its_imitation_start() -> None:
    """``sb3:slots-rl`` is ``sb3:slots`` after ``vmb train self-imitation``: same catalogue and settings, its start
    recorded, other weights, and it plays a task like the start."""
    from vmb_agents.sb3.checkpoint import load_checkpoint

    rl, start = read_sidecar("slots-rl"), read_sidecar("slots")
    assert rl["start"]["checkpoint"] == "slots" and rl["start"]["self_imitation"]["train_files"] == "161-320"
    assert rl["catalogue"] == start["catalogue"] and rl["featurizer"] == start["featurizer"]
    assert training_settings("slots-rl") == training_settings("slots")
    rl_model, _ = load_checkpoint("slots-rl", design="slots")
    start_model, _ = load_checkpoint("slots", design="slots")
    rl_weights, start_weights = rl_model.policy.state_dict(), start_model.policy.state_dict()
    assert rl_weights.keys() == start_weights.keys()
    assert any(not (rl_weights[k] == start_weights[k]).all() for k in rl_weights)
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    episode = run_episode(env, make_policy("sb3:slots-rl", env), task_id=env.unwrapped.tasks.queries[0].task_id)
    assert episode.terminated or episode.truncated
    env.close()
