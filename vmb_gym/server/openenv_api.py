"""Every name ``vmb serve`` takes from OpenEnv, imported in this one place.

The ``server`` extra installs ``openenv`` (0.10 or later; its import package is ``openenv``); the
older ``openenv-core`` distribution (0.3) installs the same import package with the same module paths,
and works too. Where the two differ (the client's connect hook) :data:`CLIENT_CONNECT_HOOK` names
the method the installed one calls.
"""

from __future__ import annotations

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.serialization import serialize_observation
from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation, State

__all__ = ["CLIENT_CONNECT_HOOK", "Action", "ConcurrencyConfig", "EnvClient", "Environment", "EnvironmentMetadata",
           "Observation", "State", "StepResult", "create_fastapi_app", "openenv_version", "serialize_observation"]

#: The ``EnvClient`` coroutine that opens the WebSocket: ``_connect_async`` (openenv 0.10, whose
#: ``connect()`` dispatches to it for sync and async callers alike) or ``connect`` (openenv-core 0.3).
CLIENT_CONNECT_HOOK = "_connect_async" if hasattr(EnvClient, "_connect_async") else "connect"


def openenv_version() -> str:
    """The installed OpenEnv distribution and version, e.g. ``openenv 0.10.0``."""
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("openenv", "openenv-core"):
        try:
            return f"{dist} {version(dist)}"
        except PackageNotFoundError:
            continue
    return "openenv (version unknown)"
