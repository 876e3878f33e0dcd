"""Optional third-party memories (``mem0``, ``hymemory``): imported lazily.

Neither package is a dependency of vmb_gym. Without it, making the module raises a
:class:`~vmb_gym.errors.ConfigError` that names the pip extra to install.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from vmb_gym.errors import ConfigError


def _require(module: str, dist: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(
            f"memory {extra!r} needs the package {dist!r}, which is not installed; "
            f"install it with: pip install 'vmb_gym[{extra}]' (or pip install {dist})"
        )


class Mem0Memory:
    """Adapter slot for Mem0 OSS (``pip install mem0ai``); not yet implemented beyond the check."""

    name = "mem0"

    def __init__(self, **kwargs: Any) -> None:
        _require("mem0", "mem0ai", "mem0")
        raise ConfigError("the mem0 adapter is not implemented in this release; use bm25, dense, hybrid or layered")


class HyMemoryMemory:
    """Adapter slot for Hy-Memory lite (``pip install hy-memory``); not yet implemented beyond the check."""

    name = "hymemory"

    def __init__(self, **kwargs: Any) -> None:
        _require("hy_memory", "hy-memory", "hymemory")
        raise ConfigError("the hymemory adapter is not implemented in this release; use layered instead")
