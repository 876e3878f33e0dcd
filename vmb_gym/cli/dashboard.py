"""``vmb dashboard``: an offline HTML dashboard of run directories, optionally served on localhost."""

from __future__ import annotations

import argparse
import sys

HELP = "Build a static HTML dashboard (comparison, charts, filters, per-task drill-down) of run directories."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb dashboard``."""
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories of vmb eval or vmb eval-stream")
    parser.add_argument("--out", required=True, help="site folder to write (open its index.html)")
    parser.add_argument("--title", default="vmb_gym runs", help="page title")
    parser.add_argument("--against", nargs="+", default=None, metavar="RUN",
                        help="reference runs of the paired differences, as for vmb compare (default: the first run)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples of the paired intervals")
    parser.add_argument("--serve", action="store_true", help="serve the site on 127.0.0.1 until Ctrl-C")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve")
    parser.add_argument("--screenshots", default=None, metavar="DIR",
                        help="also write dashboard.png and dashboard_task.png to DIR (headless Chromium)")
    parser.add_argument("--screenshot-task", default=None, metavar="TASK_ID",
                        help="task shown in dashboard_task.png (default: the first on which the runs disagree)")


def run(args: argparse.Namespace) -> int:
    """Build the site; then take screenshots and/or serve it when asked."""
    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.dashboard import build_site, serve_site

    try:
        index = build_site(args.runs, args.out, title=args.title, against=args.against or (), resamples=args.resamples)
        print(f"wrote {index} ({len(args.runs)} run(s))")
        if args.screenshots:
            from vmb_gym.evaluation.dashboard.screenshots import take_screenshots

            shots = take_screenshots(index, args.screenshots, task_id=args.screenshot_task)
            print("wrote " + ", ".join(str(p) for p in shots))
    except VmbError as exc:
        print(f"vmb dashboard: error: {exc}", file=sys.stderr)
        return 2
    if args.serve:
        serve_site(args.out, args.port, announce=lambda line: print(line, flush=True))
    return 0
