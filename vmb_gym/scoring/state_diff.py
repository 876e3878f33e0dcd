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
* :func:`vmb_gym.scoring.gold.score_against` (and ``score_sims``) is the fast path, in
  :mod:`vmb_gym.scoring.gold`; it shares :class:`Tally` and :func:`diff_paths` with the reference.

Deliberate deviation: the official ``differences`` list follows the iteration order of a Python
``set`` (arbitrary). Here it is deterministic: should-change entries, then should-not-change
entries, each sorted by path, then unexpected additions sorted by path. The strings themselves
are the official ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vmb_gym.vehicle.state import FlatState

__all__ = [
    "METRIC_NAMES",
    "StateScore",
    "Tally",
    "diff_paths",
    "score_flat",
    "unexpected_additions",
    "values_equal",
]

_Number = int | float


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


class Tally:
    """Mutable counters and difference lines while one diff is computed (see :func:`diff_paths`)."""

    __slots__ = ("tp", "fp", "ntp", "nfp", "cc", "s", "n", "s_diffs", "n_diffs", "add_diffs")

    def __init__(self) -> None:
        self.tp = self.fp = self.ntp = self.nfp = self.cc = self.s = self.n = 0
        self.s_diffs: list[tuple[str, str]] = []
        self.n_diffs: list[tuple[str, str]] = []
        self.add_diffs: list[tuple[str, str]] = []

    def merge(self, other: Tally) -> None:
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
        """The :class:`StateScore` of the counts, ``extra_negative_tp`` more unchanged paths counted."""
        diffs = tuple(
            line
            for group in (self.s_diffs, self.n_diffs, self.add_diffs)
            for _, line in sorted(group, key=lambda item: item[0])
        )
        return _build(
            self.tp, self.fp, self.ntp + extra_negative_tp, self.nfp, self.cc,
            self.s, self.n + extra_negative_tp, diffs,
        )


def diff_paths(paths: Iterable[str], w1: FlatState, w2: FlatState, w3: FlatState, w4: FlatState, t: Tally) -> None:
    """Classify reference paths into S/N and score what the prediction did to each (official steps 1-2)."""
    for path in paths:
        in1 = path in w1
        in2 = path in w2
        # The official code marks "absent" with None, so a stored None behaves as absent here too.
        old = w1[path] if in1 else None
        new = w2[path] if in2 else None
        if in1 and in2 and values_equal(old, new):
            t.n += 1
            _score_kept(path, w3, w4, t)
        else:
            t.s += 1
            _score_change(path, old, new, w3, w4, t)


def _score_kept(path: str, w3: FlatState, w4: FlatState, t: Tally) -> None:
    """A path the gold left as it was (N): a negative TP if the prediction kept it too, else an FP."""
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


def _score_change(path: str, old: Any, new: Any, w3: FlatState, w4: FlatState, t: Tally) -> None:
    """A path the gold modified, deleted or added (S): what the prediction did to it."""
    in3 = path in w3
    in4 = path in w4
    if old is not None and new is not None:
        _score_modify(path, new, w3, w4, t, in3, in4)
    elif old is not None:
        _score_delete(path, t, in3, in4)
    elif new is not None:
        _score_add(path, new, w4, t, in3, in4)
    # else: both sides hold None; the official code counts it in S and scores nothing.


def _score_modify(path: str, new: Any, w3: FlatState, w4: FlatState, t: Tally, in3: bool, in4: bool) -> None:
    """A path the gold modified: changed by the prediction, and to the gold value?"""
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


def _score_delete(path: str, t: Tally, in3: bool, in4: bool) -> None:
    """A path the gold deleted: deleted by the prediction?"""
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


def _score_add(path: str, new: Any, w4: FlatState, t: Tally, in3: bool, in4: bool) -> None:
    """A path the gold added: added by the prediction, with the gold value?"""
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


def unexpected_additions(w1: FlatState, w2: FlatState, w3: FlatState, w4: FlatState, t: Tally) -> None:
    """Count each path only the predicted final world has as an FP (official step 3)."""
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
    t = Tally()
    diff_paths(dict.fromkeys([*a, *b]), a, b, a, d, t)
    unexpected_additions(a, b, a, d, t)
    return t.finish()
