"""Tiny SB3 models for the checkpoint tests: a few inputs, a few actions, built (and trained) in well under a second."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class TinyEnv(gym.Env[np.ndarray, np.int64]):
    """``obs_dim`` features in [-1, 1], ``actions`` choices (the last one masked); reward 1 for action 0."""

    def __init__(self, obs_dim: int = 4, actions: int = 3) -> None:
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(obs_dim,), dtype=np.float32)
        self.action_space = spaces.Discrete(actions)
        self._t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._t = 0
        return self.observation_space.sample(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self._t += 1
        return self.observation_space.sample(), float(int(action) == 0), self._t >= 4, False, {}

    def action_masks(self) -> np.ndarray:
        return np.arange(int(self.action_space.n)) < int(self.action_space.n) - 1


def tiny_model(algo: str = "maskable_ppo", *, policy: Any = "MlpPolicy", obs_dim: int = 4, actions: int = 3,
               learn: int = 0, seed: int = 0, **policy_kwargs: Any) -> Any:
    """An SB3 model of ``algo`` on a :class:`TinyEnv`, trained ``learn`` steps (0: as initialised)."""
    import torch

    from vmb_agents.sb3.checkpoint import algo_class

    torch.set_num_threads(1)
    model = algo_class(algo)(policy, TinyEnv(obs_dim, actions), n_steps=8, batch_size=8, n_epochs=1, seed=seed,
                             device="cpu", policy_kwargs=policy_kwargs or None)
    if learn:
        model.learn(learn)
    return model
