"""``EvaluationWrapper``: records each finished episode and gives the official aggregate.

One job: watch episodes end and keep their per-task metric records (the same records
``vmb score`` writes), so that :meth:`EvaluationWrapper.summary` returns the official
``metric.json`` keys (by reasoning type), the tool-call F1 means and the memory figures.
Because the env scores episodes with the same scorer as ``vmb score``, the numbers are
identical for the same calls.

Example:
    >>> import gymnasium as gym, vmb_gym
    >>> from vmb_gym.wrappers import EvaluationWrapper
    >>> env = EvaluationWrapper(gym.make("VehicleMem-v0"))
    >>> _ = env.reset(seed=0)
    >>> _ = env.step({"name": "finish", "arguments": {}})
    >>> env.summary()["completed_tasks"]
    1
"""

from __future__ import annotations

import statistics
from typing import Any, SupportsFloat

import gymnasium as gym

from vmb_gym.scoring.aggregate import aggregate

_MEMORY_KEYS = ("memory_searches", "memory_tokens", "invalid_actions", "steps", "tool_executions")


class EvaluationWrapper(gym.Wrapper[str, Any, str, Any]):
    """Collects the metrics of every finished episode of the wrapped vehicle env."""

    def __init__(self, env: gym.Env[str, Any]) -> None:
        super().__init__(env)
        self.records: list[dict[str, Any]] = []
        self.episodes: list[dict[str, Any]] = []

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; on the last step of an episode, keep its metrics."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and "metrics" in info:
            self.records.append(dict(info["metrics"]))
            self.episodes.append(dict(info.get("episode_stats", {})))
        return obs, reward, terminated, truncated, info

    def clear(self) -> None:
        """Forget the recorded episodes."""
        self.records.clear()
        self.episodes.clear()

    def summary(self) -> dict[str, Any]:
        """Official aggregate of the recorded episodes plus episode and memory figures."""
        out = aggregate(self.records)
        for key in _MEMORY_KEYS:
            values = [e[key] for e in self.episodes if key in e]
            out[f"avg_{key}"] = statistics.mean(values) if values else 0.0
        recalls = [e["memory_audit"] for e in self.episodes if e.get("memory_audit")]
        if recalls:
            keys = sorted({k for r in recalls for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
            out["memory_audit"] = {k: statistics.mean([r[k] for r in recalls if r.get(k) is not None] or [0.0]) for k in keys}
        return out
