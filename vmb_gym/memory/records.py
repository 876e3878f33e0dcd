"""The memory modules' records: :class:`MemoryEntry` (what a module stores) and :class:`MemoryHit`
(what a search returns), their statuses and the one rendering of a hit.

They are re-exported by :mod:`vmb_gym.memory.base`, where the module contract that uses them lives.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import datetime

#: Entry statuses. ``superseded`` entries stay reachable through their links; ``deleted`` ones do not.
#: Hits per memory search when the caller names no ``top_k``: the ``search_memory`` tool's default and the
#: memory modules'. A component that searches deeper (a reader pooling several queries, a trained checkpoint)
#: says its own depth in its configuration.
DEFAULT_TOP_K = 5

ACTIVE = "active"
SUPERSEDED = "superseded"
DELETED = "deleted"


@functools.lru_cache(maxsize=1 << 16)
def minute_stamp(when: datetime) -> str:
    """``YYYY-MM-DD HH:MM`` of ``when``, cached (a search renders ~100 hits and their context)."""
    return when.strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True, slots=True)
class MemoryHit:
    """One search result.

    Attributes:
        entry_id: id of the memory entry (``"L<line_id>"`` for a history line, ``"P<n>"`` for a
            policy write, ``"F<n>"`` for a layered fact).
        text: the text shown to the policy.
        score: backend score (higher is better; only comparable within one search).
        timestamp: when the entry's content was said or stored (never later than ``as_of``).
        line_ids: the history lines the entry comes from (provenance for the audit).
        people: people the entry is about or spoken by.
        layer: ``raw`` | ``policy`` | ``fact`` | ``support`` | ``summary`` | ``kv`` | ``context`` (a
            neighbour shown around a hit, see :meth:`BaseMemory.neighbours`).
        status: ``active`` or ``superseded``.
    """

    entry_id: str
    text: str
    score: float
    timestamp: datetime | None
    line_ids: tuple[int, ...] = ()
    people: tuple[str, ...] = ()
    layer: str = "raw"
    status: str = ACTIVE

    def render(self) -> str:
        """``[YYYY-MM-DD HH:MM] text`` (the one rendering all modules share)."""
        ts = minute_stamp(self.timestamp) if self.timestamp else "----------"
        tag = " (superseded)" if self.status == SUPERSEDED else ""
        return f"[{ts}] {self.text}{tag}"


@dataclass(slots=True)
class MemoryEntry:
    """One stored memory item (a history line or a policy write).

    ``supersedes`` / ``superseded_by`` link revisions; ``setting`` and ``condition`` are free
    labels a policy may attach (the layered module uses ``module.field`` for settings).
    """

    entry_id: str
    text: str
    timestamp: datetime
    line_ids: tuple[int, ...] = ()
    people: tuple[str, ...] = ()
    setting: str | None = None
    condition: str | None = None
    status: str = ACTIVE
    source: str = "history"
    supersedes: str | None = None
    superseded_by: str | None = None

    def copy(self) -> MemoryEntry:
        """A copy of this entry (what :func:`dataclasses.replace` gives, several times faster)."""
        if type(self) is not MemoryEntry:
            return replace(self)
        return MemoryEntry(self.entry_id, self.text, self.timestamp, self.line_ids, self.people, self.setting,
                           self.condition, self.status, self.source, self.supersedes, self.superseded_by)

    def to_hit(self, score: float, layer: str | None = None) -> MemoryHit:
        """This entry as a :class:`MemoryHit`."""
        return MemoryHit(
            entry_id=self.entry_id,
            text=self.text,
            score=float(score),
            timestamp=self.timestamp,
            line_ids=self.line_ids,
            people=self.people,
            layer=layer or ("raw" if self.source == "history" else "policy"),
            status=self.status,
        )


def hits_from_context(text: str, layer: str = "context") -> list[MemoryHit]:
    """Context text as hits: one per non-empty line (ids ``C0``, ``C1``, ...; no time, no provenance)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return [MemoryHit(entry_id=f"C{i}", text=ln, score=0.0, timestamp=None, layer=layer) for i, ln in enumerate(lines)]
