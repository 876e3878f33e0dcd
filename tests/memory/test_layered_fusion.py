"""layered: fact hits fused with plain line hits (RRF), no line repeated, provenance intact."""

from __future__ import annotations

from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.layered import LayeredMemory


def test_fused_ranking_mixes_facts_and_lines(scenario):
    mem = LayeredMemory(semantic=False)
    mem.ingest(scenario)
    q = scenario.queries[0]
    hits = mem.search(q.text, as_of=q.as_of, top_k=8)
    assert hits[0].layer == "fact" and len(hits) == 8
    seen: list[int] = []
    for h in hits:  # a support line never repeats a line a better hit already cites
        if h.layer == "support":
            assert not set(h.line_ids) <= set(seen)
        seen.extend(h.line_ids)
    by_id = {ln.line_id: ln for ln in scenario.lines}
    for h in hits:  # every cited line is shown in the hit's text
        for lid in h.line_ids:
            assert by_id[lid].text in h.text
    assert audit_hits(q, hits, ks=(8,))["recall@8"] == 1.0
    assert mem.violations == 0


def test_facts_first_mode_still_available(scenario):
    mem = LayeredMemory(semantic=False, fuse_lines=False)
    mem.ingest(scenario)
    q = scenario.queries[1]
    hits = mem.search(q.text, as_of=q.as_of, top_k=3)
    assert hits[0].layer == "fact"
    assert mem.violations == 0
