"""Name-constrained decoding (vmb_agents.llm.constrained): listed names only at the name slots, nothing else changed."""

from __future__ import annotations

import json
import re

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import (
    CallGrammar,
    ConstraintLogitsProcessor,
    NameConstraint,
    call_slot,
    grammar_for,
    listed_functions,
)
from vmb_agents.llm.hf import HFPolicy
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from vmb_agents.llm.kv_decode import PrefixCacheDecoder

LISTING = ("seat_set_heating_level(seat, level): Set seat heating level (0-3)\n"
           "seat_set_ventilation_level(seat, level): Set seat ventilation level\n"
           "seat_get_position(seat): Get the seat position")
LISTED = {"seat_set_heating_level": ("seat", "level"), "seat_set_ventilation_level": ("seat", "level"),
          "seat_get_position": ("seat",)}
CALL = '<tool_call>\n{"name": "call_vehicle", "arguments": {"name":'


def grammar() -> CallGrammar:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "warm my seat"},
                {"role": "tool", "name": "list_module_tools", "content": LISTING}]
    return grammar_for(CompactView(), messages, compact_tools())


# ------------------------------------------------------------------------------------------ the slots
def test_call_slot_follows_the_partial_json() -> None:
    assert call_slot("no call here") is None
    assert call_slot('<tool_call>\n{"name": "finish", "arguments": {}}\n</tool_call>') is None
    s = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set')
    assert (s.kind, s.path, s.partial) == ("value", ("arguments", "name"), "seat_set")
    assert s.values == {("name",): "call_vehicle"}
    s = call_slot('<tool_call>\n{"name":')
    assert (s.kind, s.path, s.partial) == ("value", ("name",), None)
    s = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_get_position", '
                  '"arguments": {"seat": "driver", ')
    assert (s.kind, s.path, s.partial, s.used_keys) == ("key", ("arguments", "arguments"), None, frozenset({"seat"}))
    assert s.values[("arguments", "name")] == "seat_get_position"
    # a number value, then a comma: a key is next; inside a value that is not a name: no slot to name
    s = call_slot('<tool_call>\n{"name": "x", "arguments": {"level": 2, "se')
    assert (s.kind, s.path, s.partial) == ("key", ("arguments",), "se")
    assert call_slot('<tool_call>\n{"name": "x", "arguments": {"level": [1, "a').__class__ is type(None)


def test_grammar_names_tools_listed_functions_parameters_and_modules() -> None:
    g = grammar()
    assert set(g.tools) == {"search_memory", "list_module_tools", "call_vehicle", "finish"}
    assert dict(g.functions) == LISTED
    assert "seat" in g.modules and len(g.modules) == 23
    slot = call_slot(CALL)
    assert g.names(slot) == (list(LISTED), False)
    slot = call_slot(CALL + ' "seat_set_heating_level", "arguments": {"level": 1, ')
    assert g.names(slot) == (["seat"], False)  # after a comma a key must follow (no trailing comma)
    assert g.names(call_slot(CALL + ' "seat_set_heating_level", "arguments": {')) == (["seat", "level"], True)
    assert g.names(call_slot('<tool_call>\n{"name": "search_memory", "arguments": {"query": "Vera')) is None
    # before any listing, call_vehicle may name any of the 111 functions (short names)
    g0 = grammar_for(CompactView(), [{"role": "user", "content": "hi"}], compact_tools())
    assert len(g0.functions) == 111 and "seat_set_heating_level" in g0.functions
    assert listed_functions([{"role": "tool", "name": "search_memory", "content": LISTING}]) == {}


# ------------------------------------------------------------------------------------------ decoding
class PrefixedConstraint:
    """A constraint that sees ``head`` (a call begun in the prompt) before the reply."""

    def __init__(self, inner: NameConstraint, head: list[int]) -> None:
        self.inner, self.head = inner, head

    def allowed(self, reply):
        return self.inner.allowed(self.head + list(reply))


def decoder(tok, model) -> PrefixCacheDecoder:
    return PrefixCacheDecoder(model, [tok.eos_token_id], pad_id=tok.pad_token_id)


@pytest.mark.parametrize("tail", ["", ' "seat_', ' "seat_set_ven'])
def test_constrained_function_name_is_always_a_listed_one(tiny, index, tail) -> None:
    model, tok = tiny
    g = grammar()
    head = tok.encode(CALL + tail, add_special_tokens=False)
    prompts, rules = [], []
    for request in ("warm my seat", "cool the passenger seat", "open the sunroof", "play jazz", "x"):
        prompts.append(tok.encode(f"<|im_start|>user\n{request}<|im_end|>\n<|im_start|>assistant\n",
                                  add_special_tokens=False) + head)
        rules.append(PrefixedConstraint(NameConstraint(index, g), head))
    free = decoder(tok, model).generate(prompts, max_new_tokens=24)
    replies = decoder(tok, model).generate(prompts, max_new_tokens=24, constraints=rules)
    names = [re.match(r'\s*"([^"]*)"', index.text(head + r).split('{"name":', 2)[2]) for r in replies]
    assert all(m is not None and m.group(1) in LISTED for m in names), [index.text(r) for r in replies]
    assert all(r.inner.masked_steps > 0 for r in rules)
    # the random model left alone does not spell a listed name
    free_names = [re.match(r'\s*"([^"]*)"', index.text(head + r).split('{"name":', 2)[2]) for r in free]
    assert not all(m is not None and m.group(1) in LISTED for m in free_names)


