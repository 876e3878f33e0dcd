"""Draw TriLink's layer ablation (``docs/trilink_ablation.png``) from ``vmb compare`` outputs.

Each set (default, official 1-40) is one ``comparison.json`` written by ``vmb compare`` (or by
``vmb eval --memory layered,layered:...``) over the full ``layered`` memory and its variants. The
figure has one panel per set: ESM and event recall@k of each variant, the full memory first,
with the paired ESM difference to it (wins/losses) over each variant's bar.

    .venv/bin/python scripts/trilink_ablation.py \\
        --set default=runs/ablation/default/comparison.json \\
        --set "official 1-40"=runs/ablation/official40/comparison.json \\
        --out docs/trilink_ablation.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

#: Variant memory names -> the label the README table uses.
LABELS: dict[str, str] = {
    "layered": "full",
    "layered:facts+changes": "- experiences",
    "layered:experiences+changes": "- facts",
    "layered:facts+experiences": "- changes",
}


def ablation_rows(comparison: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per known variant of a comparison: label, ESM, recall, tokens, paired wins/losses to full."""
    recall = {r["run"]: r["recall"] for r in comparison.get("recall", [])}
    paired = {p["run"]: p["exact_match"] for p in comparison.get("paired", [])}
    rows = []
    for run in comparison["runs"]:
        label = LABELS.get(run["memory"])
        if label is None:
            continue
        p = paired.get(run["name"])
        rows.append({"label": label, "esm": run["esm"], "recall": recall.get(run["name"]),
                     "tokens": run["memory_tokens"], "wins": p["wins"] if p else None,
                     "losses": p["losses"] if p else None})
    order = list(LABELS.values())
    return sorted(rows, key=lambda r: order.index(r["label"]))


def draw(sets: dict[str, dict[str, Any]], out: Path) -> None:
    """One panel per set: ESM and recall bars per variant, paired wins/losses over the ESM bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 3.8), squeeze=False)
    for ax, (name, comparison) in zip(axes[0], sets.items(), strict=True):
        rows = ablation_rows(comparison)
        xs = range(len(rows))
        esm = [r["esm"] for r in rows]
        rec = [r["recall"] or 0.0 for r in rows]
        bars = ax.bar([x - 0.2 for x in xs], esm, width=0.4, label="ESM (rules reader)", color="#3b6ea8")
        ax.bar([x + 0.2 for x in xs], rec, width=0.4, label="event recall@10", color="#b8c9dd")
        for bar, r in zip(bars, rows, strict=True):
            note = f"{r['esm']:.3f}"
            if r["wins"] is not None:
                note += f"\n{r['wins']}/{r['losses']}"
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.01, note, ha="center", va="bottom",
                    fontsize=7)
        ax.set_xticks(list(xs), [r["label"] for r in rows])
        ax.set_ylim(0, 1.0)
        ax.set_title(f"{name} ({comparison['runs'][0]['tasks']} tasks)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("score")
    axes[0][0].legend(loc="upper right", fontsize=8)
    fig.suptitle("TriLink layer ablation of layered memory (wins/losses vs full, paired)", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """Parse ``--set NAME=comparison.json`` (repeatable) and ``--out``, draw the figure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", required=True, metavar="NAME=PATH",
                    help="a set's name and its comparison.json (repeatable, panel order)")
    ap.add_argument("--out", type=Path, default=Path("docs/trilink_ablation.png"))
    args = ap.parse_args(argv)
    sets = {}
    for item in args.set:
        name, _, path = item.partition("=")
        if not path:
            ap.error(f"--set expects NAME=PATH, found {item!r}")
        sets[name] = json.loads(Path(path).read_text())
    draw(sets, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
