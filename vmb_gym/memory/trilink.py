"""TriLink's linking and retrieval rules for the ``layered`` memory, and its layer names.

The layered memory (:mod:`vmb_gym.memory.layered`) has TriLink's three layers: **facts**
(``(person, setting, condition)`` with supersede links between revisions), **experiences**
(:mod:`vmb_gym.memory.experiences`) and **changes** (the change log: each fact's revisions, the
diff chain of what was actually changed, with their episode lines). The rules, and where each
lives in the code:

1. *Fact-experience links* -- an experience is linked to the change-log rows it was distilled
   from (``Experience.change_indices``); a fact is linked to every experience of any of its
   revisions: :func:`fact_links`. An agent experience (from a finished request) is linked by
   ``(person, setting)``: :func:`fact_links`.
2. *Inheritance on supersede* -- a new revision joins its predecessor's fact (same key, or
   ``LayeredMemory._relink`` for ``update()``), and a fact's links are the union over all its
   revisions, so the superseding fact keeps its predecessor's experience links:
   :func:`fact_links`.
3. *One query scores facts and experiences together* -- the request is parsed once
   (``LayeredMemory._rank``: settings, hints, people, the lexical/semantic match per entry) and
   that parse scores the facts (``LayeredMemory._rank``) and the experiences
   (:func:`experience_relevance`, which also uses the entry match of the lines an experience
   came from).
4. *The relevance gate* -- an experience linked to a fact among the hits enters the context only
   when its relevance reaches :attr:`ExperienceGate.link_gate`; an experience matched directly
   (not linked to a hit) needs :attr:`ExperienceGate.direct_gate`, and comes after the linked
   ones; at most :attr:`ExperienceGate.max_experiences`. A history experience also needs the
   request to ask for a routine or "the usual" (``require_cue``) and to be about its person; an
   agent experience needs a positive reward: :func:`select_experiences`. (The rules reader
   therefore asks a routine request once more as its person's quote, ``Gary said: '...'``:
   ``vmb_agents.reader.policy.RulesPolicy.experience_search``.)
5. *Selected facts pull their diff chain* -- a fact hit renders its active revision, the
   superseded revisions that best match the request (at most ``max_revisions`` in all, 4 by
   default) and their episode lines (``LayeredMemory._fact_hit``; without the ``changes`` layer,
   the active revision only).
6. *Assembly order* -- within the ``top_k`` fact/line hits each fact renders its diff chain
   (the superseded revisions and episode lines) with its active revision, in the fused fact/line
   order the rules reader was tuned on; the selected experiences come after all of them, outside
   ``top_k`` (:meth:`ExperienceLayer.search`). So where no experience passes the gate the hits are
   exactly those of the memory without the experience layer.
7. *as_of* -- experiences are distilled at search time from the changes visible at ``as_of``
   (:meth:`ExperienceLayer.experiences`), agent experiences are stamped with their request's time, and
   LLM experiences with the last line of the day they were distilled from; nothing said after
   ``as_of`` can reach an experience.

Layer ablation: ``LAYERS`` names the layers; any non-empty subset is a variant. Without
``facts`` each change-log row is its own single-revision item (no grouping, no supersede links,
no inheritance); without ``changes`` a fact shows its active revision only; without both, only
the plain line ranking and experiences remain; without ``experiences`` no experience is built
or shown. By name: ``layered:facts+changes`` (see :func:`parse_variant`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import ACTIVE, DEFAULT_TOP_K, MemoryHit
from vmb_gym.memory.experiences import (
    EPISODE_SPAN,
    SESSION_GAP,
    Experience,
    agent_experience,
    distill_history,
    request_cues,
)

#: The layers of the ``layered`` memory, in the order variants name them.
LAYERS: tuple[str, ...] = ("facts", "experiences", "changes")


def parse_layers(layers: str | Iterable[str]) -> frozenset[str]:
    """A non-empty set of layer names from a sequence or a ``"facts+changes"`` string.

    Raises:
        ConfigError: on an unknown name or an empty set (the message names the layers).
    """
    names = [p.strip() for p in layers.split("+")] if isinstance(layers, str) else [str(p).strip() for p in layers]
    names = [n for n in names if n]
    bad = [n for n in names if n not in LAYERS]
    if bad or not names:
        found = f"unknown {bad}" if bad else "no layer"
        raise ConfigError(f"layers must be a non-empty subset of {list(LAYERS)}; found {found}. "
                          f"Example: layers=('facts', 'changes') or memory name 'layered:facts+changes'")
    return frozenset(names)


def parse_variant(spec: str) -> dict[str, Any]:
    """The keyword arguments a variant name's suffix means: ``"facts+changes"`` -> ``{"layers": (...)}``."""
    chosen = parse_layers(spec)
    return {"layers": tuple(n for n in LAYERS if n in chosen)}


