"""Context modules, the LLM-built memories (scripted backend), layered facts, audit, CLI."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.memory import count_tokens, make_memory
from vmb_gym.memory.audit import audit_hits, run_audit
from vmb_gym.memory.base import MemoryHit
from vmb_gym.memory.summary import EMPTY_SENTINEL, TRUNCATION_NOTE, truncate_memory
from vmb_gym.memory.tokens import tokenizer_name



def test_none_and_gold(scenario):
    n = make_memory("none")
    n.ingest(scenario)
    assert n.context(scenario.queries[0]) == "" and not n.provides_search and not n.provides_context
    g = make_memory("gold")
    g.ingest(scenario)
    assert g.context(scenario.queries[0]) == scenario.queries[0].gold_memory


def test_full_history_keeps_most_recent_within_budget(scenario):
    m = make_memory("full_history", max_tokens=40)
    m.ingest(scenario)
    ctx = m.context(scenario.queries[0])
    assert count_tokens(ctx) <= 40 + len(ctx.splitlines())
    assert ctx.splitlines()[-1].endswith("lower the headrest to 3.")
    assert "green instrument panel" not in ctx
    big = make_memory("full_history", max_tokens=100_000)
    big.ingest(scenario)
    assert len(big.context(scenario.queries[0]).splitlines()) == len(scenario.lines)
    with pytest.raises(ConfigError):
        make_memory("full_history", max_tokens=0)


def test_full_history_respects_as_of(scenario):
    from dataclasses import replace

    m = make_memory("full_history", max_tokens=100_000)
    m.ingest(scenario)
    q = replace(scenario.queries[0], as_of=scenario.lines[3].timestamp)
    assert len(m.context(q).splitlines()) == 4


def test_count_tokens():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert tokenizer_name() in ("cl100k", "whitespace")


class ScriptedLLM:
    """Deterministic backend: replies are produced by a function of the messages."""

    def __init__(self, fn):
        self.fn = fn
        self.calls = 0

    def chat(self, messages, tools):
        self.calls += 1
        return self.fn(messages, tools, self.calls)


def test_summary_one_call_per_day_and_sentinel(scenario):
    def fn(messages, tools, n):
        assert [t["function"]["name"] for t in tools] == ["memory_update"]
        day = messages[-1]["content"]
        if "headrest" in day:
            prev = messages[-1]["content"].split("Current memory:\n")[1].split("\n\n")[0]
            return {
                "content": "",
                "tool_calls": [
                    {"name": "memory_update", "arguments": json.dumps({"new_memory": f"{prev}\n- headrest noted"})}
                ],
            }
        return {"content": "nothing", "tool_calls": []}

    llm = ScriptedLLM(fn)
    m = make_memory("summary", llm=llm)
    m.ingest(scenario)
    days = len({ln.timestamp.date() for ln in scenario.lines})
    assert llm.calls == days == m.build_calls
    assert m.context(scenario.queries[0]).startswith(EMPTY_SENTINEL)
    assert m.context(scenario.queries[0]).count("- headrest noted") == 2
    # an earlier as_of sees only the days before it
    from dataclasses import replace

    early = replace(scenario.queries[0], as_of=scenario.lines[1].timestamp + timedelta(days=1))
    assert m.context(early) == EMPTY_SENTINEL


def test_summary_bad_json_uses_regex_fallback(scenario):
    llm = ScriptedLLM(lambda m, t, n: {"content": "", "tool_calls": [
        {"name": "memory_update", "arguments": '{"new_memory": "- Gary: green panel'}]})
    m = make_memory("summary", llm=llm)
    m.ingest(scenario)
    assert m.context(scenario.queries[0]) == "- Gary: green panel"


def test_summary_truncation_rule():
    bullets = "".join(f"\n- item {i:05d} " + "x" * 80 for i in range(200))
    out = truncate_memory(bullets)
    assert out.endswith("\n" + TRUNCATION_NOTE)
    body = out[: -len(TRUNCATION_NOTE) - 1]
    assert 4096 < len(body) <= 8192 and bullets[len(body):].startswith("\n-")
    flat = "y" * 9000
    assert truncate_memory(flat) == "y" * 8192 + "\n" + TRUNCATION_NOTE
    assert truncate_memory("short") == "short"
    with pytest.raises(ConfigError):
        make_memory("summary")


def test_key_value_build_and_official_search(scenario):
    def fn(messages, tools, n):
        assert {t["function"]["name"] for t in tools} == {"memory_add", "memory_remove", "memory_search"}
        if messages[-1]["role"] == "tool":
            return {"content": "done", "tool_calls": []}
        day = messages[-1]["content"]
        calls = []
        if "green instrument panel" in day:
            calls.append({"name": "memory_add", "arguments": {"key": "Gary_panel_color", "value": "green"}})
        if "changed the panel to white" in day:
            calls.append(
                {"name": "memory_add", "arguments": {"key": "Patricia_panel_color", "value": "white at night"}}
            )
        if "headrest to 3" in day:
            calls.append({"name": "memory_remove", "arguments": {"key": "Gary_panel_color"}})
        return {"content": "", "tool_calls": calls}

    m = make_memory("key_value", llm=ScriptedLLM(fn))
    m.ingest(scenario)
    kv = m.store_kv
    assert kv.search("Patricia_panel_color")["results"] == {"Patricia_panel_color": "white at night"}
    assert kv.search("WHITE")["results"] == {"Patricia_panel_color": "white at night"}
    assert kv.search("sunroof")["results"] == {} and "message" in kv.search("sunroof")
    assert kv.list() == {"success": True, "keys": ["Patricia_panel_color"], "count": 1}
    assert m.tool({"name": "memory_list", "arguments": {}})["count"] == 1
    # as of the second day, Gary's key still existed and Patricia's did not
    day2 = scenario.lines[4].timestamp
    hits = m.search("panel_color", as_of=day2 + timedelta(hours=1), top_k=5)
    assert [h.text for h in hits] == ["Gary_panel_color: green"]
    assert m.violations == 0


def test_layered_facts_supersede_and_link(scenario):
    m = make_memory("layered", semantic=False)
    m.ingest(scenario)
    facts = m.facts(scenario.lines[-1].timestamp)
    head = [f for f in facts if f.setting.startswith("seat.headrest")]
    assert {f.person for f in head} == {"Patricia Garcia", "Gary Allen"}
    hh = make_memory("layered", semantic=False, per_person=False)
    hh.ingest(scenario)
    (chain,) = [f for f in hh.facts(scenario.lines[-1].timestamp) if f.setting.startswith("seat.headrest")]
    assert [r.line_id for r in chain.revisions] == [11, 12]
    assert chain.links() == [(f"{chain.fact_id}.r1", None), (f"{chain.fact_id}.r2", f"{chain.fact_id}.r1")]
    hits = hh.search("adjust the headrest height", as_of=scenario.lines[-1].timestamp, top_k=1)
    assert hits[0].layer == "fact" and hits[0].line_ids == (12, 11) and "[superseded]" in hits[0].text
    # before line 12, the chain has one revision
    hits = hh.search("headrest", as_of=scenario.lines[10].timestamp, top_k=1)
    assert hits[0].line_ids == (11,)


def test_layered_policy_setting_write_becomes_newest_revision(scenario):
    m = make_memory("layered", semantic=False, per_person=False)
    m.ingest(scenario)
    now = scenario.lines[-1].timestamp + timedelta(minutes=5)
    eid = m.store(
        "Gary wants the headrest at 10 from now on", people=("Gary Allen",), setting="seat.headrest", when=now
    )
    hits = m.search("headrest", as_of=now, top_k=3)
    assert hits[0].entry_id == eid or eid in hits[0].text or "headrest at 10" in hits[0].text


def test_audit_hits_values(scenario):
    q = scenario.queries[0]  # events: line 1, line 5
    ts = scenario.lines[0].timestamp
    hits = [MemoryHit("L3", "x", 1.0, ts, (3,)), MemoryHit("L5", "y", 0.9, ts, (5,)),
            MemoryHit("L9", "z", 0.8, ts, (9,)), MemoryHit("L1", "w", 0.7, ts, (1,))]
    a = audit_hits(q, hits, ks=[1, 2, 4])
    assert a["first_hit_ranks"] == [4, 2]
    assert a["recall@1"] == 0.0 and a["recall@2"] == 0.5 and a["recall@4"] == 1.0
    assert a["all_recall@2"] == 0.0 and a["all_recall@4"] == 1.0
    assert a["precision@4"] == 0.5 and a["mrr"] == 0.5
    assert a["memory_tokens"] > 0


def test_run_audit_bm25(scenario):
    res = run_audit([scenario], make_memory("bm25"), ks=[1, 5])
    assert res["violations"] == 0 and res["overall"]["tasks"] == 3
    assert res["overall"]["recall@5"] >= 2 / 3
    assert set(res["by_reasoning_type"]) == {"preference_conflict", "error_correction"}
    assert len(res["tasks"]) == 3 and res["latency_ms"]["p50"] is not None


@pytest.mark.slow
def test_minilm_dense_on_small_official_history(official: Path):
    root = official
    from dataclasses import replace

    from vmb_gym.data import load_scenarios

    sc = load_scenarios(f"official:{root}")[0]
    small = replace(sc, lines=sc.lines[:120], queries=())
    m = make_memory("dense")
    m.ingest(small)
    hits = m.search("green instrument panel", as_of=small.lines[-1].timestamp, top_k=5)
    assert 97 in {i for h in hits for i in h.line_ids}  # "I really love this green instrument panel"
    assert m.violations == 0


def test_cli_memory_audit_on_official_subset(tmp_path, official: Path):
    root = official
    from vmb_gym.cli import main

    rc = main(["memory-audit", "--data", f"official:{root}", "--memory", "bm25", "--k", "5,10",
               "--limit", "2", "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    rep = json.loads((tmp_path / "audit.json").read_text())
    assert rep["queries"] == 20 and set(rep["modules"]) == {"bm25"}
    for mod in rep["modules"].values():
        assert 0 <= mod["overall"]["recall@10"] <= 1 and mod["violations"] == 0
        assert len(mod["tasks"]) == 20
    assert 0.2 < rep["modules"]["bm25"]["overall"]["recall@10"] < 0.8
    assert (tmp_path / "audit.png").stat().st_size > 1000


def test_layered_beats_bm25_on_official_subset(official: Path):
    root = official
    from vmb_gym.data import load_scenarios

    scs = load_scenarios(f"official:{root}")[:3]
    bm = run_audit(scs, make_memory("bm25"), ks=[10])["overall"]["recall@10"]
    lay = run_audit(scs, make_memory("layered", semantic=False), ks=[10])
    assert lay["violations"] == 0
    assert lay["overall"]["recall@10"] >= bm + 0.1
