"""The line reader (vmb_agents.llm.line_reader) and how it narrows a call's value (a guide's line_reader)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym

import vmb_gym  # noqa: F401
from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import call_slot, literal_choices, narrow_to_line, states_a_value, value_choices
from vmb_agents.llm.line_reader import ANSWERS, MAX_LINES, LineReader, reader_prompt
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from tests.agents.llm.readings import memory_hits, reading
from vmb_gym.errors import ConfigError

HITS = ("1. [2025-03-02 14:00] Aaron Patel: Hypothetically, would level 1 for the wheel warmer level drain the "
        "battery?\n"
        "2. [2025-03-07 16:21] Aaron Patel: My everyday setting for the wheel warmer level is level 3.\n"
        "3. [2025-03-22 15:48] Keiko Farrell: I'm happiest with the climate mode on purify, Rory.")
WHEEL = "carcontrol_steeringWheel_set_heating_level"


def hit_lines() -> list[str]:
    """The lines of :data:`HITS` without their ranks: ``[time] Name: text``."""
    return [line.split(". ", 1)[1] for line in HITS.splitlines()]
MODE = "carcontrol_airConditioner_set_mode"
REQUEST = "At 11:30 AM, Aaron was driving, alone. Aaron said: 'I'd like the steering wheel heating set up for me.'"


def test_the_prompt_asks_about_one_line_without_its_time_stamp() -> None:
    lines = hit_lines()
    assert lines[1] == "[2025-03-07 16:21] Aaron Patel: My everyday setting for the wheel warmer level is level 3."
    prompt = reader_prompt(REQUEST, lines[1])
    assert "\nMemory line: Aaron Patel: My everyday setting for the wheel warmer level is level 3.\n" in prompt
    assert "2025" not in prompt and prompt.startswith("Request: At 11:30 AM") and prompt.endswith("Answer:")
    # at most MAX_LINES lines of a search are read, oldest first
    many = [f"[2025-01-01 10:{k:02d}] A B: line {k}" for k in range(20, 0, -1)]
    assert [line for line, _ in reading(REQUEST, many).search_lines(-1, MAX_LINES)] == many[::-1][:16]
    assert MAX_LINES == 16 and reading(REQUEST, []).search_lines() == []


class _Probabilities:
    """A reader whose P(yes) per line is given (the pick rule is what is tested)."""

    def __init__(self, probs: list[float]) -> None:
        self.probs = probs
        self.yes_id, self.no_id = 0, 1

    def yes_probabilities_after(self, request, lines):
        out, self.probs = self.probs[:len(lines)], self.probs[len(lines):]
        return out


def test_the_pick_is_the_likeliest_line() -> None:
    lines = hit_lines()
    assert LineReader.pick(_Probabilities([0.9, 0.6, 0.1]), [REQUEST], [lines]) == [0]
    assert LineReader.pick(_Probabilities([0.2, 0.1, 0.4]), [REQUEST], [lines]) == [2]
    # a search with no lines has no pick, and the batch keeps its order
    assert LineReader.pick(_Probabilities([0.1, 0.9, 0.1]), [REQUEST, REQUEST], [[], lines]) == [None, 1]


def test_the_request_part_is_computed_once_with_the_same_probabilities(tiny) -> None:
    model, tok = tiny
    reader = object.__new__(LineReader)  # the tiny tokenizer has no one-token answers: two of its tokens stand in
    reader.model, reader.tokenizer, reader.yes_id, reader.no_id = model, tok, 5, 6
    lines = hit_lines() + ["[2025-04-01 09:00] Aaron Patel: ok"]  # lines of different lengths: right-padded
    whole = reader.yes_probabilities([reader_prompt(REQUEST, line) for line in lines])
    shared = reader.yes_probabilities_after(REQUEST, lines)
    assert shared == pytest.approx(whole, rel=1e-4) and len(set(whole)) == len(lines)
    assert reader.yes_probabilities_after(REQUEST, []) == []


def test_a_line_narrows_each_function_to_the_value_it_states() -> None:
    choices, literals = narrow_to_line("Aaron Patel: My everyday setting for the wheel warmer level is level 3.",
                                       value_choices(), literal_choices())
    assert literals[WHEEL]["level"] == ("3",)
    assert choices[MODE] == value_choices()[MODE]  # the line states no climate mode: left as it was
    choices, _ = narrow_to_line("Keiko Farrell: I'm happiest with the climate mode on purify, Rory.",
                                value_choices(), literal_choices())
    assert choices[MODE]["mode"] == ("purify",) and choices[MODE]["zone"] == value_choices()[MODE]["zone"]
    assert literal_choices()[WHEEL]["level"][:3] == ("0", "1", "2")  # the shared tables are not changed


def test_a_line_states_a_value_for_a_function_or_not() -> None:
    assert states_a_value("Aaron Patel: My everyday setting for the wheel warmer level is level 3.",
                          ["steeringWheel_set_heating_level"])
    assert not states_a_value("Aaron Patel: Who touched the steering wheel heating again?",
                              ["steeringWheel_set_heating_level"])
    assert not states_a_value("Keiko Farrell: I'm happiest with the climate mode on purify, Rory.",
                              ["steeringWheel_set_heating_level"])


class _LastOfAaron:
    """A reader that picks the last line of Aaron's it is shown (a fixed rule: the plumbing is what is tested)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str]]] = []

    def pick(self, requests, lines):
        self.seen += list(zip(requests, lines, strict=True))
        return [max(i for i, ln in enumerate(ls) if "Aaron" in ln) for ls in lines]


