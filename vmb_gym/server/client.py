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

Episodes fork: ``saved = env.get_env_state()`` answers ``{"state_id", "state"}`` (the episode as plain
JSON); ``other.set_env_state(saved["state"])`` (or ``state_id=saved["state_id"]`` on the same server
process) makes another session continue exactly as this one would.

A server error (unknown task, malformed action, oversized message, expired session) raises
:class:`ServerError`; the session stays open for the next call. A server that refuses the token
(the handshake answered ``401``/``403``, or the session closed with code ``1008``) raises
:class:`TokenRefused`, which says so and how to fix it. A server that refuses the session itself
(it sends an error, e.g. ``CAPACITY_REACHED`` at ``--max-sessions``, then closes the connection)
raises :class:`SessionRefused` with the server's message and what to do; the next call on the same
client opens a new session.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from vmb_gym.errors import VmbError
from vmb_gym.server.models import VmbAction, VmbObservation, VmbState
from vmb_gym.server.openenv_api import CLIENT_CONNECT_HOOK, EnvClient, StepResult

__all__ = ["ServerError", "SessionRefused", "TokenRefused", "VmbEnvClient"]


class ServerError(VmbError):
    """The server answered a message with an error (its ``code`` and ``message`` are kept)."""

    def __init__(self, message: str, code: str = "UNKNOWN", data: dict[str, Any] | None = None) -> None:
        super().__init__(f"server error {code}: {message}")
        self.code = code
        self.data = data or {}


class SessionRefused(ServerError, ConnectionError):
    """The server sent an error and closed the session (e.g. ``CAPACITY_REACHED``: it is at ``--max-sessions``).

    A :class:`ServerError` (``code``, ``data`` and the server's message are kept) and a ``ConnectionError``.
    """

    #: What to do, per error code of a refused session.
    FIXES = {"CAPACITY_REACHED": "retry later, when one of its sessions has closed (or idled past its "
                                 "--session-timeout), or restart vmb serve with a larger --max-sessions"}

    def __init__(self, url: str, message: str, code: str = "UNKNOWN", data: dict[str, Any] | None = None) -> None:
        fix = self.FIXES.get(code, "open a new session (the next call on this client does)")
        super().__init__(f"{message}; the server at {url} refused the session and closed it: {fix}", code, data)
        self.url = url
        self.server_message = message


class TokenRefused(ConnectionError, VmbError):
    """The server refused this client's bearer token (missing or not the one it was started with)."""

    def __init__(self, url: str, how: str, sent: bool) -> None:
        told = "the client sent a token the server does not accept" if sent else "the client sent no token"
        super().__init__(f"the server at {url} refused the token ({how}; {told}): set VMB_SERVE_TOKEN or pass "
                         "token=... matching the server's --token (or its $VMB_SERVE_TOKEN)")


def _health_status(ws_url: str, token: str | None) -> int | None:
    """The HTTP status of the server's ``/health`` asked with ``token`` (None when it cannot be asked)."""
    import urllib.error
    import urllib.request

    url = ws_url.replace("ws", "http", 1).removesuffix("/ws") + "/health"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (OSError, ValueError):
        return None


