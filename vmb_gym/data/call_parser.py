"""Parsing of vehicle calls written in the Python-call form ``name(key=value, ...)``.

Two grammars live here:

* :func:`parse_gold_call` / :func:`parse_gold_calls` reproduce the official
  ``parse_answer_to_tools`` exactly (spec §2.4), so that gold answers read by vmb_gym are the
  ones the official scorer uses. The official code silently drops what it cannot read; these
  functions drop the same things but report them (the dropped strings, and a warning per
  dropped argument text).
* :func:`parse_action_call` reads policy actions with a stricter and wider grammar (keyword
  arguments with JSON-like values, including negatives, null, lists and objects) and raises
  :class:`~vmb_gym.errors.ActionError` saying what is wrong and at which column.

Neither uses ``eval``: the gold grammar is regular expressions, the action grammar walks the
tree produced by :func:`ast.parse`.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable
from typing import Any

from vmb_gym.errors import ActionError
from vmb_gym.types import ToolCall

__all__ = ["parse_action_call", "parse_gold_call", "parse_gold_calls"]

# Official: re.match(r'(\w+)\((.*)\)', answer_str.strip()): greedy, no DOTALL, start-anchored.
_GOLD_CALL = re.compile(r"(\w+)\((.*)\)")
# Official argument pattern: name=VALUE, VALUE tried in order double-quoted string (backslash
# escapes allowed), single-quoted string (same), bool in two casings, then [\d.]+.
_GOLD_ARG = re.compile(
    r"""(\w+)=("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|True|False|true|false|[\d.]+)"""
)
# What may separate arguments without anything being lost.
_SEPARATOR = re.compile(r"[\s,]*")


class _MalformedNumber(ValueError):
    """A ``[\\d.]+`` value that ``int()``/``float()`` rejects (the official code crashes)."""


def _coerce_gold_value(raw: str) -> Any:
    """Convert one matched gold value exactly as the official code does.

    Args:
        raw: the VALUE text matched by the argument pattern.

    Returns:
        The string without its outer quotes (escapes kept as written), a bool, an int or a float.

    Raises:
        _MalformedNumber: ``raw`` is digits and dots but not a number (``1.2.3``, ``.``).
    """
    if raw[0] in "\"'":
        return raw[1:-1]
    lowered = raw.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    try:
        return float(raw) if "." in raw else int(raw)
    except ValueError as exc:
        raise _MalformedNumber(raw) from exc


def parse_gold_call(text: str, warnings: list[str] | None = None) -> ToolCall | None:
    """Parse one gold answer string with the official grammar (spec §2.4).

    The entry is stripped and matched with ``(\\w+)\\((.*)\\)`` at its start; arguments are
    found with ``finditer`` of ``name=VALUE``. Argument text that the official pattern does not
    read (negative numbers, ``None``/``null``, lists, positional arguments, ``TRUE``) is dropped
    as the official code does, and described in ``warnings``.

    Args:
        text: one entry of a ``new_answer`` list, e.g. ``f(seat="driver", level=2)``.
        warnings: when given, one message is appended per dropped piece of text.

    Returns:
        The call, or ``None`` when the entry is not a call or holds a malformed number such as
        ``1.2.3`` (the official code would raise; we drop the call and report it instead).
    """
    notes: list[str] = warnings if warnings is not None else []
    stripped = text.strip()
    match = _GOLD_CALL.match(stripped)
    if match is None:
        notes.append(f"{text!r}: expected 'name(key=value, ...)' at the start; entry dropped")
        return None
    name, args_text = match.group(1), match.group(2)
    trailing = stripped[match.end():]
    if trailing.strip():
        notes.append(f"{text!r}: text after the call ignored: {trailing.strip()!r}")
    arguments: dict[str, Any] = {}
    if args_text.strip():
        position = 0
        for arg in _GOLD_ARG.finditer(args_text):
            _note_skipped(text, args_text[position:arg.start()], notes)
            position = arg.end()
            try:
                arguments[arg.group(1)] = _coerce_gold_value(arg.group(2))
            except _MalformedNumber:
                notes.append(
                    f"{text!r}: argument {arg.group(1)}={arg.group(2)} is not a number "
                    "(expected digits with at most one '.'); call dropped"
                )
                return None
        _note_skipped(text, args_text[position:], notes)
    return ToolCall(name=name, arguments=arguments)


def _note_skipped(text: str, gap: str, notes: list[str]) -> None:
    """Record argument text between official matches that the official parser ignores."""
    if _SEPARATOR.fullmatch(gap) is None:
        cleaned = gap.strip().strip(",").strip()
        notes.append(
            f"{text!r}: argument text {cleaned!r} not readable by the official grammar "
            "(supported: quoted strings, true/false, unsigned numbers); dropped"
        )


def parse_gold_calls(
    strings: Iterable[str], warnings: list[str] | None = None
) -> tuple[list[ToolCall], list[str]]:
    """Parse a ``new_answer`` list with the official grammar.

    Args:
        strings: the gold answer strings, in order.
        warnings: when given, receives one message per dropped entry or argument text.

    Returns:
        ``(calls, dropped)``: the parsed calls in order, and the entries that gave no call.
    """
    calls: list[ToolCall] = []
    dropped: list[str] = []
    for entry in strings:
        call = parse_gold_call(entry, warnings)
        if call is None:
            dropped.append(entry)
        else:
            calls.append(call)
    return calls, dropped


# --------------------------------------------------------------------------------------------
# Policy actions
# --------------------------------------------------------------------------------------------

_NAMED_CONSTANTS: dict[str, Any] = {"true": True, "false": False, "null": None}


