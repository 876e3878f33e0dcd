"""The seat a request is for, as a decoding constraint (vmb_agents.llm.request_seat, HFPolicy(seat_from_request=True))."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.compact_view import CompactView, compact_tools
from vmb_agents.llm.constrained import call_slot, grammar_for
from vmb_agents.llm.request_seat import place_choices
from tests.agents.llm.test_constrained_decoding import tiny  # noqa: F401  (fixture)
from vmb_gym.errors import ConfigError

ALONE = "At 4:55 PM, Iris was driving to Bayview Pier, alone. Iris said: 'Put the seat massage back to my usual.'"
PASSENGER = ("At 5:20 PM, a friend was driving Wesley to Westfield Market. Wesley sat in the front passenger seat. "
             "Wesley said: 'Can you set the seat height the way I like it?'")
BACK = ("At 1:05 PM, Bianca was driving to Grand Theater. Bianca's uncle came along and he sat in the rear right "
        "seat. Bianca said: 'Set the backrest angle how my uncle prefers.'")
EVERYONE = "At 9:00 AM, Ravi was driving, alone. Ravi said: 'Warm all the seats, please.'"
MASSAGE = "carcontrol_seat_set_massage_level"


def test_the_seat_of_the_person_who_asks() -> None:
    assert place_choices(ALONE)[MASSAGE] == {"seat": ("driver",)}
    assert place_choices(PASSENGER)["carcontrol_seat_set_vertical_position"] == {"seat": ("passenger",)}
    assert place_choices(ALONE)["carcontrol_light_set_reading_light_brightness"] == {"light": ("driver",)}
    # the back: either rear seat (the reading does not tell left from right)
    assert place_choices(BACK)["carcontrol_seat_set_backrest_angle"] == {"seat": ("rear_left", "rear_right")}


def test_the_whole_car_where_the_rules_read_it() -> None:
    # the climate's shared functions: the whole car first, the person's seat kept
    assert place_choices(PASSENGER)["carcontrol_airConditioner_set_fan_speed"] == {"zone": ("all", "passenger")}
    assert place_choices(EVERYONE)["carcontrol_seat_set_heating_level"] == {"seat": ("all", "driver")}
    # a window, a door or a mirror is no person's own place: left to the other constraints
    places = place_choices(ALONE)
    assert not {"carcontrol_window_set_open_degree", "carcontrol_door_set_locked",
                "carcontrol_rearviewMirror_set_horizontal_position"} & set(places)


def test_the_grammar_narrows_the_seat_only_with_the_option() -> None:
    messages = [{"role": "user", "content": ALONE}]
    call = ('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_massage_level", '
            '"arguments": {"seat": ')
    narrowed = grammar_for(CompactView(), messages, compact_tools(), values=True, seat_from_request=True)
    free = grammar_for(CompactView(), messages, compact_tools(), values=True)
    slot = call_slot(call)
    assert narrowed.names(slot) == (["driver"], False)
    assert set(free.names(slot)[0]) >= {"driver", "passenger", "rear_left", "rear_right"}
    # other parameters keep their sets
    mode = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "airConditioner_set_mode", '
                     '"arguments": {"mode": ')
    assert narrowed.names(mode) == free.names(mode)


def test_the_policy_needs_the_value_constraint_for_it(tiny, monkeypatch) -> None:  # noqa: F811  (the fixture)
    from vmb_agents.llm import hf
    from vmb_agents.llm.hf import HFPolicy

    model, tok = tiny
    with pytest.raises(ConfigError, match="constrain_values=True"):
        HFPolicy(model, tok, view="compact", max_new_tokens=4, constrain_values=False, seat_from_request=True)
    policy = HFPolicy(model, tok, view="compact", max_new_tokens=4, constrain_values=True, seat_from_request=True)
    (rule,) = policy._constraints([([{"role": "user", "content": ALONE}], compact_tools())])
    slot = call_slot('<tool_call>\n{"name": "call_vehicle", "arguments": {"name": "seat_set_massage_level", '
                     '"arguments": {"seat": ')
    assert rule.grammar.names(slot) == (["driver"], False)
    assert "seat_from_request=True" in repr(policy)
    # an adapter's default follows the value constraint: turned off with it, no error
    monkeypatch.setattr(hf, "adapter_settings", lambda _folder: {"constrain_values": True, "seat_from_request": True})
    monkeypatch.setattr(hf, "load_adapter", lambda m, _folder: m)
    assert HFPolicy(model, tok, view="compact", max_new_tokens=4, adapter="x").seat_from_request is True
    off = HFPolicy(model, tok, view="compact", max_new_tokens=4, adapter="x", constrain_values=False)
    assert (off.constrain_values, off.seat_from_request) == (False, False)
