"""The official state-based scoring (``calculate_turn_result``) with its exact semantics.

The official scorer flattens four worlds into ``path -> value`` maps: w1 = reference initial,
w2 = reference final (gold calls executed), w3 = predicted initial (always equal to w1) and
w4 = predicted final. It splits the reference paths into S (should change: modified, deleted or
added between w1 and w2) and N (should not change), then checks what the prediction did to each
path. Values are compared with :func:`values_equal`: case-insensitive when both are strings,
Python ``==`` otherwise (so ``True == 1`` and ``1 == 1.0``).

Two implementations give identical numbers:

* :func:`score_flat` works on full flattened dicts and mirrors the official code step by step;
  it is the reference.
* :func:`score_against` (and :func:`score_sims`) is the fast path. Only fields of touched modules
  whose value differs (type-aware) from a fresh car are flattened; every other path of the fresh
  car is, by construction, present and equal in all four worlds and counts as a negative TP.

Deliberate deviation: the official ``differences`` list follows the iteration order of a Python
``set`` (arbitrary). Here it is deterministic: should-change entries, then should-not-change
entries, each sorted by path, then unexpected additions sorted by path. The strings themselves
are the official ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import compress
from operator import is_not
from typing import Any

import orjson

from vmb_gym.vehicle.simulator import MODULE_KEYS, MODULES, VehicleSimulator, initial_flat_state
from vmb_gym.vehicle.state import FlatState, copy_value, exact_equal, flatten_field

__all__ = [
    "METRIC_NAMES",
    "GoldReference",
    "StateScore",
    "score_against",
    "score_flat",
    "score_sims",
    "values_equal",
]

_Number = int | float

#: Scalar types for which ``==`` plus an identical type is exact equality.
_SCALAR_TYPES = (bool, int, float, str)


def values_equal(a: Any, b: Any) -> bool:
    """The official metric equality: case-insensitive for two strings, ``==`` otherwise."""
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return bool(a == b)


@dataclass(frozen=True, slots=True)
class StateScore:
    """The result of ``calculate_turn_result`` for one task.

    Counts follow the official names: ``tp`` (should change, did change), ``fp`` (should not
    change but did, or an unexpected addition), ``negative_tp`` (should not change, did not),
    ``negative_fp`` (should change, did not or wrongly), ``correctly_changed`` (changed to the
    expected value). ``should_change`` and ``should_not_change`` are \\|S\\| and \\|N\\|.

    Metric values keep the official Python types (an ``int`` 0 where the official code yields
    ``0``), because ``statistics.mean`` of all-int values stays an int in ``metric.json``.
    """

    tp: int
    fp: int
    negative_tp: int
    negative_fp: int
    correctly_changed: int
    should_change: int
    should_not_change: int
    differences: tuple[str, ...]
    change_accuracy: _Number
    f1_positive: _Number
    f1_negative: _Number
    acc_positive: _Number
    precision_positive: _Number
    f1_change: _Number
    acc_negative: _Number
    precision_change: _Number

    @property
    def exact_match(self) -> bool:
        """Exact state match (ESM): no differences, no FP and no negative FP."""
        return not self.differences and self.fp == 0 and self.negative_fp == 0

    def to_official_dict(self) -> dict[str, Any]:
        """The official ``state_score`` dict (same keys and value types as upstream)."""
        return {
            "differences": list(self.differences),
            "TP": self.tp,
            "FP": self.fp,
            "negative_TP": self.negative_tp,
            "negative_FP": self.negative_fp,
            "correctly_changed": self.correctly_changed,
            "change_accuracy": self.change_accuracy,
            "skipped": False,
            "f1_positive": self.f1_positive,
            "f1_negative": self.f1_negative,
            "acc_positive": self.acc_positive,
            "precision_positive": self.precision_positive,
            "f1_change": self.f1_change,
            "acc_negative": self.acc_negative,
            "precision_change": self.precision_change,
        }

    def metrics(self) -> dict[str, _Number]:
        """The nine per-task metrics under their official per-task names."""
        return {
            "change_accuracy": self.change_accuracy,
            "f1_positive": self.f1_positive,
            "f1_negative": self.f1_negative,
            "acc_positive": self.acc_positive,
            "precision_positive": self.precision_positive,
            "f1_change": self.f1_change,
            "acc_negative": self.acc_negative,
            "precision_change": self.precision_change,
        }


#: The per-task metric names, in the order of :meth:`StateScore.metrics`.
METRIC_NAMES: tuple[str, ...] = (
    "change_accuracy",
    "f1_positive",
    "f1_negative",
    "acc_positive",
    "precision_positive",
    "f1_change",
    "acc_negative",
    "precision_change",
)


def _f1_from_counts(hit: int, predicted: int, total: int, *, empty_precision: int) -> _Number:
    """Official F1 with its exact int/float results.

    With ``total > 0``: P = hit/predicted (int 0 when predicted is 0), R = hit/total and
    F1 = 2PR/(P+R), int 0 when P+R is 0. With ``total == 0``: P = hit/predicted or
    ``empty_precision``, R = 1 and F1 = 2PR/(P+R).
    """
    if total > 0:
        p: _Number = hit / predicted if predicted > 0 else 0
        r: _Number = hit / total
        return 2 * p * r / (p + r) if (p + r) > 0 else 0
    p = hit / predicted if predicted > 0 else empty_precision
    return 2 * p * 1 / (p + 1)


def _build(
    tp: int, fp: int, ntp: int, nfp: int, cc: int, s: int, n: int, differences: tuple[str, ...]
) -> StateScore:
    """Compute every official per-task metric from the counts (types exactly as upstream)."""
    changed = tp + fp
    if s > 0:
        change_accuracy: _Number = cc / s
        acc_positive: _Number = tp / s
        pc: _Number = cc / changed if changed > 0 else 0
        rc: _Number = cc / s
        f1_change: _Number = 2 * pc * rc / (pc + rc) if (pc + rc) > 0 else 0
    else:
        change_accuracy = 1.0 if fp == 0 else 0.0
        acc_positive = 1.0 if fp == 0 else 0.0
        f1_change = 1.0 if fp == 0 else 0.0
    if changed > 0:
        precision_positive: _Number = tp / changed
        precision_change: _Number = cc / changed
    else:
        precision_positive = 1.0 if s == 0 else 0.0
        precision_change = 1.0 if s == 0 else 0.0
    return StateScore(
        tp=tp,
        fp=fp,
        negative_tp=ntp,
        negative_fp=nfp,
        correctly_changed=cc,
        should_change=s,
        should_not_change=n,
        differences=differences,
        change_accuracy=change_accuracy,
        f1_positive=_f1_from_counts(tp, changed, s, empty_precision=1),
        f1_negative=_f1_from_counts(ntp, ntp + nfp, n, empty_precision=1),
        acc_positive=acc_positive,
        precision_positive=precision_positive,
        f1_change=f1_change,
        acc_negative=ntp / n if n > 0 else 1.0,
        precision_change=precision_change,
    )


class _Tally:
    """Mutable counters and difference lines while one diff is computed."""

    __slots__ = ("tp", "fp", "ntp", "nfp", "cc", "s", "n", "s_diffs", "n_diffs", "add_diffs")

    def __init__(self) -> None:
        self.tp = self.fp = self.ntp = self.nfp = self.cc = self.s = self.n = 0
        self.s_diffs: list[tuple[str, str]] = []
        self.n_diffs: list[tuple[str, str]] = []
        self.add_diffs: list[tuple[str, str]] = []

    def merge(self, other: _Tally) -> None:
        """Add another tally's counts and difference lines to this one."""
        self.tp += other.tp
        self.fp += other.fp
        self.ntp += other.ntp
        self.nfp += other.nfp
        self.cc += other.cc
        self.s += other.s
        self.n += other.n
        self.s_diffs.extend(other.s_diffs)
        self.n_diffs.extend(other.n_diffs)
        self.add_diffs.extend(other.add_diffs)

    def finish(self, extra_negative_tp: int = 0) -> StateScore:
        diffs = tuple(
            line
            for group in (self.s_diffs, self.n_diffs, self.add_diffs)
            for _, line in sorted(group, key=lambda item: item[0])
        )
        return _build(
            self.tp, self.fp, self.ntp + extra_negative_tp, self.nfp, self.cc,
            self.s, self.n + extra_negative_tp, diffs,
        )


