"""One reader of model replies: every common tool-call format, or a parse error that says what is wrong.

The chat loop (``vmb_agents.llm.chat.parse_tool_calls``), the text-action adapters
(:func:`vmb_gym.integrations.text_actions.reply_action`, for verifiers and SkyRL) and ``env.step`` on a
string (:func:`vmb_gym.envs.actions.parse_action`) all read replies with :func:`parse_reply`.

| family | what the model writes |
|---|---|
| Qwen / Hermes JSON | ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, several, prose around |
| Qwen3.5 / Qwen3-Coder XML | ``<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`` |
| Llama 3 / 3.1 / 3.2 | ``<|python_tag|>`` + JSON or ``name(key=value)``; ``"parameters"`` JSON; ``[f(a=1), g()]`` |
| Mistral | ``[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]``, ``[TOOL_CALLS]NAME[ARGS]{...}`` |
| OpenAI objects | ``{"id", "type", "function": {"name", "arguments": "<JSON>"}}``, lists, ``{"tool_calls": [...]}`` |
| bare JSON | ``{"name": ..., "arguments"|"parameters": {...}}`` or a list of them, alone or inside prose |
| Python call (the gold's) | ``carcontrol_x(a=1, b="c")``, one call per line |

Fenced code blocks (```` ```json ```` / ```` ```python ````) around any of these are read too; ``<think>`` blocks
are removed first, and Llama's ``<|eom_id|>`` / ``<|eot_id|>`` end tokens are ignored.

XML parameter values are text: they are converted by the tool's JSON-schema type when it is known (the
tools passed in, else the env's own catalogue: the vehicle functions, ``list_module_tools``,
``search_memory``, ``finish``): integers, numbers, booleans, objects and arrays; a value that does not
convert stays text, for the tool to report.

A reply that tries to call and cannot be read (broken JSON inside a block, an unclosed block whose
text is not a call, an XML block without a function name, ``[TOOL_CALLS]`` followed by junk, a
Python-call line with a syntax error...) gets one message per unreadable piece in
:attr:`ReplyParse.errors`. A reply without any call attempt has neither calls nor errors.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmb_gym.errors import ActionError
from vmb_gym.types import ToolCall

__all__ = ["FORMATS_READ", "ReplyParse", "call_from_object", "convert_value", "parse_reply"]

#: One line naming the formats read (error observations repeat it).
FORMATS_READ = (
    'formats read: <tool_call>{"name": ..., "arguments": {...}}</tool_call>; '
    "<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>; "
    '<|python_tag|>{"name": ..., "parameters": {...}}; [TOOL_CALLS][{...}] or [TOOL_CALLS]NAME[ARGS]{...}; '
    'JSON {"name", "arguments"} or OpenAI {"function": {"name", "arguments"}} objects; '
    'name(key=value) lines, e.g. carcontrol_seat_set_heating_level(seat="driver", level=2)'
)

_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_LLAMA_END = re.compile(r"<\|(?:eom_id|eot_id)\|>")
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```[a-zA-Z]*\n?(.*?)```", re.DOTALL)
_PY_CALL_LINE = re.compile(r"^\s*`?\s*([A-Za-z_]\w*)\s*\((.*)\)\s*`?\s*;?\s*$")
_PY_CALL_OPEN = re.compile(r"^\s*`?\s*([A-Za-z_]\w*)\(")
_BUILTIN_TOOLS = frozenset(("list_module_tools", "search_memory", "finish", "answer"))
_PY_LIST = re.compile(r"^\[\s*[A-Za-z_]\w*\s*\(")
_FUNCTION = re.compile(r"<function=([^>\n]*)>(.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL)
_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")
_BUILTIN_CALL = re.compile(r"^([A-Za-z_]\w*)\.call\(")
_PYTHON_TAG = "<|python_tag|>"
_TOOL_CALLS = "[TOOL_CALLS]"
_TRAILING_FENCE = re.compile(r"\s*```\s*$")
_OPENING_FENCE = re.compile(r"```[a-zA-Z]*\s*$")
_END_OF_SEQUENCE = re.compile(r"\s*</s>\s*$")


@dataclass
class ReplyParse:
    """What :func:`parse_reply` read from a reply.

    Attributes:
        content: the text outside the calls (reasoning blocks removed).
        calls: the calls, in order.
        errors: one message per piece of text that tried to call and could not be read.
        family: the format the calls were read in (``"hermes"``, ``"xml"``, ``"llama"``, ``"mistral"``,
            ``"json"``, ``"python"``), or ``""`` when the reply holds no call attempt.
    """

    content: str
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    family: str = ""

    @property
    def attempted(self) -> bool:
        """Whether the reply tried to call a tool (read or not)."""
        return bool(self.calls or self.errors)


# ------------------------------------------------------------------------------------------ schemas
ToolsArg = Sequence[str | Mapping[str, Any]] | None


class _ParamTypes:
    """JSON-schema types of tool parameters: the tools given, else the env's own catalogue."""

    def __init__(self, tools: ToolsArg) -> None:
        self.given: dict[str, Mapping[str, Any]] = {}
        for tool in tools or ():
            if isinstance(tool, Mapping):
                fn = tool.get("function", tool)
                if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
                    self.given[fn["name"]] = fn

    def types(self, tool: str, param: str) -> tuple[str, ...]:
        """The schema types of ``param`` of ``tool`` (empty when unknown)."""
        fn = self.given.get(tool) or _catalogue_schema(tool)
        props = ((fn or {}).get("parameters") or {}).get("properties") or {}
        spec = props.get(param)
        if not isinstance(spec, Mapping):
            return ()
        kind = spec.get("type")
        if isinstance(kind, str):
            return (kind,)
        if isinstance(kind, list):
            return tuple(k for k in kind if isinstance(k, str))
        return ()


