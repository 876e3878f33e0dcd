"""The ASGI app of ``vmb serve`` as a module attribute, for ``uvicorn vmb_gym.server.asgi:app`` and ``openenv.yaml``.

Importing this module builds the app (and its first envs) from environment variables:
``VMB_SERVE_ENV`` (default ``VehicleMem-v0``), ``VMB_SERVE_DATA`` (``default``),
``VMB_SERVE_MEMORY`` (``bm25``), ``VMB_SERVE_TOKEN`` (none), ``VMB_SERVE_MAX_SESSIONS`` (64),
``VMB_SERVE_SESSION_TIMEOUT`` (600 s, 0: never), ``VMB_SERVE_MAX_REQUEST_BYTES`` (1 MiB),
``VMB_SERVE_WARM`` (1 env built at start-up).
Data and memory take comma-separated lists, as ``vmb serve`` does.
"""

from __future__ import annotations

import os

from vmb_gym.server.app import DEFAULT_MAX_REQUEST_BYTES, ServeConfig, create_vmb_app, freeze_startup_heap

__all__ = ["app", "config_from_environ"]


def config_from_environ() -> ServeConfig:
    """The :class:`ServeConfig` the ``VMB_SERVE_*`` variables describe."""
    get = os.environ.get
    timeout = float(get("VMB_SERVE_SESSION_TIMEOUT", "600"))
    return ServeConfig.with_env_token(
        env_id=get("VMB_SERVE_ENV", "VehicleMem-v0"),
        data=tuple(d.strip() for d in get("VMB_SERVE_DATA", "default").split(",") if d.strip()),
        memory=tuple(m.strip() for m in get("VMB_SERVE_MEMORY", "bm25").split(",") if m.strip()),
        max_sessions=int(get("VMB_SERVE_MAX_SESSIONS", "64")),
        session_timeout=timeout or None,
        max_request_bytes=int(get("VMB_SERVE_MAX_REQUEST_BYTES", str(DEFAULT_MAX_REQUEST_BYTES))),
        warm=int(get("VMB_SERVE_WARM", "1")),
    )


app = create_vmb_app(config_from_environ())
freeze_startup_heap()  # this module is a server process's start-up
