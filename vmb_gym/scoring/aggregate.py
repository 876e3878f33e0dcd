"""Aggregate per-task records into the official ``metric.json`` numbers.

All aggregates are macro means over tasks with the results of :func:`statistics.mean`, as
upstream, computed by :func:`exact_mean` (the same exact rational mean, correctly rounded, only
faster). The official int-mean quirk is kept: the mean of all-int values stays an int, so an all-correct
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
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter, methodcaller, mul, truth
from typing import Any

from vmb_gym.types import REASONING_TYPES

__all__ = ["METRIC_KEYS", "aggregate", "aggregate_counted", "exact_mean", "exact_weighted_mean"]

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


_INT_TYPES = frozenset((int, bool))
_NUMBER_TYPES = frozenset((int, bool, float))


def exact_mean(values: Sequence[Any]) -> Any:
    """``statistics.mean(values)``, bit for bit, for ints, bools and finite floats (much faster).

    ``statistics.mean`` sums the exact ratios of the values as a ``Fraction``, divides by the
    count and converts with ``_convert``: an ``int`` when every value is an int or a bool and the
    mean is a whole number, else ``float(Fraction)``, which is the correctly rounded quotient of
    two ints (``Fraction.__float__`` is ``numerator / denominator``, and CPython's int true
    division rounds correctly). Here the same exact sum is formed (``sum()`` when there is no
    float; else over the distinct values, each ratio scaled to the largest denominator, since a
    float's ratio has a power-of-two one), and the same correctly rounded int division gives the
    same float, whatever the grouping.
    Any other input (an empty sequence, another numeric type, NaN or an infinity) goes to
    :func:`statistics.mean` itself.
    """
    kinds = set(map(type, values))
    if not values or not kinds <= _NUMBER_TYPES:
        return statistics.mean(values)
    n = len(values)
    if float not in kinds:  # ints and bools: sum() is the exact sum
        total = sum(values)
        return total // n if total % n == 0 else total / n
    counts = Counter(values)  # 1, 1.0 and True share a key: equal ratios
    try:
        ratios = [value.as_integer_ratio() for value in counts]
    except (OverflowError, ValueError):  # an infinity or NaN
        return statistics.mean(values)
    scale = max(map(itemgetter(1), ratios))  # powers of two: each divides the largest
    total = sum([num * count * (scale // den) for (num, den), count in zip(ratios, counts.values(), strict=True)])
    return total / (scale * n)


def exact_weighted_mean(values: Sequence[Any], counts: Sequence[int]) -> Any:
    """``exact_mean`` of the sequence holding ``counts[i]`` copies of each ``values[i]``, bit for bit.

    :func:`exact_mean` depends on the multiset of its values only (an exact sum, one correctly
    rounded division, the int-or-float decision from the types present), so the same sum is
    formed here with each value weighted by its count. Other inputs (a type beyond int, bool and
    float, NaN or an infinity, no value) go to :func:`exact_mean` on the expanded sequence.
    """
    kinds = set(map(type, values))
    n = sum(counts)
    if not n or not kinds <= _NUMBER_TYPES:
        return exact_mean([v for v, c in zip(values, counts, strict=True) for _ in range(c)])
    if float not in kinds:
        total = sum(map(mul, values, counts))
        return total // n if total % n == 0 else total / n
    try:
        ratios = [value.as_integer_ratio() for value in values]
    except (OverflowError, ValueError):  # an infinity or NaN
        return exact_mean([v for v, c in zip(values, counts, strict=True) for _ in range(c)])
    scale = max(map(itemgetter(1), ratios))  # powers of two: each divides the largest
    total = sum([num * count * (scale // den) for (num, den), count in zip(ratios, counts, strict=True)])
    return total / (scale * n)


def _mean(values: list[Any]) -> Any:
    return exact_mean(values) if values else 0.0


def _column(records: list[Mapping[str, Any]], field: str) -> list[Any]:
    """``[r.get(field, 0) for r in records]``, by a C-level getter when every record has the field."""
    try:
        return list(map(itemgetter(field), records))
    except (KeyError, TypeError):
        return [r.get(field, 0) for r in records]


#: The record fields averaged in every block, in ``metric.json`` order (after ``exact_match_rate``).
_MEAN_FIELDS: dict[str, str] = {
    **{key: field for key, field in METRIC_KEYS.items() if key != "exact_match_rate"},
    **TOOL_KEYS,
}


def _columns(records: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The per-record values every block averages, one list per field (plus the presence of the call count)."""
    columns = {
        # ``1 if r.get("exact_match") else 0``: int(truth(...)) is the same 0/1 int.
        "exact_match": list(map(int, map(truth, map(methodcaller("get", "exact_match"), records)))),
        **{field: _column(records, field) for field in _MEAN_FIELDS.values()},
        "num_pred_calls": _column(records, "num_pred_calls"),
        "has_num_pred_calls": [("num_pred_calls" in r) for r in records],
    }
    return columns


def _pick(columns: dict[str, list[Any]], rows: list[int]) -> dict[str, list[Any]]:
    """The columns of the records at positions ``rows`` (in that order)."""
    if len(rows) == 1:
        return {name: [values[rows[0]]] for name, values in columns.items()}
    take = itemgetter(*rows)
    return {name: list(take(values)) for name, values in columns.items()}


def _block(columns: dict[str, list[Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"exact_match_rate": _mean(columns["exact_match"])}
    for key, field in _MEAN_FIELDS.items():
        out[key] = _mean(columns[field])
    if any(columns["has_num_pred_calls"]):
        out["avg_num_pred_calls"] = _mean(columns["num_pred_calls"])
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
    columns = _columns(rows)
    metric.update(_block(columns))
    metric["skipped_queries"] = []
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(str(r.get("reasoning_type", "unknown")), []).append(i)
    order = [t for t in REASONING_TYPES if t in groups] + sorted(t for t in groups if t not in REASONING_TYPES)
    metric["by_reasoning_type"] = {
        t: {"count": len(groups[t]), **_block(_pick(columns, groups[t]))} for t in order
    }
    return metric


def _counted_block(rows: list[tuple[Mapping[str, Any], int]]) -> dict[str, Any]:
    """:func:`_block` of the records ``rows`` stand for (each ``(record, count)``: ``count`` copies)."""
    records = [r for r, _ in rows]
    counts = [c for _, c in rows]
    out: dict[str, Any] = {"exact_match_rate": exact_weighted_mean(
        list(map(int, map(truth, map(methodcaller("get", "exact_match"), records)))), counts)}
    for key, field in _MEAN_FIELDS.items():
        out[key] = exact_weighted_mean(_column(records, field), counts)
    present = [("num_pred_calls" in r) for r in records]
    if any(present):
        out["avg_num_pred_calls"] = exact_weighted_mean(_column(records, "num_pred_calls"), counts)
    return out


def aggregate_counted(rows: Iterable[tuple[Mapping[str, Any], int]]) -> dict[str, Any]:
    """:func:`aggregate` of the records ``rows`` stand for, each ``(record, count)`` being ``count`` copies of it.

    Gives exactly what :func:`aggregate` gives on the expanded list, in any order of the rows
    (every mean depends on the multiset of values only), without building one record per task.
    Every count must be at least 1.
    """
    rows = list(rows)
    n = sum(c for _, c in rows)
    metric: dict[str, Any] = {"completed_tasks": n, "valid_tasks": n, "skipped_tasks": 0}
    metric.update(_counted_block(rows))
    metric["skipped_queries"] = []
    groups: dict[str, list[tuple[Mapping[str, Any], int]]] = {}
    for row in rows:
        groups.setdefault(str(row[0].get("reasoning_type", "unknown")), []).append(row)
    order = [t for t in REASONING_TYPES if t in groups] + sorted(t for t in groups if t not in REASONING_TYPES)
    metric["by_reasoning_type"] = {
        t: {"count": sum(c for _, c in groups[t]), **_counted_block(groups[t])} for t in order
    }
    return metric
