"""The layered memory's experience layer and TriLink rules: distillation, links, gate, as_of, layers."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.memory import make_memory
from vmb_gym.memory.experiences import LLMDistiller, distill_history
from vmb_gym.memory.layered import LayeredMemory
from vmb_gym.memory.trilink import LAYERS, ExperienceGate, fact_links, parse_layers
from vmb_gym.testing import check_memory_module
from vmb_gym.types import Scenario

from .conftest import T0, make_lines

GARY, PAT = "Gary Allen", "Patricia Garcia"
DAY = 1440
NIGHT = 13 * 60  # 21:00 with T0 at 08:00

# (minute offset, speaker, text)
SCRIPT = [
    (NIGHT, GARY, "Set the seat heating to level 2, it is freezing tonight."),              # 1 routine, step 1
    (NIGHT + 1, GARY, "And dim the ambient light brightness to 1."),                           # 2 routine, step 2
    (NIGHT + 2, PAT, "Cosy."),                                                                 # 3 passenger
    (DAY + 60, GARY, "I always want the instrument panel color green."),                      # 4 usual
    (2 * DAY, PAT, "Set the fan speed to 3."),                                                 # 5 correction ...
    (2 * DAY + 1, PAT, "No, set the fan speed to 5."),                                         # 6 ... ends at 5
    (3 * DAY, GARY, "Set the instrument panel color to blue now."),                           # 7 supersedes 4
]


def _scenario() -> Scenario:
    return Scenario(1, (GARY, PAT), make_lines(SCRIPT), (), "synthetic")


def _memory(**kw) -> LayeredMemory:
    mem = LayeredMemory(semantic=False, **kw)
    mem.ingest(_scenario())
    return mem


def _end(mem: LayeredMemory):
    return mem.entries[-1].timestamp + timedelta(minutes=1)


def test_experiences_from_a_hand_written_history():
    mem = _memory()
    exps = mem.experiences(_end(mem))
    routine = [e for e in exps if e.kind == "routine" and e.person == GARY]
    assert len(routine) == 1
    r = routine[0]
    assert r.time_of_day == "night" and r.passenger == PAT
    assert {s.setting.split("|")[0].split(".")[0] for s in r.steps} == {"seat", "light"}
    assert {s.value for s in r.steps} == {"2", "1"}
    assert set(r.line_ids) == {1, 2}
    assert len(r.change_indices) == 2 and {"routine", "gary"} <= r.keywords
    usual = [e for e in exps if e.kind == "usual"]
    assert [(e.person, e.line_ids, e.steps[0].value) for e in usual] == [(GARY, (4,), "green")]
    (corr,) = [e for e in exps if e.kind == "correction"]
    assert corr.person == PAT and corr.steps[0].value == "5" and set(corr.line_ids) == {5, 6}
    assert [e.exp_id for e in exps] == [f"E{i + 1}" for i in range(len(exps))]


def test_superseding_fact_inherits_experience_links():
    mem = _memory()
    as_of = _end(mem)
    facts = mem.facts(as_of)
    (panel,) = [f for f in facts if f.person == GARY and "instrumentPanel" in f.setting]
    assert [r.line_id for r in panel.revisions] == [4, 7]  # line 7 supersedes line 4
    usual = next(e for e in mem.experiences(as_of, facts) if e.kind == "usual")
    links = fact_links(facts, mem.experiences(as_of, facts))
    assert usual.exp_id in {e.exp_id for e in links[panel.fact_id]}  # the active revision (line 7) inherits
    # without the facts layer each change is its own item: line 7's item has no link to line 4's experience
    flat = _memory(layers=("experiences", "changes"))
    items = flat.facts(as_of)
    (seven,) = [f for f in items if f.active.line_id == 7]
    assert seven.fact_id not in fact_links(items, flat.experiences(as_of, items))


def test_update_keeps_the_links_of_the_superseded_entry():
    mem = _memory()
    new_id = mem.update("L4", "I always want the instrument panel color red.", when=_end(mem))
    as_of = _end(mem) + timedelta(minutes=1)
    facts = mem.facts(as_of)
    (panel,) = [f for f in facts if any(mem.entries[r.index].entry_id == new_id for r in f.revisions)]
    links = fact_links(facts, mem.experiences(as_of, facts))
    assert any(e.kind == "usual" for e in links[panel.fact_id])


def test_gate_routine_request_gets_the_experience_after_the_facts():
    mem = _memory()
    as_of = _end(mem)
    hits = mem.search("Gary: heat my seat like my usual night routine", as_of=as_of, top_k=3)
    layers = [h.layer for h in hits]
    assert "experience" in layers
    first_exp = layers.index("experience")
    assert all(lay == "experience" for lay in layers[first_exp:])  # experiences come after the top_k hits
    assert len([lay for lay in layers if lay != "experience"]) <= 3
    exp = next(h for h in hits if h.layer == "experience")
    assert exp.people == (GARY,) and "routine" in exp.text
    # no routine/usual cue: the gate keeps experiences out, and the hits are those without the layer
    plain = mem.search("Gary: heat my seat", as_of=as_of, top_k=3)
    assert all(h.layer != "experience" for h in plain)
    off = _memory(layers=("facts", "changes"))
    assert [h.entry_id for h in off.search("Gary: heat my seat", as_of=as_of, top_k=3)] == [h.entry_id for h in plain]
    # a gate above every relevance admits none
    shut = _memory(gate=ExperienceGate(link_gate=99.0, direct_gate=99.0))
    assert all(h.layer != "experience" for h in shut.search("Gary: heat my seat like my usual night routine",
                                                            as_of=as_of, top_k=3))


def test_as_of_no_experience_from_later_lines():
    mem = _memory()
    lines = {ln.line_id: ln for ln in _scenario().lines}
    for cut_line in (2, 4, 5, 6):
        as_of = lines[cut_line].timestamp
        for e in mem.experiences(as_of):
            assert e.timestamp <= as_of
            assert all(lines[i].timestamp <= as_of for i in e.line_ids)
    # at line 5 (fan 3) the correction to 5 is not said yet: no correction experience exists
    assert not [e for e in mem.experiences(lines[5].timestamp) if e.kind == "correction"]
    for q in ("Patricia wants her usual fan speed", "Gary's usual instrument panel color"):
        for h in mem.search(q, as_of=lines[5].timestamp, top_k=5):
            assert all(i <= 5 for i in h.line_ids)
    assert mem.violations == 0


class FakeChat:
    """A scripted chat backend: one routine per day it is shown, citing the day's first line."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def chat(self, messages, tools=None):
        text = messages[-1]["content"]
        self.seen.append(text)
        first = int(text.split()[0].lstrip("#"))
        item = {"kind": "routine", "person": GARY, "steps": [{"setting": "seat.heating", "value": "2"}],
                "keywords": ["warm"], "line_ids": [first, 999]}
        return {"content": "Here: " + json.dumps([item]), "tool_calls": []}


