"""Context-only modules: ``none``, ``gold`` and ``full_history``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from vmb_gym.memory.base import BaseMemory, MemoryHit, hits_from_context
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import HistoryLine, Query


class NoMemory(BaseMemory):
    """No memory at all (the official ``none`` mode): no context, no search tool."""

    name: ClassVar[str] = "none"


#: The ``[April 15, 2025] `` prefix of a gold-memory event line.
_DATE_PREFIX = re.compile(r"^\[[^\]]*\]\s*")


class GoldMemory(BaseMemory):
    """The query's own gold memory as context (the official ``gold`` mode; an upper bound)."""

    name: ClassVar[str] = "gold"
    provides_context: ClassVar[bool] = True

    def context(self, query: Query) -> str:
        """The query's ``gold_memory`` text, verbatim."""
        return query.gold_memory

    def context_hits(self, query: Query) -> list[MemoryHit]:
        """One hit per gold-memory event (ids ``G0``, ``G1``, ...): its text without the leading
        ``[date]``, its time, its evidence lines and, as its person, the first speaker of the
        ingested scenario it names (the event's subject: "At 9:00 AM, Justin drove alone and ...");
        the plain lines when the query has no events."""
        if not query.evidence:
            return hits_from_context(query.gold_memory)
        hits = []
        for i, e in enumerate(query.evidence):
            text = _DATE_PREFIX.sub("", e.text, count=1)
            hits.append(MemoryHit(entry_id=f"G{i}", text=text, score=0.0, timestamp=e.when, line_ids=tuple(e.line_ids),
                                  people=self._subject(text), layer="context"))
        return hits

    def _subject(self, text: str) -> tuple[str, ...]:
        """The speaker whose first name comes first in ``text`` (``()`` when none is named)."""
        named = []
        for speaker in self.speakers:
            found = re.search(rf"\b{re.escape(speaker.split()[0])}\b", text)
            if found:
                named.append((found.start(), speaker))
        return (min(named)[1],) if named else ()


class FullHistoryMemory(BaseMemory):
    """The raw history up to the query time as context, cut to a token budget (most recent kept).

    Args:
        max_tokens: budget for the rendered history (cl100k tokens, see :func:`count_tokens`).
    """

    name: ClassVar[str] = "full_history"
    provides_context: ClassVar[bool] = True

    def __init__(self, max_tokens: int = 16_384) -> None:
        super().__init__()
        if max_tokens < 1:
            from vmb_gym.errors import ConfigError

            raise ConfigError(f"full_history: max_tokens must be >= 1, got {max_tokens}")
        self.max_tokens = max_tokens
        self._rendered: list[tuple[str, int]] = []  # (line text, tokens), parallel to history entries

    def observe(self, line: HistoryLine) -> None:
        """Ingest a line and pre-count its tokens."""
        super().observe(line)
        text = f"[{line.timestamp:%Y-%m-%d %H:%M}] {line.speaker}: {line.text}"
        self._rendered.append((text, count_tokens(text) + 1))

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Forget the rendered lines too."""
        super().reset(scenario_id, speakers)
        self._rendered = []

    def _payload(self) -> dict[str, object]:
        return {"rendered": list(self._rendered)}

    def _load_payload(self, payload: dict[str, object]) -> None:
        self._rendered = list(payload["rendered"])  # type: ignore[call-overload]

    def _chosen(self, query: Query) -> list[tuple[int, str]]:
        """(entry index, rendered line) of the lines :meth:`context` shows, oldest first."""
        history = [(i, e) for i, e in enumerate(self.entries) if e.source == "history"]
        chosen: list[tuple[int, str]] = []
        used = 0
        for (i, entry), (text, n) in zip(reversed(history), reversed(self._rendered), strict=True):
            if query.as_of is not None and entry.timestamp > query.as_of:
                continue
            if used + n > self.max_tokens:
                break
            chosen.append((i, text))
            used += n
        return chosen[::-1]

    def context(self, query: Query) -> str:
        """History lines stamped at or before ``query.as_of``, newest kept within the budget."""
        return "\n".join(text for _, text in self._chosen(query))

    def context_hits(self, query: Query) -> list[MemoryHit]:
        """The history lines of :meth:`context` as hits (the entries themselves: time, speaker, line id)."""
        return [self.entries[i].to_hit(0.0, layer="context") for i, _ in self._chosen(query)]
