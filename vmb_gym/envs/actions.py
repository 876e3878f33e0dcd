"""Parse policy actions into tool calls; never raises anything but :class:`ActionError`.

Accepted forms (a list or tuple of any of them runs the calls in order):

* a mapping ``{"name": ..., "arguments": {...}}`` (``arguments`` may also be a JSON string, as
  OpenAI-style tool calls carry them, or be called ``parameters``, as Llama 3 writes), the OpenAI shape
  ``{"function": {"name", "arguments"}}``, or an OpenAI assistant message ``{"tool_calls": [...]}``;
* a :class:`~vmb_gym.types.ToolCall`;
* a text reply in any common tool-call format (read by
  :func:`vmb_gym.envs.tool_call_formats.parse_reply`: Hermes/Qwen ``<tool_call>`` JSON or XML blocks,
  Llama ``<|python_tag|>``, Mistral ``[TOOL_CALLS]``, OpenAI tool-call objects, bare JSON, and the
  Python-call form the gold answers use, e.g. ``carcontrol_seat_set_heating_level(seat="driver", level=2)``,
  several separated by new lines). Text that tries to call and cannot be read raises
  :class:`~vmb_gym.errors.ToolCallParseError` (a ``parse_error``); text without any call raises
  :class:`~vmb_gym.errors.ActionError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from vmb_gym.errors import ActionError, ToolCallParseError
from vmb_gym.types import ToolCall

#: Upper bound on the calls one action may carry (protects the env from runaway policies).
MAX_CALLS_PER_ACTION = 32
#: Upper bound on the length of a string action.
MAX_ACTION_CHARS = 100_000


_CALL_KEYS = frozenset(("name", "arguments", "parameters", "id", "type"))
_STR_ONLY = frozenset((str,))


def parse_action(action: Any) -> list[ToolCall]:
    """Turn one policy action into a list of calls.

    Raises:
        ActionError: the action is not a call in any accepted form; the message says what was
            expected, what was found and where.
    """
    if type(action) is dict and "tool_calls" not in action:  # the common case: one call as a dict
        return [_from_mapping(action, "action")]
    calls = _parse(action, where="action")
    if not calls:
        raise ActionError("the action holds no call; expected at least one {'name': ..., 'arguments': {...}}")
    if len(calls) > MAX_CALLS_PER_ACTION:
        raise ActionError(f"the action holds {len(calls)} calls; at most {MAX_CALLS_PER_ACTION} are allowed per step")
    return calls


def _parse(action: Any, where: str) -> list[ToolCall]:
    if type(action) is dict and "tool_calls" not in action:  # the common case first: isinstance against ABCs is slow
        return [_from_mapping(action, where)]
    if isinstance(action, ToolCall):
        return [_checked(action.name, action.arguments, where)]
    if isinstance(action, Mapping):
        if "name" not in action and isinstance(action.get("tool_calls"), (list, tuple)):  # an OpenAI message
            return _parse(list(action["tool_calls"]), f"{where}.tool_calls")
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
    from vmb_gym.envs.tool_call_formats import FORMATS_READ, parse_reply

    parsed = parse_reply(stripped)
    if parsed.errors:
        raise ToolCallParseError(f"{where}: parse_error: the tool call could not be read: "
                                 f"{'; '.join(parsed.errors)}. Fix the call; {FORMATS_READ}")
    if not parsed.calls:
        raise ActionError(f"{where}: found no tool call in the text; {FORMATS_READ}")
    return [_checked(call.name, call.arguments, where) for call in parsed.calls]


def _from_mapping(obj: Mapping[Any, Any], where: str) -> ToolCall:
    if "function" in obj and isinstance(obj["function"], Mapping) and "name" not in obj:
        obj = obj["function"]
    if "name" not in obj:
        keys = ", ".join(map(repr, list(obj)[:5])) or "none"
        raise ActionError(f"{where}: a call needs a 'name' key (and 'arguments'); found keys {keys}")
    if not obj.keys() <= _CALL_KEYS:
        extra = set(obj) - _CALL_KEYS
        raise ActionError(f"{where}: unexpected keys {sorted(map(str, extra))}; a call has only 'name' and 'arguments'")
    args = obj.get("arguments", obj.get("parameters", {}))  # "parameters": Llama 3's JSON calls
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