def _diff_paths(paths: Iterable[str], w1: FlatState, w2: FlatState, w3: FlatState, w4: FlatState, t: _Tally) -> None:
    """Classify reference paths into S/N and score what the prediction did to each (official steps 1-2)."""
    for path in paths:
        in1 = path in w1
        in2 = path in w2
        # The official code marks "absent" with None, so a stored None behaves as absent here too.
        old = w1[path] if in1 else None
        new = w2[path] if in2 else None
        if in1 and in2 and values_equal(old, new):
            t.n += 1
            in3 = path in w3
            in4 = path in w4
            if in3 and in4:
                v3 = w3[path]
                v4 = w4[path]
                if values_equal(v3, v4):
                    t.ntp += 1
                else:
                    t.fp += 1
                    t.n_diffs.append((path, f"{path}: Should not change but changed ({v3} -> {v4})"))
            elif in3:
                t.fp += 1
                t.n_diffs.append((path, f"{path}: Should not change but was deleted"))
            elif in4:
                t.fp += 1
                t.n_diffs.append((path, f"{path}: Doesn't exist in world3 but was added in world4"))
            continue
        t.s += 1
        in3 = path in w3
        in4 = path in w4
        if old is not None and new is not None:  # modify
            if in3 and in4:
                v4 = w4[path]
                if not values_equal(w3[path], v4):
                    t.tp += 1
                    if values_equal(new, v4):
                        t.cc += 1
                    else:
                        t.s_diffs.append((path, f"{path}: Different value (should be {new}, actual {v4})"))
                else:
                    t.nfp += 1
                    t.s_diffs.append((path, f"{path}: Should change but didn't change"))
            elif in4:
                t.nfp += 1
                t.s_diffs.append((path, f"{path}: Should modify but was added"))
            elif in3:
                t.nfp += 1
                t.s_diffs.append((path, f"{path}: Should modify but was deleted"))
            else:
                t.nfp += 1
                t.s_diffs.append((path, f"{path}: Doesn't exist, cannot modify"))
        elif old is not None:  # delete
            if in3 and not in4:
                t.tp += 1
                t.cc += 1
            else:
                t.nfp += 1
                if in3 and in4:
                    msg = f"{path}: Should delete but not deleted"
                elif not in3 and not in4:
                    msg = f"{path}: Doesn't exist originally, no need to delete"
                else:
                    msg = f"{path}: Should delete but was added"
                t.s_diffs.append((path, msg))
        elif new is not None:  # add
            if not in3 and in4:
                t.tp += 1
                v4 = w4[path]
                if values_equal(new, v4):
                    t.cc += 1
                else:
                    t.s_diffs.append((path, f"{path}: Added value incorrect (should be {new}, actual {v4})"))
            else:
                t.nfp += 1
                if in3 and in4:
                    msg = f"{path}: Should add but already exists"
                elif in3:
                    msg = f"{path}: Should add but was deleted"
                else:
                    msg = f"{path}: Should add but not added"
                t.s_diffs.append((path, msg))
        # else: both sides hold None; the official code counts it in S and scores nothing.


