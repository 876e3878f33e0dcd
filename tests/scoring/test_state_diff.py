"""The official ``calculate_turn_result`` semantics, and the fast path agreeing with the reference."""

from __future__ import annotations

import random

import pytest

from vmb_gym.scoring import GoldReference, score_against, score_flat, score_sims, values_equal
from vmb_gym.types import ToolCall
from vmb_gym.vehicle import VehicleSimulator, initial_flat_state

# ---------------------------------------------------------------------- hand-made worlds
W1 = {"m.a": 1, "m.b": "red", "m.c": True, "m.d": 5, "m.meta": "x"}


def test_values_equal_is_case_insensitive_for_strings_and_python_eq_otherwise() -> None:
    assert values_equal("Blue", "blue")
    assert values_equal(True, 1) and values_equal(1, 1.0) and values_equal(False, 0)
    assert not values_equal("1", 1)
    assert not values_equal("true", True)


def test_perfect_prediction() -> None:
    w2 = {**W1, "m.a": 2, "m.b": "blue"}
    s = score_flat(W1, w2, w2)
    assert (s.tp, s.fp, s.negative_tp, s.negative_fp, s.correctly_changed) == (2, 0, 3, 0, 2)
    assert (s.should_change, s.should_not_change) == (2, 3)
    assert s.exact_match and s.differences == ()
    assert s.f1_positive == 1.0 and s.f1_change == 1.0 and s.f1_negative == 1.0


def test_case_insensitive_true_equals_one_and_int_equals_float_count_as_correct() -> None:
    w2 = {**W1, "m.b": "blue", "m.c": False, "m.d": 7}
    w4 = {**W1, "m.b": "BLUE", "m.c": 0, "m.d": 7.0}
    s = score_flat(W1, w2, w4)
    assert s.exact_match
    assert (s.tp, s.correctly_changed) == (3, 3)


def test_wrong_value_is_tp_but_not_correctly_changed() -> None:
    w2 = {**W1, "m.a": 2}
    w4 = {**W1, "m.a": 3}
    s = score_flat(W1, w2, w4)
    assert (s.tp, s.correctly_changed, s.negative_fp, s.fp) == (1, 0, 0, 0)
    assert s.differences == ("m.a: Different value (should be 2, actual 3)",)
    assert not s.exact_match
    assert s.acc_positive == 1.0 and s.change_accuracy == 0.0
    # value-level P = R = 0 -> the official int 0
    assert s.f1_change == 0 and type(s.f1_change) is int


def test_missed_change_is_negative_fp_and_extra_change_is_fp() -> None:
    w2 = {**W1, "m.a": 2}
    w4 = {**W1, "m.d": 6}
    s = score_flat(W1, w2, w4)
    assert (s.tp, s.fp, s.negative_fp, s.negative_tp) == (0, 1, 1, 3)
    assert s.differences == (
        "m.a: Should change but didn't change",
        "m.d: Should not change but changed (5 -> 6)",
    )
    # field-level precision 0/1 and recall 0/1: F1 is the official int 0
    assert s.f1_positive == 0 and type(s.f1_positive) is int
    assert s.precision_positive == 0.0 and s.acc_positive == 0.0
    n = 4
    p, r = 3 / (3 + 1), 3 / n
    assert s.f1_negative == pytest.approx(2 * p * r / (p + r))


def test_delete_and_add() -> None:
    w2 = {k: v for k, v in W1.items() if k != "m.a"} | {"m.new": "on"}
    s = score_flat(W1, w2, w2)
    assert s.exact_match and (s.tp, s.correctly_changed, s.should_change) == (2, 2, 2)
    s = score_flat(W1, w2, W1)
    assert (s.negative_fp, s.tp) == (2, 0)
    assert s.differences == ("m.a: Should delete but not deleted", "m.new: Should add but not added")
    s = score_flat(W1, w2, {**w2, "m.new": "off"})
    assert s.differences == ("m.new: Added value incorrect (should be on, actual off)",)


