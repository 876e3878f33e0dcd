"""``EvaluationWrapper``: records each finished episode and gives the official aggregate.

One job: watch episodes end and keep their per-task metric records (the same records
``vmb score`` writes), so that :meth:`EvaluationWrapper.summary` returns the official
``metric.json`` keys (by reasoning type), the tool-call F1 means and the memory figures.
Because the env scores episodes with the same scorer as ``vmb score``, the numbers are
identical for the same calls.

A policy that searches a memory of its own (``policy.memory_session``) is counted too, as
:func:`~vmb_gym.policy.run_episode` and ``vmb eval`` count it: :func:`~vmb_gym.policy.run_episode`
hands the policy to the wrapper (``watch_policy``); in a loop of your own, pass it as
``EvaluationWrapper(env, policy=policy)``. The records keep the per-task metric names, the
summary the aggregate ones (both in :data:`vmb_gym.metrics.METRICS`).

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

from vmb_gym.metrics import AUDIT_KEYS
from vmb_gym.policy import episode_query, merge_memory_figures, policy_memory_figures, policy_memory_name
from vmb_gym.scoring.aggregate import aggregate

_MEMORY_KEYS = ("memory_searches", "memory_tokens", "invalid_actions", "steps", "tool_executions")


class EvaluationWrapper(gym.Wrapper[str, Any, str, Any]):
    """Collects the metrics of every finished episode of the wrapped vehicle env.

    Args:
        env: a ``VehicleMem-v0`` env.
        policy: the policy acting, when it holds its own memory and you step the env yourself
            (:func:`~vmb_gym.policy.run_episode` sets it).

    Attributes:
        records: the per-task metrics of each finished episode (``info["metrics"]``).
        episodes: the episode figures of each (``episode_stats`` plus the policy's own memory
            searches, and ``memory``: the module the policy read).
    """

    def __init__(self, env: gym.Env[str, Any], policy: Any = None) -> None:
        super().__init__(env)
        self.policy = policy
        self.records: list[dict[str, Any]] = []
        self.episodes: list[dict[str, Any]] = []

    def watch_policy(self, policy: Any) -> None:
        """Count ``policy``'s own memory figures in the episodes from now on."""
        self.policy = policy

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; on the last step of an episode, keep its metrics and figures."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and "metrics" in info:
            metrics = dict(info["metrics"])
            episode = dict(info.get("episode_stats", {}))
            if self.policy is not None:
                query = episode_query(self.env, str(metrics.get("task_id", "")))
                merge_memory_figures(episode, policy_memory_figures(self.policy, query))
            episode["memory"] = policy_memory_name(self.policy, str(getattr(self.env.unwrapped, "memory_name", "")))
            self.records.append(metrics)
            self.episodes.append(episode)
        return obs, reward, terminated, truncated, info

    def clear(self) -> None:
        """Forget the recorded episodes."""
        self.records.clear()
        self.episodes.clear()

    def summary(self) -> dict[str, Any]:
        """Official aggregate of the recorded episodes plus episode and memory figures.

        The keys are ``metric.json``'s: the official means (``exact_match_rate``,
        ``state_f1_change``, ...), ``memory_type`` (the module read; names joined by ``,`` when
        episodes differ), ``avg_memory_searches``, ``avg_memory_tokens``, ... and ``memory_audit``
        (``episodes`` that searched and the means of :data:`vmb_gym.metrics.AUDIT_KEYS` over them),
        each the same number as in ``vmb eval``'s ``metric.json`` for the same episodes.
        """
        out = aggregate(self.records)
        out["memory_type"] = ",".join(sorted({str(e.get("memory", "")) for e in self.episodes})) or None
        for key in _MEMORY_KEYS:
            values = [e[key] for e in self.episodes if key in e]
            out[f"avg_{key}"] = statistics.mean(values) if values else 0.0
        audits = [e["memory_audit"] for e in self.episodes if e.get("memory_audit")]
        if audits:
            means: dict[str, Any] = {"episodes": len(audits)}
            for key in AUDIT_KEYS:
                values = [a[key] for a in audits if a.get(key) is not None]
                means[key] = statistics.fmean(values) if values else None
            out["memory_audit"] = means
        return out
