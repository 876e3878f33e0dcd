"""VehicleMem-v0 as a verifiers environment (``verifiers`` >= 0.4, its v1 stack).

verifiers loads an environment by taskset id: the top-level module of that name must export
exactly one ``Taskset`` subclass (and may export one ``Env`` subclass) in ``__all__``. The
installable package ``environments/vmb_vehiclemem`` (module ``vmb_vehiclemem``, id
:data:`TASKSET_ID` = ``vmb-vehiclemem``) exports the classes defined here:

* :class:`VehicleMemTaskset`: one task per benchmark query (``TaskData`` with ``task_id`` and
  ``reasoning_type``; the system prompt is the env's own, plus the tool-call format of
  :mod:`vmb_gym.integrations.text_actions`); its config (:class:`VehicleMemTasksetConfig`,
  CLI-overridable as ``--env.taskset.files``, ``--env.taskset.memory``, ...) holds the
  ``VehicleMem-v0`` arguments;
* :class:`VehicleMemVfEnv`: "the engine plays the user": :meth:`VehicleMemVfEnv.run` opens the
  player's interaction with the request, runs the calls of each model turn on the simulated
  car (native tool calls, or ``<tool_call>`` blocks / JSON / Python-call text), sends the
  observation back as the next user turn, and ends on ``finish``, a plain-text reply or the
  env's step limit. The trace gets the env's reward as ``vmb_reward`` (weight 1; the
  state-diff F1 ``f1_change`` by default) and the named reward components as metrics;
* :func:`load_environment`: the env built from keyword arguments (the ``load_environment()``
  entry point of verifiers' environment packages).

Run it with verifiers' own CLI, e.g. ``vf-eval vmb-vehiclemem --env.taskset.files '[1]'``
(its harnesses run the model in a ``uv`` script runtime).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any, SupportsFloat

import gymnasium as gym
import verifiers.v1 as vf

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.integrations.text_actions import FINISH, TOOL_FORMAT_HINT, reply_action

__all__ = ["TASKSET_ID", "VehicleMemData", "VehicleMemEnvConfig", "VehicleMemTask", "VehicleMemTaskset",
           "VehicleMemTasksetConfig", "VehicleMemVfEnv", "load_environment", "play_episode", "segment_action"]

#: The taskset id verifiers imports the package by (module ``vmb_vehiclemem``).
TASKSET_ID = "vmb-vehiclemem"


class VehicleMemTasksetConfig(vf.TasksetConfig):
    """The ``VehicleMem-v0`` arguments of a run (``--env.taskset.<name>``)."""

    data: str = "default"
    """``"default"`` (the shipped set), ``"official:DIR"`` or a folder."""
    files: list[int] | None = None
    """Scenario numbers to keep (default: all)."""
    task_ids: list[str] | None = None
    """Tasks to keep (default: all)."""
    memory: str = "gold"
    """Memory module (``gold`` puts the evidence in the prompt; ``bm25`` makes search_memory useful)."""
    tool_schema: str = "official"
    """Tool-schema flavour (``official`` or ``rich``)."""
    reward: str | dict[str, float] = "f1_change"
    """The env's reward: a metric name or a weighted mapping of reward components."""
    max_steps: int = 20
    """Model turns per episode (the env's step limit)."""


class VehicleMemData(vf.TaskData):
    """One query: its id (the env resets on it) and reasoning type."""

    task_id: str
    reasoning_type: str


class VehicleMemTask(vf.Task[VehicleMemData, vf.State, vf.TaskConfig]):
    """A VehicleMemBench query; scoring happens in :meth:`VehicleMemVfEnv.run` (the car is the env's)."""


_POOL: dict[str, list[gym.Env[str, Any]]] = {}
_POOL_LOCK = threading.Lock()


def _env_kwargs(config: VehicleMemTasksetConfig) -> dict[str, Any]:
    return {"data": config.data, "files": config.files, "task_ids": config.task_ids, "memory": config.memory,
            "schema": config.tool_schema, "reward": config.reward, "max_steps": config.max_steps}


def _take_env(config: VehicleMemTasksetConfig) -> tuple[str, gym.Env[str, Any]]:
    """A built env for ``config`` (reused across rollouts: building one loads the task set)."""
    kwargs = _env_kwargs(config)
    key = repr(sorted(kwargs.items()))
    with _POOL_LOCK:
        idle = _POOL.get(key)
        if idle:
            return key, idle.pop()
    return key, gym.make("VehicleMem-v0", **kwargs)


