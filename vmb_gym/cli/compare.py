"""``vmb compare``: runs side by side with paired statistics (Markdown, JSON and PNG plots)."""

from __future__ import annotations

import argparse
import sys

HELP = ("Compare run directories (vmb eval / eval-stream): one table of runs, ESM by reasoning type and "
        "module, paired differences with bootstrap intervals and sign tests, failure attribution.")

#: The JSON file written under --out.
JSON_FILE = "comparison.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb compare``."""
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories, in table order")
    parser.add_argument("--against", action="append", default=None, metavar="RUN",
                        help="reference of the paired differences (repeatable): a position (1 = first run), a run "
                             "directory, a label (rules/gold) or a memory name (gold: each run's gold run on the "
                             "same tasks); default: the first run")
    parser.add_argument("--out", default=None, help="folder for comparison.json, comparison.md and the PNG plots")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--recall-k", type=int, default=10, help="k of the recall@k figure")
    parser.add_argument("--no-plots", action="store_true", help="write no PNG plots under --out")


def run(args: argparse.Namespace) -> int:
    """Load the runs, print the Markdown comparison, write the outputs under ``--out``.

    Returns 2 on a load or option error, and when paired statistics were asked of two or more
    runs but every pair was refused (different task sets).
    """
    from pathlib import Path

    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.compare import compare_runs, render_markdown
    from vmb_gym.evaluation.records import write_json
    from vmb_gym.evaluation.runs import load_runs

    try:
        runs = load_runs(args.runs)
        cmp = compare_runs(runs, against=args.against or (), resamples=args.resamples, seed=args.seed,
                           recall_k=args.recall_k)
    except VmbError as exc:
        print(f"vmb compare: error: {exc}", file=sys.stderr)
        return 2
    text = render_markdown(cmp)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        if not args.no_plots:
            from vmb_gym.evaluation.compare_plots import write_plots

            written = [p.name for p in write_plots(cmp, out)]
        write_json(out / JSON_FILE, {**cmp.to_json(), "plots": written})
        (out / "comparison.md").write_text(text + "\n", encoding="utf-8")
        print(f"wrote {out}/{JSON_FILE}, comparison.md" + "".join(f", {p}" for p in written), file=sys.stderr)
    if cmp.refused and not cmp.paired:
        for r in cmp.refused:
            print(f"vmb compare: error: {r['reason']}", file=sys.stderr)
        return 2
    return 0