def test_unexpected_addition_is_fp() -> None:
    w4 = {**W1, "m.station": "Jazz FM"}
    s = score_flat(W1, W1, w4)
    assert (s.fp, s.should_change) == (1, 0)
    assert s.differences == ("m.station: Unexpected addition",)
    assert not s.exact_match
    # |S| = 0 special cases with FP > 0
    assert s.acc_positive == 0.0 and s.f1_positive == 0.0 and s.change_accuracy == 0.0
    assert s.f1_change == 0.0 and s.precision_positive == 0.0 and s.precision_change == 0.0


def test_no_change_expected_and_none_made() -> None:
    s = score_flat(W1, W1, W1)
    assert s.exact_match
    assert s.to_official_dict() == {
        "differences": [], "TP": 0, "FP": 0, "negative_TP": 5, "negative_FP": 0, "correctly_changed": 0,
        "change_accuracy": 1.0, "skipped": False, "f1_positive": 1.0, "f1_negative": 1.0,
        "acc_positive": 1.0, "precision_positive": 1.0, "f1_change": 1.0, "acc_negative": 1.0,
        "precision_change": 1.0,
    }


# ---------------------------------------------------------------------- on the simulator
def _run(calls: list[tuple[str, dict]]) -> VehicleSimulator:
    sim = VehicleSimulator()
    for name, args in calls:
        sim.call(name, args, with_state=False)
    return sim


def test_hud_switch_one_matches_gold_true() -> None:
    gold = _run([("carcontrol_HUD_switch", {"switch": True})])
    pred = _run([("carcontrol_HUD_switch", {"switch": 1})])
    s = score_sims(gold, pred)
    assert s.exact_match and s.tp == 1
    assert s == score_flat(initial_flat_state(), gold.flatten(), pred.flatten())


def test_radio_station_played_unexpectedly_counts_as_fp() -> None:
    gold = _run([("carcontrol_HUD_switch", {"switch": True})])
    pred = _run([("carcontrol_HUD_switch", {"switch": True}),
                 ("carcontrol_radio_play_station", {"frequency": 101.1})])
    added = set(pred.flatten()) - set(initial_flat_state())
    assert any(p.startswith("radio.value.current_station.value.") for p in added)
    s = score_sims(gold, pred)
    assert s == score_flat(initial_flat_state(), gold.flatten(), pred.flatten())
    unexpected = [d for d in s.differences if d.endswith(": Unexpected addition")]
    assert len(unexpected) == len(added) > 0
    assert not s.exact_match and s.fp >= len(added)


def test_do_nothing_negative_side_values() -> None:
    gold = _run([("carcontrol_HUD_set_height_level", {"level": 7})])  # is_on and height_level change
    s = score_sims(gold, VehicleSimulator())
    total = len(initial_flat_state())
    assert total == 341
    n = total - 2
    assert (s.should_change, s.should_not_change, s.negative_tp, s.negative_fp) == (2, n, n, 2)
    p, r = n / (n + 2), 1.0
    assert s.f1_negative == pytest.approx(2 * p * r / (p + r))
    assert s.f1_negative == pytest.approx(0.997059, abs=1e-6)
    assert s.acc_negative == 1.0 and not s.exact_match
    assert s.f1_positive == 0 and s.f1_change == 0


