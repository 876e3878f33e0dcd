"""PNG figures of evaluation runs (matplotlib, non-interactive Agg backend).

Each function takes ``runs``: ``(label, metric)`` pairs where ``metric`` is a ``metric.json``
dict, the run being reported first, then the ``--compare`` runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_gym.outdir import save_figure
from vmb_gym.types import REASONING_TYPES

__all__ = ["plot_esm_by_type", "plot_tokens_vs_esm"]

Run = tuple[str, Mapping[str, Any]]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_esm_by_type(runs: Sequence[Run], path: str | os.PathLike[str]) -> Path:
    """Grouped bars: ESM per reasoning type (and overall), one bar per run."""
    plt = _pyplot()
    types = [t for t in REASONING_TYPES if any(t in m.get("by_reasoning_type", {}) for _, m in runs)]
    types += sorted({t for _, m in runs for t in m.get("by_reasoning_type", {})} - set(types))
    groups = [*types, "overall"]
    width = 0.8 / max(len(runs), 1)
    fig, ax = plt.subplots(figsize=(max(7.5, 1.4 * len(groups) + 2.0), 4.0))
    for i, (label, metric) in enumerate(runs):
        by_type = metric.get("by_reasoning_type", {})
        values = [float(by_type.get(t, {}).get("exact_match_rate", 0) or 0) for t in types]
        values.append(float(metric.get("exact_match_rate", 0) or 0))
        xs = [g + (i - (len(runs) - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, values, width=width, label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([g.replace("_", "\n") for g in groups], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("exact state match (ESM)")
    ax.set_title("ESM by reasoning type")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    out = save_figure(fig, path, dpi=100)  # whole or not at all (a full disk leaves no half PNG)
    plt.close(fig)
    return out


def plot_tokens_vs_esm(runs: Sequence[Run], path: str | os.PathLike[str]) -> Path:
    """Scatter: mean memory tokens per episode (x) against ESM (y), one labelled point per run."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for label, metric in runs:
        x = float(metric.get("avg_memory_tokens", 0) or 0)
        y = float(metric.get("exact_match_rate", 0) or 0)
        ax.scatter([x], [y], s=40)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("memory tokens per episode (mean)")
    ax.set_ylabel("exact state match (ESM)")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("Memory tokens vs ESM per memory module")
    fig.tight_layout()
    out = save_figure(fig, path, dpi=100)  # whole or not at all (a full disk leaves no half PNG)
    plt.close(fig)
    return out
