"""A memory query that starts with a person's name (a guide's name_in_query): the names a request narrates
(vmb_agents.llm.query_names) and the decoding constraint on search_memory's query (vmb_agents.llm.constrained)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import NameConstraint, call_slot, grammar_for
from vmb_agents.llm.hf import HFPolicy
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from vmb_agents.llm.kv_decode import PrefixCacheDecoder
from vmb_agents.llm.query_names import request_names
from tests.agents.llm.readings import reading
from tests.agents.llm.test_constrained_decoding import PrefixedConstraint  # tiny, index: tests/agents/llm/conftest.py

SEARCH = '<tool_call>\n{"name": "search_memory", "arguments": {"query":'
REQUEST = ("At 8:00 AM, Jack Hall was driving Samantha to Oakwood Stadium. He muttered: 'Restore my standard view, "
           "Actually I'm lost.' Samantha's eyes hurt.")


def test_request_names_are_the_narrated_people_not_quotes_places_or_sentence_words() -> None:
    assert request_names(REQUEST) == ["Jack", "Hall", "Samantha"]
    assert request_names("At 6:01 PM, Patricia Flores asked the car to activate the massage.") == ["Patricia", "Flores"]
    assert request_names("At 8:00 AM, Andrew (Driver) told Deborah: 'Need to concentrate.'") == ["Andrew", "Deborah"]
    assert request_names("turn the seat heating up") == []


def _grammar(request: str, on: bool = True):
    return grammar_for(CompactView(), [{"role": "user", "content": request}], compact_tools(), reading(request),
                       name_in_query=on)


def test_the_query_slot_allows_only_the_names_then_anything(index) -> None:
    g = _grammar(REQUEST)
    assert g.query_prefixes(call_slot(SEARCH)) == ("Jack ", "Hall ", "Samantha ")
    assert _grammar(REQUEST, on=False).query_prefixes(call_slot(SEARCH)) == ()
    assert NameConstraint(index, g).allowed([]) is None  # no call yet: free
    tok_text = index.strings
    # at the slot: every allowed token keeps the text a prefix of '"Name ' (or runs past it)
    prefixes = [f'{sp}"{p}' for p in ("Jack ", "Hall ", "Samantha ") for sp in ("", " ")]
    for partial, expect_free in (("", False), ('"Sam', False), ('"Samantha ', True), ('"Samantha seat', True)):
        slot = call_slot(SEARCH + partial)
        slot_ids = NameConstraint(index, g)._prefix_ids(slot, g.query_prefixes(slot))
        if expect_free:
            assert slot_ids is None
            continue
        assert slot_ids
        for i in slot_ids:
            text = partial + tok_text[i]
            assert any(p.startswith(text) or text.startswith(p) for p in prefixes), text


def test_decoded_queries_start_with_a_narrated_name(tiny, index) -> None:
    model, tok = tiny
    head = tok.encode(SEARCH, add_special_tokens=False)
    g = _grammar(REQUEST)
    decoder = PrefixCacheDecoder(model, [tok.eos_token_id], pad_id=tok.pad_token_id)
    prompts = [tok.encode(f"<|im_start|>user\n{r}<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False) + head
               for r in ("warm my seat", "x", "open the sunroof", "Samantha")]
    rules = [PrefixedConstraint(NameConstraint(index, g), head) for _ in prompts]
    for reply, rule in zip(decoder.generate(prompts, 12, rules), rules, strict=True):
        text = index.text(reply).lstrip()
        assert rule.inner.masked_steps > 0
        assert text.startswith(('"Jack ', '"Hall ', '"Samantha ')), text


def test_policy_name_in_query_is_off_unless_asked_and_reaches_the_grammar(tiny) -> None:
    model, tok = tiny
    assert HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4)).guide is None
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(name_in_query=True))
    (rule,) = policy._constraints([([{"role": "user", "content": REQUEST}], compact_tools())], [reading(REQUEST)])
    assert rule.grammar.query_names == ("Jack", "Hall", "Samantha")
    assert "name_in_query=True" in repr(policy)


def test_a_long_query_is_closed(index) -> None:
    from vmb_agents.llm.constrained import MAX_QUERY_CHARS

    g = _grammar(REQUEST)
    long = '"Jack ' + "panel, " * (MAX_QUERY_CHARS // 7 + 1)
    slot = call_slot(SEARCH + long)
    ids = NameConstraint(index, g)._prefix_ids(slot, g.query_prefixes(slot))
    assert ids and all(index.strings[i].startswith('"') for i in ids)
    assert NameConstraint(index, g)._prefix_ids(call_slot(SEARCH + '"Jack seat'), g.query_prefixes(slot)) is None