def test_tool_name_and_argument_keys_are_constrained(tiny, index) -> None:
    model, tok = tiny
    g = grammar()
    head_tool = tok.encode('<tool_call>\n{"name":', add_special_tokens=False)
    head_key = tok.encode(CALL + ' "seat_get_position", "arguments": {', add_special_tokens=False)
    start = tok.encode("<|im_start|>assistant\n", add_special_tokens=False)
    rules = [PrefixedConstraint(NameConstraint(index, g), h) for h in (head_tool, head_key)]
    tool_reply, key_reply = (index.text(r) for r in decoder(tok, model).generate(
        [start + head_tool, start + head_key], max_new_tokens=16, constraints=rules))
    tool = re.match(r'\s*"([^"]*)"', tool_reply)
    assert tool is not None and tool.group(1) in g.tools, tool_reply
    key = re.match(r'\s*(?:"([^"]*)"|})', key_reply)
    assert key is not None and key.group(1) in (None, "seat"), key_reply


def test_without_a_slot_the_reply_is_the_unconstrained_one(tiny, index) -> None:
    model, tok = tiny
    prompts = [tok.encode(p, add_special_tokens=False) for p in
               ("<|im_start|>user\nset the seat heating", "<|im_start|>system\nYou are the car assistant.",
                '<|im_start|>assistant\n<tool_call>\n{"name": "finish", "arguments": {"x": "')]
    rules = [NameConstraint(index, grammar()) for _ in prompts]
    free = decoder(tok, model).generate(prompts, 12)
    steered = decoder(tok, model).generate(prompts, 12, rules)
    assert all(call_slot(index.text(r)) is None for r in free)  # no reply writes a call
    assert [r.masked_steps for r in rules] == [0, 0, 0]
    assert steered == free


def test_generate_with_the_logits_processor_picks_the_decoder_tokens(tiny, index) -> None:
    from transformers import LogitsProcessorList

    model, tok = tiny
    head = tok.encode(CALL, add_special_tokens=False)
    prompt = tok.encode("<|im_start|>assistant\n", add_special_tokens=False) + head
    ours = decoder(tok, model).generate([prompt], 10, [PrefixedConstraint(NameConstraint(index, grammar()), head)])[0]
    rule = PrefixedConstraint(NameConstraint(index, grammar()), head)
    out = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                         max_new_tokens=10, do_sample=False, eos_token_id=[tok.eos_token_id],
                         pad_token_id=tok.pad_token_id,
                         logits_processor=LogitsProcessorList([ConstraintLogitsProcessor([rule], len(prompt))]))
    theirs = out[0, len(prompt):].tolist()
    cut = next((k for k, t in enumerate(theirs) if t == tok.eos_token_id), None)
    assert ours == (theirs if cut is None else theirs[:cut + 1])
    assert rule.inner.masked_steps > 0


def test_policy_builds_one_constraint_per_request_from_its_conversation(tiny) -> None:
    model, tok = tiny
    from vmb_agents.llm.compact_view import install

    install(tok)
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "warm my seat"},
                {"role": "tool", "name": "list_module_tools", "content": LISTING}]
    off = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=8))
    on = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=8),
                  guide=RulesGuide(constrain_names=True))
    assert off.guide is None and off._constraints([(messages, compact_tools())]) is None
    rules = on._constraints([(messages, compact_tools()), (messages[:2], compact_tools())])
    assert [dict(r.grammar.functions) == LISTED for r in rules] == [True, False]
    assert len(rules[1].grammar.functions) == 111
    assert "constrain_names=True" in repr(on)
    values = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=8),
                      guide=RulesGuide(constrain_values=True))
    (rule,) = values._constraints([(messages, compact_tools())])
    assert rule.grammar.constrain_names is False and "driver" in rule.grammar.choices[
        "carcontrol_seat_set_heating_level"]["seat"]
    # the random model writes no call here: both policies give the same reply
    request = (messages[:2], compact_tools())
    assert on.chat_many([request])[0]["raw"] == off.chat_many([request])[0]["raw"]
    json.dumps(on.chat(*request)["usage"])


def test_values_of_fixed_set_parameters_are_constrained_only_when_asked(tiny, index) -> None:
    from vmb_agents.llm.constrained import value_choices

    choices = value_choices()
    seats = choices["carcontrol_seat_set_heating_level"]["seat"]
    assert "driver" in seats and "passenger" in seats
    messages = [{"role": "tool", "name": "list_module_tools", "content": LISTING}]
    tail = ' "seat_set_heating_level", "arguments": {"seat":'
    slot = call_slot(CALL + tail)
    assert grammar_for(CompactView(), messages, compact_tools()).names(slot) is None
    both = grammar_for(CompactView(), messages, compact_tools(), values=True)
    values_only = grammar_for(CompactView(), messages, compact_tools(), names=False, values=True)
    assert both.names(slot) == values_only.names(slot) == (list(seats), False)
    assert values_only.names(call_slot(CALL)) is None  # names free
    # the official view: the vehicle function is the tool itself
    official = grammar_for(None, [], [{"type": "function", "function": {
        "name": "carcontrol_seat_set_heating_level", "parameters": {"properties": {"seat": {}, "level": {}}}}}],
        values=True)
    assert official.names(call_slot('<tool_call>\n{"name": "carcontrol_seat_set_heating_level", '
                                    '"arguments": {"seat": "dr')) == (list(seats), False)
    model, tok = tiny
    head = tok.encode(CALL + tail, add_special_tokens=False)
    prompt = tok.encode("<|im_start|>assistant\n", add_special_tokens=False) + head
    rule = PrefixedConstraint(NameConstraint(index, both), head)
    reply = decoder(tok, model).generate([prompt], 12, [rule])[0]
    value = re.match(r'\s*"([^"]*)"', index.text(reply))
    assert value is not None and value.group(1) in seats, index.text(reply)
