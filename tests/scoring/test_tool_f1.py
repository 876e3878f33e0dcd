"""Official tool-call F1 (key-set bug included) and the corrected multiset variant."""

from __future__ import annotations

import pytest

from vmb_gym.scoring import multiset_tool_score, official_tool_score, tool_call_key, tool_call_keys
from vmb_gym.types import ToolCall

NAV = ToolCall("carcontrol_navigation_navigate_to", {"destination": "Hydrogen Research Center"})
IP = ToolCall("carcontrol_instrumentPanel_set_brightness", {"brightness": 3})


def test_key_is_name_and_sorted_json_with_non_ascii_kept() -> None:
    assert tool_call_key("f", {"b": 1, "a": "é"}) == ("f", '{"a":"é","b":1}')


def test_types_and_extra_arguments_break_the_match() -> None:
    gold = tool_call_keys([IP])
    for args in ({"brightness": "3"}, {"brightness": 3.0}, {"brightness": True}, {"brightness": 3, "x": 1}):
        assert official_tool_score([tool_call_key(IP.name, args)], gold).tp == 0


def test_duplicate_gold_exact_replay_gets_half_officially_and_one_corrected() -> None:
    gold = tool_call_keys([NAV, NAV])
    official = official_tool_score(gold, gold)
    assert (official.tp, official.fp, official.fn) == (1, 1, 1)
    assert official.precision == 0.5 and official.recall == 0.5 and official.f1 == 0.5
    corrected = multiset_tool_score(gold, gold)
    assert (corrected.tp, corrected.fp, corrected.fn, corrected.f1) == (2, 0, 0, 1.0)
    single = official_tool_score(tool_call_keys([NAV]), gold)
    assert single.f1 == pytest.approx(2 / 3)


def test_no_predictions_gives_zero_precision() -> None:
    s = official_tool_score([], tool_call_keys([IP]))
    assert (s.tp, s.fp, s.fn, s.precision, s.recall, s.f1) == (0, 0, 1, 0, 0.0, 0)
    assert s.to_official_dict() == {"tp": 0, "fp": 0, "fn": 1, "precision": 0, "recall": 0.0, "f1": 0}
    assert multiset_tool_score([], []).f1 == 1.0
    assert official_tool_score([], []).f1 == 0


def test_partial_match_and_order_independence() -> None:
    gold = tool_call_keys([NAV, IP])
    pred = tool_call_keys([IP, ToolCall("x", {}), NAV])
    s = official_tool_score(pred, gold)
    assert (s.tp, s.fp, s.fn) == (2, 1, 0)
    assert s.precision == pytest.approx(2 / 3) and s.recall == 1.0 and s.f1 == pytest.approx(0.8)
    assert multiset_tool_score(pred, gold) == s


def test_keys_are_equal_exactly_when_the_official_json_keys_are() -> None:
    import itertools
    import json

    values = [{}, {"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"}, {"a": None}, {"a": float("nan")},
              {"a": float("inf")}, {"a": 10**20}, {"a": 1e16}, {"a": [1]}, {"a": {"b": 1}}, {"b": 1, "a": 2},
              {"a": 2, "b": 1}, {"a": "\ud800"}, {"a": "é"}, {"a": "null"}, {1: "x"}, {"1": "x"}]
    for x, y in itertools.product(values, repeat=2):
        official = json.dumps(x, sort_keys=True, ensure_ascii=False) == json.dumps(
            y, sort_keys=True, ensure_ascii=False
        )
        assert (tool_call_key("f", x) == tool_call_key("f", y)) == official, (x, y)
