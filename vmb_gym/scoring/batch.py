"""Scoring a whole predictions file, as ``vmb score`` does: the records and their JSON lines.

:class:`GoldTask` is the gold side of one task in plain values: its ids, the keys of its gold
calls, and the record parts of the two predictions whose outcome the gold alone fixes (an exact
replay of the gold calls, and no vehicle call at all), with the changed gold fields from which
the full :class:`~vmb_gym.scoring.gold.GoldReference` is rebuilt for any other prediction. Plain
values can be stored on disk and read back cheaply (:mod:`vmb_gym.scoring.gold_cache`).

:func:`score_tasks` gives, for each task, exactly the record of
:meth:`~vmb_gym.scoring.scorer.TaskScore.to_record` for ``score_task(query, calls)`` and its
line exactly as ``json.dumps(record, ensure_ascii=False)`` writes it. A prediction whose vehicle
calls have the gold's keys (same names, same JSON-typed arguments) reaches the gold state, since
the simulator is deterministic and reads arguments by name, so its state part is the gold's
``if_matched`` without running it; this holds only when every gold argument survives a JSON
round trip unchanged and none is a dict (:func:`replayable`), which is checked once per task.
"""

from __future__ import annotations

import functools
import json
import marshal
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vmb_gym.scoring.predictions import vehicle_calls
from vmb_gym.scoring.record_fields import state_record_fields, tool_record_fields
from vmb_gym.scoring.tool_f1 import (
    CallKey,
    ToolScore,
    multiset_tool_score,
    official_tool_score,
    tool_call_key,
    tool_call_keys,
)
from vmb_gym.types import Query, ToolCall

if TYPE_CHECKING:  # the gold side and the simulator are imported where a task needs them (not for replays)
    from vmb_gym.scoring.gold import FieldKey, GoldReference
    from vmb_gym.scoring.state_diff import StateScore

__all__ = [
    "ColdParts", "GoldTask", "StatePart", "ToolPart", "fragment", "json_native", "record_head", "replayable",
    "score_counted", "score_tasks", "state_part", "tool_part",
]

_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
_ENCODE_STR = json.encoder.encode_basestring  # what that encoder writes a str with

#: A record's state fields, its difference lines, and the JSON fragments of both.
StatePart = tuple[dict[str, Any], list[str], str, str]
#: A record's tool fields and their JSON fragment.
ToolPart = tuple[dict[str, Any], str]


def fragment(mapping: Mapping[str, Any]) -> str:
    """``json.dumps(mapping, ensure_ascii=False)`` without its braces.

    The dump of a mapping is ``{`` + its items joined by ``", "`` + ``}``, so the fragments of
    consecutive non-empty parts joined by ``", "`` are the dump of the merged mapping.
    """
    return _ENCODE(mapping)[1:-1]


def record_head(task_id: str, reasoning_type: str) -> str:
    """The start of a task's JSON line: ``{"task_id": ..., "reasoning_type": ..., `` (as ``json.dumps`` writes it)."""
    return f'{{"task_id": {_ENCODE_STR(task_id)}, "reasoning_type": {_ENCODE_STR(reasoning_type)}, '


def state_part(state: StateScore) -> StatePart:
    """The state fields and difference lines of a record, with their JSON fragments."""
    fields = state_record_fields(state)
    differences = list(state.differences)
    return fields, differences, fragment(fields), fragment({"differences": differences})


def tool_part(tool: ToolScore, corrected: ToolScore) -> ToolPart:
    """The tool fields of a record, with their JSON fragment."""
    fields = tool_record_fields(tool, corrected)
    return fields, fragment(fields)


_SCALARS = frozenset((str, int, bool, type(None)))


def json_native(value: Any, *, dicts: bool = True) -> bool:
    """Whether ``value`` comes back from a JSON round trip as itself, types included.

    True for str, int, bool, None, finite floats, lists of such values and (unless ``dicts`` is
    false) dicts with string keys; False for tuples, sets, NaN, infinities and anything else.
    """
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(json_native(v, dicts=dicts) for v in value)
    if kind is dict and dicts:
        return all(type(k) is str for k in value) and all(json_native(v) for v in value.values())
    return False


def replayable(calls: Sequence[ToolCall]) -> bool:
    """Whether any calls with the same official keys as ``calls`` reach the same state.

    The keys are JSON with sorted keys, so they fix the arguments' values and types when every
    value survives a JSON round trip, except the order of keys inside a dict value; the simulator
    binds the top-level arguments by name (no API takes ``**kwargs``), so only dict values, which
    an API could read in order, are left out (no official API takes one).
    """
    return all(
        type(c.name) is str and type(c.arguments) is dict and all(type(k) is str for k in c.arguments)
        and all(json_native(v, dicts=False) for v in c.arguments.values())
        for c in calls
    )


@functools.cache
def _replay_tool_part(n: int, distinct: int) -> ToolPart:
    """The tool part of predicted keys equal to ``n`` gold keys of which ``distinct`` differ.

    Both scores depend on these two numbers only (official: TP = distinct, FP = FN = n - distinct;
    multiset: TP = n), so any ``n`` keys with ``distinct`` different ones give them.
    """
    keys = tuple((str(i % distinct), "") for i in range(n)) if n else ()
    return tool_part(official_tool_score(keys, keys), multiset_tool_score(keys, keys))


