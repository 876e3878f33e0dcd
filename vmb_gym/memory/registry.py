"""Memory modules by name: built-ins plus the ``vmb_gym.memory`` entry-point group.

A third-party package adds a module with, in its ``pyproject.toml``::

    [project.entry-points."vmb_gym.memory"]
    mymem = "my_pkg.memory:make_mymem"   # a callable(**kwargs) -> MemoryModule (a class works)
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from vmb_gym.errors import ConfigError, UnknownMemoryError
from vmb_gym.memory.base import MemoryModule
from vmb_gym.names import did_you_mean, match_name

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


def resolve_memory_name(name: str) -> str:
    """The registered name ``name`` means: itself, or the one name equal to it ignoring case.

    ``NAME:SPEC`` keeps its spec (``Layered:facts`` -> ``layered:facts``).

    Raises:
        UnknownMemoryError: no registered name matches (the message lists them and the close ones).
    """
    known = list_memories()
    text = str(name).strip()
    found = match_name(text, known)
    if found is not None:
        return found
    base, sep, spec = text.partition(":")
    found = match_name(base, _VARIANTS) if sep else None
    if found is not None:
        return f"{found}:{spec}"
    raise UnknownMemoryError(
        f"unknown memory module {name!r}; known: {', '.join(known)} (register one with register_memory() or "
        f"the {ENTRY_POINT_GROUP!r} entry-point group){did_you_mean(base if sep else text, known)}"
    )


def _accepted_options(factory: Any) -> list[str] | None:
    """The keyword options ``factory`` takes, or None when it takes any (``**kwargs``, no signature)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return [k for k, p in params.items() if p.kind is not inspect.Parameter.VAR_POSITIONAL]


def memory_options(name: str) -> list[str] | None:
    """The options (keyword arguments) memory ``name`` takes, or None when it takes any.

    Raises:
        UnknownMemoryError: ``name`` is not registered.
    """
    _load_entry_points()
    resolved = resolve_memory_name(name)
    base, sep, _ = resolved.partition(":")
    return _accepted_options(_factory(base if sep and resolved not in _REGISTRY and resolved not in _BUILTIN
                                      else resolved))


def check_memory(name: str, **kwargs: Any) -> str:
    """Fail fast, building nothing, when :func:`make_memory` would reject ``name`` or an option.

    Returns:
        The canonical name (``BM25`` -> ``bm25``).

    Raises:
        UnknownMemoryError: ``name`` is not registered.
        ConfigError: an option the module does not take.
    """
    _load_entry_points()
    resolved = resolve_memory_name(name)
    base, sep, _ = resolved.partition(":")
    target = base if sep and resolved not in _REGISTRY and resolved not in _BUILTIN else resolved
    check_memory_options(target, _factory(target), kwargs)
    return resolved


def check_memory_options(name: str, factory: Any, kwargs: dict[str, Any]) -> None:
    """Fail when ``kwargs`` holds an option that ``factory`` (a class or function) does not take.

    A factory with ``**kwargs`` or without a readable signature (an entry point not loaded yet)
    takes anything.

    Raises:
        ConfigError: the message names the unknown options, the close ones and every accepted one.
    """
    accepted = _accepted_options(factory)
    if accepted is None:
        return
    unknown = [key for key in kwargs if key not in accepted]
    if unknown:
        hints = "".join(did_you_mean(key, accepted, n=1) for key in unknown)
        raise ConfigError(f"memory {name!r} takes no option(s) {', '.join(map(repr, unknown))}; it accepts "
                          f"{', '.join(accepted) or 'none'}; fix: rename or drop them in --memory-kwargs{hints}")


def _factory(name: str) -> MemoryFactory:
    if name in _REGISTRY:
        return _REGISTRY[name]
    mod_name, attr = _BUILTIN[name].split(":")
    return getattr(importlib.import_module(mod_name), attr)


def make_memory(name: str, **kwargs: Any) -> MemoryModule:
    """Build the memory module called ``name`` with ``kwargs``.

    ``name`` is matched ignoring case when that is unambiguous (``BM25`` is ``bm25``).
    ``NAME:SPEC`` builds a variant of a built-in that has them: ``layered:facts+changes`` is
    ``make_memory("layered", layers=("facts", "changes"))`` (any non-empty ``+``-joined subset of
    ``facts``, ``experiences``, ``changes``).

    Raises:
        UnknownMemoryError: when ``name`` is not registered (the message lists the known names
            and a "did you mean" for close ones).
        ConfigError: an option in ``kwargs`` that the module does not take (the message lists
            those it takes).
    """
    _load_entry_points()
    resolved = resolve_memory_name(name)
    base, sep, spec = resolved.partition(":")
    if sep and resolved not in _REGISTRY and resolved not in _BUILTIN:
        mod_name, attr = _VARIANTS[base].split(":")
        return make_memory(base, **{**getattr(importlib.import_module(mod_name), attr)(spec), **kwargs})
    factory = _factory(resolved)
    check_memory_options(resolved, factory, kwargs)
    return factory(**kwargs)
