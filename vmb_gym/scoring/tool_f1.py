"""Tool-call F1: the official ``score_tool_calls`` and a corrected multiset variant.

The official scorer keys a call as ``(name, json.dumps(arguments, sort_keys=True,
ensure_ascii=False))``, so JSON types matter (``"2"`` != ``2``, ``true`` != ``1``, ``60`` !=
``60.0``) and an extra optional argument is a mismatch. :func:`tool_call_key` writes the same
sorted JSON without the spaces (``{"a":"é","b":1}``): two calls get equal keys exactly when their
official keys are equal.

The official scorer has a key-set bug: each *distinct* key can match only once, so a gold that
repeats a call (qa_18[8], qa_32[4], ...) caps an exact replay at tool F1 0.5.
:func:`official_tool_score` keeps that bug for parity; :func:`multiset_tool_score` matches calls
as multisets (each gold occurrence can be matched by one predicted occurrence).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from vmb_gym.types import ToolCall

__all__ = ["ToolScore", "multiset_tool_score", "official_tool_score", "tool_call_key", "tool_call_keys"]

CallKey = tuple[str, str]

# The official ``json.dumps(x, sort_keys=True, ensure_ascii=False)``, without the spaces.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
_FLAT_VALUE_TYPES = frozenset((str, int, bool, float, type(None)))
_STR = frozenset((str,))


@dataclass(frozen=True, slots=True)
class ToolScore:
    """Tool-call match counts and rates for one task (official ``tool_score`` shape)."""

    tp: int
    fp: int
    fn: int
    precision: float | int
    recall: float | int
    f1: float | int

    def to_official_dict(self) -> dict[str, Any]:
        """``{tp, fp, fn, precision, recall, f1}`` as the official per-task ``tool_score``."""
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


def tool_call_key(name: Any, arguments: Any) -> CallKey:
    """The official key of one call: the name and the sorted, non-ASCII-preserving JSON of its arguments.

    Arguments that JSON cannot encode (never the case for calls read from JSON) fall back to
    ``repr`` so that scoring never raises.
    """
    if type(arguments) is not dict and isinstance(arguments, Mapping):
        arguments = dict(arguments)
    if (type(arguments) is dict and _FLAT_VALUE_TYPES.issuperset(map(type, arguments.values()))
            and _STR.issuperset(map(type, arguments))):
        # The common case, a flat object of scalars, through orjson (same text as the encoder).
        # ``null`` is left to the encoder, which tells None from NaN (orjson writes both as null).
        try:
            text = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode()
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, a lone surrogate
            pass
        else:
            if "null" not in text:
                return (name, text)
    try:
        text = _ENCODER.encode(arguments)
    except (TypeError, ValueError):
        text = repr(arguments)
    return (name, text)


def tool_call_keys(calls: Sequence[ToolCall]) -> tuple[CallKey, ...]:
    """The official keys of a sequence of calls, in order."""
    return tuple(tool_call_key(c.name, c.arguments) for c in calls)


def _rates(tp: int, fp: int, fn: int) -> ToolScore:
    precision = tp / (tp + fp) if (tp + fp) > 0 else 0
    recall = tp / (tp + fn) if (tp + fn) > 0 else 0
    f1 = 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0
    return ToolScore(tp=tp, fp=fp, fn=fn, precision=precision, recall=recall, f1=f1)


def official_tool_score(pred_keys: Sequence[CallKey], gold_keys: Sequence[CallKey]) -> ToolScore:
    """The official ``score_tool_calls``, key-set bug included.

    Predicted keys are scanned in order; one is a TP when it occurs in the gold and that key has
    not been matched yet. FP = #pred - TP, FN = #gold - TP; P = 0 when there are no predictions.

    Args:
        pred_keys: keys of the predicted calls (see :func:`tool_call_key`), in order.
        gold_keys: keys of the gold calls.
    """
    gold = set(gold_keys)
    used: set[CallKey] = set()
    tp = 0
    for key in pred_keys:
        if key in gold and key not in used:
            tp += 1
            used.add(key)
    return _rates(tp, max(0, len(pred_keys) - tp), max(0, len(gold_keys) - tp))


def multiset_tool_score(pred_keys: Sequence[CallKey], gold_keys: Sequence[CallKey]) -> ToolScore:
    """Corrected tool F1: predicted and gold calls matched as multisets.

    TP = size of the multiset intersection, so replaying a gold with a repeated call scores 1.0.
    When both sides are empty the task asked for no call and none was made: P = R = F1 = 1.0.

    Args:
        pred_keys: keys of the predicted calls.
        gold_keys: keys of the gold calls.
    """
    if not pred_keys and not gold_keys:
        return ToolScore(tp=0, fp=0, fn=0, precision=1.0, recall=1.0, f1=1.0)
    if len(gold_keys) == 1 and len(pred_keys) <= 1:
        tp = 1 if pred_keys and pred_keys[0] == gold_keys[0] else 0
    else:
        gold = Counter(gold_keys)  # the size of the multiset intersection, without building it
        tp = sum(min(n, gold[key]) for key, n in Counter(pred_keys).items() if key in gold)
    return _rates(tp, len(pred_keys) - tp, len(gold_keys) - tp)