@functools.cache
def _empty_tool_part(n: int) -> ToolPart:
    """The tool part of no predicted vehicle call against ``n`` gold keys (TP = FP = 0, FN = n)."""
    keys = tuple((str(i), "") for i in range(n))
    return tool_part(official_tool_score((), keys), multiset_tool_score((), keys))


class ColdParts:
    """The marshal bytes of many tasks' untouched state parts and changed fields, as one blob.

    Decoded (all at once) when the first task needs one: a prediction that reaches the gold state
    needs neither, so a warm ``vmb score`` of good predictions never builds those objects.
    """

    __slots__ = ("_blob", "_parts")

    def __init__(self, blob: bytes) -> None:
        self._blob = blob
        self._parts: list[tuple[bytes, bytes]] | None = None

    @staticmethod
    def pack(parts: list[tuple[bytes, bytes]]) -> bytes:
        """The blob of ``(untouched, field_values)`` marshal bytes, one pair per task in order."""
        return marshal.dumps(parts)

    def get(self, index: int) -> tuple[bytes, bytes]:
        """The ``(untouched, field_values)`` marshal bytes of task ``index``."""
        if self._parts is None:
            self._parts = marshal.loads(self._blob)
            self._blob = b""
        return self._parts[index]


class GoldTask:
    """The gold side of one task in plain values (see the module docstring)."""

    __slots__ = ("_cold", "_field_values", "_reference", "_untouched", "empty_tool", "head", "keys", "matched",
                 "reasoning_type", "replay_tool", "replayable", "task_id")

    def __init__(self, task_id: str, reasoning_type: str, keys: tuple[CallKey, ...], replayable: bool,
                 matched: StatePart, replay_tool: ToolPart, empty_tool: ToolPart,
                 untouched: StatePart | bytes | None, field_values: list[tuple[FieldKey, Any]] | bytes | None,
                 reference: GoldReference | None = None, head: str | None = None,
                 cold: tuple[ColdParts, int] | None = None) -> None:
        self.task_id = task_id
        self.reasoning_type = reasoning_type
        self.keys = keys  #: the official keys of the gold calls
        self.replayable = replayable  #: an exact replay of the gold keys reaches the gold state
        self.matched = matched  #: the state part when the prediction reaches exactly the gold state
        self.replay_tool = replay_tool  #: the tool part of predicted keys equal to the gold keys
        self.empty_tool = empty_tool  #: the tool part of no predicted vehicle call
        self._untouched = untouched  # or its marshal bytes, decoded on first use (None: in ``cold``)
        self._field_values = field_values  # or their marshal bytes, decoded on first use (None: in ``cold``)
        self._cold = cold  # (blob, position) holding both when they are None
        self._reference = reference
        self.head = record_head(task_id, reasoning_type) if head is None else head  #: see :func:`record_head`

    @classmethod
    def from_query(cls, query: Query) -> GoldTask:
        """Execute the gold calls of ``query`` on a fresh car and reduce the result."""
        from vmb_gym.scoring.gold import GoldReference

        reference = GoldReference.from_calls((c.name, c.arguments) for c in query.gold_calls)
        keys = tool_call_keys(query.gold_calls)
        return cls(
            task_id=query.task_id,
            reasoning_type=query.reasoning_type,
            keys=keys,
            replayable=replayable(query.gold_calls),
            matched=state_part(reference.if_matched),
            replay_tool=_replay_tool_part(len(keys), len(set(keys))),
            empty_tool=_empty_tool_part(len(keys)),
            untouched=state_part(reference.if_untouched),
            field_values=reference.field_values(),
            reference=reference,
        )

    def to_plain(self, shared: dict[Any, Any] | None = None) -> tuple[Any, ...]:
        """The task as a tuple of plain values for ``marshal`` (raises ``ValueError`` when a value is not).

        The parts that only some predictions need (the untouched state part, the changed fields)
        are marshal bytes, decoded on first use. Parts equal to one already in ``shared`` (keyed by
        their JSON text) are replaced by that object, so ``marshal`` writes each distinct part once.
        """
        shared = {} if shared is None else shared
        matched = shared.setdefault(("state",) + self.matched[2:], self.matched)
        replay_tool = shared.setdefault(("tool", self.replay_tool[1]), self.replay_tool)
        empty_tool = shared.setdefault(("tool", self.empty_tool[1]), self.empty_tool)
        self._thaw()
        untouched = self._untouched if type(self._untouched) is bytes else marshal.dumps(self._untouched)
        fields = self._field_values if type(self._field_values) is bytes else marshal.dumps(self._field_values)
        return (self.task_id, self.reasoning_type, self.keys, self.replayable, matched, replay_tool, empty_tool,
                untouched, fields, None, self.head)

    @classmethod
    def from_plain(cls, data: Sequence[Any]) -> GoldTask:
        """The task that :meth:`to_plain` gave ``data`` for."""
        return cls(*data)

    def _thaw(self) -> None:
        """Take the untouched part and the changed fields out of the cold blob (still as marshal bytes)."""
        if self._cold is not None:
            store, index = self._cold
            self._untouched, self._field_values = store.get(index)
            self._cold = None

    @property
    def untouched(self) -> StatePart:
        """The state part when the prediction changes nothing."""
        self._thaw()
        if type(self._untouched) is bytes:
            self._untouched = marshal.loads(self._untouched)
        return self._untouched  # type: ignore[return-value]

    @property
    def field_values(self) -> list[tuple[FieldKey, Any]]:
        """``GoldReference.field_values()`` of the task."""
        self._thaw()
        if type(self._field_values) is bytes:
            self._field_values = marshal.loads(self._field_values)
        return self._field_values  # type: ignore[return-value]

    @property
    def reference(self) -> GoldReference:
        """The full gold reference, rebuilt from the changed fields on first use."""
        if self._reference is None:
            from vmb_gym.scoring.gold import GoldReference

            self._reference = GoldReference.from_fields(self.field_values)
        return self._reference