def _unexpected_additions(w1: FlatState, w2: FlatState, w3: FlatState, w4: FlatState, t: _Tally) -> None:
    for path in w4:
        if path not in w1 and path not in w2 and path not in w3:
            t.fp += 1
            t.add_diffs.append((path, f"{path}: Unexpected addition"))


def score_flat(w1: Mapping[str, Any], w2: Mapping[str, Any], w4: Mapping[str, Any]) -> StateScore:
    """Reference implementation of the official ``calculate_turn_result`` on flattened worlds.

    Args:
        w1: the flattened initial world (reference initial; also the predicted initial, w3).
        w2: the flattened reference final world (gold calls executed).
        w4: the flattened predicted final world.

    Returns:
        The official counts and metrics.
    """
    a, b, d = dict(w1), dict(w2), dict(w4)
    t = _Tally()
    _diff_paths(dict.fromkeys([*a, *b]), a, b, a, d, t)
    _unexpected_additions(a, b, a, d, t)
    return t.finish()


# ---------------------------------------------------------------------- fast path
_INITIAL_BYTES: dict[tuple[str, str], bytes | None] = {}
_INITIAL_FIELD_FLAT: dict[tuple[str, str], FlatState] = {}
_MISSING = object()
_UNCHANGED = object()
FieldKey = tuple[str, str]


