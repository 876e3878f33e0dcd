"""``vmb serve``'s app: OpenEnv's ``create_app`` over :class:`VehicleMemEnvironment`, behind the guard.

OpenEnv gives the routes ``GET /health``, ``GET /schema``, ``GET /metadata`` and the stateless
``POST /reset`` / ``POST /step`` (a fresh env per request, so ``POST /step`` never has an episode:
it is answered ``409`` with a JSON ``detail`` pointing to ``/ws`` and ``/mcp``; a request the env
refuses, such as an unknown ``task_id``, gets ``400``; see :func:`add_http_error_handlers`); ``WS /ws`` (one session per
connection: ``reset`` / ``step`` / ``state`` / ``close`` messages, each answered by an
observation, a state or an error message) is OpenEnv's protocol served by
:class:`~vmb_gym.server.ws_sessions.SessionEndpoint`, a lean hot path. Sessions are capped
(``max_sessions``; one more is answered with a ``CAPACITY_REACHED`` error) and idle ones closed
(``session_timeout``).

Example::

    from vmb_gym.server.app import ServeConfig, serve
    serve(ServeConfig(port=8000, data=("default",), memory=("bm25",)))
"""

from __future__ import annotations

import gc
import importlib.util
import logging
import os
from dataclasses import dataclass
from typing import Any

from vmb_gym.errors import ConfigError

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "SERVER_MODULES", "STATELESS_HTTP", "TOKEN_ENV", "ServeConfig",
           "add_http_error_handlers", "create_vmb_app",
           "freeze_startup_heap", "mcp_unavailable", "require_server_extra", "serve"]

#: Environment variable read for the bearer token when ``--token`` is not given.
TOKEN_ENV = "VMB_SERVE_TOKEN"
#: Default cap on one HTTP body or WebSocket message (1 MiB).
DEFAULT_MAX_REQUEST_BYTES = 1 << 20
#: The modules of the ``server`` extra that the server imports.
SERVER_MODULES = ("openenv", "fastapi", "uvicorn")
#: Error code (HTTP body ``code``) of a ``POST /step`` on OpenEnv's stateless HTTP routes.
STATELESS_HTTP = "STATELESS_HTTP"

_log = logging.getLogger(__name__)


def require_server_extra() -> None:
    """Check that the ``server`` extra is installed.

    Raises:
        ConfigError: one of :data:`SERVER_MODULES` is missing (the message names the fix).
    """
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError(f"the server extra is not installed (missing: {', '.join(missing)}); "
                          "fix: pip install 'vmb_gym[server]'")


def mcp_unavailable() -> str | None:
    """Why ``/mcp`` cannot be served here (None: it can): it needs the ``mcp`` SDK 2.x."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = int(version("mcp").split(".")[0])
    except (PackageNotFoundError, ValueError):
        major = 0
    if major < 2 or importlib.util.find_spec("mcp_types") is None:
        return ("the MCP endpoint (/mcp) needs the mcp SDK 2.x; fix: pip install 'mcp>=2' 'fastmcp>=4' "
                "(after the server extra: openenv 0.10 declares fastmcp<4 but runs with it)")
    return None


@dataclass(frozen=True)
class ServeConfig:
    """Everything ``vmb serve`` needs.

    Attributes:
        host: the address to bind (loopback unless said otherwise).
        port: the TCP port.
        env_id: ``VehicleMem-v0`` or ``VehicleMemStream-v0``.
        data: data specs sessions may use (the first is the default).
        memory: memory modules (stream env: stores) sessions may use (the first is the default).
        token: bearer token every request must carry (None: none needed).
        max_sessions: most concurrent WebSocket sessions.
        session_timeout: seconds after which an idle session is closed (None: never).
        max_request_bytes: largest HTTP body or WebSocket message accepted.
        warm: envs built at start-up, ahead of the first sessions.
        workers: server processes (each with its own envs and sessions; the cap is per process).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    env_id: str = "VehicleMem-v0"
    data: tuple[str, ...] = ("default",)
    memory: tuple[str, ...] = ("bm25",)
    token: str | None = None
    max_sessions: int = 64
    session_timeout: float | None = 600.0
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    warm: int = 1
    workers: int = 1

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {self.workers}")
        if self.max_sessions < 1:
            raise ConfigError(f"--max-sessions must be at least 1, got {self.max_sessions}")
        if self.session_timeout is not None and self.session_timeout <= 0:
            raise ConfigError(f"--session-timeout must be positive seconds, got {self.session_timeout}")
        if self.max_request_bytes < 1024:
            raise ConfigError(f"--max-request-bytes must be at least 1024, got {self.max_request_bytes}")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"--port must be 0-65535, got {self.port}")

    @classmethod
    def with_env_token(cls, **kwargs: Any) -> ServeConfig:
        """A config whose token, when not given, comes from ``$VMB_SERVE_TOKEN``."""
        if kwargs.get("token") is None:
            kwargs["token"] = os.environ.get(TOKEN_ENV) or None
        return cls(**kwargs)