def _state(task: GoldTask, calls: Sequence[ToolCall], keys: tuple[CallKey, ...]) -> StatePart:
    if not calls:
        return task.untouched
    if keys == task.keys and task.replayable:
        return task.matched
    from vmb_gym.scoring.gold import score_against
    from vmb_gym.vehicle.simulator import VehicleSimulator

    sim = VehicleSimulator()
    for c in calls:
        sim.call(c.name, c.arguments, with_state=False)
    return state_part(score_against(task.reference, sim))


def _tool(task: GoldTask, keys: tuple[CallKey, ...]) -> ToolPart:
    if keys == task.keys:
        return task.replay_tool
    if not keys:
        return task.empty_tool
    return tool_part(official_tool_score(keys, task.keys), multiset_tool_score(keys, task.keys))


def _scored(
    tasks: Sequence[GoldTask], predictions: Mapping[str, Sequence[ToolCall]]
) -> Iterator[tuple[GoldTask, StatePart, ToolPart, int, str]]:
    """``(task, state part, tool part, number of predicted vehicle calls, JSON line)`` of every task, in order."""
    get, key = predictions.get, tool_call_key
    for task in tasks:
        calls = vehicle_calls(get(task.task_id, ()))
        keys = tuple([key(c.name, c.arguments) for c in calls])
        if calls and keys == task.keys and task.replayable:  # an exact replay: what _state and _tool give
            state, tool = task.matched, task.replay_tool
        else:
            state, tool = _state(task, calls, keys), _tool(task, keys)
        n_pred = len(calls)
        yield task, state, tool, n_pred, (f'{task.head}{state[2]}, {tool[1]}, "num_pred_calls": {n_pred}, '
                                          f'"num_gold_calls": {len(task.keys)}, {state[3]}}}\n')


def score_tasks(
    tasks: Sequence[GoldTask], predictions: Mapping[str, Sequence[ToolCall]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Score every task (no prediction: no calls) and return the records and their JSON lines.

    Args:
        tasks: the gold side of the tasks, in output order.
        predictions: ``task_id -> calls``; ``list_module_tools`` calls are skipped, as in
            :func:`~vmb_gym.scoring.scorer.score_task`.

    Returns:
        One ``TaskScore.to_record()`` dict per task and one ``json.dumps(record,
        ensure_ascii=False) + "\\n"`` line per task.
    """
    records: list[dict[str, Any]] = []
    lines: list[str] = []
    for task, state, tool, n_pred, line in _scored(tasks, predictions):
        records.append({
            "task_id": task.task_id,
            "reasoning_type": task.reasoning_type,
            **state[0],
            **tool[0],
            "num_pred_calls": n_pred,
            "num_gold_calls": len(task.keys),
            "differences": list(state[1]),
        })
        lines.append(line)
    return records, lines


def score_counted(
    tasks: Sequence[GoldTask], predictions: Mapping[str, Sequence[ToolCall]]
) -> tuple[list[tuple[dict[str, Any], int]], list[str]]:
    """What :func:`score_tasks` gives, with the records for :func:`~vmb_gym.scoring.aggregate.aggregate_counted`.

    Returns:
        ``(record, count)`` pairs: each distinct record (its reasoning type, state and tool fields
        and ``num_pred_calls``, the fields aggregation reads) with the number of tasks that have
        it, in order of first occurrence; and the JSON lines of :func:`score_tasks`.
    """
    groups: dict[tuple[str, str, str, int], list[Any]] = {}
    lines: list[str] = []
    for task, state, tool, n_pred, line in _scored(tasks, predictions):
        lines.append(line)
        key = (task.reasoning_type, state[2], tool[1], n_pred)  # JSON texts: equal exactly when the values are
        group = groups.get(key)
        if group is None:
            groups[key] = [{"reasoning_type": task.reasoning_type, **state[0], **tool[0], "num_pred_calls": n_pred}, 1]
        else:
            group[1] += 1
    return [(record, count) for record, count in groups.values()], lines
