"""The client of ``vmb serve``: OpenEnv's ``EnvClient`` pattern over one WebSocket session.

Async by default, ``.sync()`` for plain code (OpenEnv's own wrapper)::

    from vmb_gym.server.client import VmbEnvClient
    from vmb_gym.server.models import VmbAction

    with VmbEnvClient("http://127.0.0.1:8000", token="T").sync() as env:
        first = env.reset(task_id="1_0")
        result = env.step(VmbAction(name="carcontrol_seat_set_heating_level",
                                    arguments={"seat": "driver", "level": 2}))
        final = env.step(VmbAction(name="finish"))
        print(final.reward, final.observation.info["metrics"]["f1_change"])

A server error (unknown task, malformed action, oversized message, expired session) raises
:class:`ServerError`; the session stays open for the next call.
"""

from __future__ import annotations

import os
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from websockets.asyncio.client import connect as ws_connect

from vmb_gym.errors import VmbError
from vmb_gym.server.models import VmbAction, VmbObservation, VmbState

__all__ = ["ServerError", "VmbEnvClient"]


class ServerError(VmbError):
    """The server answered a message with an error (its ``code`` and ``message`` are kept)."""

    def __init__(self, message: str, code: str = "UNKNOWN", data: dict[str, Any] | None = None) -> None:
        super().__init__(f"server error {code}: {message}")
        self.code = code
        self.data = data or {}


class VmbEnvClient(EnvClient[VmbAction, VmbObservation, VmbState]):
    """One session on a ``vmb serve`` server.

    Args:
        base_url: ``http://HOST:PORT`` (or ``ws://``).
        token: the server's bearer token (default ``$VMB_SERVE_TOKEN``; None: send none).
        **kwargs: :class:`~openenv.core.env_client.EnvClient` options (``message_timeout_s``, ...).
    """

    def __init__(self, base_url: str, *, token: str | None = None, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.token = token if token is not None else (os.environ.get("VMB_SERVE_TOKEN") or None)

    async def connect(self) -> VmbEnvClient:
        """Open the session's WebSocket (with the bearer token when one is set)."""
        if self._ws is not None:
            return self
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            self._ws = await ws_connect(self._ws_url, open_timeout=self._connect_timeout,
                                        max_size=self._max_message_size, additional_headers=headers,
                                        proxy=None, compression=None)
        except Exception as e:  # refused handshake (bad token), no server, ...
            raise ConnectionError(f"could not open a session at {self._ws_url}: {e}") from e
        return self

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        await self._send(message)
        response = await self._receive()
        if response.get("type") == "error":
            data = response.get("data") or {}
            raise ServerError(str(data.get("message", "unknown error")), str(data.get("code", "UNKNOWN")), data)
        return response

    def _step_payload(self, action: VmbAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[VmbObservation]:
        obs = VmbObservation(**payload.get("observation", {}), done=bool(payload.get("done", False)),
                             reward=payload.get("reward"))
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> VmbState:
        return VmbState(**payload)
