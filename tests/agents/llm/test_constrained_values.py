"""Value and structure constraints (vmb_agents.llm.constrained): bounded integers, booleans, well-formed JSON around the
names, and no ``finish`` before a vehicle call (require_vehicle_call); the failure classes of
vmb_agents.train.lm_failures."""

from __future__ import annotations

import json
import re

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import (
    NameConstraint,
    call_slot,
    _earlier_tools,
    grammar_for,
    is_vehicle_call,
    literal_choices,
    next_tools,
)
from vmb_agents.llm.hf import HFPolicy
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from vmb_agents.llm.kv_decode import PrefixCacheDecoder
from vmb_agents.train.lm_failures import classify, model_calls
from tests.agents.llm.test_constrained_decoding import PrefixedConstraint  # tiny, index: tests/agents/llm/conftest.py
from vmb_gym.errors import ConfigError

LISTING = ("seat_set_heating_level(seat, level): Set seat heating level (1-3)\n"
           "seat_set_massage_mode(seat, enabled): Enable or disable seat massage")
LISTED_MSG = {"role": "tool", "name": "list_module_tools", "content": LISTING}
CALL = '<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_heating_level", "arguments": {'
TOOLS = ["search_memory", "list_module_tools", "call_vehicle", "finish"]


def _assistant(*names: str, arguments: dict | None = None) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"c{k}", "type": "function", "function": {"name": n, "arguments": dict(arguments or {})}}
        for k, n in enumerate(names)]}


HEAT = {"name": "seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}}


def test_scanner_reports_literals_completed_values_and_commas() -> None:
    s = call_slot(CALL + '"level": 1')
    assert (s.kind, s.path, s.partial, s.literal, s.depth) == ("value", ("arguments", "arguments", "level"), "1",
                                                               True, 3)
    s = call_slot(CALL + '"level": 12, ')
    assert (s.kind, s.path, s.used_keys, s.after_comma) == ("key", ("arguments", "arguments"), frozenset({"level"}),
                                                            True)
    s = call_slot(CALL + '"seat": "driver"')
    assert (s.kind, s.path, s.used_keys, s.depth) == ("after", ("arguments", "arguments"), frozenset({"seat"}), 3)
    s = call_slot(CALL + '"seat": "driver", "level": 2}')
    assert (s.kind, s.path, s.used_keys, s.depth) == ("after", ("arguments",), frozenset({"name", "arguments"}), 2)


def test_literal_choices_are_the_rich_schema_ranges_and_booleans() -> None:
    lits = literal_choices()
    assert lits["carcontrol_seat_set_heating_level"] == {"level": ("1", "2", "3")}
    assert lits["carcontrol_navigation_set_traffic_display"] == {"enabled": ("true", "false")}
    assert len(lits["carcontrol_video_set_volume"]["volume"]) == 101  # 0-100
    assert "carcontrol_instrumentPanel_set_total_mileage" not in lits  # no maximum: not written out


def test_next_tools_withhold_finish_until_a_vehicle_call() -> None:
    user = {"role": "user", "content": "warm my seat"}
    assert next_tools([user], TOOLS) == ("search_memory", "list_module_tools", "call_vehicle")
    searched = [user, _assistant("list_module_tools"), LISTED_MSG, _assistant("search_memory"),
                {"role": "tool", "name": "search_memory", "content": "1. x"}]
    assert next_tools(searched, TOOLS) == ("call_vehicle",)
    # search-first order: the request's search, then the listing, then the setting's search; finish withheld
    first = [user, _assistant("search_memory"), {"role": "tool", "name": "search_memory", "content": "1. x"}]
    assert next_tools(first, TOOLS) == ("list_module_tools",)  # not the same search again
    assert next_tools([*first, _assistant("list_module_tools"), LISTED_MSG], TOOLS) == (
        "search_memory", "list_module_tools", "call_vehicle")
    assert next_tools([*first, _assistant("list_module_tools"), LISTED_MSG, *searched[3:]], TOOLS) == ("call_vehicle",)
    assert next_tools([*searched, _assistant("call_vehicle", arguments=HEAT)], TOOLS) is None
    official = ["carcontrol_seat_set_heating_level", "finish"]
    assert next_tools([user], official) == ("carcontrol_seat_set_heating_level",)
    g = grammar_for(CompactView(), searched, compact_tools(), require_vehicle=True)
    slot = call_slot('<tool_call>\n{"name": "')
    assert g.names(slot) == (["call_vehicle"], False)
    assert g.names(slot, earlier=["call_vehicle"]) == (TOOLS, False)  # a vehicle call earlier in the reply
    assert grammar_for(CompactView(), searched, compact_tools()).names(slot) == (TOOLS, False)  # off: all tools


def test_a_malformed_vehicle_call_is_not_the_required_vehicle_call() -> None:
    user = {"role": "user", "content": "warm my seat"}
    searched = [user, _assistant("list_module_tools"), LISTED_MSG, _assistant("search_memory"),
                {"role": "tool", "name": "search_memory", "content": "1. x"}]
    for bad in ({}, {"name": "seat_set_warmth"}, {"name": "seat_set_heating_level", "arguments": "{level"},
                {"name": 3, "arguments": {}}, {"arguments": {"level": 2}}):
        assert not is_vehicle_call("call_vehicle", bad)
        assert next_tools([*searched, _assistant("call_vehicle", arguments=bad)], TOOLS) == ("call_vehicle",)
    assert is_vehicle_call("call_vehicle", HEAT)
    assert is_vehicle_call("call_vehicle", {**HEAT, "name": "carcontrol_seat_set_heating_level"})
    assert is_vehicle_call("call_vehicle", {**HEAT, "arguments": '{"level": 2}'})  # a JSON text, as the view reads it
    assert is_vehicle_call("carcontrol_seat_set_heating_level", {"level": 2})
    assert not is_vehicle_call("carcontrol_seat_set_warmth", {"level": 2})
    # inside one reply: a broken call_vehicle before the call being written does not offer finish
    g = grammar_for(CompactView(), searched, compact_tools(), require_vehicle=True)
    broken = '<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_warm"}}\n</tool_call>\n'
    good = '<tool_call>\n' + json.dumps({"name": "call_vehicle", "arguments": HEAT}) + '\n</tool_call>\n'
    unclosed = '<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_heating_level", \n</tool_call>\n'
    head = '<tool_call>\n{"name": "'
    for earlier in (broken, unclosed):
        slot = call_slot(earlier + head)
        assert _earlier_tools(earlier + head) == []
        assert g.names(slot, _earlier_tools(earlier + head)) == (["call_vehicle"], False)
    assert _earlier_tools(good + head) == ["call_vehicle"]
    assert g.names(call_slot(good + head), _earlier_tools(good + head)) == (TOOLS, False)


def test_policy_requires_the_name_constraint_for_the_vehicle_requirement(tiny) -> None:
    model, tok = tiny
    with pytest.raises(ConfigError, match="constrain_names=True"):
        RulesGuide(constrain_names=False, require_vehicle_call=True)
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_names=True, require_vehicle_call=True))
    (rule,) = policy._constraints([([{"role": "user", "content": "x"}], compact_tools())])
    assert rule.grammar.next_tools == ("search_memory", "list_module_tools", "call_vehicle")
    assert "require_vehicle_call=True" in repr(policy)


