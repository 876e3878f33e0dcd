"""Score one task: the official state metrics, the official tool F1 and a corrected tool F1.

Execution follows the official evaluator: gold calls run on a fresh car with every failure and
exception ignored; predicted calls run the same way on another fresh car. ``list_module_tools``
calls are not vehicle calls and, as upstream, are left out of the tool F1 (every other call
counts, including failures, unknown names and memory-tool calls the caller chooses to pass).

The gold side is cached per :class:`~vmb_gym.types.Query` object (identity), so scoring many
predictions for the same task executes its gold once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vmb_gym.scoring.gold import GoldReference, score_against
from vmb_gym.scoring.predictions import NON_VEHICLE_CALLS, parse_prediction_line, read_predictions, vehicle_calls
from vmb_gym.scoring.record_fields import state_record_fields, tool_record_fields
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
    "warm_gold_references",
]

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


def warm_gold_references(queries: Iterable[Query]) -> int:
    """Execute and cache the gold of every query ahead of scoring (a server's start-up); how many.

    The first score of a task executes its gold calls, snapshots the reference and works out the
    outcomes of the two common predictions (nothing changed, exactly the gold): about a third of
    a millisecond per task, paid here once instead of in the first episode that finishes it.
    Scores are the same either way.
    """
    count = 0
    for query in queries:
        reference = _gold_entry(query).reference
        _ = (reference.if_untouched, reference.if_matched)  # computed on first use, then cached
        count += 1
    return count


def _finish(query: Query, entry: _GoldEntry, state: StateScore, calls: Sequence[ToolCall]) -> TaskScore:
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