def _flatten_one(key: str, name: str, value: Any) -> FlatState:
    if value is _MISSING:
        return {}
    out: FlatState = {}
    flatten_field(key, name, value, MODULES[key].describe_field(name), out)
    return out


def _initial_field_flat(field: FieldKey) -> FlatState:
    cached = _INITIAL_FIELD_FLAT.get(field)
    if cached is None:
        cached = _flatten_one(field[0], field[1], MODULES[field[0]].initial_state().get(field[1], _MISSING))
        _INITIAL_FIELD_FLAT[field] = cached
    return cached


def _dumps(value: Any) -> bytes | None:
    """Type-revealing serialisation of a container value (``None`` when it cannot be serialised)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _same(value: Any, other: Any, other_bytes: bytes | None) -> bool:
    """Type-aware equality (``True != 1``, ``1 != 1.0``): equal values flatten identically.

    Containers are compared with ``==`` and then by their serialisation, which tells ``True``,
    ``1`` and ``1.0`` apart; a serialisation mismatch that is only a key-order difference falls
    back to the recursive check.
    """
    if value is other:
        return True
    if type(value) is not type(other):
        return False
    if isinstance(value, _SCALAR_TYPES):
        return bool(value == other)
    if not value == other:
        return False
    if other_bytes is not None and _dumps(value) == other_bytes:
        return True
    return exact_equal(value, other)


def _initial_bytes(field: FieldKey, initial: Any) -> bytes | None:
    if field in _INITIAL_BYTES:
        return _INITIAL_BYTES[field]
    data = None if isinstance(initial, _SCALAR_TYPES) else _dumps(initial)
    _INITIAL_BYTES[field] = data
    return data


_SCALAR_SET = frozenset(_SCALAR_TYPES)
_INITIAL_ITEMS: dict[str, tuple[tuple[str, Any, bytes | None], ...]] = {}


def _initial_items(key: str) -> tuple[tuple[str, Any, bytes | None], ...]:
    items = _INITIAL_ITEMS.get(key)
    if items is None:
        items = tuple(
            (name, init, _initial_bytes((key, name), init)) for name, init in MODULES[key].initial_state().items()
        )
        _INITIAL_ITEMS[key] = items
    return items


_INITIAL_COLUMNS: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {}


def _initial_columns(key: str) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The field names and the default value objects of module ``key``, in field order."""
    cols = _INITIAL_COLUMNS.get(key)
    if cols is None:
        items = _initial_items(key)
        cols = (tuple(n for n, _, _ in items), tuple(v for _, v, _ in items))
        _INITIAL_COLUMNS[key] = cols
    return cols


def _changed_fields(sim: VehicleSimulator) -> dict[FieldKey, Any]:
    """``(module, field) -> value`` for every field of a touched module that differs from a fresh car.

    Equality is type-aware (see :func:`_same`). A field missing from the module (never the case
    for well-behaved modules) maps to ``_MISSING``; a field the module added is always included.
    Module state is copy-on-write, so a field still holding its default object is unchanged.
    """
    changed: dict[FieldKey, Any] = {}
    for key in sim.touched_modules:
        state = sim.module(key).state
        items = _initial_items(key)
        names, inits = _initial_columns(key)
        if tuple(state) == names:  # the usual layout: a C-level scan skips the default objects
            for name, init, init_bytes in compress(items, map(is_not, state.values(), inits)):
                value = state[name]
                if not _is_initial(value, init, init_bytes):
                    changed[(key, name)] = value
            continue
        for name, init, init_bytes in items:
            value = state.get(name, _MISSING)
            if value is not init and not _is_initial(value, init, init_bytes):
                changed[(key, name)] = value
        for name, value in state.items():  # fields a fresh module does not have
            if name not in names:
                changed[(key, name)] = value
    return changed


