"""Failure attribution: why a failed episode (no exact state match) failed.

Every failed episode gets a list of labels (all that apply) and one primary label (the first
applicable in the order below: an unreadable call first, as it hides what the policy meant, then the
pipeline retrieval -> use -> action):

| label | meaning | evidence used |
|---|---|---|
| ``parse_error`` | a tool call the env could not read (a broken tool-call reply) | ``episode["parse_errors"]`` |
| ``evidence_not_retrieved`` | searchable memory, yet no hit cites a gold evidence line (or no search) | memory audit |
| ``retrieved_but_unused`` | a hit cites a gold evidence line, yet no call used a gold API | memory audit + calls |
| ``no_action`` | the policy made no vehicle call | calls |
| ``wrong_module_or_api`` | some gold API was never called (see ``detail`` below) | calls vs gold calls |
| ``wrong_value`` | the gold API was called with other values (or its fields ended so) | calls vs gold, state counts |
| ``extra_changes`` | fields that should not change were changed (FP > 0) | state counts |
| ``other`` | none of the above explains the mismatch | |

``wrong_module_or_api``'s ``detail`` says "wrong module" when none of the gold modules was touched.

``evidence`` records the retrieval status: ``retrieved``, ``not_retrieved`` (searched, no
evidence line), ``not_searched`` (searchable memory, no search), ``in_context`` (a memory that
puts text in the prompt, e.g. gold or full history: retrieval cannot be audited),
``no_memory`` (memory ``none``), ``no_located_evidence`` (the task's gold memory could not be
located in the history).

The function works on a saved ``results.jsonl`` record alone, so ``vmb regrade`` recomputes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vmb_gym.evaluation.records import scored_calls
from vmb_gym.scoring.state_diff import values_equal
from vmb_gym.vehicle import API_SPECS

__all__ = ["FAILURE_LABELS", "attribute", "evidence_status"]

#: Labels in precedence order (the primary label is the first that applies).
FAILURE_LABELS: tuple[str, ...] = (
    "parse_error",
    "evidence_not_retrieved",
    "retrieved_but_unused",
    "no_action",
    "wrong_module_or_api",
    "wrong_value",
    "extra_changes",
    "other",
)


def evidence_status(record: Mapping[str, Any]) -> str:
    """Retrieval status of a saved episode (see the module docstring)."""
    memory = record.get("memory") or {}
    if not memory.get("evidence_lines"):
        return "no_located_evidence"
    if memory.get("provides_search"):
        audit = memory.get("audit")
        if not memory.get("searches") and not audit:
            return "not_searched"
        if audit and (audit.get("mrr") or any(r is not None for r in audit.get("first_hit_ranks") or [])):
            return "retrieved"
        hits = set(memory.get("hit_lines") or [])
        return "retrieved" if hits.intersection(memory["evidence_lines"]) else "not_retrieved"
    if memory.get("provides_context"):
        return "in_context"
    return "no_memory"


def _args_match(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    if set(pred) != set(gold):
        return False
    return all(values_equal(pred[k], gold[k]) for k in gold)


def attribute(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """Attribute the failure of one saved episode.

    Args:
        record: a ``results.jsonl`` record (``metrics``, ``gold_calls``, ``trajectory``,
            ``memory``).

    Returns:
        ``None`` for a successful episode or an infrastructure error; otherwise
        ``{"label": primary, "labels": [...], "evidence": status, "detail": text}``.
    """
    if record.get("error_kind"):
        return None
    metrics = record.get("metrics") or {}
    if metrics.get("exact_match"):
        return None
    gold = [(str(c.get("name")), dict(c.get("arguments") or {})) for c in record.get("gold_calls") or []]
    pred = [(c.name, dict(c.arguments)) for c in scored_calls(record) if c.name in API_SPECS]
    gold_apis = {n for n, _ in gold}
    pred_apis = {n for n, _ in pred}
    gold_modules = {API_SPECS[n].module for n in gold_apis if n in API_SPECS}
    pred_modules = {API_SPECS[n].module for n in pred_apis}
    status = evidence_status(record)
    labels: list[str] = []
    details: list[str] = []

    parse_errors = int((record.get("episode") or {}).get("parse_errors") or 0)
    if parse_errors:
        labels.append("parse_error")
        details.append(f"{parse_errors} tool call(s) could not be read")
    if status in ("not_retrieved", "not_searched"):
        labels.append("evidence_not_retrieved")
        details.append("no gold evidence line retrieved" + (" (no search made)" if status == "not_searched" else ""))
    missing = sorted(gold_apis - pred_apis)
    used_gold_api = bool(gold_apis & pred_apis)
    if status == "retrieved" and gold_apis and not used_gold_api:
        labels.append("retrieved_but_unused")
        details.append("evidence was retrieved but no gold API was called")
    if not pred:
        labels.append("no_action")
        details.append("no vehicle call")
    elif missing:
        labels.append("wrong_module_or_api")
        kind = "wrong module" if gold_modules and not gold_modules & pred_modules else "wrong API"
        details.append(f"{kind}: never called {', '.join(missing)}")
    wrong_values = _wrong_value_calls(gold, pred)
    if pred and (wrong_values or (not missing and (metrics.get("negative_FP") or 0) > 0)):
        labels.append("wrong_value")
        details.append("other values for " + (", ".join(wrong_values) if wrong_values else "the gold fields"))
    if (metrics.get("FP") or 0) > 0:
        labels.append("extra_changes")
        details.append(f"{metrics.get('FP')} field(s) changed that should not change")
    if not labels:
        labels.append("other")
        details.append("state differs for a reason the labels do not cover")
    primary = next(label for label in FAILURE_LABELS if label in labels)
    return {"label": primary, "labels": [lb for lb in FAILURE_LABELS if lb in labels], "evidence": status,
            "detail": "; ".join(details)}


def _wrong_value_calls(
    gold: Sequence[tuple[str, dict[str, Any]]], pred: Sequence[tuple[str, dict[str, Any]]]
) -> list[str]:
    """Gold calls whose API was called, but never with the gold arguments."""
    out: list[str] = []
    for name, args in gold:
        same_api = [a for n, a in pred if n == name]
        if same_api and not any(_args_match(a, args) for a in same_api) and name not in out:
            out.append(name)
    return out
