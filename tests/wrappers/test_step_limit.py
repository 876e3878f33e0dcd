"""ScoredStepLimit: the scored step-limit step is a termination; SB3 then adds no bootstrapped value to it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import vmb_gym  # noqa: F401 - registers VehicleMem-v0
from vmb_gym.wrappers import ScoredStepLimit

SEARCH = {"name": "search_memory", "arguments": {"query": "seat"}}


def _env(tiny_data: str, max_steps: int) -> gym.Env:
    return gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=max_steps)


def test_the_step_limit_terminates_with_the_same_score(tiny_data: str) -> None:
    plain, scored = _env(tiny_data, 2), ScoredStepLimit(_env(tiny_data, 2))
    plain.reset(seed=0)
    scored.reset(seed=0)
    assert plain.step(SEARCH)[2:4] == scored.step(SEARCH)[2:4] == (False, False)
    _, r_plain, term_plain, trunc_plain, info_plain = plain.step(SEARCH)
    _, r_scored, term_scored, trunc_scored, info_scored = scored.step(SEARCH)
    assert (term_plain, trunc_plain) == (False, True)
    assert (term_scored, trunc_scored) == (True, False) and info_scored["step_limit"] is True
    assert r_scored == r_plain and info_scored["metrics"] == info_plain["metrics"]


def test_finish_is_left_alone(tiny_data: str) -> None:
    env = ScoredStepLimit(_env(tiny_data, 2))
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step({"name": "finish", "arguments": {}})
    assert (terminated, truncated) == (True, False) and "step_limit" not in info


def test_sb3_bootstraps_a_truncated_final_score_and_not_a_terminated_one(tiny_data: str) -> None:
    """What the wrapper is for: SB3's PPO adds gamma x V(last obs) to a truncated step's reward."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_gym.wrappers.features import FeatureObservationWrapper

    class AlwaysSearch(gym.ActionWrapper):
        def __init__(self, env: gym.Env) -> None:
            super().__init__(env)
            self.action_space = gym.spaces.Discrete(1)

        def action(self, action):
            return SEARCH

    rewards = {}
    for name, wrap in (("truncated", lambda e: e), ("terminated", ScoredStepLimit)):
        def make(wrap=wrap):
            return AlwaysSearch(wrap(FeatureObservationWrapper(_env(tiny_data, 1))))

        model = PPO("MlpPolicy", DummyVecEnv([make]), n_steps=4, batch_size=4, seed=0, device="cpu")
        with torch_value(model, 5.0):
            model.learn(total_timesteps=4)
        rewards[name] = np.asarray(model.rollout_buffer.rewards).ravel()
    assert np.allclose(rewards["terminated"], 0.0)  # the final score of a search-only episode
    assert np.allclose(rewards["truncated"], 0.99 * 5.0)  # + gamma x V(last obs), paid on top of it


class torch_value:
    """Pin the critic's output to ``value`` (a constant critic makes the bootstrapped term exact)."""

    def __init__(self, model, value: float) -> None:
        self.model, self.value = model, value

    def __enter__(self) -> None:
        import torch

        head = self.model.policy.value_net
        with torch.no_grad():
            head.weight.zero_()
            head.bias.fill_(self.value)
        head.weight.requires_grad_(False)
        head.bias.requires_grad_(False)

    def __exit__(self, *exc: object) -> None:
        return None
