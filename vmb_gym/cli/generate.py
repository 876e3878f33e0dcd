"""``vmb generate``: write generated scenarios in the official layout (plus meta/ sidecars)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

HELP = "Generate scenarios (history/, qa_data/, meta/); --split regenerates a split of the default benchmark."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb generate``."""
    parser.add_argument("--out", help="output folder (default: vmb_data/<split> or vmb_data/seed_<S>)")
    parser.add_argument("--split", choices=("test", "validation", "train"),
                        help="regenerate a split with the seeds and options of the manifest")
    parser.add_argument("--manifest", help="manifest.json to read the splits from (default: the shipped benchmark's)")
    parser.add_argument("--benchmark", action="store_true",
                        help="write the default test split and manifest.json into --out (default: benchmark/)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole set (one sub-seed per phase)")
    parser.add_argument("--scenarios", type=int, default=50, help="households (scenario files) to write")
    parser.add_argument("--queries-per-scenario", type=int, default=10, help="queries per household")
    parser.add_argument("--people", type=int, default=3, help="regular users per car (2-5)")
    parser.add_argument("--history-length", type=int, default=2000,
                        help="target dialogue lines per history (the official mean is ~2,700)")
    parser.add_argument("--distractor-ratio", type=float, default=1.0,
                        help="distractor preference chains (and near misses) per queried chain")
    parser.add_argument("--max-revision-depth", type=int, default=5, help="longest revision chain (1-5)")
    parser.add_argument("--days", type=int, default=42, help="days the history spans")


def run(args: argparse.Namespace) -> int:
    """Generate and print a one-line summary."""
    from vmb_gym.errors import VmbError
    from vmb_gym.generator import GeneratorOptions, generate, split_options, write_benchmark

    t0 = time.perf_counter()
    try:
        if args.benchmark:
            out = Path(args.out) if args.out else Path(__file__).resolve().parents[2] / "benchmark"
            manifest = write_benchmark(out)
            print(f"wrote {len(manifest['files'])} files and manifest.json to {out} "
                  f"in {time.perf_counter() - t0:.1f}s")
            return 0
        if args.split:
            manifest = None
            mpath = Path(args.manifest) if args.manifest else Path(__file__).resolve().parents[2] / "benchmark" / "manifest.json"
            if mpath.is_file():
                manifest = json.loads(mpath.read_text(encoding="utf-8"))
            opts = split_options(args.split, manifest)
            out = Path(args.out or f"vmb_data/{args.split}")
        else:
            opts = GeneratorOptions(seed=args.seed, scenarios=args.scenarios,
                                    queries_per_scenario=args.queries_per_scenario, people=args.people,
                                    history_length=args.history_length, distractor_ratio=args.distractor_ratio,
                                    max_revision_depth=args.max_revision_depth, days=args.days)
            out = Path(args.out or f"vmb_data/seed_{args.seed}")
        files = generate(opts, out)
    except VmbError as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {opts.scenarios} scenarios ({len(files)} files) to {out} in {time.perf_counter() - t0:.1f}s "
          f"(seed {opts.seed})")
    return 0
