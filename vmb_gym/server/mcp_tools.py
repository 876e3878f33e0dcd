"""The env's tools over MCP (streamable HTTP), as OpenEnv's production mode serves an env's tools.

:class:`McpEndpoint` answers ``/mcp`` of the ``vmb serve`` app with the official ``mcp`` SDK (2.x):
its low-level ``Server`` and ``StreamableHTTPSessionManager``. Everything else goes to the wrapped
app (``/ws`` sessions, OpenEnv's routes); the guard in front (bearer token, request size) covers
``/mcp`` as it covers the rest.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping
from typing import Any

import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

import vmb_gym
from vmb_gym.errors import VmbError
from vmb_gym.server.environment import VehicleMemEnvironment, json_safe
from vmb_gym.server.guard import ASGIApp, Message, Receive, Scope, Send, json_response, rpc_error
from vmb_gym.server.ws_sessions import SessionEndpoint
from vmb_gym.vehicle.schema import FINISH, LIST_MODULE_TOOLS, SEARCH_MEMORY, all_vehicle_schemas

__all__ = ["EPISODE_TOOLS", "MCP_PATH", "McpEndpoint", "episode_tools", "run_tool", "ws_message"]

#: Where the MCP endpoint is mounted.
MCP_PATH = "/mcp"
#: The tools that drive the episode rather than the car (OpenEnv reserves reset/step/state/close).
EPISODE_TOOLS = ("start_episode", "get_reward")
_SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"

_START_EPISODE = types.Tool(
    name="start_episode",
    description="Start an episode on this session's own car: task_id picks the request (e.g. '1_0'); without it "
                "the next task of the session's task cycle (seeded by seed, 0 by default) is played. Returns the "
                "first observation (the household, the request, the rules). Call it again for the next episode.",
    input_schema={"type": "object", "properties": {
        "task_id": {"type": "string", "description": "the task (request) id, e.g. '1_0'"},
        "seed": {"type": "integer", "description": "seeds the session's task cycle"},
        "data": {"type": "string", "description": "a data spec the server serves (default: its first)"},
        "memory": {"type": "string", "description": "a memory module the server serves (default: its first)"}}},
)
_GET_REWARD = types.Tool(
    name="get_reward",
    description="The episode's state: task_id, step, done and, once finish was called (or the step limit reached), "
                "the reward with its metrics and reward components.",
    input_schema={"type": "object", "properties": {}},
)


def _mcp_tool(schema: Mapping[str, Any]) -> types.Tool:
    fn = schema["function"]
    return types.Tool(name=str(fn["name"]), description=str(fn.get("description") or fn["name"]),
                      input_schema=dict(fn.get("parameters") or {"type": "object", "properties": {}}))


def episode_tools() -> list[types.Tool]:
    """Every tool of an MCP session: ``start_episode``, ``list_module_tools``, ``search_memory``, the 111
    vehicle functions (schemas from the simulator's code), ``finish`` and ``get_reward``."""
    return list(_tools())


@functools.cache
def _tools() -> tuple[types.Tool, ...]:
    env_tools = [LIST_MODULE_TOOLS, SEARCH_MEMORY, *all_vehicle_schemas("official"), FINISH]
    return (_START_EPISODE, *(_mcp_tool(s) for s in env_tools), _GET_REWARD)


def _result(text: str, structured: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=structured, is_error=error)


def _tool_error(message: str) -> types.CallToolResult:
    return _result(message, {"error": message}, error=True)


def _failed(info: Mapping[str, Any]) -> bool:
    """Whether the env reported the step's call as failed (unknown tool, bad arguments, refused)."""
    if info.get("action_error"):
        return True
    calls = info.get("calls") or []
    return any(isinstance(c, Mapping) and isinstance(c.get("result"), Mapping) and c["result"].get("success") is False
               for c in calls)


class McpEndpoint:
    """``/mcp``: one MCP session is one episode on its own car; every other request goes to ``app``.

    A client opens a session (``initialize``), lists the tools (``tools/list``: :func:`episode_tools`) and
    picks its task with the ``start_episode(task_id=None, seed=None, data=None, memory=None)`` tool: the
    first observation comes back. Then it calls the env's tools by name (``list_module_tools``,
    ``search_memory``, the ``carcontrol_*`` functions), each answered with the env's observation for that call
    (text, and ``structured_content`` with ``observation``, ``reward``, ``done``, ``step``, ``task_id``); a
    call the env refuses (unknown tool, malformed or wrong arguments) is a tool error (``is_error``), the
    episode goes on. ``finish`` scores the episode: its result carries the reward (plus ``metrics`` and
    ``reward_components``); ``get_reward`` reads it again at any time. ``start_episode`` again starts the
    next episode on the same session.

    Each MCP session holds a :class:`~vmb_gym.server.environment.VehicleMemEnvironment` of its own (own env,
    car, task cycle and memory view), counted with the ``/ws`` sessions against ``max_sessions`` (one more is
    answered ``503`` with the count), closed by the client's ``DELETE`` or after ``session_timeout`` seconds
    idle; the guard's token and request-size cap apply to ``/mcp`` as to every path. Only the session-based
    (handshake) protocol versions are served: a request of a sessionless protocol version is answered ``400``.

    A POST to ``/mcp`` that is not MCP's ``initialize`` (and carries no MCP session id) is OpenEnv's own
    JSON-RPC over HTTP, which its production-mode ``MCPToolClient`` speaks: ``tools/list``,
    ``openenv/session/create`` (an episode on its own env, counted and idle-expired like the others),
    ``tools/call`` with ``params.session_id``, ``openenv/session/close``; each answered ``200`` with a
    JSON-RPC result or error. The same tools answer OpenEnv's ``mcp`` message on a ``/ws`` session
    (:func:`ws_message`: ``tools/list`` and ``tools/call`` as JSON-RPC, on that WebSocket session's env).

    Args:
        app: the app for every other path (the ``/ws`` endpoint).
        sessions: the ``/ws`` endpoint whose session set and cap MCP sessions share.
        session_timeout: seconds of idleness after which an MCP session is closed (None: never).
    """

    def __init__(self, app: ASGIApp, sessions: SessionEndpoint, *, session_timeout: float | None) -> None:
        self.app = app
        self.sessions = sessions
        self.timeout = session_timeout
        self.episodes: dict[str, VehicleMemEnvironment] = {}
        self.tools = episode_tools()
        self.server: Server[Any] = Server("vmb_gym", version=vmb_gym.__version__, on_list_tools=self._list_tools,
                                          on_call_tool=self._call_tool,
                                          instructions="One session is one episode of VehicleMemBench: call "
                                                       "start_episode(task_id=...) first, then the env's tools, then "
                                                       "finish; its result (and get_reward) gives the reward.")
        # replies as plain JSON, not an SSE stream per request: a tool call costs 12 ms instead of 27 ms on loopback
        self.manager = StreamableHTTPSessionManager(self.server, json_response=True,
                                                    session_idle_timeout=session_timeout)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the MCP session manager for the app's lifetime; answer ``/mcp``; pass the rest on."""
        kind = scope.get("type")
        if kind == "lifespan":
            async with self.manager.run():
                await self.app(scope, receive, send)
        elif kind == "http" and scope.get("path", "").rstrip("/") == MCP_PATH:
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # ------------------------------------------------------------------ HTTP: sessions and their slots
    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        version = headers.get(_VERSION_HEADER)
        if version is not None and version.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS:
            asked = version.decode("latin-1")
            await json_response(send, 400, rpc_error(f"MCP protocol version {asked!r} has no sessions; this server's "
                                                     "episodes are MCP sessions: use one of "
                                                     f"{list(HANDSHAKE_PROTOCOL_VERSIONS)} (ClientSession.initialize)"))
            return
        session_id = headers.get(_SESSION_HEADER)
        if session_id is not None:
            sid = session_id.decode("latin-1")
            env = self.episodes.get(sid)
            if env is None or env.expire_if_idle():
                self._end(sid)
                await json_response(send, 404, rpc_error(
                    f"MCP session {sid[:64]!r} is closed (ended, or idle longer than the server's session timeout "
                    f"of {self.timeout} s): open a new session (with vmb serve --workers N, a session lives in one "
                    "process and its requests must all reach it: serve MCP clients with --workers 1)", code=-32600))
                return
        if session_id is not None or scope.get("method") != "POST":
            await self.manager.handle_request(scope, receive, send)
            if session_id is not None and scope.get("method") == "DELETE":
                self._end(session_id.decode("latin-1"))
            return
        body, replay = await _buffered(receive)
        request = _json_object(body)
        if request is None or request.get("method") == "initialize":  # the MCP protocol (or not JSON-RPC at all)
            await self._new_session(scope, replay, send)
        else:  # OpenEnv's JSON-RPC over HTTP /mcp (its production mode's client, `openenv validate`)
            await json_response(send, 200, await self._openenv_rpc(request))

    async def _openenv_rpc(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """OpenEnv's own HTTP ``/mcp`` methods: ``tools/list``; ``openenv/session/create`` (a session of its
        own, counted against the cap), ``tools/call`` with ``params.session_id`` on it, and
        ``openenv/session/close``."""
        method, rid = request.get("method"), request.get("id")
        given = request.get("params")
        params: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        if method == "tools/list":
            return {"jsonrpc": "2.0", "id": rid, "result": {"tools": list(_ws_tools())}}
        if method == "openenv/session/create":
            self._sweep()
            env = self.sessions.open_session()
            if env is None:
                return {**rpc_error(self.sessions.capacity_error()["data"]["message"]), "id": rid}
            sid = f"openenv-{uuid.uuid4().hex}"
            self.episodes[sid] = env
            return {"jsonrpc": "2.0", "id": rid, "result": {"session_id": sid}}
        sid = str(params.get("session_id") or "")
        if method == "openenv/session/close":
            self._end(sid)
            return {"jsonrpc": "2.0", "id": rid, "result": {"session_id": sid, "closed": True}}
        if method == "tools/call":
            env = self.episodes.get(sid) if sid.startswith("openenv-") else None
            if env is None or env.expire_if_idle():
                self._end(sid)
                return {**rpc_error(f"tools/call needs a live params.session_id (from openenv/session/create), got "
                                    f"{sid[:64]!r}: it is unknown, closed or was idle past the server's session "
                                    "timeout", code=-32602), "id": rid}
            return await ws_message(env, {"method": "tools/call", "params": params, "id": rid})
        return {**rpc_error(f"{method!r} is not a method of this endpoint: it speaks MCP over streamable HTTP "
                            "(initialize first) and OpenEnv's JSON-RPC (tools/list, openenv/session/create, "
                            "tools/call with session_id, openenv/session/close)", code=-32600), "id": rid}

    async def _new_session(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A POST without a session id (``initialize``): reserve a session slot, keep it under the new id."""
        self._sweep()
        env = self.sessions.open_session()
        if env is None:
            error = self.sessions.capacity_error()["data"]
            await json_response(send, 503, rpc_error(error["message"]))
            return
        kept = False

        async def capture(message: Message) -> None:
            nonlocal kept
            if message.get("type") == "http.response.start" and message.get("status") == 200:
                found = dict(message.get("headers") or []).get(_SESSION_HEADER)
                if found:  # kept before the client can use the id in its next request
                    self.episodes[found.decode("latin-1")] = env
                    kept = True
            await send(message)

        try:
            await self.manager.handle_request(scope, receive, capture)
        finally:
            if not kept:
                self.sessions.close_session(env)

    def _end(self, session_id: str) -> None:
        env = self.episodes.pop(session_id, None)
        if env is not None:
            self.sessions.close_session(env)

    def _sweep(self) -> None:
        """Drop the sessions whose env is gone (expired by the cap's sweep) or idle past the timeout."""
        live = self.sessions.sessions
        for session_id, env in list(self.episodes.items()):
            if env not in live or env.expire_if_idle():
                self._end(session_id)

    # ------------------------------------------------------------------ MCP handlers
    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        env = self.episodes.get(_session_id(ctx) or "")
        if env is None:
            return _tool_error("no episode for this MCP session (it was closed or idle past the server's session "
                               "timeout): open a new session")
        return await run_tool(env, params.name, dict(params.arguments or {}))


async def run_tool(env: VehicleMemEnvironment, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One tool call on a session's env: the tool's result, or a tool error (never raises)."""
    try:
        if name == "start_episode":
            return await _start(env, arguments)
        if name == "get_reward":
            return _reward(env)
        fields = await env.step_call_async({"name": name, "arguments": arguments}, searches=name == "search_memory")
    except VmbError as e:
        message = str(e)
        if "send reset before step" in message:
            message = "no episode: call start_episode(task_id=...) first"
        return _tool_error(message)
    except Exception as e:  # noqa: BLE001  (whatever a call raises is its error, never the server's end)
        return _tool_error(f"{name} failed: {type(e).__name__}: {e}")
    return _step_result(fields, unknown=name not in _tool_names())


async def ws_message(env: VehicleMemEnvironment, data: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-RPC reply to a ``/ws`` ``mcp`` message (``tools/list``, ``tools/call``) on that session's env."""
    method, params, rid = data.get("method"), data.get("params") or {}, data.get("id")
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"tools": list(_ws_tools())}}
    if method == "tools/call" and isinstance(params, Mapping) and isinstance(params.get("name"), str) \
            and isinstance(params.get("arguments") or {}, Mapping):
        result = await run_tool(env, params["name"], dict(params.get("arguments") or {}))
        return {"jsonrpc": "2.0", "id": rid, "result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
    if method == "tools/call":
        message = "tools/call params are {'name': str, 'arguments': {...}}"
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": message, "data": None}}
    message = f"method {method!r} is not served on /ws: tools/list and tools/call are (the full MCP protocol: /mcp)"
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": message, "data": None}}


async def _start(env: VehicleMemEnvironment, arguments: dict[str, Any]) -> types.CallToolResult:
    expected = {"task_id": str, "seed": int, "data": str, "memory": str}
    for key, value in arguments.items():
        kind = expected.get(key)
        if kind is None:
            return _tool_error(f"start_episode got unknown argument {key!r}; it takes {sorted(expected)}")
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            return _tool_error(f"start_episode: {key} must be a {kind.__name__} or null, got {value!r}")
    fields = await env.reset_fields_async(**arguments)
    return _result(fields["text"], {"observation": fields["text"], "task_id": fields["task_id"], "step": 0,
                                    "done": False})


def _reward(env: VehicleMemEnvironment) -> types.CallToolResult:
    state = env.state
    structured = {"task_id": state.task_id, "step": state.step_count, "done": state.done, "reward": state.reward}
    if state.reward is None:
        text = "no finished episode yet: call finish to score the episode"
    else:
        text = f"reward {state.reward} (task {state.task_id}, {state.step_count} steps)"
    return _result(text, structured)


def _step_result(fields: dict[str, Any], *, unknown: bool) -> types.CallToolResult:
    info = fields["info"]
    structured: dict[str, Any] = {"observation": fields["text"], "reward": fields["reward"],
                                  "done": fields["done"], "truncated": fields["truncated"],
                                  "step": fields["step"], "task_id": fields["task_id"]}
    if fields["done"]:
        structured.update(json_safe({k: info[k] for k in ("metrics", "reward_components") if k in info}))
    return _result(fields["text"], structured, error=unknown or _failed(info))


@functools.cache
def _tool_names() -> frozenset[str]:
    return frozenset(t.name for t in _tools())


@functools.cache
def _ws_tools() -> tuple[dict[str, Any], ...]:
    return tuple(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in _tools())


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """An HTTP request's whole body, and a ``receive`` that hands it over again (then the original's events)."""
    chunks = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return body, replay


def _json_object(body: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, else None (not JSON, or a batch)."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _session_id(ctx: Any) -> str | None:
    """The MCP session id of a request's context (the HTTP request's header)."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    if headers is not None:
        found = headers.get("mcp-session-id")
        if found:
            return str(found)
    connection = getattr(getattr(ctx, "session", None), "_connection", None)
    found = getattr(connection, "session_id", None)
    return str(found) if found else None
