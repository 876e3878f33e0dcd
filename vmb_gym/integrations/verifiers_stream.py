"""VehicleMemStream-v0 as a verifiers environment: each task a group start, each rollout its continuation.

A GRPO group in the stream env is fair only when its rollouts start from the same memory store
(what was written before decides what a request can find). verifiers runs ``-r G`` rollouts of
one task as one group, so here a task *is* a saved state: :class:`VehicleMemStreamTaskset` walks
each timeline once with a writer (:func:`~vmb_gym.envs.fork.fork_points`: ``cite_all`` by default,
any :data:`~vmb_gym.envs.fork.Writer` through :func:`stream_tasks`) and makes one task per request
(``fork_at="request"``) or history chunk (``fork_at="chunk"``), carrying the state as JSON. Every
rollout of the task restores that state (:class:`~vmb_gym.envs.fork.StreamForkToolEnv`), so the G
rollouts start byte-identical and differ only by what the model does next.

* :class:`VehicleMemStreamTaskset` (id :data:`STREAM_TASKSET_ID` = ``vmb-vehiclemem-stream``, module
  ``vmb_vehiclemem_stream`` of the package ``environments/vmb_vehiclemem``); its config
  (:class:`VehicleMemStreamTasksetConfig`, ``--env.taskset.window_days``, ``--env.taskset.fork_at``, ...)
  holds the ``VehicleMemStream-v0`` arguments and where to fork;
* :class:`VehicleMemStreamVfEnv`: the engine plays the user. The opening turn is the observation at
  the fork point; each model turn (native tool calls, or tool calls in the text) is one env step;
  a reply without a call skips the chunk while history streams and finishes at a request. The
  rollout ends with the current (or next) request (``until="request"``) or the timeline
  (``until="episode"``); one the model left open is played to its end (skip, finish). The trace
  gets the continuation's return as ``vmb_reward`` (weight 1), the last request's reward components
  as metrics, and ``info["start_state"]``: the digest of the state the rollout started from
  (:func:`~vmb_gym.envs.fork.state_digest`; equal across a group);
* :func:`load_stream_environment`: the env from keyword arguments.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf

from vmb_gym.envs.fork import (
    FORK_AT,
    ForkPoint,
    StreamForkToolEnv,
    Writer,
    cite_all,
    closing_action,
    fork_points,
    skip_all,
    state_digest,
    step_episode,
)
from vmb_gym.errors import ConfigError
from vmb_gym.integrations.text_actions import FINISH, TOOL_FORMAT_HINT
from vmb_gym.integrations.verifiers_env import VehicleMemEnvConfig, segment_action

__all__ = ["STREAM_TASKSET_ID", "WRITERS", "VehicleMemStreamData", "VehicleMemStreamTask", "VehicleMemStreamTaskset",
           "VehicleMemStreamTasksetConfig", "VehicleMemStreamVfEnv", "load_stream_environment", "play_continuation",
           "stream_tasks"]

#: The taskset id verifiers imports the package by (module ``vmb_vehiclemem_stream``).
STREAM_TASKSET_ID = "vmb-vehiclemem-stream"
#: Writers the config can name (``--env.taskset.writer``); :func:`stream_tasks` takes any.
WRITERS: dict[str, Writer] = {"cite_all": cite_all, "skip_all": skip_all}
_STREAM_HINT = "While history streams, a reply without a tool call skips to the next chunk."


class VehicleMemStreamTasksetConfig(vf.TasksetConfig):
    """The ``VehicleMemStream-v0`` arguments of a run and where its groups start (``--env.taskset.<name>``)."""

    data: str = "default"
    """``"default"`` (the shipped set), ``"official:DIR"`` or a folder."""
    files: list[int] | None = None
    """Scenario numbers to keep (default: all)."""
    window_days: float | None = None
    """Days of history up to one request per timeline (default: the whole timeline)."""
    store: str = "bm25"
    """The searchable memory module the policy writes into."""
    chunk_minutes: int = 60
    """Width of a history chunk."""
    memory_cost: float = 0.0
    """Reward charged per stored token."""
    reward: str | dict[str, float] = "f1_change"
    """Each request's reward: a metric name or a weighted mapping of reward components."""
    max_query_steps: int = 20
    """Model turns per request."""
    max_chunk_steps: int = 8
    """Model turns per history chunk."""
    fork_at: str = "request"
    """Where a group starts: when a request arrives (``request``) or a history chunk does (``chunk``)."""
    every: int = 1
    """Keep every n-th such point."""
    writer: str = "cite_all"
    """What writes the memory before the fork points (a name of ``WRITERS``)."""
    episodes: int | None = None
    """Timelines to walk (default: one per scenario)."""
    seed: int = 0
    """Seed of the first timeline's reset (scenario order, window anchors)."""
    until: str = "request"
    """A rollout ends with the current or next request (``request``) or with the timeline (``episode``)."""


class VehicleMemStreamData(vf.TaskData):
    """One group start: the saved state (JSON), its phase and, at a request, the request's task id."""

    env_state: str
    phase: str
    task_id: str | None = None


class VehicleMemStreamTask(vf.Task[VehicleMemStreamData, vf.State, vf.TaskConfig]):
    """A group start of the stream env; :meth:`VehicleMemStreamVfEnv.run` restores and plays it."""


_ENV_FIELDS = ("data", "files", "window_days", "store", "chunk_minutes", "memory_cost", "reward", "max_query_steps",
               "max_chunk_steps")
_POOL: dict[str, list[StreamForkToolEnv]] = {}
_POOL_LOCK = threading.Lock()