def _decode(tiny, index, tail: str, grammar, steps: int = 16) -> str:
    model, tok = tiny
    head = tok.encode(CALL + tail, add_special_tokens=False)
    prompt = tok.encode("<|im_start|>assistant\n", add_special_tokens=False) + head
    rule = PrefixedConstraint(NameConstraint(index, grammar), head)
    reply = PrefixCacheDecoder(model, [tok.eos_token_id], pad_id=tok.pad_token_id).generate([prompt], steps, [rule])[0]
    assert rule.inner.masked_steps > 0
    return CALL + tail + index.text(reply)


def test_an_integer_value_is_decoded_in_its_range_and_the_call_closes_well_formed(tiny, index) -> None:
    messages = [LISTED_MSG]
    free = grammar_for(CompactView(), messages, compact_tools())
    values = grammar_for(CompactView(), messages, compact_tools(), values=True)
    text = _decode(tiny, index, '"seat": "driver", "level":', values, steps=24)
    level = re.search(r'"level":\s*(-?\d+)', text)
    assert level is not None and level.group(1) in ("1", "2", "3"), text
    # names and structure on: the call object closes where its keys are used up, a readable JSON object
    body = text.split("<tool_call>\n", 1)[1]
    end = body.index("}}") + 3 if "}}}" in body else None
    assert end is not None, text
    call = json.loads(body[:end])
    assert call["arguments"]["arguments"] == {"seat": "driver", "level": int(level.group(1))}
    assert free.literal_values(call_slot(CALL + '"level":')) is None  # values off: integers free


def test_a_boolean_value_is_true_or_false(tiny, index) -> None:
    call = '<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_massage_mode", "arguments": {'
    g = grammar_for(CompactView(), [LISTED_MSG], compact_tools(), values=True)
    slot = call_slot(call + '"enabled":')
    assert g.literal_values(slot) == ("true", "false")
    rule = NameConstraint(index, g)
    model, tok = tiny
    head = tok.encode(call + '"enabled":', add_special_tokens=False)
    allowed = rule.allowed(head)
    texts = {index.strings[i] for i in allowed}
    assert texts and all(re.fullmatch(r" |\s?(t|tr|tru|true|f|fa|fal|fals|false)[\s,}]*", t) for t in texts), texts


