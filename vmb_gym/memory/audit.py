"""Retrieval audit: how well a memory module's hits cover a query's gold evidence lines.

An *event* (one line of a query's gold memory) counts as found at rank r when the r-th hit cites
one of its evidence lines (``EvidenceEvent.line_ids``). Per search (:func:`audit_hits`):

* event Recall@k: share of the query's located events found within the top k;
* all-events Recall@k: 1 when every located event is found within the top k, else 0;
* precision@k: share of the top-k hits that cite at least one evidence line;
* MRR: 1 / rank of the first hit citing any evidence line (0 when none);
* memory tokens: cl100k tokens of the rendered hits (what a policy would read).

:func:`run_audit` runs each task's request text as the query over whole scenarios and aggregates
the figures overall and by reasoning type.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import MemoryHit, MemoryModule
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query, Scenario

DEFAULT_KS: tuple[int, ...] = (1, 3, 5, 10, 20)


def first_hit_ranks(query: Query, hits: Sequence[MemoryHit]) -> list[int | None]:
    """For each evidence event of ``query``, the 1-based rank of the first hit citing it (or None)."""
    ranks: list[int | None] = []
    for event in query.evidence:
        lines = set(event.line_ids)
        rank = None
        if lines:
            for r, h in enumerate(hits, start=1):
                if not lines.isdisjoint(h.line_ids):
                    rank = r
                    break
        ranks.append(rank)
    return ranks


def audit_hits(query: Query, hits: Sequence[MemoryHit], ks: Iterable[int] | None = None, *,
               lines: Sequence[str] | None = None) -> dict[str, Any]:
    """Per-search audit figures of ``hits`` against ``query``'s gold evidence.

    Args:
        query: the task (its ``evidence`` gives the gold lines).
        hits: the search result, best first.
        ks: cut-offs (default: 1, 3, 5, 10, 20 and ``len(hits)``).
        lines: each hit's :meth:`~vmb_gym.memory.records.MemoryHit.render`, when the caller has them
            (a :class:`~vmb_gym.memory.session.MemorySession` keeps them); rendered here otherwise.

    Returns:
        ``{"events", "located_events", "first_hit_ranks", "recall@k", "all_recall@k",
        "precision@k", "mrr", "hits", "memory_tokens"}``. ``recall@k``/``all_recall@k`` are
        ``None`` when the query has no located event.
    """
    ks = sorted(set(ks or (*DEFAULT_KS, max(len(hits), 1))))
    ranks = first_hit_ranks(query, hits)
    located = [r for r, e in zip(ranks, query.evidence, strict=True) if e.line_ids]
    gold = set(query.evidence_line_ids)
    relevant = [not gold.isdisjoint(h.line_ids) for h in hits]
    first_rel = next((i for i, rel in enumerate(relevant, start=1) if rel), None)
    out: dict[str, Any] = {
        "events": len(query.evidence),
        "located_events": len(located),
        "first_hit_ranks": ranks,
        "mrr": 1.0 / first_rel if first_rel else 0.0,
        "hits": len(hits),
        "memory_tokens": count_tokens("\n".join(lines if lines is not None and len(lines) == len(hits)
                                                 else (h.render() for h in hits))),
    }
    for k in ks:
        if located:
            found = [r is not None and r <= k for r in located]
            out[f"recall@{k}"] = sum(found) / len(found)
            out[f"all_recall@{k}"] = float(all(found))
        else:
            out[f"recall@{k}"] = None
            out[f"all_recall@{k}"] = None
        top = relevant[:k]
        out[f"precision@{k}"] = sum(top) / len(top) if top else 0.0
    return out


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _pct(xs: Sequence[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _aggregate(rows: Sequence[dict[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"tasks": len(rows)}
    for k in ks:
        for name in ("recall", "all_recall", "precision"):
            vals = [r[f"{name}@{k}"] for r in rows if r[f"{name}@{k}"] is not None]
            out[f"{name}@{k}"] = _mean(vals)
    out["mrr"] = _mean([r["mrr"] for r in rows])
    out["memory_tokens_mean"] = _mean([r["memory_tokens"] for r in rows])
    return out


def run_audit(
    scenarios: Sequence[Scenario],
    memory: MemoryModule,
    ks: Sequence[int] = DEFAULT_KS,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Audit one memory module over every query of ``scenarios`` (request text as the query).

    Args:
        scenarios: the scenarios (each is ingested once).
        memory: a module with ``provides_search``.
        ks: Recall@k cut-offs; searches return ``max(ks)`` hits.
        progress: called with 1 after each query (a tqdm ``update``).

    Returns:
        ``{"overall", "by_reasoning_type", "tasks", "latency_ms", "ingest_seconds", "index_build",
        "violations"}`` where ``tasks`` lists, per task, the rank at which each gold event is first
        hit and ``index_build`` the dense index builds (histories embedded, read from the disk
        cache, mean seconds of an embedded one; zeros for a module without a dense index).
    """
    ks = sorted(set(ks))
    depth = max(ks)
    rows: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    latencies: list[float] = []
    ingest: list[float] = []
    for sc in scenarios:
        t0 = time.perf_counter()
        memory.ingest(sc)
        ingest.append(time.perf_counter() - t0)
        for q in sc.queries:
            as_of = q.as_of or sc.end_time
            if as_of is None:
                raise ConfigError(f"task {q.task_id} has no as_of and its scenario no history to date it")
            t1 = time.perf_counter()
            hits = memory.search(q.text, as_of=as_of, top_k=depth)
            latencies.append(time.perf_counter() - t1)
            row = audit_hits(q, hits, ks)
            row["reasoning_type"] = q.reasoning_type
            row["memory_tokens"] = count_tokens("\n".join(h.render() for h in hits[: min(10, depth)]))
            rows.append(row)
            tasks.append(
                {
                    "task_id": q.task_id,
                    "reasoning_type": q.reasoning_type,
                    "first_hit_ranks": row["first_hit_ranks"],
                    "located": [bool(e.line_ids) for e in q.evidence],
                }
            )
            if progress:
                progress(1)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_type[r["reasoning_type"]].append(r)
    ms = [1000 * x for x in latencies]
    stats = memory.stats() if hasattr(memory, "stats") else {}
    return {
        "overall": _aggregate(rows, ks),
        "by_reasoning_type": {t: _aggregate(v, ks) for t, v in sorted(by_type.items())},
        "tasks": tasks,
        "latency_ms": {
            "mean": _mean(ms),
            "p50": statistics.median(ms) if ms else None,
            "p95": _pct(ms, 0.95),
            "query_embed_ms_mean": stats.get("query_embed_ms_mean"),
        },
        "ingest_seconds": {"total": sum(ingest), "mean": _mean(ingest)},
        "index_build": {"embedded": int(stats.get("index_builds_embedded", 0)),
                        "cached": int(stats.get("index_builds_cached", 0)),
                        "seconds_mean": stats.get("index_build_seconds_mean")},
        "violations": int(getattr(memory, "violations", 0)),
        "memory_tokens_note": "cl100k tokens of the rendered top-10 hits",
    }
