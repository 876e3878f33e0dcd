"""``MemorySession``: one memory module used for one episode, with one accounting.

Every route by which memory reaches a policy goes through a session: the env's
``search_memory`` tool (:class:`~vmb_gym.envs.tool_runtime.ToolRuntime`), and a policy that
holds its own module (it exposes the session as ``policy.memory_session``, see
:mod:`vmb_gym.policy`). The session

* renders the hits of a search once (:func:`render_hits`: ``"1. [ts] text"`` lines) and counts
  their tokens once (:func:`~vmb_gym.memory.tokens.count_tokens`); a search that returns the very
  hit objects of a recent one (a module's result cache hands them back) reuses that rendering
  (:func:`rendered_hits`);
* enforces ``as_of``: a hit stamped after the request time is dropped, whatever the module;
* records every hit, so that :meth:`MemorySession.figures` gives the episode figures the env
  reports (``memory_searches``, ``memory_tokens``, ``memory_hit_line_ids``, ``memory_audit``).

Example:
    >>> from vmb_gym.memory import make_memory                            # doctest: +SKIP
    >>> session = MemorySession(make_memory("bm25"))                      # doctest: +SKIP
    >>> result = session.search("seat heating", as_of=query.as_of, top_k=5)  # doctest: +SKIP
    >>> session.figures(query)["memory_searches"]                         # doctest: +SKIP
    1
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.base import MemoryHit
from vmb_gym.memory.cache import LRUCache
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query

__all__ = ["RENDERED", "MemorySession", "RenderedHits", "SearchResult", "render_hits", "rendered_hits"]


def render_hits(hits: Sequence[MemoryHit]) -> str:
    """The text a policy reads for one search: ``"1. [YYYY-MM-DD HH:MM] text"``, one hit a line."""
    return "\n".join(f"{i + 1}. {h.render()}" for i, h in enumerate(hits))


@dataclass(frozen=True, eq=False)
class RenderedHits:
    """One search's hits with what is derived from them (compared and hashed by identity).

    Attributes:
        hits: the hits, best first.
        lines: each hit's :meth:`~vmb_gym.memory.records.MemoryHit.render`.
        text: :func:`render_hits` of the hits.
        tokens: :func:`~vmb_gym.memory.tokens.count_tokens` of ``text``.
    """

    hits: tuple[MemoryHit, ...]
    lines: tuple[str, ...]
    text: str
    tokens: int


#: Renderings of recent searches' hits, keyed by the identities of the hit objects (each entry holds
#: its hits, so no other object can take one of their ids while it is kept). Hits are frozen, so
#: the same objects always render to the same text.
RENDERED = LRUCache(512)


def rendered_hits(hits: Sequence[MemoryHit]) -> RenderedHits:
    """The :class:`RenderedHits` of ``hits``: computed once, then found again while these hit objects
    come back (a module's result cache returns the same objects for a repeated search)."""
    key = tuple(map(id, hits))
    found: RenderedHits | None = RENDERED.get(key)
    if found is None:
        lines = tuple(h.render() for h in hits)
        text = "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))
        found = RenderedHits(tuple(hits), lines, text, count_tokens(text))
        RENDERED.put(key, found)
    return found


@dataclass(frozen=True)
class SearchResult:
    """What one search gave: the hits (best first), their rendered text and its token count.

    ``rendered`` is the search's :class:`RenderedHits` (None for pooled searches): the env builds
    its per-hit records from it once per distinct result.
    """

    hits: tuple[MemoryHit, ...]
    text: str
    tokens: int
    rendered: RenderedHits | None = field(default=None, compare=False, repr=False)


def _visible(hits: Sequence[MemoryHit], as_of: datetime | None) -> list[MemoryHit]:
    """``hits`` without those stamped after ``as_of`` (undated hits stay)."""
    if as_of is None:
        return list(hits)
    return [h for h in hits if h.timestamp is None or h.timestamp <= as_of]


class MemorySession:
    """One memory module serving one episode: searches, their hits and their token cost.

    Args:
        memory: the memory module (it must provide search for :meth:`search`).
        prepare: called before each search (e.g. the env makes the module serve the scenario).

    Attributes:
        memory: the wrapped module.
        searches: searches run since the last :meth:`reset`.
        tokens: tokens the policy has read from memory (searches plus :meth:`add_context`).
        hits: every hit returned, in order (one entry per hit per search).
        lines: each of ``hits`` rendered (:meth:`~vmb_gym.memory.records.MemoryHit.render`), in the same order.
        seconds: time spent inside the module's search.
    """

    def __init__(self, memory: Any, *, prepare: Callable[[], None] | None = None) -> None:
        self.memory = memory
        self._prepare = prepare
        self.searches = 0
        self.tokens = 0
        self.hits: list[MemoryHit] = []
        self.lines: list[str] = []
        self.seconds = 0.0

    def reset(self) -> None:
        """Forget the figures (start of an episode); the module itself is untouched."""
        self.searches = 0
        self.tokens = 0
        self.hits = []
        self.lines = []
        self.seconds = 0.0

    def add_context(self, tokens: int, hits: Sequence[MemoryHit] = ()) -> None:
        """Count ``tokens`` of memory given to the policy outside a search (a context block).

        ``hits`` are the context's lines when the policy reads them as lines (a module's
        ``context_hits``): they are recorded with the search hits (line ids, audit), no search counted.
        """
        self.tokens += int(tokens)
        self.hits.extend(hits)
        self.lines.extend(h.render() for h in hits)

    def _search(self, query: str, as_of: datetime | None, top_k: int, context: int) -> list[MemoryHit]:
        if self._prepare is not None:
            self._prepare()
        t0 = time.perf_counter()
        hits = self.memory.search(query, as_of=as_of, top_k=top_k)
        if context:
            neighbours = getattr(self.memory, "neighbours", None)
            if neighbours is None:
                raise ConfigError(f"memory {getattr(self.memory, 'name', '?')!r} cannot show neighbouring lines "
                                  f"(context={context}); expected context=0 for this module")
            hits = neighbours(hits, as_of, context)
        self.seconds += time.perf_counter() - t0
        return _visible(hits, as_of)

    def search(self, query: str, *, as_of: datetime | None, top_k: int, context: int = 0) -> SearchResult:
        """Search the module once and account for it.

        Args:
            query: the search text.
            as_of: the request time; hits after it are dropped.
            top_k: how many hits to ask for.
            context: lines shown either side of each hit (the module's ``neighbours``).

        Returns:
            The hits, their rendered text (:func:`render_hits`) and its token count.

        Raises:
            ConfigError: ``context`` is asked of a module without ``neighbours``.
        """
        rendered = rendered_hits(self._search(query, as_of, top_k, context))
        self.searches += 1
        self.tokens += rendered.tokens
        self.hits.extend(rendered.hits)
        self.lines.extend(rendered.lines)
        return SearchResult(rendered.hits, rendered.text, rendered.tokens, rendered)

    def search_pooled(self, queries: Sequence[str], *, as_of: datetime | None, top_k: int) -> SearchResult:
        """Run several searches and pool their hits (first occurrence of each entry id kept).

        Each query counts as one search; the pooled hits are what the policy reads, rendered one
        per line without ranks (ranks of different searches do not compare), and counted once.
        """
        seen: dict[str, MemoryHit] = {}
        for q in queries:
            for h in self._search(q, as_of, top_k, 0):
                seen.setdefault(h.entry_id, h)
        hits = list(seen.values())
        lines = [h.render() for h in hits]
        text = "\n".join(lines)
        tokens = count_tokens(text) if text else 0
        self.searches += len(queries)
        self.tokens += tokens
        self.hits.extend(hits)
        self.lines.extend(lines)
        return SearchResult(tuple(hits), text, tokens)

    def figures(self, query: Query | None = None) -> dict[str, Any]:
        """The episode figures of this session, in the env's ``episode_stats`` keys.

        ``memory_searches`` and ``memory_tokens`` always; ``memory_hit_line_ids`` (sorted, unique)
        when there were hits; ``memory_audit`` (:func:`~vmb_gym.memory.audit.audit_hits`) when
        there were hits and ``query`` is given. ``memory_hits`` lists the hits themselves.
        """
        out: dict[str, Any] = {"memory_searches": self.searches, "memory_tokens": self.tokens,
                               "memory_hits": list(self.hits)}
        if self.hits:
            out["memory_hit_line_ids"] = sorted({int(i) for h in self.hits for i in h.line_ids})
            if query is not None:
                out["memory_audit"] = audit_hits(query, self.hits, lines=self.lines)
        return out
