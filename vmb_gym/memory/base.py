"""The memory-module contract: the Protocol and a base class that enforces it (records: :mod:`~vmb_gym.memory.records`).

A memory module ingests one scenario's history and then serves episodes, either as *context*
(text for the first observation) or as *retrieval* (``search``), or both. Every search carries
``as_of``: the base class ranks only entries stamped at or before it, from the scenario being
served, and then re-checks every hit; a hit that breaks the rule is dropped and counted in
:attr:`BaseMemory.violations` (which must stay 0).

Writes are incremental: :meth:`BaseMemory.observe` ingests one history line as time advances,
and a policy can :meth:`~BaseMemory.store`, :meth:`~BaseMemory.update` (supersede, old entry
kept and linked) and :meth:`~BaseMemory.delete` entries.

Search results are cached in process for the modules that declare their ranking a function of
the ingested history alone (``search_cache = True`` on the class itself: a subclass that ranks on
more state does not inherit it): while a module serves an ingested history with no write since,
:meth:`BaseMemory.search` and :meth:`BaseMemory.neighbours` answer a repeated call from
:data:`RESULTS` (the same hits, in the same order, and the same ``violations`` count added).
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.cache import LRUCache
from vmb_gym.memory.records import (  # noqa: F401  (re-exported: the records' long-standing import path)
    ACTIVE,
    DEFAULT_TOP_K,
    DELETED,
    SUPERSEDED,
    MemoryEntry,
    MemoryHit,
    hits_from_context,
    minute_stamp,
)
from vmb_gym.types import HistoryLine, Query, Scenario


@runtime_checkable
class MemoryModule(Protocol):
    """What the environment needs from a memory module (third-party modules implement this)."""

    name: str
    provides_context: bool
    provides_search: bool
    violations: int

    def ingest(self, scenario: Scenario) -> None:
        """Load a scenario's whole history (cached: a repeat call for the same content is cheap)."""

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Start an empty memory for a scenario whose lines will arrive through :meth:`observe`."""

    def observe(self, line: HistoryLine) -> None:
        """Ingest one history line (lines arrive in time order)."""

    def context(self, query: Query) -> str:
        """Text for the first observation of an episode ("" when the module gives none)."""

    def search(self, text: str, as_of: datetime, top_k: int = DEFAULT_TOP_K,
               person: str | None = None) -> list[MemoryHit]:
        """The best ``top_k`` entries for ``text`` stamped at or before ``as_of``."""

    def store(
        self,
        text: str,
        people: Sequence[str] = (),
        setting: str | None = None,
        condition: str | None = None,
        when: datetime | None = None,
    ) -> str:
        """Add a policy-written entry; returns its id."""

    def update(self, entry_id: str, text: str, when: datetime | None = None) -> str:
        """Supersede an entry with new text; returns the new entry's id."""

    def delete(self, entry_id: str) -> None:
        """Remove an entry from search results."""

    def stats(self) -> dict[str, float]:
        """Counters: entries, violations, ingest seconds, searches."""


def epoch_seconds(t: datetime) -> int:
    """Seconds since 0001-01-01 (naive history time; no timezone is ever applied)."""
    return t.toordinal() * 86400 + t.hour * 3600 + t.minute * 60 + t.second


#: Keys of histories hashed before, by the identity of their (immutable) line tuple: ``id -> (lines, id, key)``.
_KEYS: OrderedDict[tuple[int, int], tuple[tuple[HistoryLine, ...], str]] = OrderedDict()


def scenario_key(scenario_id: int, lines: Sequence[HistoryLine]) -> str:
    """A content hash of a scenario's history (the cache key of everything built from it).

    A tuple of lines hashed before is not hashed again: its key is kept with the tuple itself
    (lines are frozen, so the same tuple object has the same content).
    """
    if isinstance(lines, tuple):
        kept = _KEYS.get((id(lines), scenario_id))
        if kept is not None and kept[0] is lines:
            return kept[1]
        key = _hash_lines(scenario_id, lines)
        _KEYS[(id(lines), scenario_id)] = (lines, key)
        while len(_KEYS) > SNAPSHOT_LIMIT:
            _KEYS.popitem(last=False)
        return key
    return _hash_lines(scenario_id, lines)


def _hash_lines(scenario_id: int, lines: Sequence[HistoryLine]) -> str:
    h = hashlib.sha256(str(scenario_id).encode())
    for ln in lines:
        h.update(f"{ln.line_id}\x1f{ln.timestamp:%Y-%m-%d %H:%M}\x1f{ln.speaker}\x1f{ln.text}\n".encode())
    return h.hexdigest()[:32]


