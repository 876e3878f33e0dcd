"""A search shown again reuses its rendering, its token count and its hit records, and they are what
rendering the hits afresh gives; the audit reads the session's rendered lines."""

from __future__ import annotations

from dataclasses import replace

from vmb_gym.envs.tool_runtime import hit_record, search_records
from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.base import RESULTS
from vmb_gym.memory.retrieval import BM25Memory
from vmb_gym.memory.session import MemorySession, SearchResult, render_hits, rendered_hits
from vmb_gym.memory.tokens import count_tokens

QUERY = "seat ventilation headrest panel color"


def _session(scenario) -> tuple[MemorySession, object]:
    m = BM25Memory()
    m.ingest(scenario)
    return MemorySession(m), scenario.queries[0].as_of


def test_a_repeated_search_reuses_one_rendering_equal_to_a_fresh_one(scenario) -> None:
    session, as_of = _session(scenario)
    first = session.search(QUERY, as_of=as_of, top_k=4, context=1)
    again = session.search(QUERY, as_of=as_of, top_k=4, context=1)
    assert len(first.hits) > 4  # neighbours were added
    assert again.rendered is first.rendered and again.hits == first.hits
    assert first.text == render_hits(first.hits) and first.text.startswith("1. [")
    assert first.tokens == count_tokens(first.text) > 0
    assert session.tokens == 2 * first.tokens and session.searches == 2
    assert session.lines == [h.render() for h in session.hits] and len(session.lines) == 2 * len(first.hits)


def test_equal_hits_that_are_other_objects_render_alike_but_apart(scenario) -> None:
    session, as_of = _session(scenario)
    hits = list(session.search(QUERY, as_of=as_of, top_k=3).hits)
    copies = [replace(h) for h in hits]
    assert copies == hits and copies[0] is not hits[0]
    apart = rendered_hits(copies)
    assert apart is not rendered_hits(hits) and apart.text == rendered_hits(hits).text == render_hits(copies)
    changed = [replace(hits[0], text="another text"), *hits[1:]]
    assert "another text" in rendered_hits(changed).text


def test_search_records_are_fresh_copies_of_each_hits_record(scenario) -> None:
    session, as_of = _session(scenario)
    first = session.search(QUERY, as_of=as_of, top_k=5, context=2)
    records = search_records(first)
    assert records == [hit_record(h) for h in first.hits]
    records[0]["score"] = -1.0
    records.append({"entry_id": "X"})
    again = search_records(session.search(QUERY, as_of=as_of, top_k=5, context=2))
    assert again == [hit_record(h) for h in first.hits] and again[0] is not records[0]
    pooled = SearchResult(first.hits, first.text, first.tokens)  # no rendering kept: built directly
    assert search_records(pooled) == [hit_record(h) for h in first.hits]


def test_the_audit_reads_the_sessions_lines_and_gives_the_same_figures(scenario) -> None:
    session, as_of = _session(scenario)
    session.search(QUERY, as_of=as_of, top_k=5, context=2)
    session.search_pooled(["headrest", "panel"], as_of=as_of, top_k=3)
    query = scenario.queries[0]
    plain = audit_hits(query, session.hits)
    assert session.figures(query)["memory_audit"] == plain
    assert audit_hits(query, session.hits, lines=session.lines) == plain
    assert plain["memory_tokens"] == count_tokens("\n".join(h.render() for h in session.hits))
    assert audit_hits(query, session.hits, lines=["short"]) == plain  # lines that do not match are not read


def test_neighbour_windows_are_cached_for_the_same_hit_objects_only(scenario) -> None:
    m = BM25Memory()
    m.ingest(scenario)
    as_of = scenario.queries[0].as_of
    hits = m.search(QUERY, as_of, 4)
    window = m.neighbours(hits, as_of, 2)
    missed = RESULTS.misses
    assert m.neighbours(m.search(QUERY, as_of, 4), as_of, 2) == window  # the cached search's objects: found
    assert RESULTS.misses == missed
    copies = [replace(h) for h in hits]
    assert m.neighbours(copies, as_of, 2) == window  # equal objects: computed again, the same window
    assert RESULTS.misses == missed + 1 and m.violations == 0
