"""The metric vocabulary: each per-task metric, its aggregate name and what it means.

Two official spellings exist and both stay, because upstream files use them: a **per-task**
name (``results.jsonl``, ``info["metrics"]``, :attr:`vmb_gym.policy.Episode.metrics`,
:attr:`vmb_gym.wrappers.EvaluationWrapper.records`, a run's ``records.jsonl``) and an
**aggregate** name, the macro mean over tasks (``metric.json``, its ``by_reasoning_type``
blocks, :meth:`vmb_gym.wrappers.EvaluationWrapper.summary`). The episode's reward components
(``info["reward_components"]``, :mod:`vmb_gym.envs.rewards`) name three of them a third way.
:data:`METRICS` is the one table that ties them together; :func:`metric` finds a row by any
of its names.

Example:
    >>> metric("exact_match").aggregate
    'exact_match_rate'
    >>> metric("state_f1_change").name
    'f1_change'
    >>> metric("ESM").reward_component
    'exact_state_match'
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from vmb_gym.errors import ConfigError

__all__ = ["AUDIT_KEYS", "METRICS", "Metric", "metric", "metrics_table"]


@dataclass(frozen=True)
class Metric:
    """One metric under its names.

    Attributes:
        name: the per-task key (``info["metrics"]``, ``results.jsonl``).
        aggregate: the key of its mean over tasks (``metric.json``), or None when not aggregated.
        label: the short label of reports and tables (``ESM``, ``F1``).
        meaning: what it measures.
        reward_component: its name in ``info["reward_components"]``, if it is one.
        official: the upstream scorer reports it (else it is ours, reported under its own name).
    """

    name: str
    aggregate: str | None
    label: str
    meaning: str
    reward_component: str | None = None
    official: bool = True


#: Every per-task metric of the scorer, official ones first in ``metric.json`` order. "Fields"
#: are the 341 flattened vehicle-state paths; "the gold" is the state the gold calls leave.
METRICS: tuple[Metric, ...] = (
    Metric("exact_match", "exact_match_rate", "ESM",
           "exact state match: the final state equals the gold state (0/1); reward='esm'", "exact_state_match"),
    Metric("change_accuracy", "change_accuracy", "change accuracy",
           "share of the fields the gold changes that were set to the gold value"),
    Metric("f1_positive", "state_f1_positive", "F1 (field)",
           "field-level F1: fields changed (any value) against the fields the gold changes; reward='f1_positive'",
           "state_f1_positive"),
    Metric("f1_negative", "state_f1_negative", "F1 (kept)",
           "F1 of keeping the fields the gold leaves alone"),
    Metric("acc_positive", "state_acc_positive", "recall (field)",
           "share of the fields the gold changes that were changed (any value)"),
    Metric("precision_positive", "state_precision_positive", "precision (field)",
           "share of the changed fields that the gold changes"),
    Metric("f1_change", "state_f1_change", "F1",
           "value-level F1: fields set to the gold value against fields changed and fields the gold changes; "
           "the default reward", "state_f1_change"),
    Metric("acc_negative", "state_acc_negative", "kept rate",
           "share of the fields the gold leaves alone that were left alone"),
    Metric("precision_change", "state_precision_change", "precision (value)",
           "share of the changed fields that were set to the gold value"),
    Metric("tool_f1", "tool_f1", "tool F1",
           "official tool-call F1 of the vehicle calls against the gold calls (as sets: a repeated gold call "
           "counts once, the upstream quirk)"),
    Metric("tool_precision", "tool_precision", "tool precision", "official tool-call precision"),
    Metric("tool_recall", "tool_recall", "tool recall", "official tool-call recall"),
    Metric("tool_f1_corrected", "tool_f1_corrected", "tool F1 (corrected)",
           "tool-call F1 over call multisets (a repeated gold call must be repeated)", official=False),
    Metric("tool_precision_corrected", None, "tool precision (corrected)",
           "multiset tool-call precision (per task only)", official=False),
    Metric("tool_recall_corrected", None, "tool recall (corrected)",
           "multiset tool-call recall (per task only)", official=False),
)

#: The retrieval-audit means ``metric.json`` (``memory_audit``) and ``EvaluationWrapper.summary``
#: report, over the episodes that searched (see :func:`vmb_gym.memory.audit.audit_hits`).
AUDIT_KEYS: tuple[str, ...] = ("recall@1", "recall@3", "recall@5", "recall@10", "recall@20", "all_recall@5",
                               "all_recall@20", "precision@1", "precision@5", "mrr")


def _names(m: Metric) -> tuple[str, ...]:
    return tuple(n for n in (m.name, m.aggregate, m.label, m.reward_component) if n)


def metric(name: str) -> Metric:
    """The row of :data:`METRICS` that ``name`` is a name of (per-task, aggregate, label or reward component).

    Raises:
        ConfigError: no row has that name (the message suggests close ones).
    """
    for m in METRICS:
        if name in _names(m):
            return m
    every = [n for m in METRICS for n in _names(m)]
    close = difflib.get_close_matches(str(name), every, n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ConfigError(f"unknown metric {name!r}; expected a name of vmb_gym.metrics.METRICS such as "
                      f"'exact_match' or 'state_f1_change'{hint}")


def metrics_table() -> str:
    """:data:`METRICS` as the Markdown table of the README (per-task name, aggregate name, meaning)."""
    lines = ["| per task (`info[\"metrics\"]`) | aggregate (`metric.json`) | label | meaning |", "|---|---|---|---|"]
    for m in METRICS:
        aggregate = f"`{m.aggregate}`" if m.aggregate else "(not aggregated)"
        extra = f" (reward component `{m.reward_component}`)" if m.reward_component else ""
        lines.append(f"| `{m.name}` | {aggregate} | {m.label} | {m.meaning}{extra} |")
    return "\n".join(lines)
