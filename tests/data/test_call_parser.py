"""Gold-call parsing (official grammar, spec §2.4) and policy action parsing."""

from __future__ import annotations

import pytest

from vmb_gym.data import parse_action_call, parse_gold_call, parse_gold_calls
from vmb_gym.errors import ActionError
from vmb_gym.types import ToolCall


# ------------------------------------------------------------------------------ gold grammar


def test_gold_typical_call() -> None:
    call = parse_gold_call('carcontrol_seat_set_headrest_height(seat="driver", value=44)')
    assert call == ToolCall("carcontrol_seat_set_headrest_height", {"seat": "driver", "value": 44})
    assert type(call.arguments["value"]) is int


def test_gold_entry_is_stripped_and_argument_order_kept() -> None:
    call = parse_gold_call('  f(b=1, a="x")  \n')
    assert call is not None
    assert list(call.arguments) == ["b", "a"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("f(on=true)", True),
        ("f(on=false)", False),
        ("f(on=True)", True),
        ("f(on=False)", False),
    ],
)
def test_gold_bools_in_both_casings(text: str, expected: bool) -> None:
    call = parse_gold_call(text)
    assert call is not None and call.arguments["on"] is expected


def test_gold_single_quotes_and_floats() -> None:
    call = parse_gold_call("f(color='deep blue', temp=22.5, n=7)")
    assert call is not None
    assert call.arguments == {"color": "deep blue", "temp": 22.5, "n": 7}
    assert type(call.arguments["temp"]) is float


def test_gold_escapes_are_kept_as_written() -> None:
    call = parse_gold_call(r'f(name="say \"hi\"", path="a\\b", s=' + r"'it\'s')")
    assert call is not None
    assert call.arguments["name"] == r"say \"hi\""
    assert call.arguments["path"] == r"a\\b"
    assert call.arguments["s"] == r"it\'s"


def test_gold_empty_arguments() -> None:
    assert parse_gold_call("carcontrol_HUD_switch()") == ToolCall("carcontrol_HUD_switch", {})


def test_gold_negative_number_is_dropped_and_reported() -> None:
    warnings: list[str] = []
    call = parse_gold_call('f(zone="all", offset=-2)', warnings)
    assert call == ToolCall("f", {"zone": "all"})  # official behaviour: silently lost
    assert len(warnings) == 1 and "-2" in warnings[0]


@pytest.mark.parametrize("arg", ["x=None", "x=null", "x=TRUE", "3"])
def test_gold_unsupported_values_dropped_and_reported(arg: str) -> None:
    warnings: list[str] = []
    call = parse_gold_call(f'f(keep="y", {arg})', warnings)
    assert call == ToolCall("f", {"keep": "y"})
    assert len(warnings) == 1


def test_gold_list_value_leaks_inner_keyword_like_official() -> None:
    warnings: list[str] = []
    call = parse_gold_call("f(a=[1, b=2])", warnings)
    # finditer finds "b=2" inside the list, exactly as the official code does
    assert call == ToolCall("f", {"b": 2})
    assert warnings


def test_gold_malformed_number_drops_call() -> None:
    warnings: list[str] = []
    assert parse_gold_call("f(version=1.2.3)", warnings) is None
    assert "1.2.3" in warnings[0]
    calls, dropped = parse_gold_calls(["f(version=1.2.3)", "g(a=1)"])
    assert calls == [ToolCall("g", {"a": 1})]
    assert dropped == ["f(version=1.2.3)"]


def test_gold_non_call_entries_dropped() -> None:
    warnings: list[str] = []
    calls, dropped = parse_gold_calls(["set the seat", " (a=1)", "h(x=1)"], warnings)
    assert calls == [ToolCall("h", {"x": 1})]
    assert dropped == ["set the seat", " (a=1)"]
    assert len(warnings) == 2


def test_gold_greedy_match_without_dotall() -> None:
    # greedy .* runs to the last ')' on the first line; the next line is ignored
    call = parse_gold_call('f(a="x)", b=2)\ng(c=3)')
    assert call == ToolCall("f", {"a": "x)", "b": 2})


def test_gold_match_is_anchored_at_start_only() -> None:
    warnings: list[str] = []
    call = parse_gold_call("f(a=1) trailing", warnings)
    assert call == ToolCall("f", {"a": 1})
    assert warnings and "trailing" in warnings[0]


# ------------------------------------------------------------------------------ policy actions


def test_action_typical() -> None:
    call = parse_action_call('carcontrol_seat_set_heating_level(seat="driver", level=2)')
    assert call == ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})


def test_action_value_forms() -> None:
    call = parse_action_call(
        "f(a='x', b=-3, c=+1.5, d=true, e=False, g=null, h=None, "
        'i=[1, "two", [3]], j={"k": -1, "n": {"m": null}}, l=[], o=1e3)'
    )
    assert call.arguments == {
        "a": "x",
        "b": -3,
        "c": 1.5,
        "d": True,
        "e": False,
        "g": None,
        "h": None,
        "i": [1, "two", [3]],
        "j": {"k": -1, "n": {"m": None}},
        "l": [],
        "o": 1000.0,
    }
    assert type(call.arguments["b"]) is int


def test_action_no_arguments_and_whitespace() -> None:
    assert parse_action_call("  carcontrol_HUD_switch( )  ") == ToolCall("carcontrol_HUD_switch", {})


@pytest.mark.parametrize(
    ("text", "needle", "column"),
    [
        ('f("driver")', "positional", 3),
        ("f(a=1, a=2)", "twice", 8),
        ("f(a=driver)", "bare name 'driver'", 5),
        ("f(a=1+2)", "arithmetic", 5),
        ("f(a=(1, 2))", "tuple", 5),
        ("f(a={1: 2})", "object key", 6),
        ("f(a=g())", "a call", 5),
        ("f(**kw)", "'**'", 3),
        ("os.system(a=1)", "plain tool name", 1),
        ("f(a=1) + 1", "single call", 1),
        ("f(a=1", "invalid syntax", None),
        ("f(a=1,, b=2)", "invalid syntax", None),
        ("f(a=-x)", "value", 5),
        ("f(a=1e999)", "finite", 5),
    ],
)
def test_action_errors_name_problem_and_column(text: str, needle: str, column: int | None) -> None:
    with pytest.raises(ActionError) as info:
        parse_action_call(text)
    message = str(info.value)
    assert needle in message
    assert "column" in message
    if column is not None:
        assert f"column {column}" in message


def test_action_empty_and_non_string() -> None:
    with pytest.raises(ActionError, match="empty"):
        parse_action_call("   ")
    with pytest.raises(ActionError, match="string"):
        parse_action_call(42)  # type: ignore[arg-type]


def test_action_column_counts_characters_not_bytes() -> None:
    # "x" is the 12th character (13th byte)
    with pytest.raises(ActionError, match="column 12"):
        parse_action_call('f(a="é", b=x)')


def test_action_roundtrip_of_to_python() -> None:
    call = ToolCall("carcontrol_light_set_ambient_color", {"color": "blue", "on": True, "n": -2})
    assert parse_action_call(call.to_python()) == call
