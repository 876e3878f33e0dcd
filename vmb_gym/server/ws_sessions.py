"""The ``/ws`` session endpoint of ``vmb serve``: OpenEnv's WebSocket protocol on a lean hot path.

OpenEnv's own ``/ws`` handler validates every message three times with pydantic (the envelope,
the action, the response envelope), dumps the observation to a dict and then to JSON, and runs
through Starlette's WebSocket wrapper. This raw ASGI endpoint speaks the same protocol, message
for message, with one ``orjson`` decode and one encode per message:

* in: ``{"type": "reset", "data": {...}}``, ``{"type": "step", "data": ACTION}``,
  ``{"type": "state"}``, ``{"type": "close"}``, ``{"type": "mcp", "data": JSON-RPC}``; and, beyond
  OpenEnv, ``{"type": "get_state", "data": {"include_state": true}}`` (answered ``{"type": "env_state",
  "data": {"state_id", "state"}}``: the episode as plain JSON, also kept under ``state_id``) and
  ``{"type": "set_state", "data": {"state": ...} | {"state_id": ...}}`` (answered with the session's
  ``state``), which fork an episode (:meth:`VehicleMemEnvironment.get_env_state`);
* out: ``{"type": "observation", "data": {"observation": {...}, "reward": R, "done": D}}``,
  ``{"type": "state", "data": {...}}``, ``{"type": "error", "data": {"message", "code", ...}}``
  with OpenEnv's codes (``INVALID_JSON``, ``UNKNOWN_TYPE``, ``VALIDATION_ERROR``,
  ``EXECUTION_ERROR``, ``CAPACITY_REACHED``).

An action gets :class:`~vmb_gym.server.models.VmbAction`'s checks (a malformed one gets
``VALIDATION_ERROR`` with pydantic's error list); a plain single call is checked without building
the model (:func:`~vmb_gym.server.models.env_call`). What the server builds itself (observations,
states) is not re-validated. Sessions are capped (``max_sessions``); when the cap is reached,
sessions idle past the timeout are expired first (their env goes back to the pool), so an
abandoned connection never holds a slot a new session needs. Every other path goes to the
wrapped app (OpenEnv's FastAPI app: ``/health``, ``/schema``, HTTP ``/reset`` / ``/step``, ...).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import ValidationError

from vmb_gym.server.environment import VehicleMemEnvironment
from vmb_gym.server.guard import ASGIApp, Receive, Scope, Send
from vmb_gym.server.models import env_call
from vmb_gym.server.openenv_api import Observation, serialize_observation

__all__ = ["WORKER_HEADER", "SessionEndpoint", "dumps", "observation_payload"]

#: Handshake response header naming the server process (its pid) that holds the connection's sessions.
WORKER_HEADER = "x-vmb-worker"

_ENVELOPE_KEYS = frozenset(("type", "data"))
_ITEM_KEYS = frozenset(("type", "data", "session"))
_OBSERVATION_SKIP = frozenset(("reward", "done", "metadata"))  # what OpenEnv's serialize_observation leaves out
# ... except the (empty) metadata, which openenv 0.10 keeps in the observation and openenv-core 0.3 left out
_OBSERVATION_METADATA = "metadata" in serialize_observation(Observation())["observation"]


def dumps(message: dict[str, Any]) -> str:
    """One message as JSON text (non-JSON values as ``str``, as the env's ``info`` is made JSON-safe).

    Plain JSON (the usual message) is encoded without the options, which cost ~40% more; the same
    text either way, as string keys and JSON values encode the same.
    """
    try:
        return orjson.dumps(message).decode()
    except TypeError:  # a non-string key or a value orjson does not know
        return orjson.dumps(message, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def observation_payload(fields: dict[str, Any]) -> dict[str, Any]:
    """``data`` of an observation message from an observation's fields (``VehicleMemEnvironment.step_fields``):
    what OpenEnv's ``serialize_observation`` gives for the same observation."""
    observation = dict(fields)
    for key in _OBSERVATION_SKIP:
        observation.pop(key, None)
    if _OBSERVATION_METADATA:
        observation["metadata"] = fields.get("metadata") or {}
    return {"observation": observation, "reward": fields["reward"], "done": fields["done"]}


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}


