"""Aggregate per-task records into the official ``metric.json`` numbers.

All aggregates are macro means over tasks computed with :func:`statistics.mean`, as upstream.
The official int-mean quirk is kept: the mean of all-int values stays an int, so an all-correct
run reports ``"exact_match_rate": 1`` rather than ``1.0``. Upstream never drops a scored task
(``skipped`` is always false), so ``valid_tasks`` equals ``completed_tasks``.

Beyond the official keys, the tool-call F1 means (official and corrected) are reported (upstream
stores tool F1 per task but never aggregates it), and ``avg_num_pred_calls``, the mean number of
scored vehicle calls. The official ``avg_pred_calls`` counts every tool execution, including
``list_module_tools`` and memory calls, which a predictions file does not record, so it is not
reported here.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from vmb_gym.types import REASONING_TYPES

__all__ = ["METRIC_KEYS", "aggregate"]

#: ``metric.json`` key -> per-task record key, in official order.
METRIC_KEYS: dict[str, str] = {
    "exact_match_rate": "exact_match",
    "change_accuracy": "change_accuracy",
    "state_f1_positive": "f1_positive",
    "state_f1_negative": "f1_negative",
    "state_acc_positive": "acc_positive",
    "state_precision_positive": "precision_positive",
    "state_f1_change": "f1_change",
    "state_acc_negative": "acc_negative",
    "state_precision_change": "precision_change",
}

#: Extra (non-official) means: ``metric.json`` key -> record key.
TOOL_KEYS: dict[str, str] = {
    "tool_f1": "tool_f1",
    "tool_precision": "tool_precision",
    "tool_recall": "tool_recall",
    "tool_f1_corrected": "tool_f1_corrected",
}


def _mean(values: list[Any]) -> Any:
    return statistics.mean(values) if values else 0.0


def _block(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "exact_match_rate": _mean([1 if r.get("exact_match") else 0 for r in records]),
    }
    for key, field in METRIC_KEYS.items():
        if key != "exact_match_rate":
            out[key] = _mean([r.get(field, 0) for r in records])
    for key, field in TOOL_KEYS.items():
        out[key] = _mean([r.get(field, 0) for r in records])
    if any("num_pred_calls" in r for r in records):
        out["avg_num_pred_calls"] = _mean([r.get("num_pred_calls", 0) for r in records])
    return out


def aggregate(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Macro means of per-task records (``TaskScore.to_record()`` dicts or ``results.jsonl`` lines).

    Args:
        records: one mapping per task with the per-task metric keys, ``exact_match``,
            ``reasoning_type`` and the tool F1 keys.

    Returns:
        ``completed_tasks``, ``valid_tasks``, ``skipped_tasks``, the nine official means, the tool
        F1 means, ``skipped_queries`` (always empty) and ``by_reasoning_type``
        (``{type: {count, ...same means}}``, official types first in official order).
    """
    rows = list(records)
    metric: dict[str, Any] = {
        "completed_tasks": len(rows),
        "valid_tasks": len(rows),
        "skipped_tasks": 0,
    }
    metric.update(_block(rows))
    metric["skipped_queries"] = []
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r.get("reasoning_type", "unknown")), []).append(r)
    order = [t for t in REASONING_TYPES if t in groups] + sorted(t for t in groups if t not in REASONING_TYPES)
    metric["by_reasoning_type"] = {t: {"count": len(groups[t]), **_block(groups[t])} for t in order}
    return metric