def _catalogue_schema(name: str) -> Mapping[str, Any] | None:
    """The env's own schema of ``name`` (a vehicle function or a built-in tool), or None."""
    from vmb_gym.vehicle import API_SPECS
    from vmb_gym.vehicle import schema as catalogue

    builtins = {"list_module_tools": catalogue.LIST_MODULE_TOOLS, "search_memory": catalogue.SEARCH_MEMORY,
                "finish": catalogue.FINISH}
    if name in builtins:
        return builtins[name]["function"]
    if name in API_SPECS:
        return catalogue.api_schema(name)["function"]
    return None


def convert_value(text: str, types: Sequence[str]) -> Any:
    """Convert an XML parameter value by its schema types; text that does not convert stays text.

    Args:
        text: the value as written between ``<parameter=KEY>`` and ``</parameter>``.
        types: the parameter's JSON-schema types (``()`` when unknown: the text is kept).
    """
    if not types or "string" in types:
        return text
    stripped = text.strip()
    for kind in types:
        converted = _CONVERTERS.get(kind, _no_conversion)(stripped)
        if converted is not _NOT_CONVERTED:
            return converted
    return text


_NOT_CONVERTED = object()


def _no_conversion(text: str) -> Any:
    return _NOT_CONVERTED


def _to_int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        number = _to_number(text)
        if isinstance(number, float) and number.is_integer():
            return int(number)
        return _NOT_CONVERTED


def _to_number(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return _NOT_CONVERTED
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _NOT_CONVERTED
    if isinstance(value, float) and not math.isfinite(value):
        return _NOT_CONVERTED
    return value


def _to_bool(text: str) -> Any:
    return {"true": True, "false": False}.get(text.lower(), _NOT_CONVERTED)


def _to_null(text: str) -> Any:
    return None if text.lower() in ("null", "none") else _NOT_CONVERTED


def _container(kind: type) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = json.loads(text)
        except ValueError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return _NOT_CONVERTED
        return value if isinstance(value, kind) else _NOT_CONVERTED

    return convert


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "integer": _to_int, "number": _to_number, "boolean": _to_bool, "null": _to_null,
    "object": _container(dict), "array": _container(list),
}


