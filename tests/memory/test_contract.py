"""The memory contract, parametrised over the built-in retrieval modules (no model weights)."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from vmb_gym.errors import ConfigError, UnknownMemoryError
from vmb_gym.memory import SUPERSEDED, MemoryHit, MemoryModule, list_memories, make_memory, register_memory
from vmb_gym.memory.base import BaseMemory
from vmb_gym.memory.retrieval import HashingEmbedder
from vmb_gym.types import Scenario

from .conftest import make_lines

SEARCH_KW = {
    "bm25": {},
    "dense": {"embedder": HashingEmbedder()},
    "hybrid": {"embedder": HashingEmbedder()},
    "layered": {"embedder": HashingEmbedder()},
}


@pytest.fixture(params=sorted(SEARCH_KW))
def mem(request):
    return make_memory(request.param, **SEARCH_KW[request.param])


def test_registry_lists_builtins_and_rejects_unknown():
    names = list_memories()
    for n in ("none", "gold", "full_history", "bm25", "dense", "hybrid", "layered", "summary", "key_value"):
        assert n in names
    with pytest.raises(UnknownMemoryError) as err:
        make_memory("nope")
    assert "bm25" in str(err.value) and "layered" in str(err.value)


def test_register_memory_and_protocol():
    class Mine(BaseMemory):
        name = "mine"

    register_memory("mine_test", Mine)
    try:
        m = make_memory("mine_test")
        assert isinstance(m, MemoryModule)
        assert "mine_test" in list_memories()
        with pytest.raises(ValueError):
            register_memory("mine_test", Mine)
    finally:
        from vmb_gym.memory import registry

        registry._REGISTRY.pop("mine_test", None)


def test_entry_point_group_is_scanned(monkeypatch):
    from vmb_gym.memory import registry

    class FakeEP:
        name = "ep_mem"
        value = "x:y"

        def load(self):
            return lambda **kw: make_memory("bm25")

    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    monkeypatch.setattr(registry, "entry_points", lambda group: [FakeEP()] if group == "vmb_gym.memory" else [])
    try:
        assert "ep_mem" in list_memories()
        assert make_memory("ep_mem").name == "bm25"
    finally:
        registry._REGISTRY.pop("ep_mem", None)


def test_search_finds_the_stated_preference(mem, scenario):
    mem.ingest(scenario)
    q = scenario.queries[1]
    hits = mem.search(q.text, as_of=q.as_of, top_k=3)
    cited = {i for h in hits for i in h.line_ids}
    assert {11, 12} & cited
    assert all(isinstance(h, MemoryHit) for h in hits)
    assert mem.violations == 0


def test_nothing_later_than_as_of(mem, scenario):
    mem.ingest(scenario)
    as_of = scenario.lines[5].timestamp  # line 6: before the headrest lines 11-12
    for text in ("headrest height", "seat ventilation level", "instrument panel white green"):
        hits = mem.search(text, as_of=as_of, top_k=20)
        assert all(h.timestamp <= as_of for h in hits)
        assert all(i <= 6 for h in hits for i in h.line_ids)
    assert mem.violations == 0


def test_violation_counter_catches_a_leaking_backend(scenario):
    class Leaky(BaseMemory):
        name = "leaky"
        provides_search = True

        def _rank(self, text, allowed, as_of, top_k, person):
            return [e.to_hit(1.0) for e in self.entries]  # ignores the mask on purpose

    m = Leaky()
    m.ingest(scenario)
    hits = m.search("x", as_of=scenario.lines[2].timestamp, top_k=50)
    assert [h.line_ids for h in hits] == [(1,), (2,), (3,)]
    assert m.violations == len(scenario.lines) - 3


def test_neighbours_show_same_day_lines_around_each_hit(scenario):
    mem = make_memory("bm25")
    mem.ingest(scenario)
    late = scenario.lines[-1].timestamp
    hits = mem.search("navigation voice detailed turn", as_of=late, top_k=1)
    assert [h.line_ids for h in hits] == [(3,)]
    assert mem.neighbours(hits, late, 0) == hits
    one = mem.neighbours(hits, late, 1)
    assert [h.line_ids for h in one] == [(2,), (3,), (4,)]  # time order around the hit
    assert one[1] is hits[0] and {h.layer for h in (one[0], one[2])} == {"context"}
    # line 5 is said the next day: context never crosses into another day
    assert [h.line_ids for h in mem.neighbours(hits, late, 3)] == [(1,), (2,), (3,), (4,)]
    # nothing later than as_of, even as a neighbour
    assert [h.line_ids for h in mem.neighbours(hits, scenario.lines[2].timestamp, 1)] == [(2,), (3,)]
    # two hits of one window: every line once
    two = mem.search("green instrument panel forest calming", as_of=scenario.lines[3].timestamp, top_k=2)
    ids = [h.line_ids for h in mem.neighbours(two, late, 3)]
    assert len(ids) == len(set(ids)) and set(ids) <= {(1,), (2,), (3,), (4,)}
    assert mem.violations == 0


def test_neighbours_keep_every_hit_of_any_module(mem, scenario):
    mem.ingest(scenario)
    late = scenario.lines[-1].timestamp
    hits = mem.search("headrest height", as_of=late, top_k=3)
    shown = mem.neighbours(hits, late, 2)
    assert {h.entry_id for h in hits} <= {h.entry_id for h in shown}
    assert all(h.timestamp is None or h.timestamp <= late for h in shown)
    assert mem.violations == 0


def test_scenarios_are_isolated(mem, scenario):
    other_lines = make_lines([(0, "Zed Quux", "The sunroof must stay closed, always.")])
    other = Scenario(2, ("Zed Quux",), other_lines, (), "synthetic")
    mem.ingest(other)
    mem.ingest(scenario)
    hits = mem.search("sunroof closed", as_of=scenario.lines[-1].timestamp, top_k=20)
    assert all("sunroof" not in h.text.lower() for h in hits)


def test_observe_is_incremental_and_ordered(mem, scenario):
    mem.reset(1, scenario.speakers)
    for ln in scenario.lines[:6]:
        mem.observe(ln)
    early = mem.search("headrest", as_of=scenario.lines[5].timestamp, top_k=10)
    assert not {i for h in early for i in h.line_ids} & {11, 12}
    for ln in scenario.lines[6:]:
        mem.observe(ln)
    hits = mem.search("headrest height", as_of=scenario.lines[-1].timestamp, top_k=5)
    assert {11, 12} & {i for h in hits for i in h.line_ids}
    with pytest.raises(ConfigError):
        mem.observe(scenario.lines[0])  # out of time order


def test_store_update_delete(mem, scenario):
    mem.ingest(scenario)
    now = scenario.lines[-1].timestamp
    eid = mem.store("Gary likes the sunroof half open on sunny days", people=("Gary Allen",), when=now)
    hits = mem.search("sunroof sunny", as_of=now, top_k=5)
    assert any(h.entry_id == eid for h in hits)
    new = mem.update(eid, "Gary likes the sunroof fully closed now", when=now + timedelta(minutes=1))
    assert mem.get(eid).status == SUPERSEDED and mem.get(eid).superseded_by == new
    assert [e.entry_id for e in mem.revisions(new)] == [eid, new]
    hits = mem.search("sunroof", as_of=now + timedelta(minutes=1), top_k=5)
    ids = [h.entry_id for h in hits]
    assert new in ids and eid not in ids
    # the update is not visible before it was made
    assert new not in [h.entry_id for h in mem.search("sunroof", as_of=now, top_k=5)]
    mem.delete(new)
    assert new not in [h.entry_id for h in mem.search("sunroof closed", as_of=now + timedelta(minutes=1), top_k=5)]
    # a new ingest starts the episode from the history alone
    mem.ingest(scenario)
    assert not any(e.source == "policy" for e in mem.entries)
    assert mem.violations == 0


def test_person_filter(scenario):
    m = make_memory("bm25")
    m.ingest(scenario)
    hits = m.search("headrest", as_of=scenario.lines[-1].timestamp, top_k=5, person="Gary")
    assert hits and all(h.people == ("Gary Allen",) for h in hits)


def test_search_needs_as_of_and_search_capable_module(scenario):
    m = make_memory("bm25")
    m.ingest(scenario)
    with pytest.raises(ConfigError):
        m.search("x", as_of=None)  # type: ignore[arg-type]
    g = make_memory("gold")
    g.ingest(scenario)
    with pytest.raises(ConfigError):
        g.search("x", as_of=scenario.lines[-1].timestamp)


def test_ingest_is_cached_in_process(scenario, monkeypatch):
    a = make_memory("bm25")
    builds: list[str] = []
    build = type(a)._finish_ingest  # the index build of a fresh ingest; a snapshot restore skips it

    def counted(self):
        builds.append(self.key or "")
        return build(self)

    monkeypatch.setattr(type(a), "_finish_ingest", counted)
    a.ingest(scenario)
    assert len(builds) == 1
    b = make_memory("bm25")
    b.ingest(scenario)
    assert len(builds) == 1  # the second instance restored the snapshot: no second build
    assert [e.entry_id for e in b.entries] == [e.entry_id for e in a.entries]
    assert b.search("headrest", as_of=scenario.lines[-1].timestamp) == a.search(
        "headrest", as_of=scenario.lines[-1].timestamp
    )


def test_dense_disk_cache_survives_corruption(tmp_path, scenario):
    from vmb_gym.memory.base import clear_snapshots
    from vmb_gym.memory.cache import cache_dir

    m = make_memory("dense", embedder=HashingEmbedder())
    m.ingest(scenario)
    files = list(cache_dir().rglob("*.npy"))
    assert len(files) == 1
    ref = m._dense.matrix.copy()
    files[0].write_bytes(b"garbage")
    clear_snapshots()
    m2 = make_memory("dense", embedder=HashingEmbedder())
    m2.ingest(scenario)
    assert m2._dense.cache_hit is False
    np.testing.assert_allclose(m2._dense.matrix, ref)
    clear_snapshots()
    m3 = make_memory("dense", embedder=HashingEmbedder())
    m3.ingest(scenario)
    assert m3._dense.cache_hit is True