def first_name(name: str) -> str:
    """Lower-cased first token of a person's name ("Gary Allen" -> "gary")."""
    return name.strip().split()[0].lower() if name.strip() else ""


def person_matches(person: str, people: Iterable[str]) -> bool:
    """True when ``person`` (full or first name, any case) is one of ``people``."""
    p = person.strip().lower()
    for other in people:
        o = other.lower()
        if p == o or p == first_name(other) or first_name(person) == o:
            return True
    return False


@dataclass
class _Snapshot:
    """An ingested state kept in the in-process cache (entries plus backend payload)."""

    entries: list[MemoryEntry]
    line_time: dict[int, datetime]
    speakers: tuple[str, ...]
    payload: dict[str, Any] = field(default_factory=dict)
    arrays: tuple[np.ndarray, np.ndarray] | None = None  # visible()'s stamps and active flags, read-only
    by_id: dict[str, int] = field(default_factory=dict)


#: Most scenarios kept in the in-process snapshot cache (LRU).
SNAPSHOT_LIMIT = 64
_SNAPSHOTS: OrderedDict[tuple[str, str, str, str], _Snapshot] = OrderedDict()
#: Most search results kept in process (searches, neighbour windows and time orders, all modules together).
RESULT_LIMIT = 8192
#: The in-process search-result cache (see the module docstring); keys start with the snapshot key.
RESULTS = LRUCache(RESULT_LIMIT)


def clear_snapshots() -> None:
    """Empty the in-process ingestion and search-result caches (tests; memory pressure)."""
    _SNAPSHOTS.clear()
    _KEYS.clear()
    RESULTS.clear()