@dataclass(frozen=True)
class ExperienceGate:
    """When experiences enter a search's context (rule 4 of the module docstring)."""

    link_gate: float = 4.0
    direct_gate: float = 5.0
    max_experiences: int = 2
    require_cue: bool = True


def fact_links(facts: Sequence[Any], experiences: Sequence[Experience]) -> dict[str, list[Experience]]:
    """Fact id -> linked experiences (rules 1 and 2): via any revision's change index, or by
    ``(person, setting)`` for agent experiences."""
    by_index: dict[int, list[Experience]] = {}
    by_key: dict[tuple[str, str], list[Experience]] = {}
    for e in experiences:
        for i in e.change_indices:
            by_index.setdefault(i, []).append(e)
        if not e.change_indices:
            for s in e.settings:
                by_key.setdefault((e.person, s), []).append(e)
    out: dict[str, list[Experience]] = {}
    for f in facts:
        seen: dict[str, Experience] = {}
        for r in f.revisions:  # the active revision inherits every predecessor's links
            for e in by_index.get(r.index, ()):
                seen.setdefault(e.exp_id, e)
            for s in r.settings:
                for e in by_key.get((f.person, s), ()):
                    seen.setdefault(e.exp_id, e)
        if seen:
            out[f.fact_id] = list(seen.values())
    return out


@dataclass(frozen=True)
class QueryParse:
    """The one parse of a request that scores facts and experiences (rule 3)."""

    text: str
    settings: frozenset[str]
    families: frozenset[str]
    named: frozenset[str]
    speaker: str | None
    match: np.ndarray


def experience_relevance(e: Experience, q: QueryParse, entry_of_line: dict[int, int]) -> float:
    """Relevance of ``e`` to the request: shared settings (3 each, 1 per shared module), its person
    (0.5 speaker, 0.25 named), the cue it answers (routine 1.5, usual/correction 1.0), the time of
    day (0.5), the best entry match of the lines it came from (0-2) and, for an agent experience,
    its reward."""
    routine, usual, tod = request_cues(q.text)
    fams = {s.split(".")[0] for s in e.settings}
    rel = 3.0 * len(q.settings & e.settings) + 1.0 * len(q.families & fams)
    if e.person == q.speaker:
        rel += 0.5
    elif e.person in q.named:
        rel += 0.25
    if e.kind == "routine" and routine:
        rel += 1.5
    elif e.kind in ("usual", "correction") and usual:
        rel += 1.0
    if tod and e.time_of_day == tod:
        rel += 0.5
    idx = [entry_of_line[i] for i in e.line_ids if i in entry_of_line]
    if idx:
        rel += max(float(q.match[i]) for i in idx)
    if e.outcome is not None:
        rel += e.outcome
    return rel


def select_experiences(
    experiences: Sequence[Experience],
    hit_fact_ids: Sequence[str],
    links: dict[str, list[Experience]],
    q: QueryParse,
    entry_of_line: dict[int, int],
    gate: ExperienceGate,
) -> list[tuple[Experience, float]]:
    """The experiences that enter the context (rule 4): linked ones above ``link_gate``, then
    direct ones above ``direct_gate``, each best first, at most ``max_experiences``."""
    routine, usual, _ = request_cues(q.text)
    linked_ids = {e.exp_id for fid in hit_fact_ids for e in links.get(fid, ())}
    linked: list[tuple[float, int, Experience]] = []
    direct: list[tuple[float, int, Experience]] = []
    for n, e in enumerate(experiences):
        if e.kind == "agent":
            if not e.outcome or e.outcome <= 0:
                continue  # a failed attempt is not reused
        else:
            if gate.require_cue and not (routine or usual):
                continue
            if e.person != q.speaker and e.person not in q.named:
                continue
        rel = experience_relevance(e, q, entry_of_line)
        if e.exp_id in linked_ids and rel >= gate.link_gate:
            linked.append((rel, n, e))
        elif rel >= gate.direct_gate:
            direct.append((rel, n, e))
    linked.sort(key=lambda t: (-t[0], t[1]))
    direct.sort(key=lambda t: (-t[0], t[1]))
    return [(e, rel) for rel, _, e in [*linked, *direct][: gate.max_experiences]]


def experience_hit(e: Experience, score: float) -> MemoryHit:
    """The hit of an experience (layer ``experience``, id ``E<n>``/``A<n>``/``X<n>``)."""
    return MemoryHit(entry_id=e.exp_id, text=e.render(), score=score, timestamp=e.timestamp, line_ids=e.line_ids,
                     people=(e.person,), layer="experience", status=ACTIVE)