def create_vmb_app(config: ServeConfig) -> Any:
    """The ASGI app: OpenEnv's FastAPI app for the env, wrapped by :class:`GuardMiddleware`.

    Raises:
        ConfigError: the ``server`` extra is missing; an unknown env id; a data spec or memory module that
            does not load.
    """
    require_server_extra()

    from vmb_gym.scoring.scorer import warm_gold_references
    from vmb_gym.server.environment import EnvPool, VehicleMemEnvironment
    from vmb_gym.server.guard import GuardMiddleware
    from vmb_gym.server.models import VmbAction, VmbObservation
    from vmb_gym.server.openenv_api import ConcurrencyConfig, create_fastapi_app
    from vmb_gym.server.ws_sessions import SessionEndpoint

    pool = EnvPool(config.env_id, config.data, config.memory)
    for data in config.data:  # fail at start-up, not in the first session
        for memory in config.memory:
            pool.warm(config.warm if (data, memory) == (config.data[0], config.memory[0]) else 1,
                      pool.key(data, memory))

    for data in config.data:  # each task's first score executes its gold: pay it before the first session
        key = pool.key(data, config.memory[0])
        env = pool.acquire(key)
        warm_gold_references(env.tasks.queries)  # type: ignore[attr-defined]
        pool.release(key, env)
    warm_up = VehicleMemEnvironment(pool)  # the scorer's first use is slow: pay it before the first session
    warm_up.reset()
    warm_up.step(VmbAction(name="finish"))
    warm_up.close()

    def factory() -> VehicleMemEnvironment:
        return VehicleMemEnvironment(pool, session_timeout=config.session_timeout)

    concurrency = ConcurrencyConfig(max_concurrent_envs=config.max_sessions, session_timeout=config.session_timeout)
    app = create_fastapi_app(factory, VmbAction, VmbObservation, concurrency_config=concurrency)
    add_http_error_handlers(app)
    missing = mcp_unavailable()
    if missing is None:  # /mcp and /ws mcp messages: the env's tools over MCP, one session one episode
        from vmb_gym.server.mcp_tools import McpEndpoint, ws_message

        sessions = SessionEndpoint(app, factory, max_sessions=config.max_sessions, mcp_handler=ws_message)
        served: Any = McpEndpoint(sessions, sessions, session_timeout=config.session_timeout)
    else:
        sessions = SessionEndpoint(app, factory, max_sessions=config.max_sessions, mcp_missing=missing)
        served = sessions  # /ws on the lean path
    guarded = GuardMiddleware(served, token=config.token, max_request_bytes=config.max_request_bytes)
    guarded.pool = pool  # type: ignore[attr-defined]  # tests and the load test read it
    return guarded


