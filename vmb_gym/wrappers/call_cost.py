"""``VehicleCallCost``: a cost per vehicle call, paid at the step that makes it.

The env's reward components all measure the final state, once, when the episode ends; none of
them charges a call. A policy that cannot yet tell which candidate value is right then earns more
F1 by changing several candidates than by changing one and finishing (the hedge the RL benchmark
page measures). This wrapper's one job is to subtract ``cost`` for each vehicle function call of a
step (a ``carcontrol_*`` call, whether it succeeded or not; discovery, memory search and
``finish`` are free), so that the one right call followed by ``finish`` pays more than one more
guess. The final reward is unchanged; ``info["call_cost"]`` says what the step was charged.

Example:
    >>> import gymnasium as gym, vmb_gym
    >>> from vmb_gym.wrappers import VehicleCallCost
    >>> env = VehicleCallCost(gym.make("VehicleMem-v0"), cost=0.1)
"""

from __future__ import annotations

import math
from typing import Any, SupportsFloat

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS


class VehicleCallCost(gym.Wrapper[Any, Any, Any, Any]):
    """Subtracts ``cost`` from a step's reward for each vehicle function call it makes.

    Args:
        env: a ``VehicleMem-v0`` env (or a wrapper of one) whose ``info["calls"]`` lists the step's calls.
        cost: the charge per vehicle call (a finite number >= 0).
    """

    def __init__(self, env: gym.Env[Any, Any], cost: float) -> None:
        super().__init__(env)
        if not isinstance(cost, int | float) or isinstance(cost, bool) or not math.isfinite(cost) or cost < 0:
            raise ConfigError(f"VehicleCallCost: cost must be a finite number >= 0, got {cost!r}; fix: e.g. cost=0.1")
        self.cost = float(cost)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step, then charge the step's vehicle calls."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        calls = sum(1 for r in info.get("calls") or () if isinstance(r, dict) and r.get("name") in API_SPECS)
        info["call_cost"] = self.cost * calls
        return obs, float(reward) - info["call_cost"], terminated, truncated, info
