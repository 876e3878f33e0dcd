"""Score one task: the official state metrics, the official tool F1 and a corrected tool F1.

Execution follows the official evaluator: gold calls run on a fresh car with every failure and
exception ignored; predicted calls run the same way on another fresh car. ``list_module_tools``
calls are not vehicle calls and, as upstream, are left out of the tool F1 (every other call
counts, including failures, unknown names and memory-tool calls the caller chooses to pass).

The gold side is cached per :class:`~vmb_gym.types.Query` object (identity), so scoring many
predictions for the same task executes its gold once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vmb_gym.errors import DataError
from vmb_gym.scoring.gold import GoldReference, score_against
from vmb_gym.scoring.state_diff import StateScore
from vmb_gym.scoring.tool_f1 import (
    CallKey,
    ToolScore,
    multiset_tool_score,
    official_tool_score,
    tool_call_key,
    tool_call_keys,
)
from vmb_gym.types import Query, ToolCall
from vmb_gym.vehicle.simulator import VehicleSimulator

__all__ = [
    "NON_VEHICLE_CALLS",
    "TaskScore",
    "gold_reference",
    "parse_prediction_line",
    "read_predictions",
    "score_final_state",
    "score_task",
    "state_record_fields",
    "tool_record_fields",
    "vehicle_calls",
]

#: Call names that are never vehicle calls and never counted in the tool F1 (as upstream).
NON_VEHICLE_CALLS: frozenset[str] = frozenset({"list_module_tools"})


@dataclass(frozen=True, slots=True)
class TaskScore:
    """Everything the scorer says about one task."""

    task_id: str
    reasoning_type: str
    state: StateScore
    tool: ToolScore
    tool_corrected: ToolScore
    num_pred_calls: int
    num_gold_calls: int

    @property
    def exact_match(self) -> bool:
        """Exact state match (ESM), the headline metric."""
        return self.state.exact_match

    @property
    def tool_f1(self) -> float | int:
        """The official tool F1 (key-set bug included)."""
        return self.tool.f1

    @property
    def differences(self) -> tuple[str, ...]:
        """The official difference lines (deterministic order)."""
        return self.state.differences

    def to_record(self) -> dict[str, Any]:
        """One ``results.jsonl`` record: ids, counts, every per-task metric, tool scores, differences."""
        return {
            "task_id": self.task_id,
            "reasoning_type": self.reasoning_type,
            **state_record_fields(self.state),
            **tool_record_fields(self.tool, self.tool_corrected),
            "num_pred_calls": self.num_pred_calls,
            "num_gold_calls": self.num_gold_calls,
            "differences": list(self.state.differences),
        }


def state_record_fields(s: StateScore) -> dict[str, Any]:
    """The state part of a ``results.jsonl`` record (``exact_match`` to ``precision_change``), in order."""
    return {
        "exact_match": s.exact_match,
        "TP": s.tp,
        "FP": s.fp,
        "negative_TP": s.negative_tp,
        "negative_FP": s.negative_fp,
        "correctly_changed": s.correctly_changed,
        "should_change": s.should_change,
        "should_not_change": s.should_not_change,
        "change_accuracy": s.change_accuracy,
        "f1_positive": s.f1_positive,
        "f1_negative": s.f1_negative,
        "acc_positive": s.acc_positive,
        "precision_positive": s.precision_positive,
        "f1_change": s.f1_change,
        "acc_negative": s.acc_negative,
        "precision_change": s.precision_change,
    }


def tool_record_fields(tool: ToolScore, corrected: ToolScore) -> dict[str, Any]:
    """The tool part of a ``results.jsonl`` record (official then corrected precision/recall/F1), in order."""
    return {
        "tool_f1": tool.f1,
        "tool_precision": tool.precision,
        "tool_recall": tool.recall,
        "tool_f1_corrected": corrected.f1,
        "tool_precision_corrected": corrected.precision,
        "tool_recall_corrected": corrected.recall,
    }


@dataclass(frozen=True, slots=True, eq=False)
class _GoldEntry:
    query: Query
    reference: GoldReference
    keys: tuple[CallKey, ...]
    replay_tool: ToolScore  # official tool score of an exact replay of the gold
    replay_tool_corrected: ToolScore


_CACHE: dict[int, _GoldEntry] = {}
_CACHE_LIMIT = 8192


def _gold_entry(query: Query) -> _GoldEntry:
    entry = _CACHE.get(id(query))
    if entry is not None and entry.query is query:
        return entry
    reference = GoldReference.from_calls((c.name, c.arguments) for c in query.gold_calls)
    keys = tool_call_keys(query.gold_calls)
    entry = _GoldEntry(
        query=query,
        reference=reference,
        keys=keys,
        replay_tool=official_tool_score(keys, keys),
        replay_tool_corrected=multiset_tool_score(keys, keys),
    )
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[id(query)] = entry  # the entry holds the query, so its id cannot be reused meanwhile
    return entry


def gold_reference(query: Query) -> GoldReference:
    """The reference final state of ``query`` (gold executed once, then cached)."""
    return _gold_entry(query).reference


def vehicle_calls(calls: Sequence[ToolCall]) -> Sequence[ToolCall]:
    """``calls`` without the non-vehicle ones (``list_module_tools``), the same sequence when there are none."""
    for c in calls:
        if c.name in NON_VEHICLE_CALLS:
            return [c for c in calls if c.name not in NON_VEHICLE_CALLS]
    return calls


def _finish(query: Query, entry: _GoldEntry, state: StateScore, calls: list[ToolCall]) -> TaskScore:
    pred_keys = tuple([tool_call_key(c.name, c.arguments) for c in calls])
    if pred_keys == entry.keys:
        tool, corrected = entry.replay_tool, entry.replay_tool_corrected
    else:
        tool = official_tool_score(pred_keys, entry.keys)
        corrected = multiset_tool_score(pred_keys, entry.keys)
    return TaskScore(
        task_id=query.task_id,
        reasoning_type=query.reasoning_type,
        state=state,
        tool=tool,
        tool_corrected=corrected,
        num_pred_calls=len(calls),
        num_gold_calls=len(entry.keys),
    )


def score_task(query: Query, calls: Sequence[ToolCall]) -> TaskScore:
    """Execute ``calls`` on a fresh car and score the result against the task's gold.

    Args:
        query: the task (its ``gold_calls`` define the reference final state).
        calls: the predicted calls, in execution order. ``list_module_tools`` calls are skipped;
            every other call is executed with official semantics (never raises) and counted.

    Returns:
        The task's state metrics, tool F1 scores and difference lines.
    """
    entry = _gold_entry(query)
    vehicle = vehicle_calls(calls)
    sim = VehicleSimulator()
    for c in vehicle:
        sim.call(c.name, c.arguments, with_state=False)
    return _finish(query, entry, score_against(entry.reference, sim), vehicle)


def score_final_state(query: Query, pred_sim: VehicleSimulator, calls: Sequence[ToolCall]) -> TaskScore:
    """Score a simulator that already executed the predicted calls (e.g. an env at episode end).

    Args:
        query: the task.
        pred_sim: a simulator that started from a fresh car; its current state is the prediction.
        calls: the calls the agent made (for the tool F1 only; they are not executed again).
    """
    entry = _gold_entry(query)
    return _finish(query, entry, score_against(entry.reference, pred_sim), vehicle_calls(calls))


# ---------------------------------------------------------------------- predictions files
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


def read_predictions(path: str | os.PathLike[str]) -> dict[str, list[ToolCall]]:
    """Read a JSON Lines predictions file into ``task_id -> calls`` (blank lines are skipped).

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
        if not line.strip():
            continue
        task_id, calls = parse_prediction_line(line, where, number)
        if task_id in out:
            raise DataError(
                where, f"task {task_id} appears twice (first on line {first_line[task_id]}); give one line per task",
                number,
            )
        out[task_id] = calls
        first_line[task_id] = number
    return out
