"""VehicleMem-v0 as a SkyRL environment (``skyrl_gym`` ``BaseTextEnv``).

SkyRL's generator builds one env per trajectory with ``skyrl_gym.make(env_class,
env_config=..., extras=row)``, calls ``init(prompt)`` for the first conversation, then
``step(reply_text)`` once per model turn until ``done``. :class:`VehicleMemTextEnv` follows it:

* ``env_config`` (the ``environment.skyrl_gym.<id>`` section of the trainer config, a dict or
  an OmegaConf ``DictConfig``): the ``VehicleMem-v0`` arguments ``data``, ``files``, ``memory``,
  ``memory_kwargs``, ``schema``, ``reward`` (a name or a weighted mapping of reward
  components), ``max_steps``, ``gated`` (SkyRL's own ``env_class`` key is ignored);
* ``extras`` (the dataset row): the task as ``extras["reward_spec"]["ground_truth"]``,
  ``extras["extra_info"]["task_id"]`` or ``extras["task_id"]``; ``max_turns`` optional
  (default: the env's ``max_steps``);
* ``init(prompt)`` resets the car on that task and returns the env's own system and user
  messages (with the tool-call format of :mod:`vmb_gym.integrations.text_actions`), whatever
  the row's prompt says;
* ``step(text)`` runs the calls read from the reply; the observation comes back as a user
  message; ``reward`` is 0 until the episode ends (``finish``, a plain-text reply, the env's
  step limit or ``max_turns``), then the env's final reward; the last step's ``metadata``
  carries ``reward_components`` and ``metrics``; :meth:`get_metrics` the components.

:func:`register_env` registers the class under an id (``"vmb"`` by default) in SkyRL's
registry; call it inside the Ray entrypoint, as SkyRL's own examples do. :func:`dataset_rows`
writes the matching dataset rows.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.errors import ConfigError
from vmb_gym.integrations.text_actions import TOOL_FORMAT_HINT, reply_action

__all__ = ["ENTRY_POINT", "ENV_ARGUMENTS", "VehicleMemTextEnv", "dataset_rows", "register_env"]

#: Where SkyRL finds the class.
ENTRY_POINT = "vmb_gym.integrations.skyrl_env:VehicleMemTextEnv"

#: The ``env_config`` keys passed on to ``VehicleMem-v0``.
ENV_ARGUMENTS = ("data", "files", "task_ids", "memory", "memory_kwargs", "schema", "reward", "max_steps", "gated")

# Built envs are reused (taken on construction, given back on close): SkyRL makes one env per
# trajectory and building one loads the task set (about 0.4 s).
_POOL: dict[str, list[gym.Env[str, Any]]] = {}
_POOL_LOCK = threading.Lock()


def _plain(value: Any) -> Any:
    """An OmegaConf container as plain Python (dicts, lists); anything else unchanged."""
    if hasattr(value, "items") and not isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ListConfig":
        return [_plain(v) for v in value]
    return value


def _env_kwargs(env_config: Any) -> dict[str, Any]:
    config = _plain(env_config) if env_config is not None else {}
    if not isinstance(config, dict):
        raise ConfigError(f"env_config must be a mapping of VehicleMem-v0 arguments, got {type(env_config).__name__}")
    config.pop("env_class", None)  # SkyRL's own label of the section, not an env argument
    unknown = sorted(set(config) - set(ENV_ARGUMENTS))
    if unknown:
        raise ConfigError(f"env_config: unknown key(s) {unknown}; expected some of {', '.join(ENV_ARGUMENTS)}")
    return config


def _task_id(extras: Mapping[str, Any]) -> str:
    spec = extras.get("reward_spec") or {}
    info = extras.get("extra_info") or {}
    for value in (spec.get("ground_truth") if isinstance(spec, Mapping) else None,
                  info.get("task_id") if isinstance(info, Mapping) else None, extras.get("task_id")):
        if value is not None:
            return str(value)
    raise ConfigError("extras name no task: expected reward_spec.ground_truth, extra_info.task_id or task_id "
                      f"(a task id such as '1_0'), found keys {sorted(extras)}")


class VehicleMemTextEnv(BaseTextEnv):
    """One ``VehicleMem-v0`` episode per SkyRL trajectory, text in and text out.

    Args:
        env_config: ``VehicleMem-v0`` arguments (see :data:`ENV_ARGUMENTS`).
        extras: the dataset row (the task id, optional ``max_turns``).
        defaults: arguments ``env_config`` falls back to (:func:`register_env` sets them).

    Raises:
        ConfigError: an unknown ``env_config`` key, a row without a task, an unknown task.
    """

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None,
                 defaults: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = {**_env_kwargs(defaults), **_env_kwargs(env_config)}
        extras = _plain(extras or {})
        self.task_id = _task_id(extras)
        self._key = repr(sorted(kwargs.items()))
        with _POOL_LOCK:
            idle = _POOL.get(self._key)
            env = idle.pop() if idle else None
        self.env = env if env is not None else gym.make("VehicleMem-v0", **kwargs)
        base: Any = self.env.unwrapped  # a VehicleMem-v0 env
        base.tasks.index_of(self.task_id)  # ConfigError names the known ids
        self.max_turns = int(extras.get("max_turns") or base.max_steps)
        self.last_info: dict[str, Any] = {}
        self.reward = 0.0
        self.done = False

    def init(self, prompt: ConversationType | None = None) -> tuple[ConversationType, dict[str, Any]]:
        """Reset the car on the row's task; the first conversation is the env's own system and user messages."""
        _, info = self.env.reset(options={"task_id": self.task_id})
        self.turns = 0
        self.done = False
        self.reward = 0.0
        self.last_info = info
        system, user = info["messages"]
        tools = ", ".join(t["function"]["name"] for t in info["tools"])
        conversation = [{"role": "system", "content": f"{system['content']}\n\nTools: {tools}.\n{TOOL_FORMAT_HINT}"},
                        {"role": "user", "content": user["content"]}]
        return conversation, {"task_id": info["task_id"], "reasoning_type": info["reasoning_type"]}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Run the calls of one reply; the episode ends on ``finish``, plain text, or a step/turn limit."""
        if self.done:
            return BaseTextEnvStepOutput(observations=[], reward=0.0, done=True,
                                         metadata={"error": "the episode is over"}, postprocessed_action=action)
        self.turns += 1
        obs, reward, terminated, truncated, info = self.env.step(reply_action(action))
        if not (terminated or truncated) and self.turns >= self.max_turns:
            obs, reward, terminated, truncated, info = self.env.step({"name": "finish", "arguments": {}})
        self.last_info = info
        metadata: dict[str, Any] = {"action_error": info.get("action_error"), "step": self.turns}
        if terminated or truncated:
            self.done = True
            self.reward = float(reward)
            metadata.update(reward_components=info["reward_components"], metrics=info["metrics"],
                            truncated=bool(truncated))
            return BaseTextEnvStepOutput(observations=[], reward=self.reward, done=True, metadata=metadata,
                                         postprocessed_action=action)
        return BaseTextEnvStepOutput(observations=[{"role": "user", "content": obs}], reward=0.0, done=False,
                                     metadata=metadata, postprocessed_action=action)

    def get_metrics(self) -> dict[str, Any]:
        """The finished episode's reward components (empty before the end)."""
        return dict(self.last_info.get("reward_components", {})) if self.done else {}

    def close(self) -> None:
        """Give the built env back to the pool (idempotent)."""
        env, self.env = getattr(self, "env", None), None  # type: ignore[assignment]
        if env is not None:
            with _POOL_LOCK:
                _POOL.setdefault(self._key, []).append(env)


