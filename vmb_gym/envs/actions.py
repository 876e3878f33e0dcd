"""Parse policy actions into tool calls; never raises anything but :class:`ActionError`.

Accepted forms (a list or tuple of any of them runs the calls in order):

* a mapping ``{"name": ..., "arguments": {...}}`` (``arguments`` may also be a JSON string, as
  OpenAI-style tool calls carry them), or the OpenAI shape ``{"function": {"name", "arguments"}}``;
* a :class:`~vmb_gym.types.ToolCall`;
* a JSON string of a mapping or of a list of mappings;
* the Python-call form the gold answers use, e.g.
  ``carcontrol_seat_set_heating_level(seat="driver", level=2)``, several separated by new lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from vmb_gym.errors import ActionError
from vmb_gym.types import ToolCall

#: Upper bound on the calls one action may carry (protects the env from runaway policies).
MAX_CALLS_PER_ACTION = 32
#: Upper bound on the length of a string action.
MAX_ACTION_CHARS = 100_000


_CALL_KEYS = frozenset(("name", "arguments", "id", "type"))
_STR_ONLY = frozenset((str,))


def parse_action(action: Any) -> list[ToolCall]:
    """Turn one policy action into a list of calls.

    Raises:
        ActionError: the action is not a call in any accepted form; the message says what was
            expected, what was found and where.
    """
    if type(action) is dict:  # the common case: one call as a dict
        return [_from_mapping(action, "action")]
    calls = _parse(action, where="action")
    if not calls:
        raise ActionError("the action holds no call; expected at least one {'name': ..., 'arguments': {...}}")
    if len(calls) > MAX_CALLS_PER_ACTION:
        raise ActionError(f"the action holds {len(calls)} calls; at most {MAX_CALLS_PER_ACTION} are allowed per step")
    return calls


def _parse(action: Any, where: str) -> list[ToolCall]:
    if type(action) is dict:  # the common case first: isinstance against ABCs is slow
        return [_from_mapping(action, where)]
    if isinstance(action, ToolCall):
        return [_checked(action.name, action.arguments, where)]
    if isinstance(action, Mapping):
        return [_from_mapping(action, where)]
    if isinstance(action, (list, tuple)):
        out: list[ToolCall] = []
        for i, item in enumerate(action):
            if isinstance(item, (list, tuple)):
                raise ActionError(f"{where}[{i}]: nested lists of calls are not allowed; pass one flat list")
            out.extend(_parse(item, f"{where}[{i}]"))
        return out
    if isinstance(action, bytes):
        try:
            action = action.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ActionError(f"{where}: bytes are not valid UTF-8 ({exc})") from None
    if isinstance(action, str):
        return _from_text(str(action), where)
    raise ActionError(
        f"{where}: expected a call as a dict, a JSON string or a Python-call string, got {type(action).__name__}"
    )


def _from_text(text: str, where: str) -> list[ToolCall]:
    if len(text) > MAX_ACTION_CHARS:
        raise ActionError(f"{where}: the action text is {len(text)} characters; at most {MAX_ACTION_CHARS} are allowed")
    stripped = text.strip()
    if not stripped:
        raise ActionError(f"{where}: empty text; expected a call such as list_module_tools(module_name=\"seat\")")
    if stripped[0] in "{[":
        try:
            decoded = orjson.loads(stripped)
        except orjson.JSONDecodeError as exc:
            raise ActionError(f"{where}: malformed JSON: {exc}") from None
        return _parse(decoded, where)
    from vmb_gym.data.call_parser import parse_action_call

    lines = [ln.strip() for ln in stripped.splitlines() if ln.strip()]
    return [_checked_call(parse_action_call(ln), f"{where} line {i + 1}" if len(lines) > 1 else where) for i, ln in enumerate(lines)]


def _checked_call(call: ToolCall, where: str) -> ToolCall:
    return _checked(call.name, call.arguments, where)


def _from_mapping(obj: Mapping[Any, Any], where: str) -> ToolCall:
    if "function" in obj and isinstance(obj["function"], Mapping) and "name" not in obj:
        obj = obj["function"]
    if "name" not in obj:
        keys = ", ".join(map(repr, list(obj)[:5])) or "none"
        raise ActionError(f"{where}: a call needs a 'name' key (and 'arguments'); found keys {keys}")
    if not obj.keys() <= _CALL_KEYS:
        extra = set(obj) - _CALL_KEYS
        raise ActionError(f"{where}: unexpected keys {sorted(map(str, extra))}; a call has only 'name' and 'arguments'")
    args = obj.get("arguments", {})
    if isinstance(args, (str, bytes)):
        try:
            args = orjson.loads(args) if (args.strip() if isinstance(args, str) else args) else {}
        except orjson.JSONDecodeError as exc:
            raise ActionError(f"{where}: 'arguments' is not valid JSON: {exc}") from None
    if args is None:
        args = {}
    return _checked(obj["name"], args, where)


def _checked(name: Any, args: Any, where: str) -> ToolCall:
    if not isinstance(name, str) or not name:
        raise ActionError(f"{where}: 'name' must be a non-empty string, got {name!r:.80}")
    if type(args) is not dict and not isinstance(args, Mapping):
        raise ActionError(f"{where}: 'arguments' of {name!r:.80} must be an object, got {type(args).__name__}")
    if not _STR_ONLY.issuperset(map(type, args)) and (bad := [k for k in args if not isinstance(k, str)]):
        raise ActionError(f"{where}: argument names of {name!r:.80} must be strings, got {bad[0]!r:.40}")
    return ToolCall(name, dict(args))