def test_the_policy_reads_the_lines_that_state_a_value_after_a_search(tiny, monkeypatch) -> None:
    from vmb_agents.llm import hf
    from vmb_agents.llm.hf import HFPolicy

    model, tok = tiny
    with pytest.raises(ConfigError, match="constrain_values=True"):
        RulesGuide(line_reader="x")
    reader = _LastOfAaron()
    monkeypatch.setattr(hf, "load_line_reader", lambda adapter, dtype=None: reader)
    mine = CompactView()
    policy = HFPolicy(model, tok, view=mine, decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_values=True, line_reader="shipped", search_depth=16))
    assert mine.depth == 0  # the caller's view is not changed
    assert policy.view.depth == 16 and "line_reader='shipped'" in repr(policy)
    assert policy.view.to_env_call("search_memory", {"query": "Aaron wheel", "top_k": 4})["arguments"]["top_k"] == 16
    lines = [*hit_lines(), "[2025-04-01 09:00] Aaron Patel: Who touched the wheel warmer level again?"]
    searched = [{"role": "user", "content": REQUEST}, {"role": "tool", "name": "search_memory", "content": "..."}]
    before = [{"role": "user", "content": REQUEST}]
    after, first = policy._constraints([(searched, compact_tools()), (before, compact_tools())],
                                       [reading(REQUEST, lines), reading(REQUEST)])
    slot = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "steeringWheel_set_heating_level", '
                     '"arguments": {"level": ')
    # Aaron's last line states no value, so it is not read: his last valued line is (level 3)
    assert after.grammar.literal_values(slot) == ("3",)
    assert len(first.grammar.literal_values(slot)) == 11  # no search yet: nothing read
    assert reader.seen == [(REQUEST, hit_lines())]
    with pytest.raises(ConfigError, match="search_depth"):
        HFPolicy(model, tok, view="official", decoding=Decoding(max_new_tokens=4), guide=RulesGuide(search_depth=16))
    off = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4), guide=None)
    assert (off.line_reader, getattr(off.view, "depth", 0)) == (None, 0)


def test_a_tokenizer_without_one_token_labels_is_refused(tiny) -> None:
    model, tok = tiny
    with pytest.raises(ConfigError, match="one token"):
        LineReader(model, tok)


def test_a_training_task_points_at_the_evidence_line_with_the_gold_value() -> None:
    import random

    from vmb_agents.reader.params import value_param
    from vmb_agents.train.lm_reader import line_rows, reader_row
    from vmb_gym.vehicle import API_SPECS

    env = gym.make("VehicleMem-v0", data="default", memory="bm25", max_steps=4)
    tasks = [r for q in env.unwrapped.tasks.queries[:12] if (r := reader_row(env, q.task_id, 16))]
    assert len(tasks) >= 4
    for task in tasks:
        query = env.unwrapped.tasks.queries[env.unwrapped.tasks.index_of(task["task_id"])]
        call = next(c for c in query.gold_calls if value_param(API_SPECS[c.name]) is not None)
        value = call.arguments[value_param(API_SPECS[call.name]).name]
        assert str(value).lower() in task["hits"][task["label"]].lower(), (task["hits"][task["label"]], value)
        assert task["values"][task["label"]] == value
        rows = line_rows(task, 3, random.Random(0))
        assert [r["completion"] for r in rows] == [ANSWERS[0]] + [ANSWERS[1]] * (len(rows) - 1)
        assert rows[0]["prompt"] == reader_prompt(task["request"], task["hits"][task["label"]])
        # the lines answered no that state a value for the function come before those that state none
        index = {reader_prompt(task["request"], h): i for i, h in enumerate(task["hits"])}
        valued = [task["values"][index[r["prompt"]]] is not None for r in rows[1:]]
        assert valued == sorted(valued, reverse=True) and len(rows) == 1 + min(3, len(task["hits"]) - 1)
        others = sum(v is not None for i, v in enumerate(task["values"]) if i != task["label"])
        assert sum(valued) == min(3, others)