# ------------------------------------------------------------------------------------------ JSON calls
def call_from_object(obj: Any, where: str) -> ToolCall:
    """A call from one decoded JSON object.

    Reads ``{"name", "arguments"|"parameters"}`` (Hermes, Llama, Mistral; ``"type"``/``"id"`` ignored) and
    the OpenAI ``{"function": {"name", "arguments"}}`` object; ``arguments`` may be a JSON string.

    Raises:
        ActionError: the object is not such a call; the message says what is missing.
    """
    if not isinstance(obj, dict):
        raise ActionError(f"{where}: expected a JSON object with 'name' and 'arguments', found {type(obj).__name__}")
    if "function" in obj and isinstance(obj["function"], dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise ActionError(f"{where}: the call has no 'name' string (keys: {sorted(map(str, obj))})")
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            raise ActionError(
                f"{where}: the arguments of {name} are not valid JSON ({exc.msg} at char {exc.pos})") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ActionError(f"{where}: the arguments of {name} must be a JSON object, found {type(args).__name__}")
    return ToolCall(name, args)


def _call_items(decoded: Any) -> tuple[list[Any], bool]:
    """The call objects a decoded JSON value holds, and whether they came as a list."""
    if isinstance(decoded, dict) and isinstance(decoded.get("tool_calls"), list) and "name" not in decoded:
        return list(decoded["tool_calls"]), True
    if isinstance(decoded, list):
        return decoded, True
    return [decoded], False


def _calls_from_decoded(decoded: Any, where: str) -> list[ToolCall]:
    items, listed = _call_items(decoded)
    return [call_from_object(item, f"{where}[{i}]" if listed else where) for i, item in enumerate(items)]


def _calls_from_json_text(text: str, where: str) -> list[ToolCall]:
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ActionError(f"{where}: malformed JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise ActionError(f"{where}: the JSON is nested too deeply to be a call") from None
    return _calls_from_decoded(decoded, where)


def _looks_like_call(obj: Any) -> bool:
    if isinstance(obj, list):
        return bool(obj) and all(_looks_like_call(o) for o in obj)
    if not isinstance(obj, dict):
        return False
    if isinstance(obj.get("tool_calls"), list) and "name" not in obj:
        return _looks_like_call(obj["tool_calls"])
    return isinstance(obj.get("name"), str) or isinstance(obj.get("function"), dict)


# ------------------------------------------------------------------------------------------ Python calls
def _python_call(source: str, where: str = "") -> ToolCall:
    """One Python-call ``name(key=value, ...)``; ``where`` prefixes the error message when given."""
    from vmb_gym.data.call_parser import parse_action_call

    if not where:
        return parse_action_call(source)
    try:
        return parse_action_call(source)
    except ActionError as exc:
        raise ActionError(f"{where}: {exc}") from None


def _python_calls(text: str, known: set[str] | None) -> tuple[list[ToolCall], list[str], str]:
    """Python-call lines of ``text``: the calls, the errors and the text without those lines."""
    calls: list[ToolCall] = []
    errors: list[str] = []
    kept: list[str] = []
    for line in text.splitlines():
        m = _PY_CALL_LINE.match(line)
        name = m.group(1) if m else ""
        if not m or (known is not None and name not in known and not name.startswith("carcontrol_")):
            problem = _broken_call_line(line, known)
            if problem:
                errors.append(problem)
            else:
                kept.append(line)
            continue
        source = line.strip().strip("`").rstrip(";").strip()
        try:
            calls.append(_python_call(source))
        except ActionError as exc:
            errors.append(f"python call {name}(...): {exc}")
    return calls, errors, "\n".join(kept)


def _broken_call_line(line: str, known: set[str] | None) -> str:
    """What is wrong with a line that starts a call to a tool but is not one whole call (else "")."""
    m = _PY_CALL_OPEN.match(line)
    if m is None or _PY_CALL_LINE.match(line):
        return ""
    name = m.group(1)
    if not (name.startswith("carcontrol_") or name in (known or _BUILTIN_TOOLS)):
        return ""
    if line.count("(") > line.count(")"):
        return f"python call {name}(...): '(' is not closed on its line; write each call on one line"
    return f"python call {name}(...): text after the call on its line; write each call alone on its line"


def _python_list(text: str, where: str) -> list[ToolCall]:
    """Llama 3.2's pythonic list ``[f(a=1), g(b="x")]``."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise ActionError(f"{where}: expected a list of calls like [f(a=1), g(b=\"x\")], found invalid syntax "
                          f"({getattr(exc, 'msg', type(exc).__name__)})") from None
    if not isinstance(tree.body, ast.List) or not all(isinstance(e, ast.Call) for e in tree.body.elts):
        raise ActionError(f"{where}: expected a list of calls like [f(a=1), g(b=\"x\")]")
    source = text.strip()
    return [_python_call(ast.get_source_segment(source, e) or "", f"{where} item {i}")
            for i, e in enumerate(tree.body.elts, start=1)]


# ------------------------------------------------------------------------------------------ XML blocks
def _xml_calls(body: str, where: str, types: _ParamTypes) -> list[ToolCall]:
    """Calls of ``<function=NAME><parameter=KEY>VALUE</parameter>...</function>`` (one or several)."""
    functions = list(_FUNCTION.finditer(body))
    if not functions:
        raise ActionError(f"{where}: expected <function=NAME> inside the block, found {body.strip()[:60]!r}")
    outside = _FUNCTION.sub("", body).strip()
    if outside:
        raise ActionError(f"{where}: text outside <function=...>...</function>: {outside[:60]!r}")
    return [_xml_call(m.group(1).strip(), m.group(2), where, types) for m in functions]


def _xml_call(name: str, inner: str, where: str, types: _ParamTypes) -> ToolCall:
    if not _NAME.match(name):
        found = f"{name!r}" if name else "nothing"
        raise ActionError(f"{where}: <function=NAME> needs a function name, found {found}")
    arguments: dict[str, Any] = {}
    for m in _PARAMETER.finditer(inner):
        key = m.group(1).strip()
        if not key:
            raise ActionError(f"{where}: a <parameter=KEY> of {name} has no key")
        if key in arguments:
            raise ActionError(f"{where}: parameter {key!r} of {name} is given twice; give each parameter once")
        value = m.group(2)
        value = value.removeprefix("\n").removesuffix("\n")
        arguments[key] = convert_value(value, types.types(name, key))
    outside = _PARAMETER.sub("", inner).strip()
    if outside:
        raise ActionError(f"{where}: text in {name} outside <parameter=KEY>...</parameter>: {outside[:60]!r}")
    return ToolCall(name, arguments)


# ------------------------------------------------------------------------------------------ families
def _tool_call_blocks(text: str, types: _ParamTypes) -> ReplyParse | None:
    """Qwen/Hermes ``<tool_call>`` blocks (JSON, XML function or Python call inside)."""
    blocks = list(_TOOL_CALL_BLOCK.finditer(text))
    if not blocks:
        return None
    calls: list[ToolCall] = []
    errors: list[str] = []
    families: set[str] = set()
    for n, m in enumerate(blocks, start=1):
        body = m.group(1).strip()
        closed = m.group(0).endswith("</tool_call>")
        where = f"<tool_call> block {n}" + ("" if closed else " (not closed by </tool_call>)")
        fenced = _FENCE.fullmatch(body)
        body = fenced.group(1).strip() if fenced else body
        if not body:  # nothing between the tags, or only an empty ``` fence
            errors.append(f"{where}: empty; expected {{\"name\": ..., \"arguments\": {{...}}}}")
            continue
        xml = body[0] not in "{[" and ("<function" in body or "<parameter=" in body)
        families.add("xml" if xml else "hermes")
        try:
            found: Sequence[ToolCall | str] = _xml_calls(body, where, types) if xml else _block_calls(body, where)
        except ActionError as exc:
            errors.append(str(exc))
            continue
        calls.extend(c for c in found if isinstance(c, ToolCall))
        errors.extend(f"{where}: {e}" for e in found if isinstance(e, str))
    content = _TOOL_CALL_BLOCK.sub("", text).strip()
    return ReplyParse(content, calls, errors, "xml" if "xml" in families else "hermes")


def _block_calls(body: str, where: str) -> list[ToolCall | str]:
    """The calls (and per-line errors) of one JSON or Python-call ``<tool_call>`` block's body."""
    if body[0] in "{[":
        return list(_calls_from_json_text(body, where))
    py_calls, py_errors, _ = _python_calls(body, None)
    if py_calls or py_errors:
        return [*py_calls, *py_errors]
    raise ActionError(f"{where}: expected a JSON call object, found {body[:60]!r}")


def _bare_functions(text: str, types: _ParamTypes) -> ReplyParse | None:
    """Qwen3-Coder ``<function=NAME>`` blocks written without the ``<tool_call>`` wrapper."""
    if "<function=" not in text:
        return None
    calls: list[ToolCall] = []
    errors: list[str] = []
    for n, m in enumerate(_FUNCTION.finditer(text), start=1):
        try:
            calls.append(_xml_call(m.group(1).strip(), m.group(2), f"<function> block {n}", types))
        except ActionError as exc:
            errors.append(str(exc))
    return ReplyParse(_FUNCTION.sub("", text).strip(), calls, errors, "xml")


def _mistral(text: str, types: _ParamTypes) -> ReplyParse | None:
    """Mistral ``[TOOL_CALLS][{...}, ...]`` and ``[TOOL_CALLS]NAME[ARGS]{...}`` (repeated per call)."""
    start = text.find(_TOOL_CALLS)
    if start < 0:
        return None
    content = _OPENING_FENCE.sub("", text[:start]).strip()
    calls: list[ToolCall] = []
    errors: list[str] = []
    segments = text[start + len(_TOOL_CALLS):].split(_TOOL_CALLS)
    for n, segment in enumerate(segments, start=1):
        where = f"[TOOL_CALLS] {n}"
        body = _END_OF_SEQUENCE.sub("", _TRAILING_FENCE.sub("", segment)).strip()
        try:
            found, rest = _mistral_segment(body, where)
        except ActionError as exc:
            errors.append(str(exc))
            continue
        calls.extend(found)
        content = "\n".join(p for p in (content, rest) if p)
    return ReplyParse(content, calls, errors, "mistral")


def _mistral_segment(body: str, where: str) -> tuple[list[ToolCall], str]:
    """One ``[TOOL_CALLS]`` segment: its calls and any text after them."""
    expected = "expected a JSON list of calls or NAME[ARGS]{...} after [TOOL_CALLS]"
    if "[ARGS]" in body:
        head, _, args = body.partition("[ARGS]")
        name = head.partition("[CALL_ID]")[0].strip()
        if not _NAME.match(name):
            raise ActionError(f"{where}: {expected}; found the name {name[:60]!r}")
        decoded, rest = _json_prefix(args, f"{where}: the arguments of {name}")
        return [call_from_object({"name": name, "arguments": decoded}, where)], rest
    if body[:1] not in ("[", "{"):
        raise ActionError(f"{where}: {expected}; found {body[:60]!r}")
    decoded, rest = _json_prefix(body, where)
    return _calls_from_decoded(decoded, where), rest


def _json_prefix(text: str, where: str) -> tuple[Any, str]:
    """The JSON value at the start of ``text`` and the text after it."""
    stripped = text.strip()
    try:
        decoded, end = json.JSONDecoder().raw_decode(stripped)
    except json.JSONDecodeError as exc:
        raise ActionError(f"{where}: malformed JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise ActionError(f"{where}: the JSON is nested too deeply to be a call") from None
    return decoded, stripped[end:].strip()


def _python_tag(text: str, types: _ParamTypes) -> ReplyParse | None:
    """Llama 3.x ``<|python_tag|>`` followed by JSON call(s) (``;``-separated) or Python call(s)."""
    start = text.find(_PYTHON_TAG)
    if start < 0:
        return None
    content = _OPENING_FENCE.sub("", text[:start]).strip()
    body = _TRAILING_FENCE.sub("", text[start:].replace(_PYTHON_TAG, "\n")).strip()
    where = "<|python_tag|>"
    try:
        calls = _llama_body(body, where)
    except ActionError as exc:
        return ReplyParse(content, [], [str(exc)], "llama")
    return ReplyParse(content, calls, [], "llama")


def _llama_body(body: str, where: str) -> list[ToolCall]:
    if not body:
        raise ActionError(f"{where}: nothing after the tag; expected a JSON call or name(key=value)")
    if _PY_LIST.match(body):
        return _python_list(body, where)
    if body[0] in "{[":
        calls: list[ToolCall] = []
        rest = body
        while rest:
            decoded, rest = _json_prefix(rest, where)
            calls.extend(_calls_from_decoded(decoded, where))
            rest = rest.lstrip(";").strip()
        return calls
    calls = []
    for line in (ln.strip().rstrip(";").strip() for ln in body.splitlines()):
        if line:
            calls.append(_python_call(_BUILTIN_CALL.sub(r"\1(", line), where))
    return calls


def _plain(text: str, known: set[str] | None) -> ReplyParse:
    """Replies without tags: bare JSON (whole, fenced or in prose), a pythonic list, Python-call lines."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    candidate = fenced.group(1).strip() if fenced else stripped
    if candidate[:1] in ("{", "["):
        try:
            calls = _calls_from_json_text(candidate, "JSON reply")
        except ActionError as exc:
            try:
                json.loads(candidate)
            except (json.JSONDecodeError, RecursionError):
                outside = _FENCE.sub("", stripped).strip() if fenced else ""
                if _PY_LIST.match(candidate):
                    return _pythonic_reply(candidate, outside)
                # Broken JSON as the whole reply: report it (a call was clearly intended).
                if '"name"' in candidate:
                    return ReplyParse(outside, [], [str(exc)], "json")
        else:
            return ReplyParse(_FENCE.sub("", stripped).strip() if fenced else "", calls, [], "json")
    calls, errors, rest = _embedded_json_calls(stripped)
    if calls or errors:
        return ReplyParse(rest.strip(), calls, errors, "json")
    calls, errors, rest = _python_calls(_FENCE.sub(lambda m: m.group(1), stripped), known)
    if calls or errors:
        return ReplyParse(rest.strip(), calls, errors, "python")
    return ReplyParse(stripped)


def _pythonic_reply(candidate: str, content: str) -> ReplyParse:
    try:
        return ReplyParse(content, _python_list(candidate, "python list"), [], "python")
    except ActionError as exc:
        return ReplyParse(content, [], [str(exc)], "python")


def _embedded_json_calls(text: str) -> tuple[list[ToolCall], list[str], str]:
    """Calls given as JSON values somewhere in prose; returns calls, errors and the remaining text."""
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    errors: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(text):
        j = min((k for k in (text.find("{", i), text.find("[", i)) if k >= 0), default=-1)
        if j < 0:
            break
        try:
            obj, end = decoder.raw_decode(text, j)
        except RecursionError:  # nested too deeply to be a call: the rest is text
            break
        except json.JSONDecodeError:
            rest.append(text[i: j + 1])
            i = j + 1
            continue
        if _looks_like_call(obj):
            rest.append(text[i:j])
            items, _ = _call_items(obj)
            for k, item in enumerate(items):
                try:
                    calls.append(call_from_object(item, f"JSON call {len(calls) + 1 + k}"))
                except ActionError as exc:
                    errors.append(str(exc))
        else:
            rest.append(text[i:end])
        i = end
    rest.append(text[i:])
    return calls, errors, "".join(rest)


_READERS = (_mistral, _python_tag, _tool_call_blocks, _bare_functions)


def parse_reply(text: str, tools: ToolsArg = None) -> ReplyParse:
    """Read the tool calls of a model's reply, in whichever common format it wrote them.

    Forms, tried in this order (the first present wins): Mistral ``[TOOL_CALLS]``, Llama
    ``<|python_tag|>``, ``<tool_call>`` blocks (JSON, XML function or Python call inside; an unclosed last
    block is read to the end), bare ``<function=...>`` blocks, then bare JSON (the whole reply, a fenced
    block, or call objects inside prose), a pythonic list ``[f(a=1)]`` and Python-call lines.

    Args:
        text: the decoded model output.
        tools: the tools offered, as schemas (their parameter types convert XML values) or names
            (with names, only Python-call lines naming one of them or a ``carcontrol_*`` function count).

    Returns:
        The calls, the text outside them, an error per unreadable call attempt and the family read.
    """
    text = _LLAMA_END.sub("", _THINK_BLOCK.sub("", text or ""))
    types = _ParamTypes(tools)
    for reader in _READERS:
        found = reader(text, types)
        if found is not None:
            return found
    known = None if tools is None else {n for n in map(_tool_name, tools) if n}
    return _plain(text, known)


def _tool_name(tool: str | Mapping[str, Any]) -> str:
    if isinstance(tool, str):
        return tool
    fn = tool.get("function", tool)
    return str(fn.get("name", "")) if isinstance(fn, Mapping) else ""