class BaseMemory:
    """Shared machinery: entries, writes, time/scenario guards, counters.

    Subclasses set the class flags and override :meth:`_rank` (retrieval) and/or
    :meth:`context`; :meth:`_on_entries_changed` lets an index mark itself stale.

    Guarantees, enforced here rather than in each backend:

    * :meth:`_rank` only receives the indices of entries visible at ``as_of`` (time, status, person);
    * every returned hit is re-checked (time, scenario membership of its lines); offenders are
      dropped and counted in :attr:`violations`.

    An ingest that restores a snapshot shares the snapshot's entry objects (copying 2,000 entries
    cost a few ms per scenario switch): :meth:`get`, and so :meth:`update` and :meth:`delete`,
    copy a shared entry before handing it out. Change entries through those methods, never by
    assigning to a field of ``entries[i]``.
    """

    #: Entries ``entries[:_borrowed]`` may be the snapshot's own objects (see the class docstring).
    _borrowed: int = 0

    name: ClassVar[str] = "base"
    provides_context: ClassVar[bool] = False
    provides_search: ClassVar[bool] = False
    #: Whether :meth:`_rank` depends only on the ingested entries and the module's settings, so that
    #: results may be cached (read from the class itself, never inherited).
    search_cache: ClassVar[bool] = False

    def __init__(self) -> None:
        self.violations: int = 0
        self.scenario_id: int | None = None
        self.key: str | None = None
        self.speakers: tuple[str, ...] = ()
        self.entries: list[MemoryEntry] = []
        self._by_id: dict[str, int] = {}
        self._line_time: dict[int, datetime] = {}
        self._policy_counter = 0
        self.ingest_seconds: float = 0.0
        self.search_seconds: list[float] = []
        self._now: datetime | None = None
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None
        self._snapshot_key: tuple[str, str, str, str] | None = None
        self._owned: set[int] = set()

    # ------------------------------------------------------------------ ingestion
    def ingest(self, scenario: Scenario) -> None:
        """Load a scenario's whole history (once: later calls restore an in-process snapshot).

        Policy writes made since the last ingest are dropped, so each episode starts from the
        history alone.
        """
        t0 = time.perf_counter()
        key = scenario_key(scenario.scenario_id, scenario.lines)
        if key == self.key:
            self.ingest_seconds = time.perf_counter() - t0
            return
        cache_key = (type(self).__module__, type(self).__qualname__, self._config_key(), key)
        snap = _SNAPSHOTS.get(cache_key)
        if snap is not None:
            _SNAPSHOTS.move_to_end(cache_key)
            self._restore(scenario.scenario_id, snap)
        else:
            self.reset(scenario.scenario_id, scenario.speakers)
            self._ingest_lines(scenario.lines)
            self._finish_ingest()
            _SNAPSHOTS[cache_key] = _Snapshot(
                [e.copy() for e in self.entries], dict(self._line_time), self.speakers, self._payload(),
                self._frozen_arrays(), dict(self._by_id),
            )
            while len(_SNAPSHOTS) > SNAPSHOT_LIMIT:
                _SNAPSHOTS.popitem(last=False)
        self.key = key
        self._snapshot_key = cache_key
        self.ingest_seconds = time.perf_counter() - t0

    def _restore(self, scenario_id: int, snap: _Snapshot) -> None:
        self.reset(scenario_id, snap.speakers)
        self.entries = list(snap.entries)  # shared entry objects: get() copies one before handing it out
        self._borrowed, self._owned = len(self.entries), set()
        self._by_id = dict(snap.by_id)
        self._line_time = dict(snap.line_time)
        self._now = max(self._line_time.values()) if self._line_time else None
        self._load_payload(snap.payload)
        self._arrays = snap.arrays

    def _frozen_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`visible`'s arrays of the current entries, read-only (shared by the snapshot's restores)."""
        self._arrays = self._build_arrays()
        for arr in self._arrays:
            arr.setflags(write=False)
        return self._arrays

    def _result_key(self) -> tuple[str, str, str, str] | None:
        """The prefix of this module's cache keys, or None when its results must not be cached.

        Results are cached only for a class that declares ``search_cache`` itself, while it serves
        an ingested history with no write since (:attr:`key` is set only then).
        """
        snap = self._snapshot_key
        if self.key is None or snap is None or snap[3] != self.key or not vars(type(self)).get("search_cache"):
            return None
        return snap

    def _config_key(self) -> str:
        """Settings that change what ingestion builds (part of the snapshot key)."""
        return ""

    def _finish_ingest(self) -> None:
        """Hook: build indexes after a whole history was observed."""

    def _payload(self) -> dict[str, Any]:
        """Hook: backend state to keep in the snapshot (must not be mutated later)."""
        return {}

    def _load_payload(self, payload: dict[str, Any]) -> None:
        """Hook: restore what :meth:`_payload` returned."""

    def _ingest_lines(self, lines: Sequence[HistoryLine]) -> None:
        """Observe every line (subclasses override to batch-build or restore a cache)."""
        for ln in lines:
            self.observe(ln)

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Forget everything and start an empty memory for ``scenario_id``."""
        self.scenario_id = scenario_id
        self.key = None
        self.speakers = tuple(speakers)
        self.entries = []
        self._by_id = {}
        self._line_time = {}
        self._borrowed, self._owned = 0, set()
        self._policy_counter = 0
        self._now = None
        self._on_entries_changed()

    def observe(self, line: HistoryLine) -> None:
        """Ingest one history line as an entry ``L<line_id>`` (lines arrive in time order)."""
        if self.scenario_id is None:
            raise ConfigError(f"{self.name}: observe() called before reset()/ingest(); call reset(scenario_id) first")
        if self._now is not None and line.timestamp < self._now:
            raise ConfigError(
                f"{self.name}: line {line.line_id} at {line.timestamp} arrives before {self._now}; "
                "observe() needs lines in time order"
            )
        self._now = line.timestamp
        self.key = None
        if line.speaker not in self.speakers:
            self.speakers = (*self.speakers, line.speaker)
        self._line_time[line.line_id] = line.timestamp
        self._add(
            MemoryEntry(
                entry_id=f"L{line.line_id}",
                text=f"{line.speaker}: {line.text}",
                timestamp=line.timestamp,
                line_ids=(line.line_id,),
                people=(line.speaker,),
            )
        )

    def _add(self, entry: MemoryEntry) -> None:
        if entry.entry_id in self._by_id:
            raise ConfigError(f"{self.name}: duplicate entry id {entry.entry_id!r}")
        self._by_id[entry.entry_id] = len(self.entries)
        self.entries.append(entry)
        self._on_entries_changed()

    def _on_entries_changed(self) -> None:
        """Hook: an index built over :attr:`entries` is now stale (subclasses call super())."""
        self._arrays = None

    # ------------------------------------------------------------------ policy writes
    def get(self, entry_id: str) -> MemoryEntry:
        """The entry called ``entry_id``, this module's own object (KeyError naming the id when unknown)."""
        try:
            i = self._by_id[entry_id]
        except KeyError:
            raise KeyError(f"no memory entry {entry_id!r}") from None
        if i < self._borrowed and i not in self._owned:  # the snapshot's object: copy it before it is changed
            self.entries[i] = self.entries[i].copy()
            self._owned.add(i)
        return self.entries[i]

    def store(
        self,
        text: str,
        people: Sequence[str] = (),
        setting: str | None = None,
        condition: str | None = None,
        when: datetime | None = None,
    ) -> str:
        """Add a policy-written entry ``P<n>`` stamped ``when`` (default: the latest time seen)."""
        if self.scenario_id is None:
            raise ConfigError(f"{self.name}: store() needs a scenario; call ingest() or reset() first")
        stamp = when or self._now or datetime.min
        self._policy_counter += 1
        eid = f"P{self._policy_counter}"
        self._add(
            MemoryEntry(eid, text, stamp, (), tuple(people), setting, condition, ACTIVE, source="policy")
        )
        self.key = None
        return eid

    def update(self, entry_id: str, text: str, when: datetime | None = None) -> str:
        """Supersede ``entry_id`` with ``text``: the old entry stays, marked superseded and linked."""
        old = self.get(entry_id)
        if old.status == DELETED:
            raise ConfigError(f"{self.name}: entry {entry_id!r} was deleted and cannot be updated")
        new_id = self.store(text, old.people, old.setting, old.condition, when or self._now or old.timestamp)
        new = self.get(new_id)
        new.supersedes = entry_id
        new.line_ids = old.line_ids
        old.status = SUPERSEDED
        old.superseded_by = new_id
        self._on_entries_changed()
        return new_id

    def delete(self, entry_id: str) -> None:
        """Mark ``entry_id`` deleted: it is never returned again."""
        self.get(entry_id).status = DELETED
        self.key = None
        self._on_entries_changed()

    def revisions(self, entry_id: str) -> list[MemoryEntry]:
        """The chain of revisions ending at ``entry_id``, oldest first."""
        chain = [self.get(entry_id)]
        while chain[0].supersedes:
            chain.insert(0, self.get(chain[0].supersedes))
        return chain

    # ------------------------------------------------------------------ serving
    def context(self, query: Query) -> str:
        """Text for the first observation ("" for retrieval-only modules)."""
        return ""

    def context_hits(self, query: Query) -> list[MemoryHit]:
        """:meth:`context` as structured lines, for a policy that reads lines rather than text.

        One hit per non-empty line of the context (:func:`hits_from_context`); context modules
        that know more (the time, the history lines) override it. ``[]`` for retrieval-only modules.
        """
        return hits_from_context(self.context(query)) if self.provides_context else []

    def visible(self, as_of: datetime, person: str | None = None) -> np.ndarray:
        """Indices (into :attr:`entries`) of active entries stamped at or before ``as_of``.

        With ``person``, only entries whose people include that person (full or first name).
        """
        if self._arrays is None:
            self._arrays = self._build_arrays()
        stamps, active = self._arrays
        idx = np.nonzero(active & (stamps <= epoch_seconds(as_of)))[0]
        if person is not None:
            idx = np.array([i for i in idx if person_matches(person, self.entries[i].people)], dtype=np.int64)
        return idx

    def _build_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Each entry's time stamp (:func:`epoch_seconds`) and whether it is active."""
        stamps = np.array([epoch_seconds(e.timestamp) for e in self.entries], dtype=np.int64)
        active = np.array([e.status == ACTIVE for e in self.entries], dtype=bool)
        return stamps, active

    def search(self, text: str, as_of: datetime, top_k: int = DEFAULT_TOP_K,
               person: str | None = None) -> list[MemoryHit]:
        """The best ``top_k`` hits for ``text`` at time ``as_of``.

        Raises:
            ConfigError: when the module gives no search, or no scenario is loaded.
        """
        if not self.provides_search:
            raise ConfigError(f"memory {self.name!r} provides no search; use context() instead")
        if self.scenario_id is None:
            raise ConfigError(f"{self.name}: search() before ingest()/reset()")
        if as_of is None:
            raise ConfigError(f"{self.name}: search() needs as_of (the simulated 'now')")
        top_k = max(1, int(top_k))
        t0 = time.perf_counter()
        prefix = self._result_key() if type(text) is str and (person is None or type(person) is str) else None
        cache_key = (*prefix, "search", text, as_of, top_k, person) if prefix is not None else None
        cached = RESULTS.get(cache_key) if cache_key is not None else None
        if cached is not None:
            kept, dropped = cached
            self.violations += dropped
            self.search_seconds.append(time.perf_counter() - t0)
            return list(kept)
        before = self.violations
        allowed = self.visible(as_of, person)
        hits = self._rank(text, allowed, as_of, top_k, person) if len(allowed) else []
        hits = self._check(hits, as_of)[:top_k]
        if cache_key is not None:
            RESULTS.put(cache_key, (tuple(hits), self.violations - before))
        self.search_seconds.append(time.perf_counter() - t0)
        return hits

    def neighbours(self, hits: Sequence[MemoryHit], as_of: datetime, context: int = 1) -> list[MemoryHit]:
        """``hits`` with up to ``context`` entries either side of each, like ``grep -C``.

        Neighbours are the entries just before and after a hit in time order, visible at
        ``as_of`` and said the same day (a correction or a condition often follows the line that
        names the setting without naming it again). Each hit keeps its place; its neighbours
        (``layer="context"``, score 0) surround it in time order; an entry is listed once.
        """
        if context <= 0 or not hits:
            return list(hits)
        prefix = self._result_key()
        # keyed by the hit objects' identities (a cached search hands the same objects back); the
        # entry holds those objects, so none of their ids can be taken by another object meanwhile
        cache_key = (*prefix, "neighbours", as_of, context, tuple(map(id, hits))) if prefix is not None else None
        cached = RESULTS.get(cache_key) if cache_key is not None else None
        if cached is not None:
            _, kept, dropped = cached
            self.violations += dropped
            return list(kept)
        before = self.violations
        out = self._check(self._windows(hits, as_of, context), as_of)
        if cache_key is not None:
            RESULTS.put(cache_key, (tuple(hits), tuple(out), self.violations - before))
        return out

    def _time_order(self, as_of: datetime) -> tuple[np.ndarray, np.ndarray]:
        """The entries visible at ``as_of`` in time order, and each entry's place in it (-1: not visible)."""
        prefix = self._result_key()
        cache_key = (*prefix, "time order", as_of) if prefix is not None else None
        cached = RESULTS.get(cache_key) if cache_key is not None else None
        if cached is not None:
            return cached
        visible = self.visible(as_of)
        stamps = self._arrays[0]  # type: ignore[index]  # visible() built them
        order = visible[np.argsort(stamps[visible], kind="stable")]  # time order
        where = np.full(len(self.entries), -1, dtype=np.int64)
        where[order] = np.arange(len(order))
        if cache_key is not None:
            order.setflags(write=False)
            where.setflags(write=False)
            RESULTS.put(cache_key, (order, where))
        return order, where

    def _windows(self, hits: Sequence[MemoryHit], as_of: datetime, context: int) -> list[MemoryHit]:
        """:meth:`neighbours` before its final check."""
        order, where = self._time_order(as_of)
        out: list[MemoryHit] = []
        shown: set[str] = set()
        for h in hits:
            i = self._by_id.get(h.entry_id)
            k = int(where[i]) if i is not None else -1
            window: list[MemoryHit] = []
            if k >= 0:
                day = self.entries[i].timestamp.date()  # type: ignore[index]  # k >= 0: i is known
                for j in range(max(0, k - context), min(len(order), k + context + 1)):
                    e = self.entries[order[j]]
                    if j == k:
                        window.append(h)
                    elif e.timestamp.date() == day:
                        window.append(e.to_hit(0.0, layer="context"))
            else:
                window.append(h)
            for w in window:
                if w.entry_id not in shown:
                    shown.add(w.entry_id)
                    out.append(w)
        return out

    def _rank(
        self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None
    ) -> list[MemoryHit]:
        """Rank the entries at ``allowed`` for ``text``; subclasses override."""
        raise NotImplementedError

    def _check(self, hits: list[MemoryHit], as_of: datetime) -> list[MemoryHit]:
        """Drop (and count) hits that are later than ``as_of`` or cite lines of another scenario."""
        kept = []
        for h in hits:
            bad = h.timestamp is not None and h.timestamp > as_of
            for lid in h.line_ids:
                t = self._line_time.get(lid)
                if t is None or t > as_of:
                    bad = True
            if bad:
                self.violations += 1
            else:
                kept.append(h)
        return kept

    def stats(self) -> dict[str, float]:
        """Counters for reports: entries, violations, ingest seconds, searches, mean search ms."""
        n = len(self.search_seconds)
        return {
            "entries": float(len(self.entries)),
            "violations": float(self.violations),
            "ingest_seconds": self.ingest_seconds,
            "searches": float(n),
            "search_ms_mean": 1000.0 * sum(self.search_seconds) / n if n else 0.0,
        }
