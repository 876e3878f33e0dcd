"""QA diagnostic track: exact-match scoring of structured answers (no LLM judge).

The env scores ``task_mode="qa"`` episodes with :func:`score_qa`; the generator re-exports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vmb_gym.errors import DataError
from vmb_gym.types import Query, ToolCall

__all__ = ["answers_match", "score_qa"]


def _norm(v: Any) -> Any:
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("num", float(v))
    if isinstance(v, str):
        return ("str", v.strip().lower())
    return ("other", repr(v))


def answers_match(expected: ToolCall, answer: ToolCall) -> bool:
    """Same function name and the same argument values (strings case-insensitive, 2 == 2.0, no bool/int mixing)."""
    if expected.name != answer.name:
        return False
    exp: Mapping[str, Any] = expected.arguments
    got: Mapping[str, Any] = answer.arguments
    if set(exp) != set(got):
        return False
    return all(_norm(exp[k]) == _norm(got[k]) for k in exp)


def score_qa(query: Query, answer: ToolCall) -> bool:
    """Score the question form of ``query``: ``True`` iff ``answer`` matches its structured answer.

    Args:
        query: a query with a ``qa`` form (every generated query has one).
        answer: the answer as a tool call (API name + argument values).

    Raises:
        DataError: the query has no QA form (official data does not).
    """
    if query.qa is None:
        raise DataError(query.task_id, "expected a query with a QA form (generated data has one in meta/meta_N.json)")
    return answers_match(query.qa.answer, answer)
