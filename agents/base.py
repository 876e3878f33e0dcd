"""The policy protocol every agent implements, and the loop that runs one episode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym


@runtime_checkable
class Policy(Protocol):
    """A policy for the vehicle envs.

    ``reset`` sees the first observation and the reset info (task metadata, tool schemas, chat
    messages); ``act`` returns one action: a call, a list of calls, or ``{"name": "finish"}``.
    """

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode."""

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """Choose the next action."""


@dataclass
class Episode:
    """One finished episode: its task, actions, final metrics and episode figures."""

    task_id: str
    reasoning_type: str
    reward: float
    terminated: bool
    truncated: bool
    actions: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    episode: dict[str, Any] = field(default_factory=dict)


def run_episode(env: gym.Env[str, Any], policy: Policy, *, task_id: str | None = None, seed: int | None = None) -> Episode:
    """Reset ``env`` (on ``task_id`` if given), let ``policy`` act until the episode ends."""
    options = {"task_id": task_id} if task_id is not None else None
    obs, info = env.reset(seed=seed, options=options)
    policy.reset(obs, info)
    record = Episode(task_id=info["task_id"], reasoning_type=info["reasoning_type"], reward=0.0,
                     terminated=False, truncated=False)
    while True:
        action = policy.act(obs, info)
        record.actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        record.calls.extend(info.get("calls", []))
        if terminated or truncated:
            record.reward = float(reward)
            record.terminated, record.truncated = bool(terminated), bool(truncated)
            record.metrics = info.get("metrics", {})
            record.episode = info.get("episode_stats", {})
            return record
