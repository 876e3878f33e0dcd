"""Memory modules: context and retrieval over a scenario's history, behind one contract.

``make_memory(name, **kwargs)`` builds a module; ``list_memories()`` names them. Built-ins:
``none``, ``gold``, ``full_history``, ``bm25``, ``dense``, ``hybrid``, ``layered``, ``summary``,
``key_value`` (plus the optional ``mem0`` and ``hymemory``). See :mod:`vmb_gym.memory.base`.
"""

from __future__ import annotations

from vmb_gym.memory.base import ACTIVE, DELETED, SUPERSEDED, BaseMemory, MemoryEntry, MemoryHit, MemoryModule
from vmb_gym.memory.records import DEFAULT_TOP_K
from vmb_gym.memory.registry import ENTRY_POINT_GROUP, list_memories, make_memory, register_memory
from vmb_gym.memory.tokens import count_tokens

__all__ = [
    "ACTIVE",
    "DEFAULT_TOP_K",
    "DELETED",
    "ENTRY_POINT_GROUP",
    "SUPERSEDED",
    "BaseMemory",
    "MemoryEntry",
    "MemoryHit",
    "MemoryModule",
    "count_tokens",
    "list_memories",
    "make_memory",
    "register_memory",
]
