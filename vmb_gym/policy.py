"""The policy contract and the one episode loop of the vehicle envs.

A policy has ``reset(observation, info)`` and ``act(observation, info)``. Optional parts:

* ``bind(source)``: take scenarios from an env, a task set or a list of scenarios;
* ``memory_session``: a :class:`~vmb_gym.memory.session.MemorySession` (or None) for a policy
  that holds its own memory module. Its figures are merged into the episode figures, so the
  env's ``search_memory`` and a policy's own searches are counted the same way (searches,
  tokens, hit line ids, audit).

:func:`run_episode` runs one ``VehicleMem-v0`` episode, :func:`run_episodes` several distinct
tasks, :func:`run_stream_episode` one ``VehicleMemStream-v0`` timeline. ``vmb eval``,
``vmb eval-stream`` and the training evaluators use these loops, so an episode means the same
thing everywhere. :func:`list_tasks` lists the tasks an env serves.

The task cycler: ``reset(seed=s)`` draws a new seeded permutation of the env's tasks and starts
at its first task; ``reset()`` without a seed takes the next task of the current permutation;
``reset(options={"task_id": ...})`` pins a task and leaves the cycle where it is. So a loop of
``run_episode(env, policy, seed=i)`` starts a new permutation each time and may repeat tasks,
while :func:`run_episodes` seeds once and walks the permutation (``n`` distinct tasks), or runs
the ``task_ids`` it is given.

A wrapper in the env's chain with a ``watch_policy(policy)`` method (such as
:class:`~vmb_gym.wrappers.EvaluationWrapper`) is handed the policy before each episode, so it
can count the policy's own memory searches the way :func:`run_episode` does.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.session import MemorySession
from vmb_gym.types import Query

__all__ = [
    "BindablePolicy",
    "Episode",
    "MemoryPolicy",
    "Policy",
    "StreamEpisode",
    "TaskInfo",
    "episode_query",
    "list_tasks",
    "merge_memory_figures",
    "policy_memory_figures",
    "policy_memory_name",
    "run_episode",
    "run_episodes",
    "run_stream_episode",
    "watch_policy",
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
    """One finished episode: its task, actions, final metrics and episode figures.

    Attributes:
        task_id: the task run.
        reasoning_type: its reasoning type.
        reward: the final reward.
        terminated: the policy called ``finish``.
        truncated: the step limit ended the episode.
        actions: every action the policy returned.
        calls: every call the env ran (``info["calls"]`` of each step).
        metrics: the per-task metrics of the scorer (``info["metrics"]``; names in
            :data:`vmb_gym.metrics.METRICS`: ``exact_match``, ``f1_change``, ...).
        episode: the env's ``episode_stats`` with the policy's own memory figures merged in.
        memory: the memory module the policy read (:func:`policy_memory_name`).
    """

    task_id: str
    reasoning_type: str
    reward: float
    terminated: bool
    truncated: bool
    actions: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    episode: dict[str, Any] = field(default_factory=dict)
    memory: str = ""


class TaskInfo(NamedTuple):
    """One task an env serves (see :func:`list_tasks`)."""

    task_id: str
    scenario_id: int
    reasoning_type: str
    request: str


def list_tasks(env: gym.Env[Any, Any]) -> list[TaskInfo]:
    """The tasks ``env`` serves (after its ``files``/``task_ids``/``reasoning_types`` filters), in data order.

    The ids are those ``reset(options={"task_id": ...})`` and :func:`run_episodes` take.

    Raises:
        ConfigError: ``env`` is not a vehicle env (it has no task set).
    """
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None or not hasattr(tasks, "queries"):
        raise ConfigError(f"expected a VehicleMem-v0 or VehicleMemStream-v0 env, found {type(env.unwrapped).__name__} "
                          "without a task set")
    return [TaskInfo(q.task_id, q.scenario_id, q.reasoning_type, q.text) for q in tasks.queries]


def policy_memory_name(policy: Any, env_memory: str) -> str:
    """The name of the memory module ``policy`` read: its own session's module, else ``env_memory``."""
    session = getattr(policy, "memory_session", None)
    if isinstance(session, MemorySession):
        return str(getattr(session.memory, "name", env_memory))
    return env_memory


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
    lines = {int(i) for i in episode.get("memory_hit_line_ids", [])}
    lines |= {int(i) for i in figures.get("memory_hit_line_ids", [])}
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
    watch_policy(env, policy)
    obs, info = env.reset(seed=seed, options=opts or None)
    policy.reset(obs, info)
    record = Episode(task_id=info["task_id"], reasoning_type=info["reasoning_type"], reward=0.0,
                     terminated=False, truncated=False,
                     memory=policy_memory_name(policy, str(info.get("memory", ""))))
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


def watch_policy(env: gym.Env[Any, Any], policy: Any) -> None:
    """Hand ``policy`` to every wrapper of ``env``'s chain that has a ``watch_policy`` method."""
    layer: Any = env
    while True:
        hook = getattr(type(layer), "watch_policy", None)
        if callable(hook):
            hook(layer, policy)
        if not isinstance(layer, gym.Wrapper):
            return
        layer = layer.env


def run_episodes(env: gym.Env[str, Any], policy: Policy, *, n: int | None = None,
                 task_ids: Sequence[str] | None = None, seed: int = 0) -> list[Episode]:
    """Run ``policy`` on distinct tasks of ``env``, one :func:`run_episode` each.

    Args:
        env: a ``VehicleMem-v0`` env (wrapped or not).
        policy: the policy.
        n: run the first ``n`` tasks of the cycle seeded with ``seed`` (distinct tasks; at most
            the env's task count). Default (with no ``task_ids``): every task once.
        task_ids: run exactly these tasks, in this order (instead of ``n``).
        seed: the seed of the first reset (the cycle's permutation).

    Returns:
        The episodes, in the order run.

    Raises:
        ConfigError: both ``n`` and ``task_ids``, or ``n`` not in 1..the number of tasks.
    """
    total = len(list_tasks(env))
    if task_ids is not None:
        if n is not None:
            raise ConfigError(f"expected n or task_ids, found both (n={n}, {len(task_ids)} task ids); pass one")
        return [run_episode(env, policy, task_id=tid, seed=seed if i == 0 else None) for i, tid in enumerate(task_ids)]
    count = total if n is None else n
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= total:
        raise ConfigError(f"expected n between 1 and {total} (the env's distinct tasks), found {n!r}; "
                          "narrow the env with files=/task_ids= or lower n")
    return [run_episode(env, policy, seed=seed if i == 0 else None) for i in range(count)]


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