def _row(exact: bool, vehicle: list[tuple[str, dict]], hits: str = "", query: str = "Vera seat",
         errors: int = 0) -> dict:
    messages = [_assistant("list_module_tools"),
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "s", "type": "function",
                     "function": {"name": "search_memory", "arguments": {"query": query}}}]},
                {"role": "tool", "name": "search_memory", "content": hits},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": f"v{k}", "type": "function", "function": {"name": "call_vehicle", "arguments": {
                        "name": n, "arguments": a}}} for k, (n, a) in enumerate(vehicle)]}]
    return {"exact_match": exact, "parse_errors": errors, "messages": messages}


GOLD = [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}}]


@pytest.mark.parametrize(("row", "expected"), [
    (_row(True, [("seat_set_heating_level", {"seat": "driver", "level": 2})]), "hit"),
    (_row(False, [("seat_set_heating_level", {"seat": "driver", "level": 2})], errors=1), "malformed"),
    (_row(False, []), "no_vehicle_call"),
    (_row(False, [("seat_set_heating_level", {"seat": "driver", "level": 2})], query="seat heating"), "bad_search"),
    (_row(False, [("sunroof_set_open_degree", {"degree": 2})]), "wrong_module"),
    (_row(False, [("seat_set_massage_mode", {"seat": "driver", "enabled": True})]), "wrong_function"),
    (_row(False, [("seat_set_heating_level", {"seat": "passenger", "level": 2})]), "wrong_place"),
    (_row(False, [("seat_set_heating_level", {"seat": "driver", "level": 3})],
          hits="1. [2025-01-01 10:00] Vera Lang: seat heating on level 2"), "wrong_value_in_hits"),
    (_row(False, [("seat_set_heating_level", {"seat": "driver", "level": 3})],
          hits="1. [2025-01-02 10:00] Vera Lang: seat heating on level 3"), "wrong_value_not_in_hits"),
    (_row(False, [("seat_set_heating_level", {"seat": "driver", "level": 2}), ("sunroof_set_open_degree", {})]),
     "extra_calls"),
])
def test_failure_classes(row, expected) -> None:
    assert classify(row, GOLD, "Vera") == expected


def test_the_gold_value_counts_as_read_when_the_whole_search_holds_it() -> None:
    row = _row(False, [("seat_set_heating_level", {"seat": "driver", "level": 3})],
               hits="1. [2025-01-02 10:00] Vera Lang: seat heating on level 3")
    assert classify(row, GOLD, "Vera") == "wrong_value_not_in_hits"
    row["messages"][2]["hits"] = row["messages"][2]["content"] + "\n2. [2025-01-01 10:00] Vera Lang: level 2 it is"
    assert classify(row, GOLD, "Vera") == "wrong_value_in_hits"  # the line reader read it; the model was not shown it


def test_model_calls_reads_call_vehicle_as_the_env_function() -> None:
    row = _row(False, [("seat_set_heating_level", {"seat": "driver", "level": 2})])
    assert model_calls(row["messages"])[-1] == ("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})


def test_failure_run_writes_classified_transcripts(tmp_path) -> None:
    import gymnasium as gym

    from vmb_agents.train.lm_failures import run
    from tests.agents.train.test_train_lm import Teacher

    env = gym.make("VehicleMem-v0", files=[1], memory="bm25")
    ids = [q.task_id for q in env.unwrapped.tasks.queries[:3]]
    summary = run(Teacher(env), {"held_out": ("default", ids)}, tmp_path, batch=2)
    assert summary["held_out"]["classes"] == {"hit": 3} and summary["held_out"]["exact_match_rate"] == 1.0
    rows = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert sorted(r["task_id"] for r in rows) == sorted(ids)
    for r in rows:  # the transcript's vehicle calls are the gold calls
        vehicle = [c for c in model_calls(r["messages"]) if c[0].startswith("carcontrol_")]
        assert sorted(json.dumps(c, sort_keys=True) for c in vehicle) == sorted(
            json.dumps((g["name"], g["arguments"]), sort_keys=True) for g in r["gold"])


def test_the_named_model_says_it_is_guided_and_the_model_alone_is_one_name_away(tiny, monkeypatch) -> None:
    from vmb_agents.llm import hf

    model, tok = tiny
    assert hf.NAMED_MODELS["smollm2-vmb"].guide == RulesGuide(
        constrain_names=True, constrain_values=True, require_vehicle_call=True, name_in_query=True, tool_shortlist=1,
        seat_from_request=True, line_reader="shipped", search_depth=16, shown_hits=8, companions=True)
    unguided = hf.NAMED_MODELS["smollm2-vmb-unguided"]
    assert unguided.guide is None and unguided.adapter == hf.NAMED_MODELS["smollm2-vmb"].adapter
    assert HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4)).guide is None  # no name: none
    # a named model's guide unless the caller names another or none (as --policy-kwargs '{"guide": null}' does)
    monkeypatch.setattr(hf, "convert_gguf", lambda *_a: "base")
    monkeypatch.setattr(hf, "_load", lambda *_a, **_k: (model, tok))
    monkeypatch.setattr(hf, "load_adapter", lambda m, _folder: m)
    monkeypatch.setattr(hf, "load_line_reader", lambda _adapter, dtype=None: "reader")
    assert HFPolicy("smollm2-vmb").guide == hf.SMOLLM2_VMB_GUIDE
    alone = HFPolicy("smollm2-vmb", guide=None)
    assert alone.guide is None and alone.line_reader is None and alone._constraints([([], compact_tools())]) is None
    assert HFPolicy("smollm2-vmb-unguided").guide is None
    assert HFPolicy("smollm2-vmb", guide={"constrain_names": True}).guide == RulesGuide(constrain_names=True)
    with pytest.raises(ConfigError, match="its fields"):
        HFPolicy("smollm2-vmb", guide={"constrain_everything": True})


