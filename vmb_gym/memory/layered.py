"""``layered``: a TriLink-style memory built without any LLM call.

Three layers over one scenario's history:

1. **Change log** -- every utterance that names a vehicle setting (simulator vocabulary: module
   names, API names, allowed values, plus everyday wording), a destination or a change in a
   person's situation becomes a :class:`SettingChange` with its person, setting key (device named
   by the longest phrase), values, condition, time, a *salience* (concrete change or preference
   vs. chit-chat that merely names a device) and its *episode*: the lines just before it in the
   same session (pauses over :data:`SESSION_GAP` split sessions), i.e. the request it answers.
   An utterance that names no setting ("crank it up to 26") continues its episode's setting.
2. **Facts** -- salient changes grouped per ``(person, setting, condition)``; the newest visible
   change is the *active* revision, earlier ones are *superseded* and linked (``supersedes``), so
   every revision stays reachable.
3. **Supporting lines** -- the raw history lines, for provenance and fallback search.

Retrieval hits facts first. The request is parsed without an LLM: scene-setting boilerplate is
dropped, the settings it names (vocabulary) or points at (:data:`~vmb_gym.vehicle.lexicon.
QUERY_HINTS`: "projection" -> HUD) are found, and so are the people it names and the one who
speaks. A fact is scored by the overlap of its settings with those, its person (the speaker
weighs most; other people's facts still count, preferences conflict), the best lexical/semantic
match of its revisions (BM25 + optional dense, restricted to the visible lines) and its
salience. A hit renders the active revision, the superseded revisions that best match the
request, and their episode lines, and cites all of them. The fact ranking is fused with the
plain line ranking (RRF); a line a better hit already cites is not repeated. Policy writes with
a ``setting`` join the matching fact as its newest revision; other writes are searched as plain
entries. Everything is computed at the search's ``as_of``: revisions later than it do not exist
yet.

4. **Experiences** -- routines, "the usual" and correction habits distilled from the visible
   change log at each search (:mod:`vmb_gym.memory.experiences`), the agent's finished requests
   (:meth:`LayeredMemory.record_experience`, written by ``VehicleMemStream-v0``) and, optionally,
   an LLM distiller. TriLink's linking, gate and assembly rules, and the layer ablation
   (``layers=``, names like ``layered:facts+changes``), are in :mod:`vmb_gym.memory.trilink`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from vmb_gym.memory.base import ACTIVE, SUPERSEDED, BaseMemory, MemoryHit
from vmb_gym.memory.experiences import EPISODE_SPAN, SESSION_GAP, Experience, LLMDistiller
from vmb_gym.memory.extraction import (
    ATTRIBUTES,
    SPECIAL_SETTINGS,
    Vocabulary,
    family,
    people_in,
    salience,
    setting_key,
)
from vmb_gym.memory.llm import ChatBackend
from vmb_gym.memory.retrieval import RRF_DEPTH, RRF_K, Embedder, HybridMemory, fuse_rankings, top_indices
from vmb_gym.memory.trilink import LAYERS, ExperienceGate, ExperienceLayer, QueryParse, parse_layers
from vmb_gym.types import HistoryLine

#: Scene-setting in a request that names no setting ("At 8:00 AM", "got into the driver's seat").
_BOILERPLATE = re.compile(
    r"^\s*at \d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?,?|\b(?:the )?(?:driver'?s?|passenger|back|rear|front) seats?\b"
    r"|\b(?:got|gets|get|getting|sat|sitting|was sitting) (?:in|into|in to)(?: the car)?\b|\b(?:told|asked) the car\b",
    re.IGNORECASE,
)
@dataclass(frozen=True, slots=True)
class SettingChange:
    """One utterance about a setting (a row of the change log).

    ``index`` points into the module's entries; ``line_id`` is the history line (0 for writes).
    ``salience`` says how much the utterance reads as a concrete change or preference (see
    :func:`~vmb_gym.memory.extraction.salience`); ``support`` are the episode lines just before it
    in the same session (the request it answers: "Time to relax." -> "Green light, nice choice").
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
    salience: float = 1.0
    support: tuple[int, ...] = ()


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


