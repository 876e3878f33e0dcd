"""The dashboard's comparison of runs: one row per run, ESM by reasoning type and by module.

The figures come from each run's ``metric.json`` where it has them (the numbers ``vmb eval``
printed and ``vmb compare`` shows) and from the run's records otherwise (runs not yet
summarised, stream runs). Every value is a plain number or string; the site escapes them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vmb_gym.evaluation.attribution import FAILURE_LABELS
from vmb_gym.evaluation.runs import Run

__all__ = ["COLUMNS", "Table", "attribution_table", "by_group_table", "run_names", "runs_table"]

#: Columns of the run table: (heading, kind), kind ``"text"``, ``"int"``, ``"rate"`` (3 decimals) or ``"num"`` (1 to 3 decimals).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("run", "text"), ("policy", "text"), ("memory", "text"), ("data", "text"), ("tasks", "int"),
    ("ESM", "rate"), ("value F1", "rate"), ("field F1", "rate"), ("tool F1", "rate"),
    ("MemoryScore", "rate"), ("memory tokens", "num"), ("searches", "num"), ("s / episode", "num"),
    ("pass^k", "rate"),
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
    return [f"{run.path.parent.name}/{n}" if counts[n] > 1 else n for n, run in zip(names, runs)]


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _metric(run: Run, key: str, fallback: float | None) -> float | None:
    value = run.metric.get(key)
    return float(value) if isinstance(value, (int, float)) else fallback


def _pass_k(run: Run) -> float | None:
    keys = sorted((k for k in run.metric if k.startswith("pass^")), key=lambda k: int(k[5:]))
    return _metric(run, keys[-1], None) if keys else None


def _run_row(name: str, run: Run) -> tuple[Any, ...]:
    scored = run.scored()
    return (
        name, run.config.policy, run.config.memory, run.config.data, len(run.task_ids()),
        run.esm,
        _metric(run, "state_f1_change", _mean([t.f1_change for t in scored])),
        _metric(run, "state_f1_positive", _mean([t.f1_positive for t in scored])),
        _metric(run, "tool_f1", _mean([t.tool_f1 for t in scored])),
        _metric(run, "memory_score", None),
        _metric(run, "avg_memory_tokens", _mean([t.memory_tokens for t in scored])),
        _metric(run, "avg_memory_searches", _mean([t.memory_searches for t in scored])),
        _mean([t.seconds for t in scored]),
        _pass_k(run),
    )


def runs_table(runs: Sequence[Run]) -> Table:
    """One row per run (see :data:`COLUMNS`)."""
    names = run_names(runs)
    return Table(tuple(h for h, _ in COLUMNS), tuple(k for _, k in COLUMNS),
                 tuple(_run_row(n, r) for n, r in zip(names, runs)))


def _group_esm(run: Run, key: str) -> dict[str, tuple[int, float]]:
    groups: dict[str, list[float]] = defaultdict(list)
    for t in run.scored():
        names = [t.reasoning_type] if key == "reasoning_type" else list(t.modules) or ["(no change)"]
        for name in names:
            groups[name].append(t.exact_match)
    return {g: (len(v), sum(v) / len(v)) for g, v in groups.items()}


def by_group_table(runs: Sequence[Run], key: str) -> Table:
    """ESM per reasoning type (``key="reasoning_type"``) or per gold module (``key="module"``).

    A cell is the mean ESM over the run's scored episodes of that group; the ``n`` column is the
    largest episode count of the group over the runs.
    """
    per_run = [_group_esm(r, key) for r in runs]
    groups = sorted({g for d in per_run for g in d})
    rows = []
    for g in groups:
        n = max((d[g][0] for d in per_run if g in d), default=0)
        rows.append((g, n, *[d[g][1] if g in d else None for d in per_run]))
    heading = "reasoning type" if key == "reasoning_type" else "module"
    return Table((heading, "n", *run_names(runs)), ("text", "int", *["rate"] * len(runs)), tuple(rows))


def attribution_table(runs: Sequence[Run]) -> Table:
    """Failed episodes per primary failure label (rows) and run (columns)."""
    counts = [Counter(t.failure_label for t in r.scored() if t.failure_label) for r in runs]
    labels = [lb for lb in FAILURE_LABELS if any(c[lb] for c in counts)]
    labels += sorted({lb for c in counts for lb in c if lb not in FAILURE_LABELS})
    rows = tuple((lb, *[c[lb] for c in counts]) for lb in labels)
    return Table(("failure label", *run_names(runs)), ("text", *["int"] * len(runs)), rows)