def parse_action_call(text: str) -> ToolCall:
    """Parse a policy action written as a Python-style call with keyword arguments.

    Accepted values: strings in single or double quotes, ints and floats (signed), ``true``/
    ``false``/``True``/``False``, ``null``/``None``, and lists/objects of those (object keys must
    be strings). Positional arguments, ``*``/``**`` expansion, repeated keywords, expressions
    and names are rejected.

    Args:
        text: e.g. ``carcontrol_seat_set_heating_level(seat="driver", level=2)``.

    Returns:
        The call with JSON-typed argument values.

    Raises:
        ActionError: the text is not such a call; the message names the problem and the
            1-based column where it is.
    """
    if not isinstance(text, str):
        raise ActionError(f"expected the call as a string, found {type(text).__name__}")
    source = text.strip()
    if not source:
        raise ActionError(
            "expected a call like 'tool_name(key=value, ...)', found an empty string"
        )
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        column = _column(source, exc.lineno, exc.offset)
        raise ActionError(
            f"expected a call like 'tool_name(key=value, ...)', found invalid syntax at "
            f"column {column}: {exc.msg}; check quotes, commas and parentheses"
        ) from None
    body = tree.body
    if not isinstance(body, ast.Call):
        raise ActionError(
            f"expected a single call like 'tool_name(key=value, ...)', found "
            f"{_describe(body)} at column {_col(source, body)}"
        )
    if not isinstance(body.func, ast.Name):
        raise ActionError(
            f"expected a plain tool name before '(', found {_describe(body.func)} at column "
            f"{_col(source, body.func)}; write e.g. 'carcontrol_seat_set_heating_level(...)'"
        )
    if body.args:
        first = body.args[0]
        raise ActionError(
            f"expected keyword arguments only (key=value), found a positional argument at "
            f"column {_col(source, first)}; name it, e.g. 'level=2'"
        )
    arguments: dict[str, Any] = {}
    for keyword in body.keywords:
        if keyword.arg is None:
            raise ActionError(
                f"expected keyword arguments (key=value), found '**' expansion at column "
                f"{_col(source, keyword)}"
            )
        if keyword.arg in arguments:
            raise ActionError(
                f"argument {keyword.arg!r} is given twice (second at column "
                f"{_col(source, keyword)}); give each argument once"
            )
        arguments[keyword.arg] = _literal(keyword.value, source, keyword.arg)
    return ToolCall(name=body.func.id, arguments=arguments)


def _literal(node: ast.expr, source: str, where: str) -> Any:
    """Convert a value node to a JSON value, or raise :class:`ActionError` naming the column."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if isinstance(value, float):
            if math.isfinite(value):
                return value
            raise ActionError(
                f"argument {where!r}: expected a finite number, found {ast.get_source_segment(source, node)!r} "
                f"at column {_col(source, node)}"
            )
    elif isinstance(node, ast.Name) and node.id in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[node.id]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if (
            isinstance(operand, ast.Constant)
            and isinstance(operand.value, (int, float))
            and not isinstance(operand.value, bool)
        ):
            number = _literal(operand, source, where)
            return -number if isinstance(node.op, ast.USub) else number
    elif isinstance(node, ast.List):
        return [_literal(item, source, where) for item in node.elts]
    elif isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ActionError(
                    f"argument {where!r}: '**' expansion is not allowed in an object, at column "
                    f"{_col(source, item)}"
                )
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise ActionError(
                    f"argument {where!r}: expected a quoted string as object key, found "
                    f"{_describe(key)} at column {_col(source, key)}"
                )
            result[key.value] = _literal(item, source, where)
        return result
    if isinstance(node, ast.Name):
        raise ActionError(
            f"argument {where!r}: expected a value (quoted string, number, true/false, null, "
            f"list or object), found the bare name {node.id!r} at column {_col(source, node)}; "
            f"quote it if it is a string: \"{node.id}\""
        )
    raise ActionError(
        f"argument {where!r}: expected a value (quoted string, number, true/false, null, list "
        f"or object), found {_describe(node)} at column {_col(source, node)}"
    )


def _describe(node: ast.AST) -> str:
    """A short human name for an expression node."""
    names = {
        ast.Call: "a call",
        ast.Attribute: "an attribute access",
        ast.BinOp: "an arithmetic expression",
        ast.BoolOp: "a boolean expression",
        ast.Compare: "a comparison",
        ast.Tuple: "a tuple",
        ast.Set: "a set",
        ast.Lambda: "a lambda",
        ast.Subscript: "a subscript",
        ast.JoinedStr: "an f-string",
        ast.Name: "a name",
        ast.Constant: "a constant",
        ast.UnaryOp: "a unary expression",
    }
    for kind, label in names.items():
        if isinstance(node, kind):
            return label
    return f"an expression ({type(node).__name__})"


def _col(source: str, node: ast.AST) -> int:
    """1-based column of a node in ``source`` (counted over the whole text for multi-line input)."""
    return _column(source, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, utf8=True)


def _column(source: str, lineno: int | None, offset: int | None, utf8: bool = False) -> int:
    """Turn a (line, 1-based offset) position into a 1-based column over the whole text.

    ``ast`` node offsets count UTF-8 bytes; ``SyntaxError.offset`` counts characters.
    """
    lines = source.split("\n")
    line_index = max(1, lineno or 1) - 1
    if line_index >= len(lines):
        return len(source) + 1
    offset = max(1, offset or 1)
    if utf8:
        offset = len(lines[line_index].encode("utf-8")[: offset - 1].decode("utf-8", "replace")) + 1
    before = sum(len(line) + 1 for line in lines[:line_index])
    return before + offset
