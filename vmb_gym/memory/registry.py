"""Memory modules by name: built-ins plus the ``vmb_gym.memory`` entry-point group.

A third-party package adds a module with, in its ``pyproject.toml``::

    [project.entry-points."vmb_gym.memory"]
    mymem = "my_pkg.memory:make_mymem"   # a callable(**kwargs) -> MemoryModule (a class works)
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from vmb_gym.errors import UnknownMemoryError
from vmb_gym.memory.base import MemoryModule

log = logging.getLogger(__name__)

#: Entry-point group scanned for third-party modules.
ENTRY_POINT_GROUP = "vmb_gym.memory"

MemoryFactory = Callable[..., MemoryModule]

_REGISTRY: dict[str, MemoryFactory] = {}
#: Built-in name -> "module:attribute", imported on first use (keeps `import vmb_gym` light).
_BUILTIN: dict[str, str] = {
    "none": "vmb_gym.memory.simple:NoMemory",
    "gold": "vmb_gym.memory.simple:GoldMemory",
    "full_history": "vmb_gym.memory.simple:FullHistoryMemory",
    "bm25": "vmb_gym.memory.retrieval:BM25Memory",
    "dense": "vmb_gym.memory.retrieval:DenseMemory",
    "hybrid": "vmb_gym.memory.retrieval:HybridMemory",
    "layered": "vmb_gym.memory.layered:LayeredMemory",
    "summary": "vmb_gym.memory.summary:SummaryMemory",
    "key_value": "vmb_gym.memory.key_value:KeyValueMemory",
    "mem0": "vmb_gym.memory.thirdparty:Mem0Memory",
    "hymemory": "vmb_gym.memory.hymemory:HyMemoryMemory",
}
#: Built-ins with named variants ``NAME:SPEC``: name -> "module:function" turning SPEC into kwargs
#: (``layered:facts+changes`` is the layered memory with ``layers=("facts", "changes")``).
_VARIANTS: dict[str, str] = {"layered": "vmb_gym.memory.trilink:parse_variant"}
_entry_points_loaded = False


def register_memory(name: str, factory: MemoryFactory, *, replace: bool = False) -> None:
    """Register ``factory`` (a class or a callable returning a module) under ``name``.

    Raises:
        ValueError: when ``name`` is taken and ``replace`` is false.
    """
    if not replace and (name in _REGISTRY or name in _BUILTIN):
        raise ValueError(f"memory {name!r} is already registered; pass replace=True to override it")
    _BUILTIN.pop(name, None)
    _REGISTRY[name] = factory


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _REGISTRY or ep.name in _BUILTIN:
            log.warning("entry point %s=%s ignored: the name is already registered", ep.name, ep.value)
            continue
        _REGISTRY[ep.name] = _LazyEntryPoint(ep)


class _LazyEntryPoint:
    """Imports an entry point's target when the module is first made."""

    def __init__(self, ep: Any) -> None:
        self.ep = ep

    def __call__(self, **kwargs: Any) -> MemoryModule:
        return self.ep.load()(**kwargs)


def list_memories() -> list[str]:
    """Every registered name (built-ins and entry points), sorted."""
    _load_entry_points()
    return sorted(set(_REGISTRY) | set(_BUILTIN))


def make_memory(name: str, **kwargs: Any) -> MemoryModule:
    """Build the memory module called ``name`` with ``kwargs``.

    ``NAME:SPEC`` builds a variant of a built-in that has them: ``layered:facts+changes`` is
    ``make_memory("layered", layers=("facts", "changes"))`` (any non-empty ``+``-joined subset of
    ``facts``, ``experiences``, ``changes``).

    Raises:
        UnknownMemoryError: when ``name`` is not registered (the message lists the known names).
    """
    _load_entry_points()
    if name in _REGISTRY:
        return _REGISTRY[name](**kwargs)
    if name in _BUILTIN:
        mod_name, attr = _BUILTIN[name].split(":")
        return getattr(importlib.import_module(mod_name), attr)(**kwargs)
    base, sep, spec = name.partition(":")
    if sep and base in _VARIANTS:
        mod_name, attr = _VARIANTS[base].split(":")
        return make_memory(base, **{**getattr(importlib.import_module(mod_name), attr)(spec), **kwargs})
    raise UnknownMemoryError(
        f"unknown memory module {name!r}; known: {', '.join(list_memories())}. "
        f"Register one with register_memory() or the {ENTRY_POINT_GROUP!r} entry-point group."
    )
