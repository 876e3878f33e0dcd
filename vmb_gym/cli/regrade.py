"""``vmb regrade``: recompute a run's metrics from its saved trajectories."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext

from vmb_gym.outdir import OVERWRITE_HELP

HELP = "Re-execute the saved calls of a results.jsonl with the scorer and rewrite metric.json and report.md."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb regrade``."""
    parser.add_argument("results", help="results.jsonl of a `vmb eval` run (config.json beside it)")
    parser.add_argument("--out", default=None,
                        help="directory to write (default: the results' directory, whose metric.json and report.md "
                             "are rewritten, and its results.jsonl when a metric changed); another directory must be "
                             "new or holding no run (your own files there stay), or an earlier vmb regrade --out with "
                             "--overwrite")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--data", default=None, help="data spec overriding the one in config.json")
    parser.add_argument("--check", action="store_true", help="exit 1 when any per-task metric changed")
    parser.add_argument("--no-plots", action="store_true", help="do not write PNG plots")


def run(args: argparse.Namespace) -> int:
    """Regrade, print the table and how many episodes changed."""
    from pathlib import Path

    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.regrade import regrade
    from vmb_gym.evaluation.report import format_table
    from vmb_gym.evaluation.run import EVAL_OUTPUTS
    from vmb_gym.outdir import claimed_out

    try:
        # In place, regrade rewrites the run it regrades (what it is for); another --out is claimed as its own run.
        elsewhere = args.out is not None and Path(args.out).resolve() != Path(args.results).resolve().parent
        with claimed_out(args.out, "vmb regrade", overwrite=args.overwrite, outputs=EVAL_OUTPUTS) if elsewhere \
                else nullcontext():
            result = regrade(args.results, args.out, data=args.data, plots=not args.no_plots)
    except VmbError as exc:
        print(f"vmb regrade: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result.metric))
    print(f"regraded {result.episodes} episodes; {len(result.changed)} changed"
          + (f" (first: {', '.join(result.changed[:10])})" if result.changed else "")
          + f"; wrote {result.out_dir}/metric.json and report.md")
    return 1 if args.check and result.changed else 0