class ExperienceLayer:
    """The experience side of :class:`~vmb_gym.memory.layered.LayeredMemory` (rules 4, 6 and 7):
    what :meth:`search` adds after the fact/line hits, :meth:`experiences` at an ``as_of`` and the
    agent's :meth:`record_experience`. A mixin: the layered memory supplies the facts, the
    vocabulary, the entries and the layer/gate options."""

    layers: frozenset[str]
    gate: ExperienceGate
    entries: list[Any]
    agent_experiences: list[Experience]
    llm_experiences: list[Experience]
    _exp_cache: tuple[Any, list[Experience]] | None
    _extra: list[MemoryHit]
    _said: tuple[int, list[datetime], list[str]] | None
    _by_id: dict[str, int]
    vocab: Any

    if TYPE_CHECKING:  # supplied by the memory this mixes into (LayeredMemory and its bases)
        def facts(self, as_of: datetime, allowed: np.ndarray | None = None) -> list[Any]: ...
        def _check(self, hits: list[MemoryHit], as_of: datetime) -> list[MemoryHit]: ...
        def _people_in(self, text: str) -> tuple[set[str], str | None]: ...

    def search(self, text: str, as_of: datetime, top_k: int = DEFAULT_TOP_K,
               person: str | None = None) -> list[MemoryHit]:
        """The ``top_k`` fact/line hits, then the experiences that pass the gate (trilink rule 6)."""
        self._extra = []
        # a mixin: the next class in LayeredMemory's MRO (HybridMemory) supplies search
        hits = super().search(text, as_of, top_k, person)  # type: ignore[misc]
        extra, self._extra = self._extra, []
        return hits + self._check(extra, as_of)

    def experiences(self, as_of: datetime, facts: Sequence[Any] | None = None) -> list[Experience]:
        """Experiences at ``as_of``: distilled from the visible change log, then LLM and agent ones
        stamped at or before it (trilink rule 7)."""
        if "experiences" not in self.layers:
            return []
        if facts is None:
            facts = self.facts(as_of)
        rows = [r for f in facts for r in f.revisions if r.line_id]
        key = (as_of, tuple(sorted(r.index for r in rows)))
        if self._exp_cache is not None and self._exp_cache[0] == key:
            history = self._exp_cache[1]
        else:
            history = distill_history(rows, gap=SESSION_GAP,
                                      speakers_of=lambda a, b: self._speakers_between(a, min(b + EPISODE_SPAN, as_of)),
                                      extract=self._clause)
            self._exp_cache = (key, history)
        later = [e for e in (*self.llm_experiences, *self.agent_experiences) if e.timestamp <= as_of]
        return [*history, *later]

    def _clause(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """``(setting key, values)`` one clause names, or ``None`` (no setting)."""
        ex = self.vocab.extract(text)
        return (ex.key, ex.values) if ex is not None and ex.key else None

    def _speakers_between(self, start: datetime, end: datetime) -> list[str]:
        """Speakers of history lines said from just before ``start`` up to ``end`` (first seen first;
        ``experiences`` passes an ``end`` no later than ``as_of``)."""
        if self._said is None or self._said[0] != len(self.entries):
            said = sorted((e.timestamp, e.people[0]) for e in self.entries if e.source == "history" and e.people)
            self._said = (len(self.entries), [t for t, _ in said], [p for _, p in said])
        _, times, people = self._said
        lo, hi = bisect_left(times, start - EPISODE_SPAN), bisect_right(times, end)
        return list(dict.fromkeys(people[lo:hi]))

    def _experience_hits(
        self, q: QueryParse, facts: list[Any], hits: list[MemoryHit], as_of: datetime
    ) -> list[MemoryHit]:
        exps = self.experiences(as_of, facts)
        if not exps:
            return []
        links = fact_links(facts, exps)
        fid_of = {(f.fact_id if f.active.line_id else self.entries[f.active.index].entry_id): f.fact_id for f in facts}
        hit_ids = [fid_of[h.entry_id] for h in hits if h.layer == "fact" and h.entry_id in fid_of]
        entry_of_line = {lid: self._by_id[f"L{lid}"] for e in exps for lid in e.line_ids if f"L{lid}" in self._by_id}
        chosen = select_experiences(exps, hit_ids, links, q, entry_of_line, self.gate)
        return [experience_hit(e, rel) for e, rel in chosen]

    def record_experience(self, request: str, when: datetime, calls: Sequence[Mapping[str, Any]],
                          reward: float) -> str | None:
        """Learn from a finished request: its vehicle calls and reward become an agent experience
        visible from ``when`` on (``VehicleMemStream-v0`` calls this). Returns its id, or ``None``
        without the experience layer or calls."""
        if "experiences" not in self.layers or not calls:
            return None
        _, speaker = self._people_in(request)
        settings = frozenset().union(*(self.vocab.settings(str(c.get("name", "")).replace("_", " ")) for c in calls))
        e = agent_experience(f"A{len(self.agent_experiences) + 1}", speaker or "household", request, calls, reward,
                             when, settings)
        self.agent_experiences.append(e)
        return e.exp_id


__all__ = ["LAYERS", "ExperienceGate", "ExperienceLayer", "QueryParse", "experience_hit", "experience_relevance",
           "fact_links", "parse_layers", "parse_variant", "select_experiences"]
