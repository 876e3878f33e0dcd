"""``key_value``: the official LLM-maintained key-value store (spec §2.9), any ChatBackend.

Build: for each history day, up to ``rounds`` LLM turns offered ``memory_add(key, value)``,
``memory_remove(key)`` and ``memory_search(key)`` (``memory_list`` is executable but not
offered); the prompt shows the current keys. The turn loop for a day stops at the first reply
without tool calls. Serving: the policy gets ``memory_search``/``memory_list`` (see
:meth:`KeyValueMemory.tool`); :meth:`search` maps the store to hits for the audit.

Official search semantics: an exact key returns only that entry; otherwise every entry whose key
or value contains the text, case-insensitively; no match gives an empty result with a message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any, ClassVar

import numpy as np

from vmb_gym.memory.base import MemoryHit
from vmb_gym.memory.chat_backends import resolve_llm
from vmb_gym.memory.llm import ChatBackend, DailyLLMMemory, tool_arguments, tool_schema
from vmb_gym.types import HistoryLine

BUILD_TOOLS = [
    tool_schema(
        "memory_add", "Add or overwrite a preference.", {"key": "e.g. Gary_panel_color", "value": "under 50 characters"}
    ),
    tool_schema("memory_remove", "Remove a key.", {"key": "the key"}),
    tool_schema("memory_search", "Find entries by key or text.", {"key": "key or text"}),
]
SYSTEM_PROMPT = (
    "You maintain a key-value memory of the vehicle preferences of a household. Read one day of "
    "conversation and record preferences with memory_add (keys like Name_attribute, values under 50 "
    "characters), remove outdated ones with memory_remove. Stop calling tools when done."
)


class KVStore:
    """The official ``MemoryStore``: a str -> str dict with its search semantics."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.stamps: dict[str, tuple[datetime, tuple[int, ...]]] = {}

    def add(self, key: str, value: str, when: datetime, line_ids: tuple[int, ...] = ()) -> dict[str, Any]:
        """Add or overwrite ``key``."""
        self.data[key] = value
        self.stamps[key] = (when, line_ids)
        return {"success": True, "message": f"Stored {key}"}

    def remove(self, key: str) -> dict[str, Any]:
        """Remove ``key`` (failure when absent)."""
        if key not in self.data:
            return {"success": False, "message": f"Key {key} not found"}
        del self.data[key]
        self.stamps.pop(key, None)
        return {"success": True, "message": f"Removed {key}"}

    def search(self, key: str) -> dict[str, Any]:
        """Exact key -> that entry; else every entry whose key or value contains ``key`` (any case)."""
        if key in self.data:
            return {"success": True, "results": {key: self.data[key]}}
        k = key.lower()
        res = {kk: v for kk, v in self.data.items() if k in kk.lower() or k in v.lower()}
        if not res:
            return {"success": True, "results": {}, "message": f"No memory found for '{key}'"}
        return {"success": True, "results": res}

    def list(self) -> dict[str, Any]:
        """All keys and their count."""
        return {"success": True, "keys": list(self.data), "count": len(self.data)}

    def copy(self) -> KVStore:
        """An independent copy."""
        out = KVStore()
        out.data, out.stamps = dict(self.data), dict(self.stamps)
        return out


class KeyValueMemory(DailyLLMMemory):
    """LLM-built key-value store; the policy reads it with ``memory_search``/``memory_list``.

    Args:
        llm: the :class:`ChatBackend` that fills the store, or its spec (``openai:MODEL``, ``hf:PATH``: see
            :mod:`vmb_gym.memory.chat_backends`; ``vmb eval --memory-llm``).
        rounds: most LLM turns per day (official: ``reflect_num``, 10 by default).
    """

    name: ClassVar[str] = "key_value"
    provides_search: ClassVar[bool] = True

    def __init__(self, llm: ChatBackend | str | None = None, rounds: int = 10) -> None:
        super().__init__()
        self.llm = resolve_llm(llm, "key_value")
        self.rounds = rounds
        self.store_kv = KVStore()
        self.snapshots: list[tuple[date, KVStore]] = []
        self.build_calls = 0
        self._day: date | None = None
        self._pending: list[HistoryLine] = []

    def _config_key(self) -> str:
        return f"{type(self.llm).__qualname__}:{id(self.llm)}:{self.rounds}"

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Start from an empty store."""
        super().reset(scenario_id, speakers)
        self.store_kv, self.snapshots, self._day, self._pending = KVStore(), [], None, []


    def _payload(self) -> dict[str, object]:
        return {"kv": self.store_kv.copy(), "snapshots": list(self.snapshots)}

    def _load_payload(self, payload: dict[str, object]) -> None:
        self.store_kv = payload["kv"].copy()  # type: ignore[attr-defined]
        self.snapshots = list(payload["snapshots"])  # type: ignore[call-overload]

    def _flush(self) -> None:
        if not self._pending:
            return
        day = self._pending
        when = day[-1].timestamp
        line_ids = tuple(ln.line_id for ln in day)
        text = "\n".join(f"[{ln.timestamp:%Y-%m-%d %H:%M}] {ln.speaker}: {ln.text}" for ln in day)
        keys = ", ".join(self.store_kv.data) or "No vehicle preferences recorded yet."
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Current keys: {keys}\n\nConversation:\n{text}"},
        ]
        for _ in range(self.rounds):
            reply = self.llm.chat(messages, BUILD_TOOLS)
            self.build_calls += 1
            calls = reply.get("tool_calls") or []
            if not calls:
                break
            messages.append({"role": "assistant", "content": reply.get("content", ""), "tool_calls": calls})
            for call in calls:
                result = self.tool(call, when=when, line_ids=line_ids)
                messages.append({"role": "tool", "name": call.get("name", ""), "content": str(result)})
        self.snapshots.append((day[0].timestamp.date(), self.store_kv.copy()))
        self._pending = []

    def tool(
        self, call: Mapping[str, Any], when: datetime | None = None, line_ids: tuple[int, ...] = ()
    ) -> dict[str, Any]:
        """Execute a memory tool call (``memory_add``/``remove``/``search``/``list``)."""
        name = call.get("name", "")
        args = tool_arguments(call)
        key = str(args.get("key", ""))
        if name == "memory_add":
            return self.store_kv.add(key, str(args.get("value", "")), when or self._now or datetime.min, line_ids)
        if name == "memory_remove":
            return self.store_kv.remove(key)
        if name == "memory_search":
            return self.store_kv.search(key)
        if name == "memory_list":
            return self.store_kv.list()
        return {"success": False, "error": f"Function {name} not found"}

    def store_at(self, as_of: datetime) -> KVStore:
        """The store built from days strictly before ``as_of``'s day (the whole store at/after the end)."""
        if self._pending:
            self._flush()
        if self._line_time and as_of >= max(self._line_time.values()):
            return self.store_kv
        out = KVStore()
        for d, s in self.snapshots:
            if d < as_of.date():
                out = s
        return out

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        kv = self.store_at(as_of)
        res = kv.search(text)["results"]
        if not res:  # word-level fallback so a sentence query can still find entries
            words = [w for w in text.lower().split() if len(w) > 3]
            res = {k: v for k, v in kv.data.items() if any(w in f"{k} {v}".lower() for w in words)}
        hits = []
        for k, v in res.items():
            when, line_ids = kv.stamps.get(k, (None, ()))
            if when is not None and when > as_of:
                continue
            hits.append(MemoryHit(f"K:{k}", f"{k}: {v}", 1.0, when, line_ids, layer="kv"))
        return hits[:top_k]