def _invalid(loc: list[Any], msg: str) -> dict[str, Any]:
    return _error("VALIDATION_ERROR", "Invalid message", errors=[{"type": "envelope", "loc": loc, "msg": msg}])


#: Answers an ``mcp`` message on a session's env (:func:`vmb_gym.server.mcp_tools.ws_message`).
McpHandler = Callable[[VehicleMemEnvironment, dict[str, Any]], Awaitable[dict[str, Any]]]


def _mcp_unserved(data: dict[str, Any], why: str) -> dict[str, Any]:
    """The JSON-RPC error for an ``mcp`` message where no MCP handler is installed."""
    return {"jsonrpc": "2.0", "id": data.get("id"), "error": {"code": -32601, "data": None, "message":
            f"MCP tools are not served here: {why}; use reset/step messages"}}


class SessionEndpoint:
    """``/ws`` sessions over :class:`VehicleMemEnvironment`; every other request goes to ``app``.

    Besides OpenEnv's messages, a connection may send ``{"type": "batch", "data": {"messages": [...]}}``
    (an extension OpenEnv's clients never send): each item is a message with a ``session`` key
    (a string or an int the client picks), run in order on that session, a session of its own
    (own env, own car) opened on first use and closed by ``{"session": K, "type": "close"}`` or with
    the connection. The reply is ``{"type": "batch", "data": {"replies": [...]}}``, one per item,
    each the reply a plain message would get plus its ``session`` (a close is answered
    ``{"type": "closed"}``). One frame then carries many sessions' steps: the per-message costs
    (framing, system calls, the event loop) are paid once per frame. The handshake's response names
    the server process in :data:`WORKER_HEADER`, so a client of ``vmb serve --workers N`` (whose
    connections the kernel hands to whichever process accepts first) can spread its sessions
    evenly over the processes.

    Args:
        app: the app for every other path (OpenEnv's FastAPI app).
        factory: builds one session's environment.
        max_sessions: most concurrent sessions, batched ones included (one more gets ``CAPACITY_REACHED``).
    """

    def __init__(self, app: ASGIApp, factory: Callable[[], VehicleMemEnvironment], *, max_sessions: int,
                 mcp_handler: McpHandler | None = None, mcp_missing: str = "no MCP handler installed") -> None:
        self.app = app
        self.factory = factory
        self.max_sessions = int(max_sessions)
        self.mcp_handler = mcp_handler
        self.mcp_missing = mcp_missing
        self.sessions: set[VehicleMemEnvironment] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run a ``/ws`` connection, or hand the request to the wrapped app."""
        if scope.get("type") == "websocket" and scope.get("path") == "/ws":
            await self._connection(receive, send)
        else:
            await self.app(scope, receive, send)

    def open_session(self) -> VehicleMemEnvironment | None:
        """A new session's env counted against the cap (None at the cap), for another transport (MCP)."""
        return self._open()

    def close_session(self, env: VehicleMemEnvironment) -> None:
        """End a session :meth:`open_session` gave (its env goes back to the pool)."""
        self._close(env)

    def capacity_error(self) -> dict[str, Any]:
        """The ``CAPACITY_REACHED`` error message of a session refused at the cap."""
        return self._capacity_error()

    def _open(self) -> VehicleMemEnvironment | None:
        """A new session's env, or None at the cap (after expiring sessions idle past the timeout)."""
        if len(self.sessions) >= self.max_sessions:
            self.sessions -= {env for env in self.sessions if env.expire_if_idle()}
            if len(self.sessions) >= self.max_sessions:
                return None
        env = self.factory()
        self.sessions.add(env)
        return env

    def _close(self, env: VehicleMemEnvironment) -> None:
        self.sessions.discard(env)
        env.close()

    def _capacity_error(self) -> dict[str, Any]:
        return _error("CAPACITY_REACHED", f"Server at capacity: {len(self.sessions)}/{self.max_sessions} sessions "
                      "active", active_sessions=len(self.sessions), max_sessions=self.max_sessions)

    async def _connection(self, receive: Receive, send: Send) -> None:
        if (await receive()).get("type") != "websocket.connect":
            return
        await send({"type": "websocket.accept", "headers": [(WORKER_HEADER.encode(), str(os.getpid()).encode())]})
        env = self._open()
        if env is None:
            await send({"type": "websocket.send", "text": dumps(self._capacity_error())})
            await send({"type": "websocket.close", "code": 1000})
            return
        batched: dict[Any, VehicleMemEnvironment] = {}
        try:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return  # websocket.disconnect: nothing more to send
                raw = message.get("text")
                reply = await self._answer(env, batched, raw if raw is not None else message.get("bytes") or b"")
                if reply is None:
                    break
                await send({"type": "websocket.send", "text": dumps(reply)})
            await send({"type": "websocket.close", "code": 1000})
        finally:
            for session in (env, *batched.values()):
                self._close(session)

    async def _answer(self, env: VehicleMemEnvironment, batched: dict[Any, VehicleMemEnvironment],
                      raw: str | bytes) -> dict[str, Any] | None:
        """The reply to one frame (None: the client closed the session)."""
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            return _error("INVALID_JSON", f"Invalid JSON: {e}")
        if not isinstance(message, dict):
            return _invalid([], f"a message is a JSON object, got {type(message).__name__}")
        if message.get("type") != "batch":
            return await self._reply(env, message, _ENVELOPE_KEYS)
        items = message.get("data", {}).get("messages") if isinstance(message.get("data"), dict) else None
        if message.keys() - _ENVELOPE_KEYS or not isinstance(items, list):
            return _invalid(["data", "messages"], "a batch is {'type': 'batch', 'data': {'messages': [...]}}")
        return {"type": "batch", "data": {"replies": [await self._batched(batched, item) for item in items]}}

    async def _batched(self, batched: dict[Any, VehicleMemEnvironment], item: Any) -> dict[str, Any]:
        """The reply to one item of a batch (its session opened on first use)."""
        key = item.get("session") if isinstance(item, dict) else None
        if not isinstance(key, (str, int)) or isinstance(key, bool) or item.get("type") == "batch":
            return _invalid(["session"], "a batch item is a message (not a batch) with a 'session' key "
                            "(a string or an int)")
        env = batched.get(key)
        if item.get("type") == "close":
            if env is not None:
                self._close(batched.pop(key))
            return {"type": "closed", "session": key}
        if env is None:
            env = self._open()
            if env is None:
                return {**self._capacity_error(), "session": key}
            batched[key] = env
        reply = await self._reply(env, item, _ITEM_KEYS)
        if reply is None:
            return {"type": "closed", "session": key}
        reply["session"] = key  # every reply is a fresh dict
        return reply

    async def _reply(self, env: VehicleMemEnvironment, message: dict[str, Any],
                     keys: frozenset[str]) -> dict[str, Any] | None:
        """The reply to one OpenEnv message on ``env`` (None: ``close``)."""
        kind = message.get("type", "")
        data = message.get("data", {})
        if not message.keys() <= keys or not isinstance(data, dict) or (kind == "step" and "data" not in message):
            return _invalid(sorted(message.keys() - keys) or ["data"],
                            "a message has 'type' and 'data' (an object; a step's action) and nothing else")
        try:
            if kind == "step":
                call, searches = env_call(data)
                fields = await env.step_call_async(call, searches=searches)
            elif kind == "reset":
                fields = await env.reset_fields_async(**data)
            elif kind == "state":
                return {"type": "state", "data": env.state.model_dump()}
            elif kind == "get_state":
                return {"type": "env_state", "data": env.get_env_state(bool(data.get("include_state", True)))}
            elif kind == "set_state":
                return {"type": "state", "data": await env.set_env_state_async(data.get("state"), data.get("state_id"))}
            elif kind == "close":
                return None
            elif kind == "mcp":
                handler = self.mcp_handler
                reply = await handler(env, data) if handler else _mcp_unserved(data, self.mcp_missing)
                return {"type": "mcp", "data": reply}
            else:
                return _error("UNKNOWN_TYPE", f"Unknown message type: {kind}")
        except ValidationError as e:
            return _error("VALIDATION_ERROR", "Invalid message", errors=e.errors(include_url=False))
        except Exception as e:  # noqa: BLE001  (the env refused the request: unknown task, expired session, ...)
            return _error("EXECUTION_ERROR", str(e))
        return {"type": "observation", "data": observation_payload(fields)}
