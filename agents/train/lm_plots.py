"""The reward curve of an LM training run (:mod:`agents.train.lm`): ``reward_curve.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_rewards"]


def plot_rewards(path: Path, rows: list[dict[str, Any]], summary: dict[str, Any], title: str,
                 reward_name: str = "f1_change") -> None:
    """Mean GRPO reward per step (and a moving mean) with the held-out greedy rewards as lines; below it,
    the share of groups with a reward spread (GRPO's signal), the well-formed share and the KL, when logged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    extra = [k for k in ("groups_with_signal", "format_rate") if rows and k in rows[0]]
    fig, axes = plt.subplots(2 if extra else 1, 1, figsize=(7, 6 if extra else 4), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [3, 2]} if extra else None)
    ax = axes[0, 0]
    if rows:
        steps = [r["step"] for r in rows]
        values = np.array([r["mean_reward"] for r in rows], dtype=float)
        ax.plot(steps, values, alpha=0.4, marker=".", label="mean reward per step (sampled rollouts)")
        window = max(1, len(rows) // 10)
        if window > 1:
            ax.plot(steps[window - 1:], np.convolve(values, np.ones(window) / window, mode="valid"),
                    label=f"moving mean ({window} steps)")
    for key, style in (("before", ":"), ("after_sft", "--"), ("after_grpo", "-")):
        if summary.get(key):
            ax.axhline(summary[key]["reward"], color="gray", linestyle=style, label=f"held-out greedy {key}")
    ax.set_ylabel(f"env reward ({reward_name})")
    ax.set_title(title)
    ax.legend(fontsize=7)
    if extra:
        low = axes[1, 0]
        labels = {"groups_with_signal": "groups with reward spread", "format_rate": "well-formed tool calls"}
        for k in extra:
            low.plot(steps, [float(r[k]) for r in rows], label=labels[k])
        low.set_ylim(-0.05, 1.05)
        low.set_ylabel("share")
        if "kl" in rows[0]:
            twin = low.twinx()
            twin.plot(steps, [float(r["kl"]) for r in rows], color="gray", alpha=0.6, linestyle=":", label="KL to SFT model")
            twin.set_ylabel("KL", color="gray")
            twin.legend(fontsize=7, loc="lower right")
        low.legend(fontsize=7, loc="lower left")
    axes[-1, 0].set_xlabel("GRPO step")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