def test_llm_distiller_with_a_fake_backend_is_stamped_per_day():
    chat = FakeChat()
    mem = _memory(distiller=chat)
    assert len(chat.seen) == 4 and mem.llm_experiences  # one call per day of history
    lines = _scenario().lines
    for e in mem.llm_experiences:
        assert 999 not in e.line_ids  # a line the model invented is dropped
    day1_end = lines[2].timestamp
    visible = [e for e in mem.experiences(day1_end) if e.exp_id.startswith("X")]
    assert [e.line_ids for e in visible] == [(1,)]
    assert not [e for e in mem.experiences(lines[0].timestamp) if e.exp_id.startswith("X")]  # day 1 not over
    bad = LLMDistiller(type("B", (), {"chat": lambda self, m, t=None: {"content": "no json", "tool_calls": []}})())
    assert bad.distill(lines) == []


def test_distill_history_reads_only_what_it_is_given():
    mem = _memory()
    rows = [c for c in mem.changes if c.line_id <= 2]
    exps = distill_history(rows)
    assert exps and all(set(e.line_ids) <= {1, 2} for e in exps)


def test_layers_option_and_variant_names():
    assert parse_layers("facts+changes") == {"facts", "changes"}
    for bad in ((), ("facts", "diffs"), "facts+nope"):
        with pytest.raises(ConfigError) as err:
            LayeredMemory(semantic=False, layers=bad)
        assert all(n in str(err.value) for n in LAYERS)
    m = make_memory("layered:facts+changes", semantic=False)
    assert m.layers == {"facts", "changes"}
    with pytest.raises(ConfigError):
        make_memory("layered:", semantic=False)
    no_changes = _memory(layers=("facts", "experiences"))
    hit = next(h for h in no_changes.search("Gary instrument panel color", as_of=_end(no_changes), top_k=5)
               if h.layer == "fact" and "instrumentPanel" in h.text)
    assert "[superseded]" not in hit.text
    full_hit = next(h for h in _memory().search("Gary instrument panel color", as_of=_end(no_changes), top_k=5)
                    if h.layer == "fact" and "instrumentPanel" in h.text)
    assert "[superseded]" in full_hit.text
    only_exp = _memory(layers=("experiences",))
    assert all(
        h.layer in ("support", "experience") for h in only_exp.search("Gary instrument panel", as_of=_end(only_exp))
    )