def _take(config: VehicleMemStreamTasksetConfig) -> tuple[str, StreamForkToolEnv]:
    """A rollout env for ``config`` (reused across rollouts: building one loads the task set)."""
    kwargs = {name: getattr(config, name) for name in _ENV_FIELDS}
    key = repr((config.until, sorted(kwargs.items())))
    with _POOL_LOCK:
        idle = _POOL.get(key)
        if idle:
            return key, idle.pop()
    return key, StreamForkToolEnv(until=config.until, **kwargs)


def _give(key: str, episode: StreamForkToolEnv) -> None:
    with _POOL_LOCK:
        _POOL.setdefault(key, []).append(episode)


def _task(point: ForkPoint, config: Any, episode: int) -> VehicleMemStreamTask:
    where = f"request {point.task_id}" if point.task_id else f"chunk at {point.id}"
    key = f"{episode}/{point.id}"  # timeline walked / scenario@position
    system = f"{point.instructions}\n\n{TOOL_FORMAT_HINT}\n{_STREAM_HINT}"
    data = VehicleMemStreamData(id=key, name=f"vmb-stream/{key}", description=f"the group starts at {where}",
                                prompt=None, system_prompt=system, env_state=point.state_json(), phase=point.phase,
                                task_id=point.task_id)
    return VehicleMemStreamTask(data, config)


def stream_tasks(env: Any, writer: Writer = cite_all, *, at: str = "request", every: int = 1, episodes: int = 1,
                 seed: int | None = 0, task_config: Any = None) -> Iterator[VehicleMemStreamTask]:
    """One task per fork point of ``episodes`` timelines of ``env`` (a ``VehicleMemStream-v0``) walked by ``writer``.

    The first timeline starts with ``reset(seed=seed)``, the next ones walk the scenario cycle.

    Raises:
        ConfigError: see :func:`~vmb_gym.envs.fork.fork_points`.
    """
    config = task_config if task_config is not None else vf.TaskConfig()
    for i in range(episodes):
        for point in fork_points(env, writer, at=at, every=every, seed=seed if i == 0 else None):
            yield _task(point, config, i)


def _check(config: VehicleMemStreamTasksetConfig) -> Writer:
    if config.writer not in WRITERS:
        raise ConfigError(f"unknown writer {config.writer!r}; expected one of {', '.join(WRITERS)} "
                          "(stream_tasks() takes any writer)")
    if config.fork_at not in FORK_AT:
        raise ConfigError(f"fork_at must be one of {FORK_AT}, got {config.fork_at!r}")
    return WRITERS[config.writer]


class VehicleMemStreamTaskset(vf.Taskset[VehicleMemStreamTask, VehicleMemStreamTasksetConfig]):
    """One task per fork point of the configured timelines, in walk order."""

    def load(self) -> Iterator[VehicleMemStreamTask]:
        """The tasks (``prompt=None``: :meth:`VehicleMemStreamVfEnv.run` opens with the fork point's observation)."""
        writer = _check(self.config)
        key, episode = _take(self.config)
        try:
            episodes = self.config.episodes or len(episode.env.scenario_ids)
            yield from stream_tasks(episode.env, writer, at=self.config.fork_at, every=self.config.every,
                                    episodes=episodes, seed=self.config.seed, task_config=self.config.task)
        finally:
            _give(key, episode)


def _action(segment: Any, phase: str | None) -> Any:
    """The env action of a model turn; a reply without a call closes the current item (skip or finish)."""
    action = segment_action(segment)
    return closing_action(phase) if action == FINISH else action


async def play_continuation(episode: StreamForkToolEnv, task: VehicleMemStreamTask,
                            agent: Any) -> tuple[float, str, Any]:
    """Restore ``task``'s state into ``episode`` and play the continuation with ``agent``; the engine plays the user.

    Returns:
        ``(return of the continuation, digest of the start state, trace)``; a continuation the exchange
        left open is played to its end first.
    """
    first = episode.reset(env_state=task.data.env_state)
    start = state_digest(episode.env.get_state())
    async with agent.interaction(task) as interaction:
        segment = await interaction.turn(first)
        while not segment.terminated:
            obs = step_episode(episode, _action(segment, episode.phase))
            if episode.over:
                break
            segment = await interaction.turn(obs)
        trace = interaction.trace
    return episode.get_reward(), start, trace


class VehicleMemStreamVfEnv(vf.Env[VehicleMemEnvConfig]):
    """Continuations of saved ``VehicleMemStream-v0`` states for verifiers: stepped host-side by :meth:`run`."""

    async def run(self, task: VehicleMemStreamTask, agents: Any) -> None:
        """One rollout from the task's state: ``vmb_reward``, the reward components, the start state's digest."""
        key, episode = _take(self.config.taskset)
        try:
            reward, start, trace = await play_continuation(episode, task, agents.player)
            components = episode.reward_components
        finally:
            _give(key, episode)
        trace.record_reward("vmb_reward", reward, 1.0)
        if components:
            trace.record_metrics(components)
        trace.info.update({"fork_point": task.data.id, "start_state": start, "task_id": task.data.task_id})


def load_stream_environment(**kwargs: Any) -> VehicleMemStreamVfEnv:
    """The verifiers env over group starts of VehicleMemStream-v0 (``kwargs``: :class:`VehicleMemStreamTasksetConfig`).

    Example:
        ``env = load_stream_environment(files=[1], window_days=2)``; ``list(env.taskset)`` are its group starts.
    """
    config = VehicleMemEnvConfig(taskset=VehicleMemStreamTasksetConfig(id=STREAM_TASKSET_ID, **kwargs))
    return VehicleMemStreamVfEnv(config)