def register_env(env_id: str = "vmb", **env_config: Any) -> str:
    """Register :class:`VehicleMemTextEnv` in SkyRL's registry under ``env_id`` (idempotent).

    Args:
        env_id: the id dataset rows name in ``env_class``.
        **env_config: default ``VehicleMem-v0`` arguments; the trainer's ``env_config`` (its
            ``environment.skyrl_gym.<env_id>`` section) overrides them key by key.

    Returns:
        ``env_id``.
    """
    import skyrl_gym

    _env_kwargs(env_config)  # fail early on an unknown key
    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"defaults": env_config} if env_config else None)
    return env_id


def dataset_rows(
    task_ids: Sequence[str], env_id: str = "vmb", data_source: str = "vehiclemembench"
) -> list[dict[str, Any]]:
    """SkyRL dataset rows for ``task_ids`` (``prompt`` is a placeholder: ``init`` writes the real one).

    Args:
        task_ids: the tasks, e.g. ``[q.task_id for q in env.unwrapped.tasks.queries]``.
        env_id: the registered id (:func:`register_env`).
        data_source: the row's ``data_source`` label.
    """
    return [{"data_source": data_source, "prompt": [{"role": "user", "content": f"VehicleMemBench task {t}"}],
             "env_class": env_id, "reward_spec": {"method": "rule", "ground_truth": t},
             "extra_info": {"task_id": t}} for t in task_ids]
