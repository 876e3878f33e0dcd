"""PNG figures of a :class:`~vmb_gym.evaluation.compare.Comparison` (matplotlib, Agg backend).

* :func:`plot_esm_by_type`: grouped bars, ESM per reasoning type (and overall), one bar per run;
* :func:`plot_tokens_vs_esm`: mean memory tokens per episode against ESM, one labelled point per run;
* :func:`plot_recall_vs_esm`: mean recall@k against ESM for the runs with memory audits.

:func:`write_plots` writes those that have data into a folder and returns their paths.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vmb_gym.evaluation.compare import Comparison

__all__ = ["PLOT_FILES", "plot_esm_by_type", "plot_recall_vs_esm", "plot_tokens_vs_esm", "write_plots"]

#: The file name of each figure under ``--out``.
PLOT_FILES = {"esm_by_type": "compare_esm_by_type.png", "tokens_vs_esm": "compare_tokens_vs_esm.png",
              "recall_vs_esm": "compare_recall_vs_esm.png"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    _pyplot().close(fig)
    return out


def plot_esm_by_type(cmp: Comparison, path: str | os.PathLike[str]) -> Path:
    """Grouped bars: ESM per reasoning type and overall, one bar per run."""
    plt = _pyplot()
    groups = [*cmp.by_reasoning_type, "overall"]
    n = len(cmp.names)
    width = 0.8 / max(n, 1)
    fig, ax = plt.subplots(figsize=(min(12.0, max(8.0, 1.1 * len(groups) + 0.25 * n * len(groups))), 4.8))
    for i, name in enumerate(cmp.names):
        vals = [(cmp.by_reasoning_type[g][i]["esm"] or 0.0) for g in groups[:-1]] + [cmp.rows[i]["esm"] or 0.0]
        ax.bar([x + (i - (n - 1) / 2) * width for x in range(len(groups))], vals, width, label=name)
    ax.set_xticks(range(len(groups)), [g.replace("_", "\n") for g in groups])
    ax.set_ylabel("exact state match (ESM)")
    ax.set_ylim(0, 1)
    ax.set_title("ESM by reasoning type")
    ax.legend(fontsize="small", ncol=2 if n > 4 else 1)
    return _save(fig, path)


def _scatter(cmp: Comparison, points: list[tuple[str, float, float]], xlabel: str, title: str,
             path: str | os.PathLike[str]) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.8))
    xs, ys = [p[1] for p in points], [p[2] for p in points]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    placed: list[tuple[float, float]] = []
    for name, x, y in points:
        ax.scatter([x], [y], s=40)
        # labels of points that (nearly) coincide are stacked instead of printed over each other
        near = sum(1 for px, py in placed if abs(px - x) < 0.05 * span_x and abs(py - y) < 0.05 * span_y)
        placed.append((x, y))
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4 - 11 * near), fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("exact state match (ESM)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def plot_tokens_vs_esm(cmp: Comparison, path: str | os.PathLike[str]) -> Path:
    """Scatter: mean memory tokens per episode (x) against ESM (y), one point per run."""
    points = [
        (n, float(r["memory_tokens"] or 0.0), float(r["esm"] or 0.0)) for n, r in zip(cmp.names, cmp.rows, strict=True)
    ]
    return _scatter(cmp, points, "memory tokens per episode (mean)", "Memory tokens vs ESM per run", path)


def plot_recall_vs_esm(cmp: Comparison, path: str | os.PathLike[str]) -> Path:
    """Scatter: mean recall@k of the audited runs (x) against ESM (y)."""
    k = cmp.recall[0]["k"] if cmp.recall else cmp.settings.get("recall_k", 10)
    points = [(r["run"], float(r["recall"]), float(r["esm"] or 0.0)) for r in cmp.recall]
    return _scatter(
        cmp, points, f"evidence recall@{k} (mean over audited episodes)", f"Recall@{k} vs ESM per run", path
    )


def write_plots(cmp: Comparison, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the figures that have data into ``out_dir`` (recall only when some run has audits)."""
    out = Path(out_dir)
    paths = [plot_esm_by_type(cmp, out / PLOT_FILES["esm_by_type"]),
             plot_tokens_vs_esm(cmp, out / PLOT_FILES["tokens_vs_esm"])]
    if cmp.recall:
        paths.append(plot_recall_vs_esm(cmp, out / PLOT_FILES["recall_vs_esm"]))
    return paths