def test_failure_tool_reads_the_memory_it_is_given() -> None:
    import gymnasium as gym

    from vmb_agents.train.lm_failures import main, rules_baseline

    env = gym.make("VehicleMem-v0", files=[1], memory="bm25")
    ids = [q.task_id for q in env.unwrapped.tasks.queries[:10]]
    gold = rules_baseline({"h": ("default", ids)}, memory="gold")["h"]
    bm25 = rules_baseline({"h": ("default", ids)}, memory="bm25")["h"]
    none = rules_baseline({"h": ("default", ids)}, memory="none")["h"]
    # the rules reader solves 6 of these 10 tasks with the evidence in the prompt and 6 with its own bm25 search (4 and
    # 2 before it read asides and a line's companions, 2026-12-05); without memory none, and only 6 make a call
    assert (gold["exact_match_rate"], bm25["exact_match_rate"], none["exact_match_rate"]) == (0.6, 0.6, 0.0)
    assert none["vehicle_call_share"] == 0.6 and gold["vehicle_call_share"] == 1.0
    with pytest.raises(SystemExit):
        main(["--memory"])  # the option needs a value


def test_train_order_is_the_trainers_seeded_shuffle_and_needs_a_folder(tmp_path) -> None:
    import random
    from pathlib import Path

    import gymnasium as gym

    from vmb_agents.train.lm_data import train_order
    from vmb_agents.train.lm_failures import main
    from vmb_gym.errors import ConfigError

    split = str(Path(__file__).resolve().parents[3] / "benchmark")
    ids = [q.task_id for q in gym.make("VehicleMem-v0", data=split).unwrapped.tasks.queries]
    random.Random(3).shuffle(ids)
    order = train_order(split, 3)
    assert order == ids and order != train_order(split, 4)  # the order `vmb train lm --seed 3` draws from
    with pytest.raises(ConfigError, match="not a folder"):
        train_order(str(tmp_path / "missing"))
    with pytest.raises(SystemExit):
        main(["--train", "3", "--held-out", "0", "--official", "0"])  # --train needs --train-split
    with pytest.raises(SystemExit):
        main(["--train", "3", "--train-split", str(tmp_path / "missing"), "--held-out", "0", "--official", "0"])


def test_task_sets_keep_the_tables_tasks_first_and_take_more() -> None:
    from vmb_agents.train.lm_failures import task_sets
    from tests.conftest import official_dir

    table = task_sets(40, 40 if official_dir() else 0)
    more = task_sets(100, 0)
    assert "official" not in more and len(more["held_out"][1]) == 100
    assert more["held_out"][1][:40] == table["held_out"][1]  # the README table's 40 come first
    assert len(set(more["held_out"][1])) == 100
    # a larger sample in parts: the second 60 follow the first 40 of the same draw
    assert task_sets(60, 0, held_out_from=40)["held_out"][1] == more["held_out"][1][40:]
    if official_dir():
        official = task_sets(0, 100)["official"][1]
        assert len(official) == len(set(official)) == 100 and "held_out" not in task_sets(0, 100)
        assert task_sets(0, 16)["official"][1] == table["official"][1][:16]