class LayeredMemory(ExperienceLayer, HybridMemory):
    """Facts with active/superseded revisions over a rule-extracted setting-change log.

    Args:
        semantic: also use embedding similarity in the match score (off: BM25 only, no model).
        embedder: see :class:`~vmb_gym.memory.retrieval.DenseMemory`.
        use_disk_cache: see :class:`~vmb_gym.memory.retrieval.DenseMemory`.
        per_person: key facts by person (``False``: household-wide facts per setting).
        person_weight: score bonus when the fact's person is named in the request.
        max_revisions: most revisions rendered and cited per fact hit: the active one and the
            superseded ones that best match the request (a budget: each fact hit is one of
            ``top_k``; 6 let chit-chat revisions crowd the reader's lines, 4 is as good on
            official 1-40 and the default set with 6% fewer tokens).
        fuse_lines: fuse the fact ranking with the plain line ranking (hybrid, or BM25 when not
            ``semantic``) by reciprocal rank fusion; a line already cited by a better-ranked fact
            is not repeated. ``False``: facts first, lines only to fill up.
        fact_weight: weight of the fact ranking in that fusion (lines weigh 1).
        min_salience: least :func:`~vmb_gym.memory.extraction.salience` for a history utterance to
            become a fact revision (chit-chat that merely names a device stays a plain line).
        episode_links: a fact hit also cites (and shows) each revision's episode lines, the
            utterances just before it in the same session.
        layers: the layers used, any non-empty subset of ``("facts", "experiences", "changes")``
            (see :mod:`vmb_gym.memory.trilink`); a bad name is a ``ConfigError``.
        gate: when experiences enter the context (:class:`~vmb_gym.memory.trilink.ExperienceGate`).
        distiller: an optional chat backend that also distils experiences at ingest, a day at a time.
        encoder: see :class:`~vmb_gym.memory.retrieval.DenseMemory` (used when ``semantic``).
    """

    name: ClassVar[str] = "layered"
    #: Fact score = setting overlap with the request + person + lexical/semantic match + salience.
    WEIGHTS: ClassVar[dict[str, float]] = {
        "setting": 3.0, "family": 1.0, "hint": 1.5, "hint_family": 0.5, "named": 0.5, "salience": 0.25,
    }

    def __init__(
        self,
        semantic: bool = True,
        embedder: Embedder | None = None,
        use_disk_cache: bool = True,
        per_person: bool = True,
        person_weight: float = 0.5,
        max_revisions: int = 4,
        fuse_lines: bool = True,
        fact_weight: float = 1.08,
        min_salience: float = 1.0,
        episode_links: bool = True,
        layers: str | Sequence[str] = LAYERS,
        gate: ExperienceGate | None = None,
        distiller: ChatBackend | None = None,
        encoder: str | None = None,
    ) -> None:
        self.layers = parse_layers(layers)
        self.gate = gate or ExperienceGate()
        self.distiller = distiller
        self.semantic = semantic
        if semantic:
            super().__init__(embedder, use_disk_cache, encoder=encoder)
        else:
            BaseMemory.__init__(self)
            self._bm25 = None
            self.embedder = None  # type: ignore[assignment]
            self.use_disk_cache = use_disk_cache
            self._dense = None
            self.rrf_k = RRF_K
        self.vocab = Vocabulary()
        self.per_person = per_person
        self.person_weight = person_weight
        self.max_revisions = max_revisions
        self.fuse_lines = fuse_lines
        self.fact_weight = fact_weight
        self.min_salience = min_salience
        self.episode_links = episode_links
        self.weights = dict(self.WEIGHTS)
        self._raw: tuple[str, np.ndarray, np.ndarray | None] | None = None
        self.changes: list[SettingChange] = []
        self._session_last: datetime | None = None
        self._episode: list[tuple[int, datetime, SettingChange | None]] = []
        self.agent_experiences: list[Experience] = []
        self.llm_experiences: list[Experience] = []
        self._exp_cache: tuple[Any, list[Experience]] | None = None
        self._extra: list[MemoryHit] = []
        self._said: tuple[int, list[datetime], list[str]] | None = None

    # ------------------------------------------------------------------ building
    def _config_key(self) -> str:
        llm = f";distiller={type(self.distiller).__name__}" if self.distiller is not None else ""
        return f"semantic={self.semantic};{self.embedder.model_id if self.embedder else ''}{llm}"

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Forget the change log too."""
        if self.semantic:
            super().reset(scenario_id, speakers)
        else:
            BaseMemory.reset(self, scenario_id, speakers)
        self.changes = []
        self._session_last = None
        self._episode = []
        self.agent_experiences = []
        self.llm_experiences = []
        self._exp_cache = None

    def _finish_ingest(self) -> None:
        if self.semantic:
            super()._finish_ingest()
        else:
            self._bm25_index()
        if self.distiller is not None and "experiences" in self.layers:
            lines = [HistoryLine(e.line_ids[0], e.timestamp, e.people[0], e.text[len(e.people[0]) + 2:])
                     for e in self.entries if e.source == "history" and e.line_ids and e.people]
            self.llm_experiences = LLMDistiller(self.distiller).distill(lines)

    def _payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["bm25"] = self._bm25_index()
        if self.semantic:
            out.update(self._dense_index().payload())
        out["changes"] = list(self.changes)
        out["session"] = (self._session_last, list(self._episode))
        out["llm_experiences"] = list(self.llm_experiences)
        return out

    def _load_payload(self, payload: dict[str, Any]) -> None:
        self._bm25 = payload["bm25"]
        self._bm25_stale = False
        if self.semantic:
            self._dense.load_payload(payload)
        self.changes = list(payload["changes"])
        self._session_last, episode = payload.get("session", (None, []))
        self._episode = list(episode)
        self.llm_experiences = list(payload.get("llm_experiences", []))
        self._exp_cache = None

    def observe(self, line: Any) -> None:
        """Ingest a line and, when it names a setting, log it as a change (with its episode lines)."""
        super().observe(line)
        last = self._session_last
        if last is None or line.timestamp - last > SESSION_GAP:  # a new session: no episode to continue
            self._episode = []
        self._session_last = line.timestamp
        recent = [(lid, ts, ch) for lid, ts, ch in self._episode if line.timestamp - ts <= EPISODE_SPAN]
        ex = self.vocab.extract(line.text)
        if ex is None and recent and any(c is not None for _, _, c in recent):
            # "Crank it up to 86!" names no setting: it continues the episode's setting when it reads
            # as a concrete change (control wording plus a level or value)
            ex = self.vocab.extract_values(line.text)
            if ex is not None and salience(line.text, ex.values) < 2:
                ex = None
        change = None
        settings: frozenset[str] = frozenset()
        strength: dict[str, int] = {}
        if ex is not None:
            strength = dict(ex.strength)
            settings = ex.settings
            if not any(k not in ATTRIBUTES for k in settings - SPECIAL_SETTINGS):
                # "make it blue": the device comes from the episode ("the ambient light ...")
                prevs = [c for _, _, c in reversed(recent) if c is not None]
                if not settings and prevs:  # "crank it up to 26": the whole setting of the episode
                    settings = prevs[0].settings - SPECIAL_SETTINGS
                dev = next((d for c in prevs if (d := c.settings - ATTRIBUTES - SPECIAL_SETTINGS)), frozenset())
                settings = settings | dev
        if ex is not None and settings:
            change = SettingChange(
                len(self.entries) - 1, line.line_id, line.timestamp, line.speaker, setting_key(settings, strength),
                settings, ex.values, ex.condition, line.text, salience(line.text, ex.values, settings),
                tuple(lid for lid, _, _ in recent[-2:]),
            )
            self.changes.append(change)
        self._episode = [*recent[-2:], (line.line_id, line.timestamp, change)]

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
            if ch.index not in ok or (ch.line_id and ch.salience < self.min_salience):
                continue
            person = ch.person if self.per_person else "household"
            key = (person, ch.setting, ch.condition) if "facts" in self.layers else (person, str(ch.index), None)
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
        self._raw = (text, b, None)
        sub = b[allowed]
        if len(sub) and sub.max() > 0:
            out[allowed] += sub / sub.max()
        if self.semantic:
            d = self._dense_index().scores(text, allowed)
            self._raw = (text, b, d)
            sub = d[allowed]
            if len(sub):
                lo, hi = float(sub.min()), float(sub.max())
                out[allowed] += (sub - lo) / (hi - lo + 1e-9)
        return out

    def _people_in(self, text: str) -> tuple[set[str], str | None]:
        """Speakers a request names and the one who speaks (:func:`~vmb_gym.memory.extraction.people_in`)."""
        return people_in(text, self.speakers)

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        facts = self.facts(as_of, allowed)
        clean = _BOILERPLATE.sub(" ", text)
        q_settings = self.vocab.settings(clean)
        q_hints = self.vocab.hints(clean) - q_settings
        q_families = {family(s) for s in q_settings}
        h_families = {family(s) for s in q_hints} - q_families
        named, speaker = self._people_in(text)
        match = self._match_scores(text, allowed)
        w = self.weights
        scored: list[tuple[float, int, Fact]] = []
        for n, f in enumerate(facts):
            fs = frozenset().union(*(r.settings for r in f.revisions))
            ff = {family(s) for s in fs}
            topical = (w["setting"] * len(q_settings & fs) + w["family"] * len(q_families & ff)
                       + w["hint"] * len(q_hints & fs) + w["hint_family"] * len(h_families & ff))
            if "person" in ff and f.person not in named:
                topical = 0.0  # someone's situation matters to requests about that person only
            if f.person == speaker:
                who = self.person_weight
            elif f.person in named:
                who = w["named"] * self.person_weight
            else:
                who = 0.0
            sem = max(float(match[r.index]) for r in f.revisions)
            sal = w["salience"] * max(r.salience for r in f.revisions)
            scored.append((topical + who + sem + sal, n, f))
        scored.sort(key=lambda t: (-t[0], t[1]))
        if not {"facts", "changes"} & self.layers:
            scored = []  # neither facts nor the change log: the plain line ranking only
        if self.fuse_lines:
            hits = self._fused(text, scored, match, allowed, top_k)
        else:
            hits = self._facts_then_lines(scored, match, allowed, top_k)
        if "experiences" in self.layers:  # one parse scores facts and experiences (trilink rule 3)
            q = QueryParse(text, q_settings | q_hints, frozenset(q_families | h_families), frozenset(named), speaker,
                           match)
            self._extra = self._experience_hits(q, facts, hits, as_of)
        return hits

    def _facts_then_lines(self, scored: list[tuple[float, int, Fact]], match: np.ndarray, allowed: np.ndarray,
                          top_k: int) -> list[MemoryHit]:
        """Facts first, then plain lines to fill up (``fuse_lines=False``)."""
        hits = [self._fact_hit(f, s, match) for s, _, f in scored[:top_k]]
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
            raw = self._raw  # the scores _match_scores computed for this text, when it did
            if raw is None or raw[0] != text or raw[2] is None or len(raw[1]) != len(self.entries):
                return [i for i, _ in self.hybrid_ranking(text, allowed, RRF_DEPTH)]
            return [i for i, _ in fuse_rankings(raw[1], raw[2], allowed, RRF_DEPTH, self.rrf_k)]
        return [int(i) for i in top_indices(match, allowed, RRF_DEPTH)]

    def _fused(self, text: str, scored: list[tuple[float, int, Fact]], match: np.ndarray, allowed: np.ndarray,
               top_k: int) -> list[MemoryHit]:
        """RRF of the fact ranking and the line ranking; lines cited by a better fact are skipped."""
        k = float(self.rrf_k)
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
                h = self._fact_hit(f, fused, match)
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

    def _fact_hit(self, f: Fact, score: float, match: np.ndarray | None = None) -> MemoryHit:
        revs = f.revisions[::-1]
        if "changes" not in self.layers:
            revs = revs[:1]  # no change log: the active revision without its diff chain
        if len(revs) > self.max_revisions:
            # the active revision, then the earlier ones that best match the request (newest on ties)
            keep = {0}
            if match is not None and self.max_revisions > 1:
                order = sorted(range(1, len(revs)), key=lambda k: (-float(match[revs[k].index]) - revs[k].salience, k))
                keep.update(order[: self.max_revisions - 1])
            else:
                keep.update(range(1, self.max_revisions))
            revs = [r for k, r in enumerate(revs) if k in keep]
        parts = []
        cited: list[int] = []
        for k, r in enumerate(revs):
            tag = "" if k == 0 else " [superseded]"
            for lid in r.support if self.episode_links else ():
                i = self._by_id.get(f"L{lid}")
                if i is None or lid in cited or self.entries[i].status != ACTIVE:
                    continue
                parts.append(f"  [{self.entries[i].timestamp:%Y-%m-%d %H:%M}] {self.entries[i].text} (context)")
                cited.append(lid)
            parts.append(f"[{r.timestamp:%Y-%m-%d %H:%M}] {r.person}: {r.text}{tag}")
            if r.line_id and r.line_id not in cited:
                cited.append(r.line_id)
        cond = f" (when {f.condition})" if f.condition else ""
        head = f"{f.person} / {f.setting or 'setting'}{cond}:"
        # a fact whose newest revision is a policy write is addressed by that write's id
        eid = f.fact_id if f.active.line_id else self.entries[f.active.index].entry_id
        return MemoryHit(
            entry_id=eid,
            text=head + "\n  " + "\n  ".join(parts),
            score=score,
            timestamp=f.active.timestamp,
            line_ids=tuple(cited),
            people=(f.person,),
            layer="fact",
            status=ACTIVE,
        )

    def render_hit(self, hit: MemoryHit) -> str:
        """Facts and experiences render as their text (revisions carry their own times)."""
        return hit.text if hit.layer in ("fact", "experience") else hit.render()


__all__ = ["LAYERS", "SUPERSEDED", "Fact", "LayeredMemory", "SettingChange"]
