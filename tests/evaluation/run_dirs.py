"""Small hand-made run directories for the run-loading and comparison tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: (task_id, reasoning_type, exact_match, f1_change, memory_tokens, failure label)
Row = tuple[str, str, bool, float, int, str | None]


def eval_record(task_id: str, rtype: str, em: bool, f1: float, tokens: int, label: str | None,
                *, trial: int = 0, error: bool = False, recall5: float = 0.5) -> dict[str, Any]:
    """One ``vmb eval`` results.jsonl line with the fields the loader reads."""
    return {
        "task_id": task_id, "trial": trial, "scenario_id": int(task_id.split("_")[0]), "reasoning_type": rtype,
        "gold_modules": ["seat"] if task_id.endswith("0") else ["light", "seat"],
        "metrics": {"exact_match": em, "f1_change": f1, "f1_positive": f1 / 2, "tool_f1": 1.0 if em else 0.0},
        "episode": {"memory_tokens": tokens, "memory_searches": 2, "steps": 1},
        "memory": {"name": "bm25", "tokens": tokens, "searches": 2,
                   "audit": {"recall@5": recall5, "recall@10": 1.0, "mrr": 0.5}},
        "attribution": None if label is None else {"label": label, "labels": [label]},
        "error_kind": "infrastructure" if error else None, "seconds": 0.5,
    }


def write_eval_run(out: Path, policy: str, memory: str, rows: Sequence[Row], *, metric: bool = True,
                   extra: Sequence[dict[str, Any]] = ()) -> Path:
    """A ``vmb eval`` run directory: config.json, results.jsonl and (optionally) metric.json."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({"policy": policy, "memory": memory, "data": "default",
                                                 "files": None, "trials": 1}))
    recs = [eval_record(*row) for row in rows] + list(extra)
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    if metric:
        ok = [r for r in recs if not r["error_kind"]]
        (out / "metric.json").write_text(json.dumps({
            "exact_match_rate": sum(r["metrics"]["exact_match"] for r in ok) / len(ok),
            "state_f1_change": sum(r["metrics"]["f1_change"] for r in ok) / len(ok),
            "episodes": len(ok), "tasks": len(ok), "trials": 1}))
    return out


def write_stream_run(out: Path, writer: str, scenarios: dict[int, Sequence[tuple[str, str, bool]]]) -> Path:
    """A ``vmb eval-stream`` run directory: one line per scenario with its queries."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({"writer": writer, "data": "default", "files": None,
                                                 "store": "bm25", "top_k": 10, "seed": 0}))
    lines = []
    for sid, queries in scenarios.items():
        qs = [{"task_id": t, "reasoning_type": rt, "exact_match": em, "f1_change": 1.0 if em else 0.25,
               "f1_positive": 0.5, "tool_f1": 0.0} for t, rt, em in queries]
        lines.append({"scenario_id": sid, "writer": writer, "queries": qs, "esm": [float(q["exact_match"]) for q in qs],
                      "store_tokens": 300, "seconds": 2.0, "reward": 1.0})
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return out