@pytest.mark.parametrize("variant", ["layered", "layered:facts+changes", "layered:experiences+changes",
                                     "layered:facts+experiences", "layered:experiences"])
def test_contract_on_each_variant(variant):
    check_memory_module(variant, semantic=False)


def test_stream_env_writes_agent_experiences():
    import gymnasium as gym

    import vmb_gym  # noqa: F401 - registers the envs

    env = gym.make("VehicleMemStream-v0", data="default", files=[1], store="layered",
                   store_kwargs={"semantic": False}, window_days=1)
    obs, info = env.reset(seed=0)
    store = env.unwrapped.store
    done, requests, written = False, 0, []
    while not done:
        if info["phase"] == "write":
            action = {"name": "skip", "arguments": {}}
        else:
            action = [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
                      {"name": "finish", "arguments": {}}]
        obs, reward, done, _, info = env.step(action)
        if "query_metrics" in info:
            requests += 1
            written.append((info["task_id"], reward))
    assert requests >= 1 and len(store.agent_experiences) == requests
    for e, (_, reward) in zip(store.agent_experiences, written, strict=True):
        assert e.kind == "agent" and e.outcome == pytest.approx(reward)
        assert e.steps[0].setting == "carcontrol_seat_set_heating_level"
    bm25 = gym.make("VehicleMemStream-v0", data="default", files=[1], window_days=1)  # a store without experiences
    bm25.reset(seed=0)


def test_routine_said_in_one_utterance_has_a_step_per_clause():
    script = [(NIGHT, GARY, "Set the seat heating to level 2. Same routine: ambient light color blue.")]
    mem = LayeredMemory(semantic=False)
    mem.ingest(Scenario(1, (GARY,), make_lines(script), (), "synthetic"))
    (r,) = [e for e in mem.experiences(T0 + timedelta(days=1)) if e.kind == "routine"]
    assert [s.value for s in r.steps] == ["2", "blue"] and r.line_ids == (1,)


def test_companion_clause_needs_no_value():
    script = [(NIGHT, GARY, "After some fiddling I'm sure: 480p for the video resolution. "
                            "Same routine: the sunroof lock locked.")]
    mem = LayeredMemory(semantic=False)
    mem.ingest(Scenario(1, (GARY,), make_lines(script), (), "synthetic"))
    (r,) = [e for e in mem.experiences(T0 + timedelta(days=1)) if e.kind == "routine"]
    assert len(r.steps) == 2 and r.steps[0].value == "480p" and "sunroof" in r.steps[1].setting


def test_routine_cites_every_line_of_its_session():
    script = [
        (NIGHT, GARY, "I'll go with the leg support height at 95 percent today."),
        (NIGHT + 2, GARY, "Actually, dial it back to 30 percent. Plus heating on the left mirror switched on, always."),
        (NIGHT + 3, GARY, "Much better. 30 percent is what I want for the leg rest height."),
    ]
    mem = LayeredMemory(semantic=False)
    mem.ingest(Scenario(1, (GARY,), make_lines(script), (), "synthetic"))
    (r,) = [e for e in mem.experiences(T0 + timedelta(days=1)) if e.kind == "routine"]
    # line 3 restates line 2's setting; the routine still cites (and quotes) line 2, which says the companion
    assert r.line_ids == (1, 2, 3) and any("left mirror" in q for q in r.quotes)
