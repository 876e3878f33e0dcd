"""``ScoredStepLimit``: the step limit ends the task, so a learner does not bootstrap past a final score.

``VehicleMem-v0`` scores the state an episode reached when it hits ``max_steps`` and reports the
step as ``truncated``, as Gymnasium asks of a time limit. A bootstrapping learner reads
``truncated`` as "the episode would have gone on": Stable-Baselines3's PPO (and sb3-contrib's
MaskablePPO) adds ``gamma * V(last observation)`` to the reward of a truncated step. Here that
step's reward already is the final score, so every episode that runs out its steps is paid the
critic's value on top of its score, and the better the critic thinks the policy is, the more
running out the steps pays over calling ``finish``.

This wrapper's one job is to report such a step as ``terminated`` (``info["step_limit"]`` is
``True`` there), which is what the limit is for this task: the end of the episode, scored. Use it
for training with bootstrapping learners (``vmb train sb3`` does); evaluation needs no change.

Example:
    >>> import gymnasium as gym, vmb_gym
    >>> from vmb_gym.wrappers import ScoredStepLimit
    >>> env = ScoredStepLimit(gym.make("VehicleMem-v0", max_steps=6))
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym


class ScoredStepLimit(gym.Wrapper[Any, Any, Any, Any]):
    """Reports a step-limit step that the env scored (``info["metrics"]`` present) as terminated, not truncated."""

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step; a truncated step that ends the scored episode becomes a terminated one."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated and "metrics" in info:
            info["step_limit"] = True
            return obs, reward, True, False, info
        return obs, reward, terminated, truncated, info