def _is_initial(value: Any, init: Any, init_bytes: bytes | None) -> bool:
    """Whether ``value`` equals the default ``init`` exactly (type-aware; ``_MISSING`` never does)."""
    kind = type(value)
    if kind is not type(init):
        return False
    if kind in _SCALAR_SET:
        return bool(value == init)
    return value == init and ((init_bytes is not None and _dumps(value) == init_bytes) or exact_equal(value, init))


def _field_tally(init: FlatState, gold: FlatState, pred: FlatState) -> _Tally:
    t = _Tally()
    _diff_paths(dict.fromkeys([*init, *gold]), init, gold, init, pred, t)
    _unexpected_additions(init, gold, init, pred, t)
    return t


@dataclass(frozen=True, slots=True, eq=False)
class _GoldField:
    """One field that the gold changed, with its outcomes for the two common predictions precomputed."""

    value: Any
    value_bytes: bytes | None
    flat: FlatState
    if_untouched: _Tally  # the prediction left the field at its initial value
    if_matched: _Tally  # the prediction holds exactly the gold value


#: Gold fields by (field, type and repr of the value): tasks that set a field to the same value share one.
_GOLD_FIELDS: dict[tuple[FieldKey, type, str], _GoldField] = {}
_GOLD_FIELDS_LIMIT = 1 << 16


def _gold_field(field: FieldKey, value: Any) -> _GoldField:
    """The :class:`_GoldField` of ``field`` set to ``value``, built once per distinct value.

    ``repr`` tells apart what ``==`` does not (``True``/``1``/``1.0``, lists/tuples, key order),
    so two values with one key flatten and score identically. The entries are never mutated.
    """
    key = (field, type(value), repr(value))
    found = _GOLD_FIELDS.get(key)
    if found is not None:
        return found
    value = copy_value(value) if value is not _MISSING else value
    flat = _flatten_one(field[0], field[1], value)
    init = _initial_field_flat(field)
    found = _GoldField(
        value=value,
        value_bytes=None if isinstance(value, _SCALAR_TYPES) or value is _MISSING else _dumps(value),
        flat=flat,
        if_untouched=_field_tally(init, flat, init),
        if_matched=_field_tally(init, flat, flat),
    )
    if len(_GOLD_FIELDS) >= _GOLD_FIELDS_LIMIT:
        _GOLD_FIELDS.clear()
    _GOLD_FIELDS[key] = found
    return found


