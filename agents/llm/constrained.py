"""Greedy decoding whose tool-call names can only spell names the conversation offers.

A small model reads a module's listing and then, writing the call, spells a function that is not
there (``seat_set_cushion_height_level``) or a parameter the function does not have. With a guide's
``constrain_names`` (:class:`~vmb_agents.llm.guide.RulesGuide`) the decoder masks the logits while the reply is
inside a ``<tool_call>`` JSON object and at a *name slot*:

* the call's ``"name"``: one of the request's tools (official view: the listed vehicle functions
  are tools too);
* the keys of its ``"arguments"``: that tool's parameters (each at most once), or the closing ``}``;
* with ``constrain_values=True`` also the value of a string parameter that takes a fixed set of
  values (``seat``: ``driver``, ``passenger``, ...; from the ``rich`` schemas);
* compact view, inside ``call_vehicle``: the inner ``"name"`` is one of the functions listed so far
  in the conversation (all 111 before any listing) and the inner ``"arguments"`` keys are that
  function's parameters; ``list_module_tools``'s ``"module_name"`` is one of the 23 modules.

At a slot, a token is allowed when its text, appended to what the slot holds already, is still the
start of ``"<a name>"`` (an optional space before the opening quote), or runs past the closing quote
of a complete name (``level",``). Everything outside the slots (values, prose, the JSON
punctuation) decodes freely, so a reply that never reaches a slot is the unconstrained reply.

:class:`TokenIndex` holds each token's text (once per tokenizer); :class:`CallGrammar` the names of
one request; :class:`NameConstraint` answers, for a reply so far, which tokens may come next.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vmb_agents.llm.compact_view import VIEWS, full_name, short_name
from vmb_gym.errors import ConfigError

if TYPE_CHECKING:
    from vmb_agents.reader.reading import Reading

__all__ = ["CallGrammar", "ConstraintLogitsProcessor", "NameConstraint", "Slot", "TokenIndex", "call_slot",
           "grammar_for", "is_vehicle_call", "listed_functions", "literal_choices", "narrow_to_line", "next_tools",
           "pick", "stated_value", "states_a_value", "value_choices"]

#: Where a tool call starts in a reply (the ChatML / Qwen / SmolLM2 syntax).
CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"


class TokenIndex:
    """The text of every token of a tokenizer, and lookups by text.

    Args:
        tokenizer: a transformers tokenizer (each id decoded alone, special tokens kept).
    """

    def __init__(self, tokenizer: Any) -> None:
        size = len(tokenizer)
        self.strings: list[str] = tokenizer.batch_decode([[i] for i in range(size)], skip_special_tokens=False,
                                                        clean_up_tokenization_spaces=False)
        self.by_text: dict[str, list[int]] = {}
        for i, s in enumerate(self.strings):
            if s:
                self.by_text.setdefault(s, []).append(i)
        self._sorted = sorted(self.by_text)

    def text(self, ids: Iterable[int]) -> str:
        """The text of a token sequence (token texts joined)."""
        return "".join(self.strings[i] for i in ids)

    def prefix_tokens(self, target: str) -> list[int]:
        """Tokens whose text is a non-empty prefix of ``target``."""
        out: list[int] = []
        for j in range(1, len(target) + 1):
            out += self.by_text.get(target[:j], [])
        return out

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one index per tokenizer, kept for the policy's life
    def tail_tokens(self, depth: int, comma: bool) -> tuple[int, ...]:
        """Tokens that end a complete JSON value: ``,`` (with ``comma``; spaces and the next key's quote may
        follow) or up to ``depth`` closing ``}`` (with spaces between), after optional spaces."""
        return tuple(i for i, s in enumerate(self.strings) if _is_tail(s, depth, comma))

    def completing_tokens(self, target: str, depth: int, comma: bool) -> list[int]:
        """Tokens whose text is ``target`` followed by the end of the value (:meth:`tail_tokens`)."""
        if not target:
            return list(self.tail_tokens(depth, comma))
        return [i for i in self.extending_tokens(target) if _is_tail(self.strings[i][len(target):], depth, comma)]

    def extending_tokens(self, target: str) -> list[int]:
        """Tokens whose text starts with ``target`` and is longer."""
        out: list[int] = []
        k = bisect.bisect_right(self._sorted, target)
        while k < len(self._sorted) and self._sorted[k].startswith(target):
            out += self.by_text[self._sorted[k]]
            k += 1
        return out


#: The end of a JSON value: a comma (then perhaps the next key's quote) or closing braces.
_TAIL = re.compile(r'[ \t\n]*(?:(,)[ \t\n]*"?|(\}(?:[ \t\n]*\})*)[ \t\n]*)')


def _is_tail(text: str, depth: int, comma: bool) -> bool:
    m = _TAIL.fullmatch(text)
    return bool(m) and (comma if m.group(1) else m.group(2).count("}") <= depth)


@dataclass(frozen=True)
class Slot:
    """Where a partial tool-call JSON object ends.

    Attributes:
        kind: ``"key"`` (a key of the object at ``path`` is next), ``"value"`` (the value at ``path``) or
            ``"after"`` (a value of the object at ``path`` is complete: a ``,`` or its ``}`` is next).
        path: the keys from the call object down to the object whose key is written (kind key) or
            to the value (kind value): ``("arguments", "name")`` is call_vehicle's function name.
        partial: the string's characters written so far, or None when its opening quote is not written yet.
        values: the string values finished so far, by path (``("name",)`` -> the tool's name).
        used_keys: the keys the object at ``path`` has already (kind key).
    """

    kind: str
    path: tuple[str, ...]
    partial: str | None
    values: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    used_keys: frozenset[str] = frozenset()
    #: kind value: a bare literal (a number, true/false) is being written, ``partial`` holds its characters
    literal: bool = False
    #: kind key: the key follows a comma (the object may not close here: that would be a trailing comma)
    after_comma: bool = False
    #: the open containers (how many ``}`` may still close)
    depth: int = 0


def call_slot(reply: str) -> Slot | None:
    """The slot at the end of ``reply`` when it ends inside a ``<tool_call>`` JSON object, else None."""
    start = reply.rfind(CALL_OPEN)
    if start < 0 or CALL_CLOSE in reply[start:]:
        return None
    body = reply[start + len(CALL_OPEN):]
    brace = body.find("{")
    if brace < 0 or body[:brace].strip():
        return None
    return _scan(body[brace:])


def _scan(text: str) -> Slot | None:
    """Follow a partial JSON object; see :func:`call_slot`."""
    # one frame per open container: [is_object, path, state, key, used keys, reached by a comma, literal]
    # states: "key" (a key or "}" next), "colon", "value", "literal" (a number or true/false being written),
    # "after" (a "," or the close next)
    stack: list[list[Any]] = []
    values: dict[tuple[str, ...], str] = {}
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if stack and stack[-1][2] == "literal":
            if ch not in _LITERAL_END:
                stack[-1][6] += ch
                i += 1
                continue
            stack[-1][2] = "after"
        if ch == '"':
            j, s = _read_string(text, i + 1)
            if not stack:
                return None
            if j >= n:  # the string is still being written
                return _string_slot(stack, s, values)
            _end_string(stack[-1], s, values)
            i = j + 1
            continue
        if ch in "{[":
            _open_container(stack, ch)
        elif ch in "}]":
            if len(stack) <= 1:
                return None  # a stray close, or the call object is complete
            stack.pop()
        else:
            _punctuation(stack[-1] if stack else None, ch)
        i += 1
    return _end_slot(stack, values)


def _read_string(text: str, j: int) -> tuple[int, str]:
    """The characters of the JSON string starting at ``j`` (after its quote), escapes resolved to the escaped
    character, and the position of its closing quote (``len(text)``: not closed yet)."""
    n = len(text)
    buf: list[str] = []
    while j < n and text[j] != '"':
        if text[j] == "\\" and j + 1 < n:
            j += 1
        buf.append(text[j])
        j += 1
    return j, "".join(buf)


def _string_slot(stack: list[list[Any]], s: str, values: dict[tuple[str, ...], str]) -> Slot | None:
    """The slot of a string still being written: a key or a value of the innermost object, else None."""
    top = stack[-1]
    if top[0] and top[2] == "key":
        return Slot("key", top[1], s, dict(values), frozenset(top[4]), after_comma=top[5], depth=len(stack))
    if top[0] and top[2] == "value":
        return Slot("value", (*top[1], top[3]), s, dict(values), frozenset(top[4]), depth=len(stack))
    return None


def _end_string(top: list[Any], s: str, values: dict[tuple[str, ...], str]) -> None:
    """A complete string: a key (a colon is next) or a value (recorded by path when an object holds it)."""
    if top[0] and top[2] == "key":
        top[3], top[2] = s, "colon"
        top[4].add(s)
    else:
        if top[0] and top[2] == "value":
            values[(*top[1], top[3])] = s
        top[2] = "after"


def _open_container(stack: list[list[Any]], ch: str) -> None:
    """Push the frame of an object (``{``) or an array (``[``), a value of the frame below it."""
    path: tuple[str, ...] = ()
    if stack:
        top = stack[-1]
        path = (*top[1], top[3]) if top[0] else top[1]
        top[2] = "after"
    stack.append([ch == "{", path, "key" if ch == "{" else "value", None, set(), False, ""])


def _punctuation(top: list[Any] | None, ch: str) -> None:
    """A colon, a comma, white space or the first character of a bare literal, in the innermost frame."""
    if top is None:
        return
    if ch == ":":
        if top[0] and top[2] == "colon":
            top[2] = "value"
    elif ch == ",":
        top[2] = "key" if top[0] else "value"
        top[5] = True
    elif not ch.isspace() and top[2] == "value":
        top[2], top[6] = "literal", ch  # a number, true/false/null: a value that is not a name


def _end_slot(stack: list[list[Any]], values: dict[tuple[str, ...], str]) -> Slot | None:
    """The slot where the text ends inside the innermost open object (None inside an array or outside)."""
    if not stack:
        return None
    top = stack[-1]
    if not top[0]:
        return None
    if top[2] == "key":
        return Slot("key", top[1], None, dict(values), frozenset(top[4]), after_comma=top[5], depth=len(stack))
    if top[2] in ("value", "literal"):
        literal = top[2] == "literal"
        return Slot("value", (*top[1], top[3]), top[6] if literal else None, dict(values), frozenset(top[4]),
                    literal=literal, depth=len(stack))
    if top[2] == "after":
        return Slot("after", top[1], None, dict(values), frozenset(top[4]), depth=len(stack))
    return None


#: Characters that end a bare literal (a number, true/false/null).
_LITERAL_END = frozenset(',}] \t\r\n')


@dataclass(frozen=True)
class CallGrammar:
    """The names one request allows in its tool calls.

    Attributes:
        tools: each tool's name -> its parameter names.
        functions: the functions ``call_vehicle`` may name -> their parameter names (compact view;
            empty when the view calls vehicle functions as tools).
        modules: the module names ``list_module_tools`` may take (empty: not constrained).
        choices: vehicle function (the env's full name) -> parameter -> the values a string parameter
            with a fixed set takes (``seat``: driver, passenger, ...; from the ``rich`` schemas). Empty:
            values are not constrained.
    """

    tools: Mapping[str, tuple[str, ...]]
    functions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    modules: tuple[str, ...] = ()
    choices: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    #: False: only the value sets of ``choices`` and ``literals`` are constrained, no name
    constrain_names: bool = True
    #: vehicle function -> parameter -> the bare literals it takes (integers of a bounded range, true/false);
    #: empty: not constrained
    literals: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    #: the next tool call, set by the conversation so far (:func:`next_tools`): None: any tool
    next_tools: tuple[str, ...] | None = None
    #: a ``search_memory`` query starts with one of these names and a space (empty: not constrained)
    query_names: tuple[str, ...] = ()

    def query_prefixes(self, slot: Slot) -> tuple[str, ...]:
        """The prefixes (a name and a space) the value at ``slot`` must start with: ``search_memory``'s query when
        :attr:`query_names` is set, else none."""
        if (self.query_names and slot.kind == "value" and slot.path == ("arguments", "query")
                and slot.values.get(("name",)) == "search_memory"):
            return tuple(name + " " for name in self.query_names)
        return ()

    def _value_set(self, slot: Slot, sets: Mapping[str, Mapping[str, tuple[str, ...]]]) -> tuple[str, ...] | None:
        """The fixed set of the parameter at ``slot``: ``tool(param=...)`` or ``call_vehicle(name, {param: ...})``."""
        tool = slot.values.get(("name",))
        function = slot.values.get(("arguments", "name")) if tool == "call_vehicle" else None
        if slot.kind != "value":
            return None
        if len(slot.path) == 2 and slot.path[0] == "arguments" and tool in sets:
            return sets[tool].get(slot.path[1])
        if function and len(slot.path) == 3 and slot.path[:2] == ("arguments", "arguments"):
            return sets.get(full_name(function), {}).get(slot.path[2])
        return None

    def literal_values(self, slot: Slot) -> tuple[str, ...] | None:
        """The bare literals allowed at a value ``slot`` (a bounded integer, a boolean), or None: not constrained."""
        return self._value_set(slot, self.literals) or None

    def keys_at(self, slot: Slot) -> tuple[str, ...] | None:
        """The keys the object at ``slot.path`` takes (the call, a tool's arguments, a function's), or None: unknown."""
        if not self.constrain_names:
            return None
        tool = slot.values.get(("name",))
        if slot.path == ():
            return ("name", "arguments")
        if slot.path == ("arguments",) and tool in self.tools:
            return self.tools[tool]
        function = slot.values.get(("arguments", "name")) if tool == "call_vehicle" else None
        if slot.path == ("arguments", "arguments") and function in self.functions:
            return self.functions[function]
        return None

    def names(self, slot: Slot, earlier: Sequence[str] = ()) -> tuple[list[str], bool] | None:
        """(the names allowed at ``slot``, whether closing the object is allowed), or None: not a name slot.

        ``earlier``: the tools the reply has called before this call (a vehicle call there offers ``finish``).
        """
        found = self._value_set(slot, self.choices)
        if found:
            return list(found), False
        if not self.constrain_names:
            return None
        tool = slot.values.get(("name",))
        function = slot.values.get(("arguments", "name")) if tool == "call_vehicle" else None
        if slot.kind == "value" and slot.path == ("name",):
            if self.next_tools is None or any(_is_vehicle(t) for t in earlier):
                return list(self.tools), False
            return [t for t in self.tools if t in self.next_tools] or list(self.tools), False
        if slot.kind == "key" and slot.path == ("arguments",) and tool in self.tools:
            return [k for k in self.tools[tool] if k not in slot.used_keys], not slot.after_comma
        if tool == "call_vehicle" and self.functions:
            if slot.kind == "value" and slot.path == ("arguments", "name"):
                return list(self.functions), False
            if slot.kind == "key" and slot.path == ("arguments", "arguments") and function in self.functions:
                return [k for k in self.functions[function] if k not in slot.used_keys], not slot.after_comma
        if (tool == "list_module_tools" and self.modules and slot.kind == "value"
                and slot.path == ("arguments", "module_name")):
            return list(self.modules), False
        return None


def _params(schema: Mapping[str, Any]) -> tuple[str, ...]:
    fn = schema.get("function", schema)
    return tuple((fn.get("parameters") or {}).get("properties") or {})


def _tool_name(schema: Mapping[str, Any]) -> str:
    return str(schema.get("function", schema).get("name", ""))


#: A compact listing line: ``seat_set_heating_level(seat, level): Set seat heating level (0-3)``.
_LISTED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\):", re.MULTILINE)


def listed_functions(messages: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """The functions the compact view's ``list_module_tools`` results listed in ``messages`` (name -> parameters)."""
    out: dict[str, tuple[str, ...]] = {}
    for m in messages:
        if m.get("role") == "tool" and m.get("name") == "list_module_tools":
            for match in _LISTED.finditer(str(m.get("content") or "")):
                out[match.group(1)] = tuple(p.strip() for p in match.group(2).split(",") if p.strip())
    return out


@functools.cache
def value_choices() -> dict[str, dict[str, tuple[str, ...]]]:
    """Function -> parameter -> allowed values, for every string parameter of a fixed set (the ``rich`` schemas;
    computed once, shared: do not mutate)."""
    return _rich_sets(_string_set)


#: The longest memory query with ``name_in_query`` (characters; then the string is closed): a request's quote
#: with the person's name fits.
MAX_QUERY_CHARS = 160

#: The widest integer range written out as literals (a wider one, e.g. a mileage, is not constrained).
MAX_RANGE = 1000


@functools.cache
def literal_choices() -> dict[str, dict[str, tuple[str, ...]]]:
    """Function -> parameter -> its bare literals: every integer of a parameter with a minimum and a maximum at most
    :data:`MAX_RANGE` apart, ``true``/``false`` of a boolean (the ``rich`` schemas; shared: do not mutate)."""
    return _rich_sets(_literal_set)


def _string_set(prop: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in prop["enum"]) if prop.get("type") == "string" and prop.get("enum") else ()


def _literal_set(prop: Mapping[str, Any]) -> tuple[str, ...]:
    if prop.get("type") == "boolean":
        return ("true", "false")
    low, high = prop.get("minimum"), prop.get("maximum")
    bounded = isinstance(low, int) and isinstance(high, int) and 0 <= high - low <= MAX_RANGE
    if prop.get("type") == "integer" and bounded:
        return tuple(str(v) for v in range(low, high + 1))
    return ()


def _rich_sets(values_of: Any) -> dict[str, dict[str, tuple[str, ...]]]:
    from vmb_gym.vehicle.schema import all_vehicle_schemas

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for schema in all_vehicle_schemas("rich"):
        props = (schema["function"].get("parameters") or {}).get("properties") or {}
        sets = {k: found for k, p in props.items() if (found := values_of(p))}
        if sets:
            out[_tool_name(schema)] = sets
    return out


def _is_vehicle(tool: str) -> bool:
    return tool == "call_vehicle" or tool.startswith("carcontrol_")


@functools.cache
def vehicle_functions() -> frozenset[str]:
    """The env names of the 111 vehicle functions (``carcontrol_...``)."""
    from vmb_gym.vehicle.schema import all_vehicle_schemas

    return frozenset(_tool_name(s) for s in all_vehicle_schemas("official"))


def is_vehicle_call(name: str, arguments: Any) -> bool:
    """Whether a call parses into a valid vehicle call: a known ``carcontrol_`` function with an arguments object,
    or ``call_vehicle`` whose ``name`` is a known function (short or full) and whose ``arguments`` is an object (or
    a JSON text of one, as :meth:`CompactView.to_env_call` reads it). A malformed ``call_vehicle`` is not one."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return False
    if not isinstance(arguments, Mapping):
        return False
    if name.startswith("carcontrol_"):
        return name in vehicle_functions()
    if name != "call_vehicle":
        return False
    inner, function = arguments.get("arguments", {}), arguments.get("name")
    if isinstance(inner, str):
        try:
            inner = json.loads(inner)
        except json.JSONDecodeError:
            return False
    return isinstance(function, str) and full_name(function) in vehicle_functions() and isinstance(inner, Mapping)


def next_tools(messages: Sequence[Mapping[str, Any]], tools: Sequence[str]) -> tuple[str, ...] | None:
    """The tools the next call may name when a vehicle call is required (None: any).

    Before any vehicle call ``finish`` is not offered (``tool_choice="required"`` for the vehicle); once the memory
    was searched after a module listing, the compact view's next call is ``call_vehicle``, and a search before any
    listing is followed by ``list_module_tools`` (the teacher episode's orders: list, search, call; or search the
    request, list, search, call; a search-first model otherwise repeats its search).
    """
    called = [tc.get("function") or {} for m in messages if m.get("role") == "assistant"
              for tc in m.get("tool_calls") or []]
    if any(is_vehicle_call(str(fn.get("name", "")), fn.get("arguments")) for fn in called):
        return None
    results = [str(m.get("name")) for m in messages if m.get("role") == "tool"]
    listed = "list_module_tools" in results
    if "call_vehicle" in tools and listed and "search_memory" in results[results.index("list_module_tools"):]:
        return ("call_vehicle",)
    if "list_module_tools" in tools and "search_memory" in results and not listed:
        return ("list_module_tools",)  # searched before any listing (search-first order): list next
    return tuple(t for t in tools if t != "finish")


def grammar_for(view: Any, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]],
                reading: Reading | None = None, *, names: bool = True, values: bool = False,
                require_vehicle: bool = False, name_in_query: bool = False, shortlist: int = 0,
                seat_from_request: bool = False) -> CallGrammar:
    """The :class:`CallGrammar` of one request of ``view`` (a compact view, :data:`~vmb_agents.llm.compact_view.VIEWS`:
    call_vehicle's functions and modules too); ``names``: constrain the names and the JSON around them; ``values``:
    the fixed value sets of string parameters (:func:`value_choices`) and the literals of bounded integers and
    booleans (:func:`literal_choices`); ``require_vehicle``: no ``finish`` before a vehicle call (:func:`next_tools`);
    ``name_in_query``: a memory query starts with a name the request narrates (``reading.speakers``, read with
    :func:`vmb_agents.llm.query_names.request_names`); ``shortlist`` K > 0 (compact view): modules and functions only
    those of the first K of :func:`vmb_agents.llm.tool_shortlist.shortlist`; ``seat_from_request`` (with ``values``):
    a seat, zone or reading light only the places the request's narrative gives
    (:func:`vmb_agents.llm.request_seat.place_choices`). The last three read the step's ``reading``.

    Raises:
        ConfigError: ``name_in_query``, ``shortlist`` or ``seat_from_request`` without a reading.
    """
    if reading is None and (name_in_query or shortlist > 0 or (values and seat_from_request)):
        raise ConfigError("grammar_for: name_in_query, shortlist and seat_from_request read the request; expected "
                          "the step's Reading, found none; fix: pass reading=Reading.of(request, names)")
    tool_params = {_tool_name(t): _params(t) for t in tools}
    choices = value_choices() if values else {}
    if values and seat_from_request and reading is not None:
        from vmb_agents.llm.request_seat import place_choices

        places = place_choices(reading)  # only the functions with a place are copied and narrowed
        choices = {**choices, **{fn: {**choices.get(fn, {}), **place} for fn, place in places.items()}}
    literals = literal_choices() if values else {}
    after = next_tools(messages, list(tool_params)) if require_vehicle else None
    people = reading.speakers if name_in_query and reading is not None else ()
    if getattr(view, "name", "") not in VIEWS or "call_vehicle" not in tool_params:
        return CallGrammar(tool_params, choices=choices, constrain_names=names, literals=literals, next_tools=after,
                           query_names=people)
    from vmb_gym.vehicle.schema import MODULE_KEYS, all_vehicle_schemas

    functions = listed_functions(messages) or {short_name(_tool_name(s)): _params(s)
                                               for s in all_vehicle_schemas("official")}
    modules = tuple(MODULE_KEYS)
    if shortlist > 0:
        from vmb_agents.llm.tool_shortlist import shortlist as rank
        from vmb_gym.vehicle import API_SPECS

        kept = rank(reading, shortlist, getattr(view, "shown", 0)) if reading is not None else ()
        if kept:
            modules = tuple(dict.fromkeys(API_SPECS[api].module for api in kept))
            functions = {n: p for n, p in functions.items() if full_name(n) in kept} or functions
    return CallGrammar(tool_params, functions, modules, choices, names, literals, after, people)


def stated_value(function: str, line: str) -> tuple[str, Any] | None:
    """(the value parameter's name, the value) that a memory line (``Name: text``) states for ``function`` (a name as
    ``call_vehicle`` or the env writes it), read with the rules reader's value matcher; None when it states none
    (or a value of two parameters, which is not narrowed)."""
    from vmb_agents.reader.params import value_param
    from vmb_agents.reader.values import extract_value
    from vmb_gym.vehicle import API_SPECS

    spec = API_SPECS.get(full_name(function))
    param = value_param(spec) if spec is not None else None
    value = extract_value(spec, line.split(": ", 1)[-1]) if param is not None else None
    return None if value is None or isinstance(value, dict) else (param.name, value)  # type: ignore[union-attr]


def states_a_value(line: str, functions: Iterable[str]) -> bool:
    """Whether a memory line (``Name: text``) states a value for one of ``functions`` (:func:`stated_value`)."""
    return any(stated_value(f, line) is not None for f in functions)


def narrow_to_line(line: str, choices: Mapping[str, Mapping[str, tuple[str, ...]]],
                   literals: Mapping[str, Mapping[str, tuple[str, ...]]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``choices`` and ``literals`` with each function's value parameter narrowed to the value ``line`` (a memory
    line, ``Name: text``) states for it (:func:`stated_value`), where it states one that the parameter's set holds;
    other functions and parameters are left as they are (new dicts; the inputs are shared)."""
    new_choices = {fn: dict(params) for fn, params in choices.items()}
    new_literals = {fn: dict(params) for fn, params in literals.items()}
    for fn in set(new_choices) | set(new_literals):
        stated = stated_value(fn, line)
        if stated is None:
            continue
        param, value = stated
        literal = ("true" if value else "false") if isinstance(value, bool) else str(value)
        for table in (new_choices, new_literals):
            allowed = table.get(fn, {}).get(param)
            if allowed and literal in allowed:
                table[fn][param] = (literal,)
    return new_choices, new_literals


class NameConstraint:
    """Which tokens may follow a reply so far, for one request (None: any).

    Args:
        index: the tokenizer's :class:`TokenIndex`.
        grammar: the request's :class:`CallGrammar`.
    """

    def __init__(self, index: TokenIndex, grammar: CallGrammar) -> None:
        self.index = index
        self.grammar = grammar
        #: steps at which the logits were masked (for the episode's figures)
        self.masked_steps = 0

    def allowed(self, reply: Sequence[int]) -> list[int] | None:
        """Token ids allowed after ``reply`` (its ids so far), or None when the reply is not at a constrained slot."""
        text = self.index.text(reply)
        slot = call_slot(text)
        if slot is None:
            return None
        if slot.kind == "after":
            ids = self._after_ids(slot)
        elif prefixes := self.grammar.query_prefixes(slot):
            ids = self._prefix_ids(slot, prefixes)
        elif (literals := self.grammar.literal_values(slot)) is not None:
            ids = self._literal_ids(slot, literals)
        elif slot.literal:
            return None
        else:
            ids = self._name_ids(slot, text)
        if not ids:
            return None
        self.masked_steps += 1
        return sorted(ids)

    def _after_ids(self, slot: Slot) -> set[int] | None:
        """After a complete value: ``,`` while the object has keys left, or its ``}``."""
        keys = self.grammar.keys_at(slot)
        if keys is None:
            return None
        return set(self.index.tail_tokens(slot.depth, comma=bool(set(keys) - slot.used_keys)))

    def _literal_ids(self, slot: Slot, literals: Sequence[str]) -> set[int] | None:
        """A bare literal of the set, then the end of the value (``,`` or ``}``)."""
        parent = Slot("after", slot.path[:-1], None, slot.values, slot.used_keys, depth=slot.depth)
        keys = self.grammar.keys_at(parent)
        comma = keys is None or bool(set(keys) - slot.used_keys)
        if slot.partial is None:
            targets = [sp + v for v in literals for sp in ("", " ")]
        else:
            targets = [v[len(slot.partial):] for v in literals if v.startswith(slot.partial)]
            if not targets:
                return None  # the value is already outside the set: nothing left to steer
        ids: set[int] = set()
        for t in targets:
            if t:
                ids.update(self.index.prefix_tokens(t))
            ids.update(self.index.completing_tokens(t, slot.depth, comma))
        return ids

    def _prefix_ids(self, slot: Slot, prefixes: Sequence[str]) -> set[int] | None:
        """A string that starts with one of ``prefixes``; free once one is written (or none can be any more), and
        closed once it is :data:`MAX_QUERY_CHARS` long (a small model can repeat words until its token limit)."""
        if slot.partial is not None and len(slot.partial) >= MAX_QUERY_CHARS:
            return set(self.index.prefix_tokens('"')) | set(self.index.completing_tokens('"', slot.depth, comma=True))
        if slot.partial is None:
            targets = [f'{sp}"{p}' for p in prefixes for sp in ("", " ")]
        elif any(slot.partial.startswith(p) for p in prefixes):
            return None
        else:
            targets = [p[len(slot.partial):] for p in prefixes if p.startswith(slot.partial)]
        ids: set[int] = set()
        for t in targets:
            ids.update(self.index.prefix_tokens(t))
            ids.update(self.index.extending_tokens(t))
        return ids

    def _name_ids(self, slot: Slot, text: str) -> set[int] | None:
        found = self.grammar.names(slot, _earlier_tools(text))
        if found is None:
            return None
        names, may_close = found
        ids: set[int] = set()
        if slot.partial is None:
            targets = [f'{sp}"{name}"' for name in names for sp in ("", " ")]
            if may_close:
                ids.update(self.index.tail_tokens(slot.depth, comma=False))
        else:
            targets = [name[len(slot.partial):] + '"' for name in names if name.startswith(slot.partial)]
            if not targets:
                return None  # the slot already holds a name no listing has: nothing left to steer
        for t in targets:
            ids.update(self.index.prefix_tokens(t))
            ids.update(self.index.extending_tokens(t))
        return ids


#: A complete tool call block of a reply (the calls before the one being written).
_CALLED = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def _earlier_tools(reply: str) -> list[str]:
    """The tools the calls of ``reply`` before its last ``<tool_call>`` name; a vehicle call that does not parse
    into a valid one (:func:`is_vehicle_call`) is left out, so it does not count as the required vehicle call."""
    out = []
    for body in _CALLED.findall(reply[:reply.rfind(CALL_OPEN)]):
        try:
            call = json.loads(body)
        except json.JSONDecodeError:
            continue
        name = str(call.get("name", "")) if isinstance(call, Mapping) else ""
        if name and (not _is_vehicle(name) or is_vehicle_call(name, call.get("arguments"))):
            out.append(name)
    return out


def pick(logits: Any, allowed: list[int] | None) -> int:
    """The greedy token of one row's logits (``[vocab]``), among ``allowed`` when given."""
    if allowed is None:
        return int(logits.argmax())
    import torch

    ids = torch.tensor(allowed, device=logits.device)
    return int(ids[logits[ids].argmax()])


class ConstraintLogitsProcessor:
    """The same constraints for transformers' ``generate`` (greedy or sampled): disallowed logits set to ``-inf``.

    Args:
        constraints: one per row of the batch (None: that row is free).
        prompt_length: the (left-padded) prompt width; the reply of a row is what follows it.
    """

    def __init__(self, constraints: Sequence[NameConstraint | None], prompt_length: int) -> None:
        self.constraints = list(constraints)
        self.prompt_length = int(prompt_length)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        """``scores`` with every token outside a row's allowed set masked."""
        for row, rule in enumerate(self.constraints):
            if rule is None:
                continue
            allowed = rule.allowed(input_ids[row, self.prompt_length:].tolist())
            if allowed is not None:
                keep = scores[row, allowed].clone()
                scores[row] = float("-inf")
                scores[row, allowed] = keep
        return scores
