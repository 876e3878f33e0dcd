"""Official VehicleMemBench scoring: state diff metrics, tool-call F1 and aggregation.

* :func:`score_task` executes predicted calls on a fresh car and scores them against a task's
  gold; :func:`score_final_state` scores a simulator that already ran them.
* :func:`score_flat` is the reference ``calculate_turn_result`` on flattened worlds;
  :func:`score_sims` / :func:`score_against` (:mod:`vmb_gym.scoring.gold`) are the fast path
  giving identical numbers.
* :func:`aggregate` turns per-task records into the official ``metric.json`` numbers.
* ``vmb score`` reads the file with :func:`~vmb_gym.scoring.predictions.read_predictions` and
  scores it with :func:`vmb_gym.scoring.batch.score_counted` (the lines of ``score_tasks``, and
  one record per distinct record for :func:`~vmb_gym.scoring.aggregate.aggregate_counted`) on the
  gold of :func:`vmb_gym.scoring.gold_cache.load_gold_tasks`, kept in an on-disk cache keyed by
  the QA files' and the scorer's bytes.

Names are imported from their submodules on first use, so reading predictions and a cached gold
does not import the simulator.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Eager: the function ``aggregate`` shares its name with its submodule, which would shadow it.
from vmb_gym.scoring.aggregate import METRIC_KEYS, aggregate

if TYPE_CHECKING:
    from vmb_gym.scoring.gold import GoldReference, score_against, score_sims
    from vmb_gym.scoring.predictions import NON_VEHICLE_CALLS, read_predictions
    from vmb_gym.scoring.qa import answers_match, score_qa
    from vmb_gym.scoring.scorer import TaskScore, gold_reference, score_final_state, score_task, warm_gold_references
    from vmb_gym.scoring.state_diff import METRIC_NAMES, StateScore, score_flat, values_equal
    from vmb_gym.scoring.tool_f1 import (
        ToolScore,
        multiset_tool_score,
        official_tool_score,
        tool_call_key,
        tool_call_keys,
    )

#: Public name -> the submodule that defines it, imported on first use (PEP 562): ``vmb score``
#: reads predictions and a cached gold without importing the simulator.
_HOMES: dict[str, str] = {
    "GoldReference": "gold", "score_against": "gold", "score_sims": "gold",
    "NON_VEHICLE_CALLS": "predictions", "read_predictions": "predictions",
    "TaskScore": "scorer", "gold_reference": "scorer", "score_final_state": "scorer", "score_task": "scorer",
    "warm_gold_references": "scorer",
    "METRIC_NAMES": "state_diff", "StateScore": "state_diff", "score_flat": "state_diff",
    "values_equal": "state_diff",
    "answers_match": "qa", "score_qa": "qa",
    "ToolScore": "tool_f1", "multiset_tool_score": "tool_f1", "official_tool_score": "tool_f1",
    "tool_call_key": "tool_f1", "tool_call_keys": "tool_f1",
}

_SUBMODULES = frozenset({"gold", "qa", "scorer", "state_diff", "tool_f1"})


def __getattr__(name: str) -> Any:
    """The public name ``name``, from its submodule (imported on first use)."""
    home = _HOMES.get(name)
    if home is None:
        if name in _SUBMODULES:  # ``import vmb_gym.scoring`` used to import these: attribute access still works
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy public ones included."""
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "METRIC_KEYS",
    "METRIC_NAMES",
    "NON_VEHICLE_CALLS",
    "GoldReference",
    "StateScore",
    "TaskScore",
    "ToolScore",
    "aggregate",
    "answers_match",
    "gold_reference",
    "multiset_tool_score",
    "official_tool_score",
    "read_predictions",
    "score_against",
    "score_final_state",
    "score_flat",
    "score_qa",
    "score_sims",
    "score_task",
    "tool_call_key",
    "tool_call_keys",
    "values_equal",
    "warm_gold_references",
]
