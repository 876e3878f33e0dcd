"""The fields of a ``results.jsonl`` record, in order, from a task's state and tool scores.

Light on purpose (the score types are named for type checkers only): ``vmb score`` builds
records without importing the simulator when no prediction needs running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vmb_gym.scoring.state_diff import StateScore
    from vmb_gym.scoring.tool_f1 import ToolScore

__all__ = ["state_record_fields", "tool_record_fields"]


def state_record_fields(s: StateScore) -> dict[str, Any]:
    """The state part of a ``results.jsonl`` record (``exact_match`` to ``precision_change``), in order."""
    return {
        "exact_match": s.exact_match,
        "TP": s.tp,
        "FP": s.fp,
        "negative_TP": s.negative_tp,
        "negative_FP": s.negative_fp,
        "correctly_changed": s.correctly_changed,
        "should_change": s.should_change,
        "should_not_change": s.should_not_change,
        "change_accuracy": s.change_accuracy,
        "f1_positive": s.f1_positive,
        "f1_negative": s.f1_negative,
        "acc_positive": s.acc_positive,
        "precision_positive": s.precision_positive,
        "f1_change": s.f1_change,
        "acc_negative": s.acc_negative,
        "precision_change": s.precision_change,
    }


def tool_record_fields(tool: ToolScore, corrected: ToolScore) -> dict[str, Any]:
    """The tool part of a ``results.jsonl`` record (official then corrected precision/recall/F1), in order."""
    return {
        "tool_f1": tool.f1,
        "tool_precision": tool.precision,
        "tool_recall": tool.recall,
        "tool_f1_corrected": corrected.f1,
        "tool_precision_corrected": corrected.precision,
        "tool_recall_corrected": corrected.recall,
    }
