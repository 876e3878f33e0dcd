"""The seat a request is for, as a decoding constraint (vmb_agents.llm.request_seat, a guide's seat_from_request)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import call_slot, grammar_for
from vmb_agents.llm.request_seat import place_choices
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.guide import RulesGuide
from tests.agents.llm.readings import reading
from vmb_gym.errors import ConfigError

ALONE = "At 4:55 PM, Iris was driving to Bayview Pier, alone. Iris said: 'Put the seat massage back to my usual.'"
PASSENGER = ("At 5:20 PM, a friend was driving Wesley to Westfield Market. Wesley sat in the front passenger seat. "
             "Wesley said: 'Can you set the seat height the way I like it?'")
BACK = ("At 1:05 PM, Bianca was driving to Grand Theater. Bianca's uncle came along and he sat in the rear right "
        "seat. Bianca said: 'Set the backrest angle how my uncle prefers.'")
EVERYONE = "At 9:00 AM, Ravi was driving, alone. Ravi said: 'Warm all the seats, please.'"
MASSAGE = "carcontrol_seat_set_massage_level"


def test_the_seat_of_the_person_who_asks() -> None:
    assert place_choices(reading(ALONE))[MASSAGE] == {"seat": ("driver",)}
    assert place_choices(reading(PASSENGER))["carcontrol_seat_set_vertical_position"] == {"seat": ("passenger",)}
    assert place_choices(reading(ALONE))["carcontrol_light_set_reading_light_brightness"] == {"light": ("driver",)}
    # the back: either rear seat (the reading does not tell left from right)
    assert place_choices(reading(BACK))["carcontrol_seat_set_backrest_angle"] == {"seat": ("rear_left", "rear_right")}


def test_the_whole_car_where_the_rules_read_it() -> None:
    # the climate's shared functions: the whole car first, the person's seat kept
    fan = place_choices(reading(PASSENGER))["carcontrol_airConditioner_set_fan_speed"]
    assert fan == {"zone": ("all", "passenger")}
    assert place_choices(reading(EVERYONE))["carcontrol_seat_set_heating_level"] == {"seat": ("all", "driver")}
    # a window, a door or a mirror is no person's own place: left to the other constraints
    places = place_choices(reading(ALONE))
    assert not {"carcontrol_window_set_open_degree", "carcontrol_door_set_locked",
                "carcontrol_rearviewMirror_set_horizontal_position"} & set(places)


def test_the_grammar_narrows_the_seat_only_with_the_option() -> None:
    messages = [{"role": "user", "content": ALONE}]
    call = ('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_massage_level", '
            '"arguments": {"seat": ')
    narrowed = grammar_for(CompactView(), messages, compact_tools(), reading(ALONE), values=True,
                           seat_from_request=True)
    free = grammar_for(CompactView(), messages, compact_tools(), reading(ALONE), values=True)
    slot = call_slot(call)
    assert narrowed.names(slot) == (["driver"], False)
    assert set(free.names(slot)[0]) >= {"driver", "passenger", "rear_left", "rear_right"}
    # other parameters keep their sets
    mode = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "airConditioner_set_mode", '
                     '"arguments": {"mode": ')
    assert narrowed.names(mode) == free.names(mode)


def test_the_guide_needs_the_value_constraint_for_it(tiny) -> None:
    from vmb_agents.llm.hf import HFPolicy

    model, tok = tiny
    with pytest.raises(ConfigError, match="constrain_values=True"):
        RulesGuide(constrain_values=False, seat_from_request=True)
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_values=True, seat_from_request=True))
    (rule,) = policy._constraints([([{"role": "user", "content": ALONE}], compact_tools())], [reading(ALONE)])
    slot = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_massage_level", '
                     '"arguments": {"seat": ')
    assert rule.grammar.names(slot) == (["driver"], False)
    assert "seat_from_request=True" in repr(policy)
    # the places are read once per reading, kept with it for its later steps
    read = reading(ALONE)
    assert place_choices(read) is place_choices(read.with_step({}))
