"""``layered``: a TriLink-style memory built without any LLM call.

Three layers over one scenario's history:

1. **Change log** -- every utterance that names a vehicle setting (simulator vocabulary: module
   names, API names, allowed values, plus everyday wording) becomes a :class:`SettingChange`
   with its person, setting key, values, condition and time.
2. **Facts** -- changes grouped per ``(person, setting, condition)``; the newest visible change is
   the *active* revision, earlier ones are *superseded* and linked (``supersedes``), so every
   revision stays reachable.
3. **Supporting lines** -- the raw history lines, for provenance and fallback search.

Retrieval hits facts first: a fact is scored by the overlap of its setting with the settings
the request names, the people the request names, and the best lexical/semantic match of its
revisions (BM25 + optional dense, restricted to the visible lines). A hit renders the active
revision and its superseded revisions, and cites their lines. Policy writes with a ``setting``
join the matching fact as its newest revision; other writes are searched as plain entries.
Everything is computed at the search's ``as_of``: revisions later than it do not exist yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from vmb_gym.memory.base import ACTIVE, SUPERSEDED, BaseMemory, MemoryHit, first_name
from vmb_gym.memory.retrieval import RRF_DEPTH, Embedder, HybridMemory, top_indices
from vmb_gym.memory.vocabulary import Vocabulary, family


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One utterance about a setting (a row of the change log).

    ``index`` points into the module's entries; ``line_id`` is the history line (0 for writes).
    """

    index: int
    line_id: int
    timestamp: datetime
    person: str
    setting: str
    settings: frozenset[str]
    values: tuple[str, ...]
    condition: str | None
    text: str


@dataclass(slots=True)
class Fact:
    """Revisions of one ``(person, setting, condition)``, oldest first, as seen at some ``as_of``."""

    fact_id: str
    person: str
    setting: str
    condition: str | None
    revisions: list[SettingChange] = field(default_factory=list)

    @property
    def active(self) -> SettingChange:
        """The newest revision."""
        return self.revisions[-1]

    def links(self) -> list[tuple[str, str | None]]:
        """``(revision id, id of the revision it supersedes)`` pairs, oldest first."""
        ids = [f"{self.fact_id}.r{i + 1}" for i in range(len(self.revisions))]
        return [(rid, ids[i - 1] if i else None) for i, rid in enumerate(ids)]