@dataclass(frozen=True, slots=True, eq=False)
class GoldReference:
    """The reference final state of one task, reduced to what differs from a fresh car.

    Build it once per task with :meth:`from_sim` or :meth:`from_calls` and score any number of
    predictions against it with :func:`score_against`.
    """

    fields: Mapping[FieldKey, _GoldField]
    initial_paths: int
    _scores: dict[str, StateScore] = dataclass_field(default_factory=dict, init=False, repr=False)

    @property
    def if_untouched(self) -> StateScore:
        """The score of doing nothing (computed on first use)."""
        return self._score("if_untouched")

    @property
    def if_matched(self) -> StateScore:
        """The score of reaching exactly the gold state (computed on first use)."""
        return self._score("if_matched")

    def _score(self, outcome: str) -> StateScore:
        score = self._scores.get(outcome)
        if score is None:
            t = _Tally()
            for gf in self.fields.values():
                t.merge(getattr(gf, outcome))
            extra = len(initial_flat_state()) - self.initial_paths
            score = self._scores[outcome] = t.finish(extra_negative_tp=extra)
        return score

    @classmethod
    def from_sim(cls, sim: VehicleSimulator) -> GoldReference:
        """Snapshot a simulator on which the gold calls have been executed."""
        fields: dict[FieldKey, _GoldField] = {}
        initial_paths = 0
        for field, value in _changed_fields(sim).items():
            initial_paths += len(_initial_field_flat(field))
            fields[field] = _gold_field(field, value)
        return cls(fields=fields, initial_paths=initial_paths)

    @classmethod
    def from_calls(cls, calls: Iterable[tuple[str, Any]]) -> GoldReference:
        """Execute ``(name, arguments)`` gold calls on a fresh car (failures ignored) and snapshot it."""
        sim = VehicleSimulator()
        for name, arguments in calls:
            sim.call(name, arguments, with_state=False)
        return cls.from_sim(sim)

    @property
    def is_noop(self) -> bool:
        """True when the reference final state equals a fresh car (no state change expected)."""
        return not self.fields

    def flat_state(self) -> FlatState:
        """The full flattened reference final world (w2), in official path order."""
        out: FlatState = {}
        for key in MODULE_KEYS:
            module = MODULES[key]
            initial = MODULES[key].initial_state()
            names = list(initial) + [n for (k, n) in self.fields if k == key and n not in initial]
            for name in names:
                gf = self.fields.get((key, name))
                out.update(_initial_field_flat((key, name)) if gf is None else gf.flat)
            out[f"{key}.description"] = module.DESCRIPTION
            out[f"{key}.type"] = module.TYPE_NAME
        return out


def score_against(gold: GoldReference, pred_sim: VehicleSimulator) -> StateScore:
    """Fast official scoring of a predicted final state against a cached gold reference.

    Only fields that differ from a fresh car in the gold or in the prediction are looked at; the
    remaining paths of the fresh car are negative TPs. A gold field that the prediction left
    untouched or set exactly to the gold value uses a precomputed outcome; any other field is
    flattened and diffed path by path. Gives exactly the numbers (and the difference lines) of
    :func:`score_flat`.

    Args:
        gold: the reference final state.
        pred_sim: a simulator that started fresh and has executed the predicted calls.
    """
    pred = _changed_fields(pred_sim)
    gold_fields = gold.fields
    if not pred:
        return gold.if_untouched
    if len(pred) == len(gold_fields):
        for field, value in pred.items():
            gf = gold_fields.get(field)
            if gf is None or not _same(value, gf.value, gf.value_bytes):
                break
        else:
            return gold.if_matched
    total = len(initial_flat_state())
    t = _Tally()
    considered = gold.initial_paths
    w1: FlatState = {}
    w2: FlatState = {}
    w4: FlatState = {}
    for field, gf in gold_fields.items():
        value = pred.get(field, _UNCHANGED)
        if value is _UNCHANGED:
            t.merge(gf.if_untouched)
        elif _same(value, gf.value, gf.value_bytes):
            t.merge(gf.if_matched)
        else:
            w1.update(_initial_field_flat(field))
            w2.update(gf.flat)
            w4.update(_flatten_one(field[0], field[1], value))
    for field, value in pred.items():
        if field in gold_fields:
            continue
        init = _initial_field_flat(field)
        considered += len(init)
        w1.update(init)
        w2.update(init)
        w4.update(_flatten_one(field[0], field[1], value))
    if w1 or w2 or w4:
        _diff_paths(dict.fromkeys([*w1, *w2]), w1, w2, w1, w4, t)
        _unexpected_additions(w1, w2, w1, w4, t)
    return t.finish(extra_negative_tp=total - considered)


def score_sims(gold_sim: VehicleSimulator, pred_sim: VehicleSimulator) -> StateScore:
    """Fast official scoring of two simulators that both started from a fresh car.

    Args:
        gold_sim: the reference simulator, after the gold calls.
        pred_sim: the predicted simulator, after the predicted calls.
    """
    return score_against(GoldReference.from_sim(gold_sim), pred_sim)
