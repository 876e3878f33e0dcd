"""A tool shortlist (a guide's ``tool_shortlist=K``): the functions a lexical retriever ranks highest for the request
and the memory lines retrieved so far (vmb_agents.llm.tool_shortlist), and the decoding constraint it sets on the module
and function names (vmb_agents.llm.constrained.grammar_for)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import grammar_for
from vmb_agents.llm.hf import HFPolicy
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from vmb_agents.llm.tool_shortlist import shortlist
from vmb_gym.errors import ConfigError
from tests.agents.llm.readings import reading

REQUEST = {"role": "user", "content": "At 8:00 AM, Gary Allen was driving alone. Gary said: 'Let's get back to my "
                                      "usual calming atmosphere.'"}
HITS = {"role": "tool", "name": "search_memory", "content": (
    "1. [2025-02-27 13:24] Gary Allen: I love a green instrument panel colour, so calming. "
    "(about: instrumentPanel_set_color)\n"
    "2. [2025-02-28 09:00] Nina Park: Sunny days make me want the sunroof open.\n"
    "3. [2025-03-01 18:00] Nina Park: How was the game?")}
LISTING = {"role": "tool", "name": "list_module_tools", "content": (
    "instrumentPanel_set_color(color): Set the instrument panel color\n"
    "instrumentPanel_set_brightness(brightness): Set the instrument panel brightness")}


GARY = ["[2025-02-27 13:24] Gary Allen: I love a green instrument panel colour, so calming.",
        "[2025-02-28 09:00] Nina Park: Sunny days make me want the sunroof open.",
        "[2025-03-01 18:00] Nina Park: How was the game?"]


def test_memory_lines_are_the_hit_bodies_shown_oldest_first_each_once() -> None:
    searched = reading(REQUEST["content"], GARY)
    assert searched.memory_lines()[0] == "Gary Allen: I love a green instrument panel colour, so calming."
    assert len(reading(REQUEST["content"], GARY, GARY).memory_lines()) == 3  # a line found twice counts once
    assert searched.memory_lines(first=1) == [searched.memory_lines()[0]]  # only the hits the model was shown
    assert reading(REQUEST["content"]).memory_lines() == []


def test_a_line_that_states_a_value_puts_its_function_first() -> None:
    assert shortlist(reading(REQUEST["content"], GARY), 3)[0] == "carcontrol_instrumentPanel_set_color"
    # no value stated ("open" is no value of a sunroof function here) and no word of the request: not listed
    assert len(shortlist(reading(REQUEST["content"], GARY), 1)) == 1
    # the request alone names a function: it is ranked; nothing named: no shortlist
    assert shortlist(reading("At 8:00 AM, Gary said: 'Set the seat heating the way I like it.'"), 2)[0] == \
        "carcontrol_seat_set_heating_level"
    assert shortlist(reading("At 8:00 AM, Gary said: 'Hello.'"), 3) == ()


def test_the_quotes_are_ranked_without_the_narrative_unless_they_name_nothing() -> None:
    # "Central Station" names a radio station to the vocabulary; the quote names the boot
    boot = ("At 7:15 AM, Alan was driving to Central Station, alone. Alan said: 'Could you fix how far the boot "
            "opens? You know how I like it.'")
    assert shortlist(reading(boot), 2) == ("carcontrol_trunk_set_open_degree", "carcontrol_frontTrunk_set_open_degree")
    # a quote that names no function: the whole request is read, narrative included
    vague = "At 7:15 AM, Alan was driving to Central Station, alone. Alan said: 'Make it the way I like.'"
    assert shortlist(reading(vague), 1) == ("carcontrol_radio_play_station",)


def test_the_grammar_allows_only_the_shortlists_modules_and_functions() -> None:
    view, tools = CompactView(), compact_tools()
    read = reading(REQUEST["content"], GARY)
    free = grammar_for(view, [REQUEST, HITS], tools, read)
    kept = grammar_for(view, [REQUEST, HITS], tools, read, shortlist=1)
    assert len(free.modules) == 23 and kept.modules == ("instrumentPanel",)
    listed = grammar_for(view, [REQUEST, HITS, LISTING], tools, read, shortlist=1)
    assert set(listed.functions) == {"instrumentPanel_set_color"}  # the brightness function is listed, not kept
    # nothing the shortlist keeps is listed: the listing stands
    other = {"role": "tool", "name": "list_module_tools", "content": "sunroof_set_open_degree(degree): Open"}
    assert set(grammar_for(view, [REQUEST, HITS, other], tools, read, shortlist=1).functions) == \
        {"sunroof_set_open_degree"}
    with pytest.raises(ConfigError, match="Reading"):
        grammar_for(view, [REQUEST, HITS], tools, shortlist=1)


def test_the_guides_shortlist_reaches_the_grammar_and_needs_name_constraints(tiny) -> None:
    model, tok = tiny
    assert HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4)).guide is None
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_names=True, tool_shortlist=1))
    (rule,) = policy._constraints([([REQUEST, HITS], compact_tools())], [reading(REQUEST["content"], GARY)])
    assert rule.grammar.modules == ("instrumentPanel",) and "tool_shortlist=1" in repr(policy)
    with pytest.raises(ConfigError, match="constrain_names=True"):
        RulesGuide(constrain_names=False, tool_shortlist=2)
