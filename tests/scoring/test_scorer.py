"""Per-task scoring on the official tasks (the 40 shared scenarios): reference behaviours."""

from __future__ import annotations

import pytest

from vmb_gym.scoring import TaskScore, score_final_state, score_task
from vmb_gym.types import Query, ToolCall
from vmb_gym.vehicle import VehicleSimulator

#: Official no-op golds present in scenarios 1-40 (spec §4: qa_19[4] and qa_31[9]).
NOOP_TASKS = {"19_4", "31_9"}
#: Golds that repeat an identical call (spec §4: qa_18[8], qa_32[4]).
DUPLICATE_GOLD_TASKS = ("18_8", "32_4")

RECORD_KEYS = {
    "task_id", "reasoning_type", "exact_match", "TP", "FP", "negative_TP", "negative_FP", "correctly_changed",
    "change_accuracy", "f1_positive", "f1_negative", "acc_positive", "precision_positive", "f1_change",
    "acc_negative", "precision_change", "tool_f1", "tool_precision", "tool_recall", "tool_f1_corrected",
    "differences",
}


def test_replaying_the_gold_is_an_exact_match_on_every_task(official_queries: dict[str, Query]) -> None:
    assert len(official_queries) == 400
    for q in official_queries.values():
        s = score_task(q, q.gold_calls)
        assert s.exact_match, q.task_id
        assert s.state.f1_change == 1 and s.state.f1_positive == 1 and s.state.f1_negative == 1
        assert s.differences == ()
        if q.task_id not in ("18_8", "32_4", "42_2", "42_3"):
            assert s.tool_f1 == 1.0, q.task_id
        assert s.tool_corrected.f1 == 1.0


def test_doing_nothing_matches_only_the_noop_golds(official_queries: dict[str, Query]) -> None:
    matched = {q.task_id for q in official_queries.values() if score_task(q, []).exact_match}
    assert matched == NOOP_TASKS
    for task_id in NOOP_TASKS:
        s = score_task(official_queries[task_id], [])
        assert s.state.should_change == 0 and s.state.f1_change == 1.0 and s.tool_f1 == 0
        # Attempting the intended (rejected or default-equal) action leaves the state unchanged too.
        assert score_task(official_queries[task_id], official_queries[task_id].gold_calls).exact_match


def test_doing_nothing_negative_side_follows_from_n(official_queries: dict[str, Query]) -> None:
    for q in official_queries.values():
        s = score_task(q, []).state
        assert s.negative_fp == s.should_change and s.tp == s.fp == 0
        n, k = s.should_not_change, s.should_change
        assert s.negative_tp == n and s.acc_negative == 1.0
        p = n / (n + k)
        assert s.f1_negative == pytest.approx(2 * p / (p + 1))
        if k:
            assert 0.95 < s.f1_negative < 1 and s.f1_positive == 0 and s.change_accuracy == 0.0


@pytest.mark.parametrize("task_id", DUPLICATE_GOLD_TASKS)
def test_duplicate_gold_calls_cap_the_official_tool_f1(official_queries: dict[str, Query], task_id: str) -> None:
    q = official_queries[task_id]
    assert len(q.gold_calls) == 2 and q.gold_calls[0] == q.gold_calls[1]
    s = score_task(q, q.gold_calls)
    assert s.exact_match and s.tool_f1 == 0.5 and s.tool_corrected.f1 == 1.0
    once = score_task(q, q.gold_calls[:1])
    assert once.exact_match and once.tool_f1 == pytest.approx(2 / 3) and once.tool_corrected.f1 == pytest.approx(2 / 3)


def test_case_variant_is_rejected_by_the_car_but_partial_effect_is_scored(official_queries: dict[str, Query]) -> None:
    q = official_queries["1_0"]  # instrument panel colour "green"
    wrong_case = [ToolCall(q.gold_calls[0].name, {"color": "Green"})]
    s = score_task(q, wrong_case)
    assert not s.exact_match and s.tool_f1 == 0


def test_score_final_state_equals_score_task_and_ignores_list_module_tools(official_queries: dict[str, Query]) -> None:
    q = official_queries["3_7"]
    calls = [ToolCall("list_module_tools", {"module_name": "seat"}), *q.gold_calls]
    sim = VehicleSimulator()
    for c in q.gold_calls:
        sim.call(c.name, c.arguments)
    a = score_task(q, calls)
    b = score_final_state(q, sim, calls)
    assert a == b and a.num_pred_calls == len(q.gold_calls) and a.tool_f1 == 1.0


def test_wrong_calls_give_fp_and_differences(official_queries: dict[str, Query]) -> None:
    q = official_queries["1_0"]
    s = score_task(q, [ToolCall("carcontrol_HUD_switch", {"switch": True}), ToolCall("no_such_function", {})])
    assert s.state.fp == 1 and s.state.negative_fp == 1 and not s.exact_match
    assert s.tool.fp == 2 and s.tool.fn == 1 and s.num_pred_calls == 2
    assert "HUD.value.is_on: Should not change but changed (False -> True)" in s.differences


def test_record_has_every_metric(official_queries: dict[str, Query]) -> None:
    q = official_queries["19_4"]
    record = score_task(q, []).to_record()
    assert RECORD_KEYS <= set(record)
    assert record["task_id"] == "19_4" and record["reasoning_type"] == "conditional_constraint"
    assert record["exact_match"] is True and record["negative_TP"] == 341


def test_scoring_every_task_twice_gives_the_same_records(official_queries: dict[str, Query]) -> None:
    """Scoring is a pure function of (task, calls): a second pass (gold cached) repeats the first.

    Its speed is measured by ``scripts/bench.py``, not asserted here.
    """
    queries = list(official_queries.values())
    first = [score_task(q, q.gold_calls).to_record() for q in queries]
    second = [score_task(q, q.gold_calls).to_record() for q in queries]
    assert first == second
    assert all(r["exact_match"] is True for r in first)  # the gold calls reach the gold state
    assert isinstance(score_task(queries[0], []), TaskScore)


def test_warming_the_gold_caches_it_and_changes_no_score(official_queries: dict[str, Query]) -> None:
    """``warm_gold_references`` (``vmb serve``'s start-up) builds each task's gold once: later scores reuse
    that reference and equal the scores of a cold cache, for the gold, for nothing and for a wrong call."""
    import dataclasses

    from vmb_gym.scoring import gold_reference, warm_gold_references

    originals = [official_queries[t] for t in ("1_0", "19_4", "18_8", "32_4", "5_3")]
    wrong = [ToolCall("carcontrol_HUD_switch", {"switch": True})]

    def records(queries: list[Query]) -> list[dict[str, object]]:
        return [score_task(q, calls).to_record() for q in queries for calls in (q.gold_calls, [], wrong)]

    cold = records([dataclasses.replace(q) for q in originals])  # new objects: nothing cached for them
    warmed = [dataclasses.replace(q) for q in originals]
    assert warm_gold_references(warmed) == len(originals)
    references = [gold_reference(q) for q in warmed]
    assert records(warmed) == cold
    # scored on the warmed reference
    assert all(gold_reference(q) is r for q, r in zip(warmed, references, strict=True))
