"""``vmb conformance``: replay the official simulator's recorded call sequences."""

from __future__ import annotations

import argparse
import json

HELP = "Replay recorded official-simulator call sequences (conformance/vectors.jsonl) and report mismatches."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb conformance``."""
    parser.add_argument("folder", help="folder holding vectors.jsonl and initial_state.json")
    parser.add_argument("--prefix", default="", help="only vectors whose id starts with this")
    parser.add_argument("--show", type=int, default=20, help="how many mismatches to print")


def run(args: argparse.Namespace) -> int:
    """Run the check and print a summary."""
    from vmb_gym.vehicle.conformance import check_vectors

    report = check_vectors(args.folder, args.prefix)
    for m in report.mismatches[: args.show]:
        print(json.dumps(m, ensure_ascii=False))
    print(f"checked {report.checked} vectors; initial state ok: {report.initial_state_ok}; "
          f"mismatches: {len(report.mismatches)}")
    return 0 if report.ok else 1
