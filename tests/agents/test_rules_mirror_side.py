"""Which mirror: the side the request names, else the side the remembered line names, else both."""

from __future__ import annotations

import pytest

from agents.rules import read_request, selector_param
from agents.rules.values import mirror_side, selector_value
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
    from agents.rules import RulesPolicy

    policy = RulesPolicy("none")
    policy.names = ("Dorothy Hill", "Shirley Moss")
    req = read_request("At 8:05 AM, Dorothy said: 'Back to my standard mirror position.'", policy.names)
    call = policy._call(API, 69, req, LEFT_LINE)
    assert call == {"name": API, "arguments": {"value": 69, "side": "left"}}
    assert policy._call(API, 69, req)["arguments"]["side"] == "both"
