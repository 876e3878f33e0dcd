"""Reading predictions files: the orjson route gives exactly what ``json.loads`` and every check give."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from vmb_gym.errors import DataError
from vmb_gym.scoring.predictions import parse_prediction_line, read_predictions
from vmb_gym.types import ToolCall

#: Lines whose values orjson reads differently from json.loads, or refuses, or that take another shape.
TRICKY = [
    '{"task_id": "1_0", "calls": [{"name": "f", "arguments": {"a": 123456789012345678901234567890}}]}',
    '{"task_id": "1_1", "calls": [{"name": "f", "arguments": {"a": 18446744073709551616}}]}',
    '{"task_id": "1_2", "calls": [{"name": "f", "arguments": {"a": -9223372036854775809}}]}',
    '{"task_id": "1_3", "calls": [{"name": "f", "arguments": {"a": 18446744073709551615, "b": -1.5e300}}]}',
    '{"task_id": "1_4", "calls": [{"name": "f", "arguments": {"a": NaN, "b": Infinity, "c": 1e400}}]}',
    '{"task_id": "1_5", "calls": [{"name": "f", "arguments": {"a": "\\ud800", "b": "\\u00e9\\u2028"}}]}',
    '{"task_id": "1_6", "calls": [{"name": "f", "args": {"a": 1}}, {"name": "g", "arguments": "{\\"b\\": 2}"}]}',
    '{"task_id": "1_7", "calls": [{"name": "f", "arguments": null}, {"name": "g"}, {"name": "h", "arguments": "{"}]}',
    '{"task_id": "1_8", "calls": [{"name": "f", "arguments": {"a": [1, {"b": 2}], "a": -0.0}}], "x": 1e999}',
    '{"task_id": "1_9", "calls": [{"name": "f", "arguments": {"z": true, "y": null, "x": 0.1}}]}',
]


def test_every_line_reads_as_json_loads_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(TRICKY) + "\n", encoding="utf-8")
    got = read_predictions(path)
    expected = dict(parse_prediction_line(line) for line in TRICKY)
    assert list(got) == list(expected)
    for task_id, calls in expected.items():  # type-strict: 2**64 stays an int, NaN stays NaN
        assert repr(got[task_id]) == repr(calls)
        assert [[type(v) for v in c.arguments.values()] for c in got[task_id]] == \
               [[type(v) for v in c.arguments.values()] for c in calls]
    assert got["1_1"][0].arguments["a"] == 2 ** 64 and type(got["1_1"][0].arguments["a"]) is int
    assert math.isnan(got["1_4"][0].arguments["a"])
    assert got["1_6"] == [ToolCall("f", {"a": 1}), ToolCall("g", {"b": 2})]
    assert got["1_7"] == [ToolCall("f", {}), ToolCall("g", {}), ToolCall("h", {})]


def test_line_breaks_blank_lines_and_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    # CRLF and a lone CR are line breaks (text mode); a line of Unicode spaces is blank.
    path.write_bytes('{"task_id": "1_0", "calls": []}\r\n\u3000\u2029\n\r{"task_id": "1_1", "calls": []}\r'
                     '{"task_id": "1_0", "calls": []}\n'.encode())
    with pytest.raises(DataError) as err:
        read_predictions(path)
    assert "task 1_0 appears twice (first on line 1)" in str(err.value) and ":5:" in str(err.value)


@pytest.mark.parametrize("line", ['{"task_id": "", "calls": []}', '{"task_id": "1_0", "calls": [{"name": 3}]}',
                                  '{"task_id": "1_0", "calls": [1]}', '[{"task_id": "1_0", "calls": []}]',
                                  '{"task_id": "1_0", "calls": [{"name": "f", "arguments": [1]}]}'])
def test_a_malformed_line_gives_the_reference_error(tmp_path: Path, line: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"task_id": "1_1", "calls": []}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as got:
        read_predictions(path)
    with pytest.raises(DataError) as expected:
        parse_prediction_line(line, str(path), 2)
    assert str(got.value) == str(expected.value)


def test_usual_lines_keep_their_values_and_key_order(tmp_path: Path) -> None:
    calls = [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
             {"name": "f", "arguments": {"b": 1.25, "a": False, "c": None, "d": "é"}}]
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"task_id": "3_7", "calls": calls}, ensure_ascii=False) + "\n", encoding="utf-8")
    got = read_predictions(path)["3_7"]
    assert [c.to_json() for c in got] == calls
    assert list(got[1].arguments) == ["b", "a", "c", "d"]
