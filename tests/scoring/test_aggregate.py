"""Aggregation into the official metric.json numbers (macro means, int-mean quirk)."""

from __future__ import annotations

import json
import math
import statistics
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from vmb_gym.scoring import aggregate, score_task
from vmb_gym.scoring.aggregate import METRIC_KEYS, aggregate_counted, exact_mean, exact_weighted_mean
from vmb_gym.types import Query


def _rec(rtype: str, exact: bool, f1: float | int, **extra: object) -> dict:
    base = {key: f1 for key in METRIC_KEYS.values() if key != "exact_match"}
    base.update(reasoning_type=rtype, exact_match=exact, tool_f1=f1, tool_precision=f1, tool_recall=f1,
                tool_f1_corrected=1.0)
    base.update(extra)
    return base


def test_macro_means_and_by_type() -> None:
    m = aggregate([_rec("state_shift", True, 1.0), _rec("state_shift", False, 0.5), _rec("error_correction", False, 0)])
    assert m["completed_tasks"] == m["valid_tasks"] == 3 and m["skipped_tasks"] == 0 and m["skipped_queries"] == []
    assert m["exact_match_rate"] == 1 / 3
    assert m["state_f1_change"] == 0.5 and m["tool_f1"] == 0.5 and m["tool_f1_corrected"] == 1.0
    assert list(m["by_reasoning_type"]) == ["state_shift", "error_correction"]
    assert m["by_reasoning_type"]["state_shift"]["count"] == 2
    assert m["by_reasoning_type"]["state_shift"]["exact_match_rate"] == 0.5
    assert m["by_reasoning_type"]["error_correction"]["state_f1_positive"] == 0
    for key in METRIC_KEYS:
        assert key in m and key in m["by_reasoning_type"]["state_shift"]


def test_int_mean_quirk_is_kept() -> None:
    m = aggregate([_rec("state_shift", True, 1.0), _rec("state_shift", True, 1.0)])
    assert m["exact_match_rate"] == 1 and type(m["exact_match_rate"]) is int
    assert type(m["state_f1_change"]) is float
    m = aggregate([_rec("state_shift", False, 0), _rec("state_shift", False, 0)])
    assert type(m["state_f1_positive"]) is int and m["state_f1_positive"] == 0


def test_empty() -> None:
    m = aggregate([])
    assert m["completed_tasks"] == 0 and m["exact_match_rate"] == 0.0 and m["by_reasoning_type"] == {}


def test_official_gold_replay_and_do_nothing(official_queries: dict[str, Query]) -> None:
    queries = list(official_queries.values())
    replay = aggregate(score_task(q, q.gold_calls).to_record() for q in queries)
    assert replay["exact_match_rate"] == 1 and type(replay["exact_match_rate"]) is int
    assert replay["state_f1_change"] == 1.0 and replay["state_f1_negative"] == 1.0
    assert replay["tool_f1"] < 1.0 and replay["tool_f1_corrected"] == 1.0  # duplicate golds
    nothing = aggregate(score_task(q, []).to_record() for q in queries)
    assert nothing["exact_match_rate"] == 2 / 400
    assert nothing["state_acc_negative"] == 1.0 and 0.99 < nothing["state_f1_negative"] < 1
    cc = nothing["by_reasoning_type"]["conditional_constraint"]
    assert cc["exact_match_rate"] == 2 / cc["count"]
    assert sum(b["count"] for b in nothing["by_reasoning_type"].values()) == 400


# ---------------------------------------------------------------------- exact_mean == statistics.mean
_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.booleans(),
    st.sampled_from([0, 1, 0.0, 1.0, 0.5, 2 / 3, 1 / 3, -0.0, 5e-324]),
)


def _bits(value: object) -> tuple[type, str]:
    return type(value), repr(value)


@settings(max_examples=400, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=80))
def test_exact_mean_is_statistics_mean_bit_for_bit(values: list) -> None:
    assert _bits(exact_mean(values)) == _bits(statistics.mean(values))


def test_exact_mean_keeps_the_int_quirk_and_falls_back() -> None:
    assert _bits(exact_mean([1, 1, True])) == (int, "1")
    assert _bits(exact_mean([1, 0])) == (float, "0.5")
    assert _bits(exact_mean([1, 1.0])) == (float, "1.0")
    assert exact_mean([Fraction(1, 3), Fraction(2, 3)]) == Fraction(1, 2)  # statistics.mean's own path
    assert math.isnan(exact_mean([1.0, float("nan")]))
    assert exact_mean([1e308, 1e308, -1e308]) == 1e308 / 3  # exact sum: no overflow in between


# ---------------------------------------------------------------------- counted records == expanded records
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_VALUES, st.integers(min_value=1, max_value=40)), min_size=1, max_size=30))
def test_exact_weighted_mean_is_exact_mean_of_the_copies(pairs: list) -> None:
    copies = [value for value, count in pairs for _ in range(count)]
    assert _bits(exact_weighted_mean([v for v, _ in pairs], [c for _, c in pairs])) == _bits(exact_mean(copies))


_RECORD = st.fixed_dictionaries(
    {"reasoning_type": st.sampled_from(["state_shift", "error_correction", "zz_custom"]),
     "exact_match": st.booleans(), **{field: _VALUES for field in [*METRIC_KEYS.values(), "tool_f1", "tool_precision",
                                                                  "tool_recall", "tool_f1_corrected"]
                                      if field != "exact_match"},
     "num_pred_calls": st.integers(min_value=0, max_value=5)})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_RECORD, st.integers(min_value=1, max_value=20)), min_size=1, max_size=12))
def test_aggregate_counted_is_aggregate_of_the_copies(rows: list) -> None:
    expanded = [record for record, count in rows for _ in range(count)]
    assert json.dumps(aggregate_counted(rows)) == json.dumps(aggregate(expanded))  # types and bits included


def test_weighted_mean_falls_back_for_other_numbers() -> None:
    assert exact_weighted_mean([Fraction(1, 3), Fraction(2, 3)], [1, 3]) == Fraction(7, 12)
    assert math.isnan(exact_weighted_mean([1.0, float("nan")], [2, 1]))
    assert _bits(exact_weighted_mean([1, True], [3, 2])) == (int, "1")
