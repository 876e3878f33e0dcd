"""Official VehicleMemBench scoring: state diff metrics, tool-call F1 and aggregation.

* :func:`score_task` executes predicted calls on a fresh car and scores them against a task's
  gold; :func:`score_final_state` scores a simulator that already ran them.
* :func:`score_flat` is the reference ``calculate_turn_result`` on flattened worlds;
  :func:`score_sims` / :func:`score_against` (:mod:`vmb_gym.scoring.gold`) are the fast path
  giving identical numbers.
* :func:`aggregate` turns per-task records into the official ``metric.json`` numbers.
* ``vmb score`` scores a whole file with :func:`vmb_gym.scoring.batch.score_tasks` (same records,
  and their JSON lines) on the gold of :func:`vmb_gym.scoring.gold_cache.load_gold_tasks`, kept in
  an on-disk cache keyed by the QA files' and the scorer's bytes.
"""

from __future__ import annotations

from vmb_gym.scoring.aggregate import METRIC_KEYS, aggregate
from vmb_gym.scoring.scorer import (
    NON_VEHICLE_CALLS,
    TaskScore,
    gold_reference,
    read_predictions,
    score_final_state,
    score_task,
)
from vmb_gym.scoring.gold import GoldReference, score_against, score_sims
from vmb_gym.scoring.state_diff import METRIC_NAMES, StateScore, score_flat, values_equal
from vmb_gym.scoring.tool_f1 import (
    ToolScore,
    multiset_tool_score,
    official_tool_score,
    tool_call_key,
    tool_call_keys,
)

__all__ = [
    "METRIC_KEYS",
    "METRIC_NAMES",
    "NON_VEHICLE_CALLS",
    "GoldReference",
    "StateScore",
    "TaskScore",
    "ToolScore",
    "aggregate",
    "gold_reference",
    "multiset_tool_score",
    "official_tool_score",
    "read_predictions",
    "score_against",
    "score_final_state",
    "score_flat",
    "score_sims",
    "score_task",
    "tool_call_key",
    "tool_call_keys",
    "values_equal",
]