def test_gold_reference_reconstructs_the_full_flat_state() -> None:
    sim = _run([("carcontrol_HUD_switch", {"switch": {"a": 1}}),
                ("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})])
    assert GoldReference.from_sim(sim).flat_state() == sim.flatten()
    assert GoldReference.from_sim(VehicleSimulator()).is_noop


# ---------------------------------------------------------------------- fast path == reference
def _check_pair(gold_calls: tuple[ToolCall, ...], pred_calls: tuple[ToolCall, ...], w1: dict) -> None:
    gold = VehicleSimulator()
    for c in gold_calls:
        gold.call(c.name, c.arguments, with_state=False)
    pred = VehicleSimulator()
    for c in pred_calls:
        pred.call(c.name, c.arguments, with_state=False)
    fast = score_sims(gold, pred)
    ref = score_flat(w1, gold.flatten(), pred.flatten())
    assert fast == ref, (gold_calls, pred_calls)
    assert fast.to_official_dict() == ref.to_official_dict()
    for key, value in ref.to_official_dict().items():
        assert type(fast.to_official_dict()[key]) is type(value)


def test_fast_path_equals_reference_on_conformance_sequences(vector_calls) -> None:
    rng = random.Random(20240611)
    w1 = initial_flat_state()
    # Every vector as a prediction against a random gold, and as gold against a random prediction.
    for vid, calls in vector_calls:
        _check_pair(rng.choice(vector_calls)[1], calls, w1)
        if vid.startswith(("sequence/", "random/")) or rng.random() < 0.2:
            _check_pair(calls, rng.choice(vector_calls)[1], w1)
    # Longer mixtures: concatenations of several vectors on both sides; gold replayed with noise.
    for _ in range(400):
        gold = sum((rng.choice(vector_calls)[1] for _ in range(rng.randint(1, 3))), ())
        pred = sum((rng.choice(vector_calls)[1] for _ in range(rng.randint(0, 3))), ())
        _check_pair(gold, pred, w1)
        _check_pair(gold, gold + pred, w1)
        _check_pair(gold, gold, w1)


def test_fast_path_equals_reference_on_official_tasks(official_queries, vector_calls) -> None:
    rng = random.Random(7)
    w1 = initial_flat_state()
    queries = list(official_queries.values())
    for q in queries:
        _check_pair(q.gold_calls, q.gold_calls, w1)
        _check_pair(q.gold_calls, (), w1)
        _check_pair(q.gold_calls, q.gold_calls[:1], w1)
        _check_pair(q.gold_calls, rng.choice(queries).gold_calls, w1)
        _check_pair(q.gold_calls, rng.choice(vector_calls)[1], w1)


def test_fast_path_handles_fields_added_to_or_removed_from_a_module() -> None:
    w1 = initial_flat_state()
    gold = _run([("carcontrol_HUD_set_height_level", {"level": 7})])
    pred = _run([("carcontrol_HUD_set_height_level", {"level": 7})])
    pred.module("HUD").state["extra_field"] = [1, "x"]
    del pred.module("HUD").state["brightness_level"]
    fast, ref = score_sims(gold, pred), score_flat(w1, gold.flatten(), pred.flatten())
    assert fast == ref
    assert "HUD.value.brightness_level: Should not change but was deleted" in fast.differences
    assert "HUD.value.extra_field[0]: Unexpected addition" in fast.differences
    assert score_sims(pred, gold) == score_flat(w1, pred.flatten(), gold.flatten())


class _Hidden(dict):  # type: ignore[type-arg]
    """A dict whose ``repr`` does not say its content."""

    def __repr__(self) -> str:
        return "<hidden>"


class _Opaque:
    """A value whose ``repr`` does not say its content (two of them print alike)."""

    def __init__(self, level: int) -> None:
        self.level = level

    def __repr__(self) -> str:
        return "<opaque>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Opaque) and other.level == self.level

    def __hash__(self) -> int:
        return hash(self.level)

    def __str__(self) -> str:
        return f"opaque {self.level}"


def test_cached_field_outcomes_keep_types_and_content_apart() -> None:
    """Outcomes of predicted field values are cached (per gold field and per field the gold leaves
    alone): every value scored twice, in any order, equals the reference, and values that ``==``
    conflates (3, 3.0, True) or whose ``repr`` hides their content get their own outcome."""
    w1 = initial_flat_state()
    gold_sim = _run([("carcontrol_HUD_set_height_level", {"level": 7})])
    gold_sim.module("HUD").state["brightness_level"] = {"a": 0, "b": [0]}
    gold = GoldReference.from_sim(gold_sim)
    gold_flat = gold.flat_state()
    values = [3, 3.0, True, "3", 7.0, [3], (3,), {"a": 1, "b": [0]}, {"b": [0], "a": 1}, None,
              _Hidden(a=1, b=[0]), _Hidden(a=2, b=[0]), {"a": 0, "b": [_Opaque(1)]}, {"a": 0, "b": [_Opaque(2)]}]
    for field in ("height_level", "brightness_level", "is_on"):  # set by the gold (two), left alone (one)
        for value in values + values[::-1]:
            pred = VehicleSimulator()
            pred.module("HUD").state[field] = value
            assert score_against(gold, pred) == score_flat(w1, gold_flat, pred.flatten()), (field, value)
