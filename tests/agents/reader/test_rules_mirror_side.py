"""Which mirror: the side the request names, else the side the remembered line names, else both."""

from __future__ import annotations

import pytest

from vmb_agents.reader import read_request, selector_param
from vmb_agents.reader.values import mirror_side, selector_value
from vmb_gym.vehicle import API_SPECS

API = "carcontrol_rearviewMirror_set_horizontal_position"
LEFT_LINE = "[2025-04-20 09:00] Dorothy Hill: My left mirror horizontal position is usually 69, since the injury."


@pytest.mark.parametrize(("text", "side"), [
    ("My left mirror horizontal position is usually 69", "left"),
    ("Tilt the right side mirror down a bit", "right"),
    ("the mirror on the left keeps moving", "left"),
    ("Set the mirrors how I like them", None),
    ("I turned left at the mirror shop", None),
])
def test_mirror_side(text: str, side: str | None) -> None:
    assert mirror_side(text) == side


@pytest.mark.parametrize(("request_text", "line", "side"), [
    ("At 8:05 AM, Dorothy said: 'Back to my standard setting.'", LEFT_LINE, "left"),  # the line tells
    ("At 8:05 AM, Dorothy said: 'Back to my standard setting.'", "", "both"),  # nothing tells: both
    ("At 8:05 AM, Dorothy said: 'Set the mirrors how I like them.'", LEFT_LINE, "both"),  # the request says all
    ("At 8:05 AM, Dorothy said: 'Reset the all mirror to my spot.'", LEFT_LINE, "both"),
    ("At 8:05 AM, Dorothy said: 'Put the right mirror back where I had it.'", LEFT_LINE, "right"),  # the request wins
])
def test_the_side_of_a_mirror_setting(request_text: str, line: str, side: str) -> None:
    spec = API_SPECS[API]
    req = read_request(request_text, ["Dorothy Hill", "Shirley Moss"])
    assert selector_value(spec, selector_param(spec), req, line) == side


def test_the_rules_reader_takes_the_side_from_the_line_it_read() -> None:
    from vmb_agents.reader import RulesPolicy

    policy = RulesPolicy("none")
    policy.names = ("Dorothy Hill", "Shirley Moss")
    req = read_request("At 8:05 AM, Dorothy said: 'Back to my standard mirror position.'", policy.names)
    call = policy._call(API, 69, req, LEFT_LINE)
    assert call == {"name": API, "arguments": {"value": 69, "side": "left"}}
    assert policy._call(API, 69, req)["arguments"]["side"] == "both"


def _mirror_slot(request_text: str, *lines: str):
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_agents.sb3.slots.analysis import analyse
    from tests.agents.sb3.hit_records import hit_records

    speakers = ("Dorothy Hill", "Shirley Moss")
    cat = SlotCatalogue()
    an = analyse(request_text, hit_records(*lines), speakers, True, cat.api_scores(request_text, speakers),
                 cat.classify)
    return next(a for a in an.apis if a.api == API)


def test_a_named_side_is_the_slot_policys_only_target() -> None:
    # the side the person's line names is the one target the slot policy may choose (it learned "both" as the
    # usual guess for mirrors on generated households, where the request names the side)
    request = "At 8:05 AM, Dorothy said: 'Back to my standard mirror position.'"
    assert _mirror_slot(request, LEFT_LINE).targets == ["left"]
    # a reply that states the value again without the side: the value's other line names it
    reply = "[2025-04-20 09:01] Dorothy Hill: Yes, 69 for the mirror position, that's the one."
    slot = _mirror_slot(request, LEFT_LINE, reply)
    assert slot.values[0].value == 69 and slot.targets == ["left"]
    # no side named anywhere: every side stays a choice, both first
    both = _mirror_slot(request, "[2025-04-20 09:00] Dorothy Hill: My mirror horizontal position is usually 69.")
    assert both.targets[0] == "both" and len(both.targets) == 3
    # the request's side wins over the line's
    right = _mirror_slot("At 8:05 AM, Dorothy said: 'Put the right mirror back where I had it.'", LEFT_LINE)
    assert right.targets == ["right"]
