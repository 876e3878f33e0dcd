"""The dashboard's comparison of runs: the tables of ``vmb compare``, ready to render.

Every figure comes from :func:`vmb_gym.evaluation.compare.compare_runs`, so the dashboard shows
the numbers ``vmb compare`` prints: one row per run, ESM by reasoning type and by module, the
paired differences against a reference run (bootstrap interval, sign test) and the
failure-attribution split. Runs are named by their directory (unique within the dashboard).
Every value is a plain number or string; the site escapes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vmb_gym.evaluation.compare import Comparison
from vmb_gym.evaluation.runs import Run

__all__ = ["COLUMNS", "Table", "attribution_table", "by_group_table", "paired_table", "run_names", "runs_table"]

#: Run-table columns: (heading, key in a ``vmb compare`` row, kind); kind ``"text"``, ``"int"``,
#: ``"rate"`` (3 decimals) or ``"num"`` (1 decimal from 10 up, else 3).
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("policy", "policy", "text"), ("memory", "memory", "text"), ("data", "data", "text"),
    ("tasks", "tasks", "int"), ("ESM", "esm", "rate"), ("value F1", "value_f1", "rate"),
    ("field F1", "field_f1", "rate"), ("tool F1", "tool_f1", "rate"), ("MemoryScore", "memory_score", "rate"),
    ("memory tokens", "memory_tokens", "num"), ("searches", "searches", "num"),
    ("s / episode", "seconds_per_episode", "num"),
)


@dataclass(frozen=True)
class Table:
    """A table to render: headings, the kind of each column and the rows."""

    headings: tuple[str, ...]
    kinds: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


def run_names(runs: Sequence[Run]) -> list[str]:
    """A short distinct name per run: the directory name, made unique with its parent's name."""
    names = [run.path.name or str(run.path) for run in runs]
    counts = Counter(names)
    return [f"{run.path.parent.name}/{n}" if counts[n] > 1 else n for n, run in zip(names, runs, strict=True)]


def runs_table(cmp: Comparison, names: Sequence[str]) -> Table:
    """One row per run (see :data:`COLUMNS`), then pass^k where some run has several trials."""
    heads = ["run", *(h for h, _, _ in COLUMNS)]
    kinds = ["text", *(k for _, _, k in COLUMNS)]
    k = max((int(r.get("k") or 1) for r in cmp.rows), default=1)
    if k > 1:
        heads.append(f"pass^{k}")
        kinds.append("rate")
    rows = []
    for name, row in zip(names, cmp.rows, strict=False):
        cells = [name, *(row.get(key) for _, key, _ in COLUMNS)]
        if k > 1:
            cells.append(row.get("pass_k") if int(row.get("k") or 1) == k else None)
        rows.append(tuple(cells))
    return Table(tuple(heads), tuple(kinds), tuple(rows))


def by_group_table(cmp: Comparison, names: Sequence[str], key: str) -> Table:
    """ESM per reasoning type (``key="reasoning_type"``) or per gold module (``key="module"``).

    The ``n`` column is the largest episode count of the group over the runs.
    """
    groups: Mapping[str, list[dict[str, Any]]] = cmp.by_reasoning_type if key == "reasoning_type" else cmp.by_module
    rows = tuple((g, max(c["n"] for c in cells), *[c["esm"] for c in cells]) for g, cells in groups.items())
    heading = "reasoning type" if key == "reasoning_type" else "module"
    return Table((heading, "n", *names), ("text", "int", *["rate"] * len(names)), rows)


def attribution_table(cmp: Comparison, names: Sequence[str]) -> Table:
    """Episodes per primary failure label (rows, labels no run has left out) and run; successes last."""
    rows = tuple((label, *counts) for label, counts in cmp.failures.items()
                 if label != "success" and any(counts))
    success = cmp.failures.get("success")
    if success is not None:
        rows += (("(exact match)", *success),)
    return Table(("failure label", *names), ("text", *["int"] * len(names)), rows)


def _interval(d: Mapping[str, Any]) -> str:
    return f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"


def paired_table(cmp: Comparison, names: Sequence[str]) -> Table:
    """Paired differences (run - reference) on the same tasks: ESM with its 95% interval and sign test, value F1."""
    by_name = dict(zip(cmp.names, names, strict=False))
    rows = []
    for p in cmp.paired:
        esm, f1 = p["exact_match"], p["f1_change"]
        rows.append((by_name.get(p["run"], p["run"]), by_name.get(p["reference"], p["reference"]), esm["tasks"],
                     f"{esm['mean']:+.3f}", _interval(esm), f"{esm['wins']}/{esm['losses']}/{esm['ties']}",
                     f"{esm['p_sign']:.3g}", f"{f1['mean']:+.3f}", _interval(f1)))
    for r in cmp.refused:
        rows.append((by_name.get(r["run"], r["run"]), by_name.get(r["reference"], r["reference"]), None,
                     "refused", r["reason"], "", "", "", ""))
    return Table(("run", "reference", "tasks", "ΔESM", "95% interval", "wins/losses/ties", "sign test p",
                  "Δ value F1", "95% interval"),
                 ("text", "text", "int", "text", "text", "text", "text", "text", "text"), tuple(rows))