class LayeredMemory(HybridMemory):
    """Facts with active/superseded revisions over a rule-extracted setting-change log.

    Args:
        semantic: also use MiniLM similarity in the match score (off: BM25 only, no model).
        embedder: see :class:`~vmb_gym.memory.retrieval.DenseMemory`.
        use_disk_cache: see :class:`~vmb_gym.memory.retrieval.DenseMemory`.
        per_person: key facts by person (``False``: household-wide facts per setting).
        person_weight: score bonus when the fact's person is named in the request.
        max_revisions: most revisions rendered and cited per fact hit (newest first).
        fuse_lines: fuse the fact ranking with the plain line ranking (hybrid, or BM25 when not
            ``semantic``) by reciprocal rank fusion; a line already cited by a better-ranked fact
            is not repeated. ``False``: facts first, lines only to fill up.
        fact_weight: weight of the fact ranking in that fusion (lines weigh 1).
    """

    name: ClassVar[str] = "layered"

    def __init__(
        self,
        semantic: bool = True,
        embedder: Embedder | None = None,
        use_disk_cache: bool = True,
        per_person: bool = True,
        person_weight: float = 1.0,
        max_revisions: int = 6,
        fuse_lines: bool = True,
        fact_weight: float = 1.08,
    ) -> None:
        self.semantic = semantic
        if semantic:
            super().__init__(embedder, use_disk_cache)
        else:
            BaseMemory.__init__(self)
            self._bm25 = None
            self.embedder = None  # type: ignore[assignment]
            self.use_disk_cache = use_disk_cache
            self._dense = None  # type: ignore[assignment]
        self.vocab = Vocabulary()
        self.per_person = per_person
        self.person_weight = person_weight
        self.max_revisions = max_revisions
        self.fuse_lines = fuse_lines
        self.fact_weight = fact_weight
        self.changes: list[SettingChange] = []

    # ------------------------------------------------------------------ building
    def _config_key(self) -> str:
        return f"semantic={self.semantic};{self.embedder.model_id if self.embedder else ''}"

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Forget the change log too."""
        if self.semantic:
            super().reset(scenario_id, speakers)
        else:
            BaseMemory.reset(self, scenario_id, speakers)
        self.changes = []

    def _finish_ingest(self) -> None:
        if self.semantic:
            super()._finish_ingest()
        else:
            self._bm25_index()

    def _payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["bm25"] = self._bm25_index()
        if self.semantic:
            out["matrix"] = self._dense_index().matrix
        out["changes"] = list(self.changes)
        return out

    def _load_payload(self, payload: dict[str, Any]) -> None:
        self._bm25 = payload["bm25"]
        self._bm25_stale = False
        if self.semantic:
            self._dense.matrix = payload["matrix"]
        self.changes = list(payload["changes"])

    def observe(self, line: Any) -> None:
        """Ingest a line and, when it names a setting, log it as a change."""
        super().observe(line)
        ex = self.vocab.extract(line.text)
        if ex is not None:
            self.changes.append(
                SettingChange(len(self.entries) - 1, line.line_id, line.timestamp, line.speaker, ex.key,
                              ex.settings, ex.values, ex.condition, line.text)
            )

    def store(
        self,
        text: str,
        people: Sequence[str] = (),
        setting: str | None = None,
        condition: str | None = None,
        when: datetime | None = None,
    ) -> str:
        """A policy write; with a ``setting`` it becomes that fact's newest revision."""
        eid = super().store(text, people, setting, condition, when)
        self._log_policy(eid)
        return eid

    def update(self, entry_id: str, text: str, when: datetime | None = None) -> str:
        """Supersede an entry (history line or write); the new revision stays on the old one's fact."""
        new_id = super().update(entry_id, text, when)
        self._relink(new_id)
        return new_id

    def _log_policy(self, eid: str) -> None:
        e = self.get(eid)
        index = self._by_id[eid]
        ex = self.vocab.extract(e.text)
        settings = frozenset({e.setting}) if e.setting else (ex.settings if ex else frozenset())
        if not settings:
            return
        key = e.setting or (ex.key if ex else "")
        self.changes.append(
            SettingChange(index, 0, e.timestamp, e.people[0] if e.people else "household", key, settings,
                          ex.values if ex else (), e.condition or (ex.condition if ex else None), e.text)
        )

    def _relink(self, new_id: str) -> None:
        """Give a revision made by update() the fact key of the entry it supersedes."""
        new = self.get(new_id)
        old_index = self._by_id[new.supersedes] if new.supersedes else None
        old = next((c for c in reversed(self.changes) if c.index == old_index), None)
        if old is None:
            return
        mine = next((c for c in reversed(self.changes) if c.index == self._by_id[new_id]), None)
        ex = self.vocab.extract(new.text)
        change = SettingChange(self._by_id[new_id], 0, new.timestamp, old.person, old.setting, old.settings,
                               ex.values if ex else (), old.condition, new.text)
        if mine is not None:
            self.changes[self.changes.index(mine)] = change
        else:
            self.changes.append(change)

    def facts(self, as_of: datetime, allowed: np.ndarray | None = None) -> list[Fact]:
        """Facts as they stand at ``as_of`` (only revisions whose entry is visible then)."""
        if allowed is None:
            allowed = self.visible(as_of)
        ok = {int(i) for i in allowed}
        ok.update(i for i, e in enumerate(self.entries) if e.status == SUPERSEDED and e.timestamp <= as_of)
        groups: dict[tuple[str, str, str | None], Fact] = {}
        for ch in self.changes:
            if ch.index not in ok:
                continue
            person = ch.person if self.per_person else "household"
            key = (person, ch.setting, ch.condition)
            fact = groups.get(key)
            if fact is None:
                fact = groups[key] = Fact(f"F{len(groups) + 1}", person, ch.setting, ch.condition)
            fact.revisions.append(ch)
        return list(groups.values())

    # ------------------------------------------------------------------ retrieval
    def _match_scores(self, text: str, allowed: np.ndarray) -> np.ndarray:
        """Per-entry lexical (+ semantic) match in [0, 2], zero outside ``allowed``."""
        out = np.zeros(len(self.entries), dtype=np.float32)
        b = self._bm25_index().scores(text)
        sub = b[allowed]
        if len(sub) and sub.max() > 0:
            out[allowed] += sub / sub.max()
        if self.semantic:
            d = self._dense_index().scores(text)
            sub = d[allowed]
            if len(sub):
                lo, hi = float(sub.min()), float(sub.max())
                out[allowed] += (sub - lo) / (hi - lo + 1e-9)
        return out

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        facts = self.facts(as_of, allowed)
        q_settings = self.vocab.settings(text)
        q_families = {family(s) for s in q_settings}
        low = text.lower()
        named = {first_name(s) for s in self.speakers if first_name(s) and first_name(s) in low}
        match = self._match_scores(text, allowed)
        scored: list[tuple[float, int, Fact]] = []
        for n, f in enumerate(facts):
            fs = frozenset().union(*(r.settings for r in f.revisions))
            overlap = len(q_settings & fs)
            fam = len(q_families & {family(s) for s in fs})
            who = self.person_weight if first_name(f.person) in named else 0.0
            sem = max(float(match[r.index]) for r in f.revisions)
            scored.append((3.0 * overlap + fam + who + sem, n, f))
        scored.sort(key=lambda t: (-t[0], t[1]))
        if self.fuse_lines:
            return self._fused(text, scored, match, allowed, top_k)
        hits = [self._fact_hit(f, s) for s, _, f in scored[:top_k]]
        if len(hits) < top_k:  # fall back to plain lines (policy notes, chit-chat) after the facts
            cited = {i for h in hits for i in h.line_ids}
            for i in top_indices(match, allowed, RRF_DEPTH):
                e = self.entries[int(i)]
                if e.line_ids and set(e.line_ids) <= cited:
                    continue
                hits.append(e.to_hit(float(match[int(i)]), layer="support"))
                if len(hits) >= top_k:
                    break
        return hits

    def _line_ranking(self, text: str, allowed: np.ndarray, match: np.ndarray) -> list[int]:
        """Plain line ranking: hybrid RRF (semantic) or BM25, positive matches only."""
        if self.semantic:
            return [i for i, _ in self.hybrid_ranking(text, allowed, RRF_DEPTH)]
        return [int(i) for i in top_indices(match, allowed, RRF_DEPTH)]

    def _fused(self, text: str, scored: list[tuple[float, int, Fact]], match: np.ndarray, allowed: np.ndarray,
               top_k: int) -> list[MemoryHit]:
        """RRF of the fact ranking and the line ranking; lines cited by a better fact are skipped."""
        k = float(getattr(self, "rrf_k", 60))
        cands: list[tuple[float, int, Any]] = []
        for r, (s, _, f) in enumerate(scored[: RRF_DEPTH]):
            cands.append((self.fact_weight / (k + r + 1), 0, (f, s)))
        for r, i in enumerate(self._line_ranking(text, allowed, match)):
            cands.append((1.0 / (k + r + 1), 1, i))
        cands.sort(key=lambda t: (-t[0], t[1]))
        hits: list[MemoryHit] = []
        cited: set[int] = set()
        for fused, kind, item in cands:
            if kind == 0:
                f, s = item
                h = self._fact_hit(f, fused)
                if h.line_ids and set(h.line_ids) <= cited:
                    continue
            else:
                e = self.entries[int(item)]
                if e.line_ids and set(e.line_ids) <= cited:
                    continue
                h = e.to_hit(fused, layer="support")
            cited.update(h.line_ids)
            hits.append(h)
            if len(hits) >= top_k:
                break
        return hits

    def _fact_hit(self, f: Fact, score: float) -> MemoryHit:
        revs = f.revisions[::-1][: self.max_revisions]
        parts = []
        for k, r in enumerate(revs):
            tag = "" if k == 0 else " [superseded]"
            parts.append(f"[{r.timestamp:%Y-%m-%d %H:%M}] {r.person}: {r.text}{tag}")
        cond = f" (when {f.condition})" if f.condition else ""
        head = f"{f.person} / {f.setting or 'setting'}{cond}:"
        # a fact whose newest revision is a policy write is addressed by that write's id
        eid = f.fact_id if f.active.line_id else self.entries[f.active.index].entry_id
        return MemoryHit(
            entry_id=eid,
            text=head + "\n  " + "\n  ".join(parts),
            score=score,
            timestamp=f.active.timestamp,
            line_ids=tuple(r.line_id for r in revs if r.line_id),
            people=(f.person,),
            layer="fact",
            status=ACTIVE,
        )

    def render_hit(self, hit: MemoryHit) -> str:
        """Facts render as their text (revisions carry their own times)."""
        return hit.text if hit.layer == "fact" else hit.render()


__all__ = ["SUPERSEDED", "Fact", "LayeredMemory", "SettingChange"]
