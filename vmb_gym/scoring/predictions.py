"""Predictions files (JSON Lines, one task a line) and the calls of a prediction that the scorer counts.

:func:`read_predictions` reads a whole file; :func:`parse_prediction_line` is its reference for
one line (``json.loads`` and every check, with a message naming the line). A line is first
parsed by orjson and taken as it is when it has the usual shape (an object with a string
``task_id`` and a list of ``{"name": str, "arguments": {...}}`` calls); any other line, and any
line orjson refuses, goes through :func:`parse_prediction_line`, so the result and the errors
are exactly those of ``json.loads``. orjson gives the same values as ``json.loads`` on every
text both accept, except integers beyond 64 bits, which it makes floats of magnitude at least
2**63; so the orjson result is kept only when every argument value is a string, an int, a bool,
null or a float below that magnitude (a line with any other value, e.g. a list, is left to
``json.loads``). orjson refuses the texts that ``json.loads`` reads otherwise (NaN, infinities,
an exponent that overflows, lone surrogate escapes).

This module imports neither the simulator nor the gold side: reading predictions is cheap.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import orjson

from vmb_gym.errors import DataError
from vmb_gym.types import ToolCall

__all__ = ["NON_VEHICLE_CALLS", "parse_prediction_line", "read_predictions", "vehicle_calls"]

#: Call names that are never vehicle calls and never counted in the tool F1 (as upstream).
NON_VEHICLE_CALLS: frozenset[str] = frozenset({"list_module_tools"})

#: Argument value types orjson reads exactly as ``json.loads`` (floats: below :data:`_BIG` in magnitude).
_SCALARS = frozenset((str, int, bool, float, type(None)))
#: 2**63: orjson turns an integer beyond 64 bits into a float at least this large in magnitude.
_BIG = 9223372036854775808.0


def vehicle_calls(calls: Sequence[ToolCall]) -> Sequence[ToolCall]:
    """``calls`` without the non-vehicle ones (``list_module_tools``), the same sequence when there are none."""
    for c in calls:
        if c.name in NON_VEHICLE_CALLS:
            return [c for c in calls if c.name not in NON_VEHICLE_CALLS]
    return calls


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _parse_arguments(raw: Any, path: str, line: int, task_id: str, index: int) -> dict[str, Any]:
    if type(raw) is dict:  # the usual case
        return raw
    if raw is None:
        return {}
    if isinstance(raw, str):  # the raw JSON text a chat API returns; official: unparsable -> {}
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {}
    if not isinstance(raw, dict):
        raise DataError(
            path, f'task {task_id}: call {index}: expected "arguments" to be a JSON object, found {_kind(raw)}', line
        )
    return raw


def parse_prediction_line(text: str, path: str = "<predictions>", line: int = 1) -> tuple[str, list[ToolCall]]:
    """Parse one predictions line ``{"task_id": "3_7", "calls": [{"name": ..., "arguments": {...}}]}``.

    ``arguments`` may also be spelled ``args`` (official result files) or given as a JSON string
    (as chat APIs return it; unparsable text becomes ``{}``, as in the official executor).

    Raises:
        DataError: the line is not such an object; the message names the line and what is wrong.
    """
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise DataError(path, f"expected a JSON object, found invalid JSON ({exc})", line) from None
    if not isinstance(obj, dict):
        raise DataError(path, f'expected a JSON object with "task_id" and "calls", found {_kind(obj)}', line)
    task_id = obj.get("task_id")
    if not isinstance(task_id, str) or not task_id:
        raise DataError(path, f'expected "task_id" to be a non-empty string like "3_7", found {task_id!r}', line)
    raw_calls = obj.get("calls")
    if not isinstance(raw_calls, list):
        raise DataError(path, f'task {task_id}: expected "calls" to be a list, found {_kind(raw_calls)}', line)
    calls: list[ToolCall] = []
    for i, raw in enumerate(raw_calls):
        if not isinstance(raw, dict):
            raise DataError(
                path, f'task {task_id}: call {i}: expected an object with "name" and "arguments", found {_kind(raw)}',
                line,
            )
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise DataError(
                path, f'task {task_id}: call {i}: expected "name" to be a non-empty string, found {name!r}', line
            )
        arguments = raw["arguments"] if "arguments" in raw else raw.get("args")
        calls.append(ToolCall(name, _parse_arguments(arguments, path, line, task_id, i)))
    return task_id, calls


def _fast_line(text: str) -> tuple[str, list[ToolCall]] | None:
    """The line parsed by orjson when it has the usual shape, else ``None`` (see the module docstring)."""
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is not dict:
        return None
    task_id, raw_calls = obj.get("task_id"), obj.get("calls")
    if type(task_id) is not str or not task_id or type(raw_calls) is not list:
        return None
    calls = []
    for raw in raw_calls:
        if type(raw) is not dict:
            return None
        name, arguments = raw.get("name"), raw.get("arguments")
        if type(name) is not str or not name or type(arguments) is not dict:
            return None  # also "args", a JSON text, null or a missing "arguments": the reference path
        kinds = set(map(type, arguments.values()))
        if not kinds <= _SCALARS or (float in kinds and any(
                type(v) is float and not -_BIG < v < _BIG for v in arguments.values())):
            return None
        calls.append(ToolCall(name, arguments))
    return task_id, calls


def read_predictions(path: str | os.PathLike[str]) -> dict[str, list[ToolCall]]:
    """Read a JSON Lines predictions file into ``task_id -> calls`` (blank lines are skipped).

    Each line gives what :func:`parse_prediction_line` gives for it (through orjson when it has
    the usual shape; see the module docstring).

    Raises:
        DataError: the file cannot be read, a line is malformed, or a task id appears twice.
    """
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise DataError(where, f"cannot read the predictions file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise DataError(where, f"expected UTF-8 text ({exc.reason})") from None
    out: dict[str, list[ToolCall]] = {}
    first_line: dict[str, int] = {}
    # Split on "\n" only: str.splitlines() would also break inside JSON strings holding U+2028.
    for number, line in enumerate(text.split("\n"), start=1):
        parsed = _fast_line(line)
        if parsed is None:
            if not line.strip():
                continue
            parsed = parse_prediction_line(line, where, number)
        task_id, calls = parsed
        if task_id in out:
            raise DataError(
                where, f"task {task_id} appears twice (first on line {first_line[task_id]}); give one line per task",
                number,
            )
        out[task_id] = calls
        first_line[task_id] = number
    return out