def test_the_model_reads_the_best_hits_and_the_reader_all_of_them(tiny, monkeypatch) -> None:
    from vmb_agents.llm import hf
    from vmb_agents.llm.hf import HFPolicy

    ranked = memory_hits(*reversed(hit_lines()))
    result = {"success": True, "memory_text": "(the env's text; the view renders the hits)"}
    view = CompactView(depth=16, shown=2)
    shown = view.tool_content("search_memory", result, hits=ranked)
    # the two best-ranked hits (Keiko's, then Aaron's level 3), oldest first; the hypothetical is not shown
    assert [line.split(": ", 1)[0].split("] ")[1] for line in shown.splitlines()] == ["Aaron Patel", "Keiko Farrell"]
    assert "Hypothetically" not in shown and view.tool_extras("search_memory", result, hits=ranked)["hits"] == HITS
    assert CompactView(depth=16).tool_extras("search_memory", result, hits=ranked) == {}
    assert view.tool_extras("list_module_tools", {"success": True, "tools": []}) == {}

    model, tok = tiny
    reader = _LastOfAaron()
    monkeypatch.setattr(hf, "load_line_reader", lambda adapter, dtype=None: reader)
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_values=True, line_reader="shipped", search_depth=16, shown_hits=2))
    assert (policy.view.depth, policy.view.shown) == (16, 2) and "shown_hits=2" in repr(policy)
    only_first = "1. [2025-03-02 14:00] Aaron Patel: Hypothetically, would level 1 for the wheel warmer level drain?"
    searched = [{"role": "user", "content": REQUEST}, {"role": "tool", "name": "search_memory", "content": only_first}]
    (constraint,) = policy._constraints([(searched, compact_tools())], [reading(REQUEST, hit_lines())])
    slot = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "steeringWheel_set_heating_level", '
                     '"arguments": {"level": ')
    assert constraint.grammar.literal_values(slot) == ("3",)  # read from the hits the model was not shown
    assert reader.seen == [(REQUEST, hit_lines())]
    with pytest.raises(ConfigError, match="shown_hits"):
        HFPolicy(model, tok, view="official", decoding=Decoding(max_new_tokens=4), guide=RulesGuide(shown_hits=8))


def test_a_vehicle_call_is_followed_by_the_companions_its_value_line_states() -> None:
    from vmb_agents.llm.companions import with_companions

    request = "At 11:00 AM, Gary was driving to the park, alone. Gary said: 'Set the leg rest height for me, please.'"
    lines = ["[2025-03-01 14:00] Gary Allen: I'll go with the leg support height at 95 percent today.",
             "[2025-03-01 14:02] Gary Allen: Actually, dial it back to 30 percent. 95 percent was too much. Plus "
             "heating on the left mirror switched on, always."]
    read = reading(request, lines)
    messages = [{"role": "user", "content": request},
                {"role": "tool", "name": "search_memory", "content": "1. " + lines[0]}]
    leg = {"name": "call_vehicle", "arguments": {"name": "seat_set_leg_support_height",
                                                 "arguments": {"seat": "driver", "value": 30}}}
    mirror = {"name": "call_vehicle", "arguments": {"name": "rearviewMirror_set_heating_enabled",
                                                    "arguments": {"enabled": True, "side": "left"}}}
    # the line that states the called 30 percent (read from the whole search, not only the line shown) adds its mirror
    assert with_companions(messages, [leg], read) == [leg, mirror]
    # the 95 percent line states no companion; a finish or a search adds none; a function called before is not again
    ninety_five = {**leg, "arguments": {**leg["arguments"], "arguments": {"seat": "driver", "value": 95}}}
    assert with_companions(messages, [ninety_five], read) == [ninety_five]
    finish = {"name": "finish", "arguments": {}}
    assert with_companions(messages, [finish], read) == [finish]
    assert with_companions(messages, [leg, finish], read) == [leg, mirror, finish]  # run before the model's finish
    before = messages + [{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
                                                                               "function": mirror}]}]
    assert mirror not in with_companions(before, [leg], read)[1:]
    assert with_companions(messages[:1], [leg], reading(request)) == [leg]  # no search: nothing to read
    # the official view's calls are carcontrol_ names, and so are its companions
    official = {"name": "carcontrol_seat_set_leg_support_height", "arguments": {"seat": "driver", "value": 30}}
    assert with_companions(messages, [official], read)[1] == {
        "name": "carcontrol_rearviewMirror_set_heating_enabled", "arguments": {"enabled": True, "side": "left"}}


def test_the_policy_adds_companions_when_its_guide_asks(tiny) -> None:
    from vmb_agents.llm.hf import HFPolicy

    model, tok = tiny
    request = "At 11:00 AM, Gary was driving to the park, alone. Gary said: 'Set the leg rest height for me, please.'"
    line = ("[2025-03-01 14:02] Gary Allen: Actually, dial it back to 30 percent. Plus heating on the left mirror "
            "switched on, always.")
    messages = [{"role": "user", "content": request}, {"role": "tool", "name": "search_memory", "content": line}]
    leg = {"name": "call_vehicle", "arguments": {"name": "seat_set_leg_support_height",
                                                 "arguments": {"seat": "driver", "value": 30}}}
    reply = {"content": "", "tool_calls": [leg], "parse_errors": [], "raw": "", "usage": {}}
    on = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4), guide=RulesGuide(companions=True))
    off = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4))
    assert "companions=True" in repr(on) and off.guide is None
    added = on._with_companions([(messages, compact_tools())], [reading(request, [line])], [reply])[0]["tool_calls"]
    assert [c["arguments"]["name"] for c in added] == ["seat_set_leg_support_height",
                                                       "rearviewMirror_set_heating_enabled"]
