"""The in-process search-result cache of the retrieval modules, the query tokeniser and the cheap restore."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import ClassVar

import numpy as np
import pytest

from vmb_gym.memory.base import RESULTS, clear_snapshots, scenario_key
from vmb_gym.memory.retrieval import BM25Memory, DenseMemory, HashingEmbedder, HybridMemory, bm25_tokenize, query_tokens
from vmb_gym.types import Scenario

from .conftest import make_lines

WIDE = "I prefer the green or white panel, seat ventilation, headrest"
QUERIES = ("instrument panel color", "seat ventilation level", "headrest height", "Gary green")


def fresh(cls, scenario):
    """A module of ``cls`` that has never searched (the cache emptied first)."""
    clear_snapshots()
    m = cls() if cls is BM25Memory else cls(HashingEmbedder(), use_disk_cache=False)
    m.ingest(scenario)
    return m


@pytest.mark.parametrize("cls", [BM25Memory, DenseMemory, HybridMemory])
def test_a_cached_result_equals_a_fresh_one(cls, scenario):
    as_of = scenario.queries[0].as_of
    m = fresh(cls, scenario)
    first = {
        (q, k, c): m.neighbours(m.search(q, as_of, k), as_of, c) for q in QUERIES for k in (1, 3, 8) for c in (0, 2)
    }
    hits_before = RESULTS.hits
    again = {
        (q, k, c): m.neighbours(m.search(q, as_of, k), as_of, c) for q in QUERIES for k in (1, 3, 8) for c in (0, 2)
    }
    assert RESULTS.hits - hits_before == 24 + 12  # every search again, and every neighbour window with context 2
    assert again == first
    other = fresh(cls, scenario)  # nothing cached: the same results computed again
    assert {(q, k, c): other.neighbours(other.search(q, as_of, k), as_of, c) for q, k, c in first} == first
    assert m.stats()["searches"] == 48 and m.violations == 0  # cached searches count as searches


def test_a_different_query_top_k_person_or_time_misses(scenario):
    m = fresh(BM25Memory, scenario)
    as_of = scenario.queries[0].as_of
    m.search(WIDE, as_of, 3)
    misses = RESULTS.misses
    assert m.search(WIDE, as_of, 3) and RESULTS.misses == misses
    five = m.search(WIDE, as_of, 5)
    assert RESULTS.misses == misses + 1 and len(five) > 3
    gary = m.search(WIDE, as_of, 3, person="Gary")
    assert RESULTS.misses == misses + 2 and all("Gary Allen" in h.people for h in gary)
    early = scenario.lines[4].timestamp
    assert all(h.timestamp <= early for h in m.search(WIDE, early, 3))
    assert RESULTS.misses == misses + 3
    assert [h.entry_id for h in m.search("seat ventilation", as_of, 3)] != [h.entry_id for h in five[:3]]


def test_writes_are_never_answered_from_the_cache(scenario):
    m = fresh(BM25Memory, scenario)
    as_of = scenario.queries[0].as_of
    before = m.search("headrest height", as_of, 5)
    eid = m.store("Patricia: headrest height at 7 from now on", people=("Patricia Garcia",), when=as_of)
    with_write = m.search("headrest height", as_of, 5)
    assert eid in [h.entry_id for h in with_write] and with_write != before
    m.delete(eid)
    assert eid not in [h.entry_id for h in m.search("headrest height", as_of, 5)]
    m.ingest(scenario)  # back to the history alone: cached again, and the same as before the writes
    assert m.search("headrest height", as_of, 5) == before


def test_a_reset_to_another_scenario_does_not_leak(scenario):
    other_lines = tuple(replace(ln, text=ln.text.replace("headrest", "head restraint"))
                        for ln in make_lines(start=scenario.lines[0].timestamp + timedelta(days=1)))
    other = Scenario(2, scenario.speakers, other_lines, (), "synthetic")
    m = fresh(BM25Memory, scenario)
    as_of = other_lines[-1].timestamp
    on_first = m.search("head restraint headrest", as_of, 5)
    m.ingest(other)
    on_other = m.search("head restraint headrest", as_of, 5)
    assert on_other != on_first and all("head restraint" in h.text for h in on_other)
    alone = BM25Memory()
    clear_snapshots()
    alone.ingest(other)
    assert alone.search("head restraint headrest", as_of, 5) == on_other
    m.ingest(scenario)
    assert m.search("head restraint headrest", as_of, 5) == on_first


class LateBM25(BM25Memory):
    """A module whose ranking also returns an entry later than ``as_of`` (a violation, dropped)."""

    search_cache: ClassVar[bool] = True

    def _rank(self, text, allowed, as_of, top_k, person):
        late = self.entries[-1].to_hit(9.0)
        return [late, *super()._rank(text, allowed, as_of, top_k, person)]


class RankOnMoreState(BM25Memory):
    """A subclass that ranks on state of its own: it does not inherit ``search_cache``."""

    boost = ""

    def _rank(self, text, allowed, as_of, top_k, person):
        return super()._rank(text + " " + self.boost, allowed, as_of, top_k, person)


def test_a_cached_search_counts_its_violations_again(scenario):
    m = LateBM25()
    m.ingest(scenario)
    as_of = scenario.lines[5].timestamp
    first = m.search("headrest", as_of, 3)
    assert m.violations == 1
    assert m.search("headrest", as_of, 3) == first and m.violations == 2


def test_caching_is_declared_by_the_class_itself(scenario):
    m = RankOnMoreState()
    m.ingest(scenario)
    as_of = scenario.queries[0].as_of
    plain = m.search("seat", as_of, 3)
    m.boost = "headrest headrest"
    assert m.search("seat", as_of, 3) != plain  # not answered from a cache
    assert m._result_key() is None and BM25Memory.search_cache and not vars(RankOnMoreState).get("search_cache")


def test_hybrid_results_depend_on_rrf_k(scenario):
    a, b = HybridMemory(HashingEmbedder(), use_disk_cache=False), HybridMemory(HashingEmbedder(), False, rrf_k=1)
    a.ingest(scenario)
    b.ingest(scenario)
    assert a._config_key() != b._config_key()
    as_of = scenario.queries[0].as_of
    assert [h.score for h in a.search("headrest", as_of, 3)] != [h.score for h in b.search("headrest", as_of, 3)]


def test_query_tokens_are_bm25s_tokens(scenario):
    from vmb_gym.data import load_scenarios

    texts = [ln.text for ln in scenario.lines] + list(QUERIES) + ["", "a an the", "It's 22°C, isn't it?"]
    for sc in load_scenarios("default", files=[1, 2]):
        texts += [f"{ln.speaker}: {ln.text}" for ln in sc.lines] + [q.text for q in sc.queries]
    assert [list(query_tokens(t)) for t in texts] == bm25_tokenize(texts)


def test_scenario_key_is_kept_by_the_tuple(scenario):
    lines = scenario.lines
    assert scenario_key(1, lines) == scenario_key(1, list(lines)) == scenario_key(1, tuple(ln for ln in lines))
    assert scenario_key(2, lines) != scenario_key(1, lines)


def test_a_restore_copies_entries_and_shares_frozen_arrays(scenario):
    m = BM25Memory()
    m.ingest(scenario)
    as_of = scenario.queries[0].as_of
    first = m.search("headrest height", as_of, 3)
    m.delete(first[0].entry_id)
    assert m.search("headrest height", as_of, 3)[0] != first[0]
    m.ingest(scenario)  # restored from the snapshot: the deleted entry is back
    assert m.search("headrest height", as_of, 3) == first
    assert m.get(first[0].entry_id).status == "active"
    stamps, active = m._arrays
    assert not stamps.flags.writeable and active.all() and len(stamps) == len(scenario.lines)
    assert np.array_equal(stamps, m._build_arrays()[0])


def test_restored_modules_share_entries_until_one_writes(scenario):
    a, b = BM25Memory(), BM25Memory()
    a.ingest(scenario)
    b.ingest(scenario)  # restored from a's snapshot
    c = BM25Memory()
    c.ingest(scenario)
    assert b.entries[0] is c.entries[0]  # shared, not copied
    as_of = scenario.queries[0].as_of
    top = b.search("headrest height", as_of, 3)[0].entry_id
    b.delete(top)
    new = c.update(top, "Gary Allen: headrest at 5 after all")
    assert b.get(top).status == "deleted" and c.get(top).status == "superseded" and c.get(top).superseded_by == new
    assert a.get(top).status == "active"
    d = BM25Memory()
    d.ingest(scenario)
    assert d.get(top).status == "active" and d.get(top).superseded_by is None
    assert d.search("headrest height", as_of, 3)[0].entry_id == top


def test_entry_copy_is_equal_and_independent(scenario):
    m = BM25Memory()
    m.ingest(scenario)
    e = m.entries[0]
    c = e.copy()
    assert c == e and c is not e
    c.status = "deleted"
    assert e.status == "active"
