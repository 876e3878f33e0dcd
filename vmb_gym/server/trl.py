"""A TRL ``environment_factory`` class over a remote ``vmb serve``: GRPO rollouts on a server's sessions.

:class:`RemoteToolEnv` is a :class:`~vmb_gym.envs.tool_episode.ToolEpisode` whose episodes
run on one ``vmb serve`` session (a :class:`~vmb_gym.server.client.VmbEnvClient`, opened on the
first reset): same tools, ``reset(**row)`` and ``get_reward()`` as the in-process adapter
(``vmb_agents.llm.trl_env.VehicleMemToolEnv``), the car and the scoring on the server. TRL pools the
instances, so each keeps its session for many rollouts; the server needs ``--max-sessions`` at
least the generation batch size.

Example::

    from functools import partial
    from trl import GRPOConfig, GRPOTrainer
    from vmb_gym.server.trl import RemoteToolEnv

    factory = partial(RemoteToolEnv, base_url="http://127.0.0.1:8000")  # picklable (AsyncGRPO)
    trainer = GRPOTrainer(model=..., train_dataset=rows,  # rows carry "prompt" and "task_id"
                          environment_factory=factory, args=GRPOConfig(...))

Without arguments, ``RemoteToolEnv()`` reads ``$VMB_SERVE_URL`` (default
``http://127.0.0.1:8000``) and ``$VMB_SERVE_TOKEN``.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from vmb_gym.envs.tool_episode import DEFAULT_VEHICLE_TOOLS, ToolEpisode, vehicle_methods
from vmb_gym.server.client import ServerError, VmbEnvClient
from vmb_gym.server.models import VmbAction

__all__ = ["URL_ENV", "RemoteToolEnv"]

#: Environment variable with the server's base URL (when ``base_url`` is not given).
URL_ENV = "VMB_SERVE_URL"


class RemoteToolEnv(ToolEpisode):
    """One rollout's episode on a ``vmb serve`` session, with the env's tools as methods.

    Args:
        base_url: the server (``http://HOST:PORT``); default ``$VMB_SERVE_URL`` or ``http://127.0.0.1:8000``.
        token: the server's bearer token (default ``$VMB_SERVE_TOKEN``).
        data: a data spec the server serves (default: the server's first).
        memory: a memory module the server serves (default: the server's first).
        seed: seed of the session's task cycle (used by resets without ``task_id``).
    """

    def __init__(self, base_url: str | None = None, *, token: str | None = None, data: str | None = None,
                 memory: str | None = None, seed: int | None = 0) -> None:
        super().__init__(seed=seed)
        self.base_url = base_url or os.environ.get(URL_ENV) or "http://127.0.0.1:8000"
        self._token = token
        self._options = {k: v for k, v in (("data", data), ("memory", memory)) if v is not None}
        self._client: Any = None

    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        if self._client is None:
            self._client = VmbEnvClient(self.base_url, token=self._token).sync()
            self._client.connect()
        kwargs: dict[str, Any] = dict(self._options)
        if task_id is not None:
            kwargs["task_id"] = task_id
        if seed is not None:
            kwargs["seed"] = seed
        result = self._client.reset(**kwargs)
        return result.observation.text, result.observation.info

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        try:
            result = self._client.step(VmbAction(name=action["name"], arguments=action.get("arguments") or {}))
        except (ServerError, ValueError) as e:  # an expired session, an action the wire refuses
            return orjson.dumps({"success": False, "error": str(e)}).decode(), 0.0, False, {}
        obs = result.observation
        return obs.text, float(result.reward or 0.0), bool(result.done), obs.info

    # No public close(): TRL would expose it as a tool. ``with RemoteToolEnv(...) as env:`` or
    # garbage collection closes the session (the server gives its env to the next session).
    def __enter__(self) -> RemoteToolEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self._disconnect()

    def __del__(self) -> None:
        try:
            self._disconnect()
        except Exception:  # noqa: BLE001  (interpreter shutdown: best effort)
            pass

    def _disconnect(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


# The default class carries the common vehicle functions as typed methods, as the in-process adapter does.
for _name, _method in vehicle_methods(DEFAULT_VEHICLE_TOOLS).items():
    setattr(RemoteToolEnv, _name, _method)
del _name, _method