def _give_env(key: str, env: gym.Env[str, Any]) -> None:
    with _POOL_LOCK:
        _POOL.setdefault(key, []).append(env)


class VehicleMemTaskset(vf.Taskset[VehicleMemTask, VehicleMemTasksetConfig]):
    """One task per query of the configured benchmark, in the env's order."""

    def load(self) -> Iterator[VehicleMemTask]:
        """The tasks (``prompt=None``: :meth:`VehicleMemVfEnv.run` opens the exchange with the request)."""
        key, env = _take_env(self.config)
        try:
            tasks = env.unwrapped.tasks  # type: ignore[attr-defined]
            for query in tasks.queries:
                _, info = env.reset(options={"task_id": query.task_id})
                system = info["messages"][0]["content"]
                yield VehicleMemTask(VehicleMemData(
                    id=query.task_id, name=f"vmb/{query.task_id}", prompt=None,
                    system_prompt=f"{system}\n\nTools: {_tool_names(info)}.\n{TOOL_FORMAT_HINT}",
                    task_id=query.task_id, reasoning_type=query.reasoning_type), self.config.task)
        finally:
            _give_env(key, env)


class VehicleMemEnvConfig(vf.EnvConfig):
    """The env's one seat: ``player`` (``--env.player.*``)."""

    player: vf.AgentConfig = vf.AgentConfig()


def _tool_names(info: Mapping[str, Any]) -> str:
    return ", ".join(t["function"]["name"] for t in info["tools"])


def segment_action(segment: Any) -> Any:
    """The ``VehicleMem-v0`` action of one model turn (a verifiers ``Segment``).

    Native tool calls of the turn's assistant messages come first (their ``arguments`` are the
    model's JSON text); without any, the reply text is read by
    :func:`~vmb_gym.integrations.text_actions.reply_action`.
    """
    calls = [{"name": tc.name, "arguments": tc.arguments}
             for message in segment.messages if isinstance(message, vf.AssistantMessage)
             for tc in (message.tool_calls or [])]
    return calls if calls else reply_action(segment.last_reply)


async def play_episode(env: gym.Env[str, Any], task: VehicleMemTask, agent: Any) -> tuple[float, dict[str, Any], Any]:
    """Play one episode of ``task`` on ``env`` with ``agent`` as the model; the engine plays the user.

    Args:
        env: a ``VehicleMem-v0`` env.
        task: the task (its ``task_id``).
        agent: a verifiers agent (``agent.interaction(task)`` yields an interaction whose
            ``turn(text)`` returns a ``Segment``).

    Returns:
        ``(reward, final info, trace)``; an exchange that ended before the episode did is
        finished first (scored on the state reached, as a truncated episode is).
    """
    obs, info = env.reset(options={"task_id": task.data.task_id})
    request = info["messages"][1]["content"]
    done = False
    reward: SupportsFloat = 0.0
    async with agent.interaction(task) as interaction:
        segment = await interaction.turn(request)
        while not segment.terminated:
            obs, reward, terminated, truncated, info = env.step(segment_action(segment))
            if terminated or truncated:
                done = True
                break
            segment = await interaction.turn(obs)
        trace = interaction.trace
    if not done:
        obs, reward, _, _, info = env.step(dict(FINISH))
    return float(reward), info, trace


class VehicleMemVfEnv(vf.Env[VehicleMemEnvConfig]):
    """VehicleMem-v0 episodes for verifiers: the car is stepped host-side by :meth:`run`."""

    async def run(self, task: VehicleMemTask, agents: Any) -> None:
        """One episode: the player's turns act on the car; the trace gets ``vmb_reward`` and the components."""
        key, env = _take_env(self.config.taskset)
        try:
            reward, info, trace = await play_episode(env, task, agents.player)
        finally:
            _give_env(key, env)
        trace.record_reward("vmb_reward", reward, 1.0)
        trace.record_metrics(info["reward_components"])
        trace.info["task_id"] = task.data.task_id


def load_environment(**kwargs: Any) -> VehicleMemVfEnv:
    """The verifiers env over VehicleMem-v0 tasks (``kwargs``: :class:`VehicleMemTasksetConfig` fields).

    Example:
        ``env = load_environment(files=[1], memory="gold")``; ``list(env.taskset)`` are its tasks.
    """
    config = VehicleMemEnvConfig(taskset=VehicleMemTasksetConfig(id=TASKSET_ID, **kwargs))
    return VehicleMemVfEnv(config)
