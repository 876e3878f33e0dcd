"""The learning curves of an LM training run (:mod:`vmb_agents.train.lm`): ``sft_loss.png`` and ``grpo_reward.png``."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_grpo", "plot_sft"]


def _moving(values: np.ndarray, window: int) -> np.ndarray:
    return np.convolve(values, np.ones(window) / window, mode="valid")


def _plot(path: Path, steps: Sequence[int], values: Sequence[float], *, title: str, ylabel: str, xlabel: str,
          label: str, spread: Sequence[float] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if steps:
        y = np.asarray(values, dtype=float)
        ax.plot(steps, y, alpha=0.45, marker=".", label=label)
        if spread is not None:
            s = np.asarray(spread, dtype=float)
            ax.fill_between(steps, y - s, y + s, alpha=0.12, label="± std within the step")
        window = max(1, len(steps) // 10)
        if window > 1:
            ax.plot(steps[window - 1:], _moving(y, window), label=f"moving mean ({window} steps)")
    else:
        ax.text(0.5, 0.5, "phase skipped", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(textwrap.fill(title, 80), fontsize=9)  # a long reward mapping wraps instead of running off
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_sft(path: Path, rows: Sequence[dict[str, Any]], title: str) -> None:
    """Training loss per optimiser step of the supervised phase (assistant tokens only)."""
    _plot(path, [int(r["step"]) for r in rows], [float(r["loss"]) for r in rows], title=title,
          ylabel="cross-entropy on the assistant turns", xlabel="optimiser step", label="loss per step")


def plot_grpo(path: Path, rows: Sequence[dict[str, Any]], title: str) -> None:
    """Mean env reward of the sampled rollouts per GRPO step (with its spread)."""
    _plot(path, [int(r["step"]) for r in rows], [float(r["mean_reward"]) for r in rows], title=title,
          ylabel="env reward of sampled rollouts", xlabel="GRPO step", label="mean reward per step",
          spread=[float(r.get("std_reward", 0.0)) for r in rows])