def add_http_error_handlers(app: Any) -> None:
    """Answer what the env refuses on OpenEnv's HTTP routes with a JSON error instead of a bare ``500``.

    Each HTTP request runs on a fresh env that is closed when it is answered, so ``POST /step`` has no
    episode (:class:`~vmb_gym.server.environment.NoEpisode`), even right after ``POST /reset``: it is
    answered ``409`` (code :data:`STATELESS_HTTP`) naming the stateful transports, ``/ws`` and ``/mcp``.
    A request argument the env refuses (:class:`~vmb_gym.errors.ConfigError`: an unknown ``task_id``,
    data or memory not served, an unknown reset argument) is answered ``400`` with the env's message.
    Each is logged on one line (no traceback).
    """
    from fastapi import Request
    from fastapi.responses import JSONResponse

    from vmb_gym.server.environment import NoEpisode

    async def no_episode(request: Request, exc: Exception) -> JSONResponse:
        path = request.url.path
        _log.info("HTTP %s %s: 409 (stateless HTTP routes keep no episode)", request.method, path)
        return JSONResponse(status_code=409, content={
            "detail": f"no episode: {request.method} {path} runs on a fresh env, since OpenEnv's HTTP routes "
                      "(POST /reset, POST /step, GET /state) are stateless and keep no episode between "
                      "requests (a POST /reset is not seen by the next POST /step); run episodes over a "
                      "WebSocket session at /ws (VmbEnvClient, or reset then step messages) or over MCP at "
                      "/mcp (start_episode, then the tools)",
            "code": STATELESS_HTTP})

    async def bad_request(request: Request, exc: Exception) -> JSONResponse:
        _log.info("HTTP %s %s: 400 (%s)", request.method, request.url.path, exc)
        return JSONResponse(status_code=400, content={"detail": str(exc), "code": "BAD_REQUEST"})

    app.add_exception_handler(NoEpisode, no_episode)
    app.add_exception_handler(ConfigError, bad_request)


def freeze_startup_heap() -> None:
    """Move everything alive now out of the garbage collector's reach (a server process, after start-up).

    What start-up built (the data, the warm envs, their indexes) lives as long as the server; frozen,
    each collection walks only what the sessions allocated since, not the whole heap.
    """
    gc.collect()
    gc.freeze()


def serve(config: ServeConfig) -> None:
    """Run the server in the foreground until interrupted.

    With ``workers > 1`` uvicorn runs that many processes on the one port, each building the app
    from ``VMB_SERVE_*`` variables (:mod:`vmb_gym.server.asgi`), which this sets from ``config``;
    a WebSocket session lives in the process that accepted it.

    Raises:
        ConfigError: the ``server`` extra is missing (and what :func:`create_vmb_app` refuses).
    """
    require_server_extra()
    import uvicorn

    # WebSocket frames up to 4x the cap reach the guard (which answers them with an error);
    # larger ones are refused by the protocol layer (close code 1009).
    common: dict[str, Any] = {"host": config.host, "port": config.port, "log_level": "warning",
              "ws_max_size": 4 * config.max_request_bytes}
    if config.workers == 1:
        app = create_vmb_app(config)
        freeze_startup_heap()
        uvicorn.run(app, **common)
        return
    os.environ.update({"VMB_SERVE_ENV": config.env_id, "VMB_SERVE_DATA": ",".join(config.data),
                       "VMB_SERVE_MEMORY": ",".join(config.memory), "VMB_SERVE_MAX_SESSIONS": str(config.max_sessions),
                       "VMB_SERVE_SESSION_TIMEOUT": str(config.session_timeout or 0),
                       "VMB_SERVE_MAX_REQUEST_BYTES": str(config.max_request_bytes),
                       "VMB_SERVE_WARM": str(config.warm)})
    if config.token:
        os.environ["VMB_SERVE_TOKEN"] = config.token
    uvicorn.run("vmb_gym.server.asgi:app", workers=config.workers, **common)