class VmbEnvClient(EnvClient[VmbAction, VmbObservation, VmbState]):
    """One session on a ``vmb serve`` server.

    Args:
        base_url: ``http://HOST:PORT`` (or ``ws://``).
        token: the server's bearer token (default ``$VMB_SERVE_TOKEN``; None: send none).
        **kwargs: :class:`~openenv.core.env_client.EnvClient` options (``message_timeout_s``, ...).
    """

    def __init__(self, base_url: str, *, token: str | None = None, **kwargs: Any) -> None:
        token = token if token is not None else (os.environ.get("VMB_SERVE_TOKEN") or None)
        if CLIENT_CONNECT_HOOK == "_connect_async" and token:  # openenv 0.10 sends the headers it is given
            kwargs["headers"] = {**(kwargs.get("headers") or {}), "Authorization": f"Bearer {token}"}
        super().__init__(base_url, **kwargs)
        self.token = token

    async def _open_session(self) -> VmbEnvClient:
        """Open the session's WebSocket (with the bearer token when one is set); a refused token raises
        :class:`TokenRefused`."""
        if CLIENT_CONNECT_HOOK == "_connect_async":  # openenv 0.10: its own connect, which knows its loops
            try:
                await super()._connect_async()
            except ConnectionError as e:
                if isinstance(e.__cause__, InvalidStatus):
                    await self._raise_if_token_refused(e.__cause__)
                raise ConnectionError(f"could not open a session at {self._ws_url}: {e.__cause__ or e}") from e
            return self
        if self._ws is not None:  # type: ignore[has-type]
            return self
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            self._ws = await ws_connect(self._ws_url, open_timeout=self._connect_timeout,
                                        max_size=self._max_message_size, additional_headers=headers,
                                        proxy=None, compression=None)
        except InvalidStatus as e:
            await self._raise_if_token_refused(e)
            raise ConnectionError(f"could not open a session at {self._ws_url}: {e}") from e
        except Exception as e:  # no server, ...
            raise ConnectionError(f"could not open a session at {self._ws_url}: {e}") from e
        return self

    async def _raise_if_token_refused(self, error: InvalidStatus) -> None:
        """Raise :class:`TokenRefused` when a refused handshake was the token's doing: a 401, or a 403
        while ``/health`` refuses the same token too (or cannot be asked)."""
        status = error.response.status_code
        if status == 401 or (status == 403 and await asyncio.to_thread(_health_status, str(self._ws_url),
                                                                       self.token) in (401, 403, None)):
            raise TokenRefused(str(self._ws_url), f"HTTP {status}", bool(self.token)) from error

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        closed = False
        try:
            try:
                await self._send(message)
            except ConnectionClosed:
                # a refused session (at capacity) is sent an error, then closed: that error is still queued,
                # read it (recv() raises ConnectionClosed again when nothing is)
                closed = True
            response = await self._receive()
        except ConnectionClosed as e:  # 1008 (policy violation): the server's guard closing for the token
            if e.rcvd is not None and e.rcvd.code == 1008 and "token" in (e.rcvd.reason or "token"):
                raise TokenRefused(self._ws_url, f"session closed with code 1008: {e.rcvd.reason or 'no reason'}",
                                   bool(self.token)) from e
            raise
        if response.get("type") == "error":
            data = response.get("data") or {}
            text, code = str(data.get("message", "unknown error")), str(data.get("code", "UNKNOWN"))
            if closed or code in SessionRefused.FIXES:  # the server closes the connection after this error
                raise SessionRefused(str(self._ws_url), text, code, data)
            raise ServerError(text, code, data)
        return response

    async def get_env_state(self, *, include_state: bool = True) -> dict[str, Any]:
        """Save the session's episode: ``{"state_id": ID, "state": {...}}`` (plain JSON; without
        ``include_state`` the id alone, which any session of the same server process can fork from)."""
        response = await self._send_and_receive({"type": "get_state", "data": {"include_state": include_state}})
        return dict(response.get("data") or {})

    async def set_env_state(self, state: dict[str, Any] | None = None, *, state_id: str | None = None) -> VmbState:
        """Restore a saved episode into this session (the ``state`` of :meth:`get_env_state`, or its
        ``state_id``); the session then continues as the saved one would. Returns the session's state.

        Raises:
            ServerError: the server refused the state (unknown id, another env or configuration, malformed).
        """
        data: dict[str, Any] = {"state_id": state_id} if state_id is not None else {"state": state}
        response = await self._send_and_receive({"type": "set_state", "data": data})
        return self._parse_state(response.get("data") or {})

    def _step_payload(self, action: VmbAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[VmbObservation]:
        obs = VmbObservation(**payload.get("observation", {}), done=bool(payload.get("done", False)),
                             reward=payload.get("reward"))
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> VmbState:
        return VmbState(**payload)


# the installed OpenEnv's connect hook opens the session (openenv 0.10: _connect_async; openenv-core 0.3: connect)
setattr(VmbEnvClient, CLIENT_CONNECT_HOOK, VmbEnvClient._open_session)
