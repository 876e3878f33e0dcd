"""Baseline policies: oracle (the gold calls), no-op, and random valid calls."""

from __future__ import annotations

from typing import Any

import numpy as np

from vmb_gym.envs.task_set import TaskSet
from vmb_gym.vehicle.schema import all_vehicle_schemas
from vmb_gym.envs.spaces import ToolCallSpace

FINISH = {"name": "finish", "arguments": {}}


class OraclePolicy:
    """Issues the task's gold calls (exactly as the data states them), then finishes.

    Args:
        tasks: the env's task set (``env.unwrapped.tasks``), where the gold answers are.
    """

    def __init__(self, tasks: TaskSet) -> None:
        self.tasks = tasks
        self._calls: list[dict[str, Any]] = []

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Look up the gold calls of the episode's task."""
        query = self.tasks.queries[self.tasks.index_of(info["task_id"])]
        self._calls = [c.to_json() for c in query.gold_calls]

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """All gold calls and ``finish`` in one action."""
        return [*self._calls, FINISH]


class NoopPolicy:
    """Does nothing: finishes at once."""

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Nothing to prepare."""

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """Finish."""
        return FINISH


class RandomPolicy:
    """Sends ``calls_per_episode`` random well-formed vehicle calls, then finishes.

    Args:
        calls_per_episode: how many random calls before ``finish``.
        seed: seed of the policy's own generator.
        schema: tool-schema flavour to sample from ("rich" samples enums and ranges).
    """

    def __init__(self, calls_per_episode: int = 1, seed: int = 0, schema: str = "rich") -> None:
        self.calls_per_episode = calls_per_episode
        self.space = ToolCallSpace(all_vehicle_schemas(schema), seed=seed)  # type: ignore[arg-type]
        self.rng = np.random.default_rng(seed)
        self._left = 0

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new random episode."""
        self._left = self.calls_per_episode

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """One random call, or finish when the budget is spent."""
        if self._left <= 0:
            return FINISH
        self._left -= 1
        return self.space.sample()
