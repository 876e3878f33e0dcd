"""The policy contract and the one episode loop of the vehicle envs.

A policy has ``reset(observation, info)`` and ``act(observation, info)``. Optional parts:

* ``bind(source)``: take scenarios from an env, a task set or a list of scenarios;
* ``memory_session``: a :class:`~vmb_gym.memory.session.MemorySession` (or None) for a policy
  that holds its own memory module. Its figures are merged into the episode figures, so the
  env's ``search_memory`` and a policy's own searches are counted the same way (searches,
  tokens, hit line ids, audit).

:func:`run_episode` runs one ``VehicleMem-v0`` episode, :func:`run_stream_episode` one
``VehicleMemStream-v0`` timeline. ``vmb eval``, ``vmb eval-stream`` and the training evaluators
use these loops, so an episode means the same thing everywhere.

Example:
    >>> import gymnasium as gym, vmb_gym
    >>> class Finish:
    ...     def reset(self, observation, info): pass
    ...     def act(self, observation, info): return {"name": "finish", "arguments": {}}
    >>> episode = run_episode(gym.make("VehicleMem-v0"), Finish(), seed=0)
    >>> episode.terminated, episode.actions
    (True, [{'name': 'finish', 'arguments': {}}])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.session import MemorySession
from vmb_gym.types import Query

__all__ = [
    "BindablePolicy",
    "Episode",
    "MemoryPolicy",
    "Policy",
    "StreamEpisode",
    "episode_query",
    "merge_memory_figures",
    "policy_memory_figures",
    "run_episode",
    "run_stream_episode",
]


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


@runtime_checkable
class BindablePolicy(Policy, Protocol):
    """A policy that reads scenarios (histories) it is given with ``bind``."""

    def bind(self, source: Any) -> None:
        """Take scenarios from an env, a task set or a sequence of scenarios."""


@runtime_checkable
class MemoryPolicy(Policy, Protocol):
    """A policy that holds its own memory module; its searches are counted by its session."""

    memory_session: MemorySession | None


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


def policy_memory_figures(policy: Any, query: Query | None) -> dict[str, Any] | None:
    """The figures of the memory a policy used itself this episode, or None if it holds none.

    Read from ``policy.memory_session`` (a :class:`MemorySession`); a policy without one may
    still offer the older ``memory_figures()`` method (searches, tokens, hits).
    """
    session = getattr(policy, "memory_session", None)
    if isinstance(session, MemorySession):
        return session.figures(query)
    legacy = getattr(policy, "memory_figures", None)
    if not callable(legacy):
        return None
    figures = dict(legacy())
    hits = list(figures.get("memory_hits", []))
    if hits:
        figures["memory_hit_line_ids"] = sorted({int(i) for h in hits for i in h.line_ids})
        if query is not None:
            figures["memory_audit"] = audit_hits(query, hits)
    return figures


def merge_memory_figures(episode: dict[str, Any], figures: Mapping[str, Any] | None) -> None:
    """Add a policy's memory figures to the env's episode figures (in place).

    Searches and tokens add up, hit line ids are united, and the audit is the policy's when the
    env has none. Figures without searches or hits change nothing.
    """
    if not figures:
        return
    hits = list(figures.get("memory_hits", []))
    if not (figures.get("memory_searches") or hits):
        return
    episode["memory_searches"] = int(episode.get("memory_searches", 0)) + int(figures.get("memory_searches", 0))
    episode["memory_tokens"] = int(episode.get("memory_tokens", 0)) + int(figures.get("memory_tokens", 0))
    lines = {int(i) for i in episode.get("memory_hit_line_ids", [])} | {int(i) for i in figures.get("memory_hit_line_ids", [])}
    episode["memory_hit_line_ids"] = sorted(lines)
    if figures.get("memory_audit") and not episode.get("memory_audit"):
        episode["memory_audit"] = figures["memory_audit"]


def episode_query(env: gym.Env[Any, Any], task_id: str) -> Query | None:
    """The query of ``task_id`` in the env's task set, or None when the env has none or not that id."""
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None:
        return None
    try:
        return tasks.queries[tasks.index_of(task_id)]
    except Exception:  # noqa: BLE001 - an unknown id simply has no query
        return None


def run_episode(env: gym.Env[str, Any], policy: Policy, *, task_id: str | None = None, seed: int | None = None,
                options: dict[str, Any] | None = None) -> Episode:
    """Reset ``env`` (on ``task_id`` if given), let ``policy`` act until the episode ends.

    The episode figures are the env's ``episode_stats`` with the policy's own memory figures
    (:func:`policy_memory_figures`) merged in.

    Args:
        env: a ``VehicleMem-v0`` env (wrapped or not).
        policy: the policy.
        task_id: the task to run (default: the env's next task).
        seed: the reset seed.
        options: more reset options (``task_id`` is added to them when given).
    """
    opts = dict(options or {})
    if task_id is not None:
        opts["task_id"] = task_id
    obs, info = env.reset(seed=seed, options=opts or None)
    policy.reset(obs, info)
    record = Episode(task_id=info["task_id"], reasoning_type=info["reasoning_type"], reward=0.0,
                     terminated=False, truncated=False)
    while True:
        action = policy.act(obs, info)
        record.actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        record.calls.extend(info.get("calls", []))
        if terminated or truncated:
            break
    record.reward = float(reward)
    record.terminated, record.truncated = bool(terminated), bool(truncated)
    record.metrics = dict(info.get("metrics", {}))
    record.episode = dict(info.get("episode_stats", {}))
    merge_memory_figures(record.episode, policy_memory_figures(policy, episode_query(env, record.task_id)))
    return record


@dataclass
class StreamEpisode:
    """One finished timeline: its return, the env's episode figures and each request's metrics.

    Attributes:
        scenario_id: the scenario streamed.
        episode_return: the sum of the rewards.
        steps: the env steps taken.
        episode: the env's ``episode_stats`` at the end.
        queries: ``info["query_metrics"]`` of each request answered, in order.
    """

    scenario_id: int
    episode_return: float
    steps: int
    episode: dict[str, Any]
    queries: list[dict[str, Any]] = field(default_factory=list)


def run_stream_episode(env: gym.Env[str, Any], policy: Any, *, seed: int | None = None,
                       options: dict[str, Any] | None = None) -> StreamEpisode:
    """Reset ``env`` and let ``policy`` (``reset``/``act``, e.g. a memory writer) run the timeline to its end."""
    obs, info = env.reset(seed=seed, options=options)
    policy.reset(obs, info)
    view = dict(info)
    total = 0.0
    steps = 0
    queries: list[dict[str, Any]] = []
    while True:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, view))
        total += float(reward)
        steps += 1
        if "query_metrics" in info:
            queries.append(dict(info["query_metrics"]))
        view = info
        if terminated or truncated:
            stats = info.get("episode_stats", {})
            return StreamEpisode(int(stats.get("scenario_id", -1)), total, steps, stats, queries)
