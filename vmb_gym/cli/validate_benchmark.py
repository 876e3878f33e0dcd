"""``vmb validate-benchmark``: oracle, memory-free baseline, coverage and balance of a generated set."""

from __future__ import annotations

import argparse

HELP = "Validate a generated benchmark (oracle ESM, memory-free baseline, coverage, balance, retrieval)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb validate-benchmark``."""
    parser.add_argument("--data", default="default", help="benchmark folder (default: the shipped benchmark/)")
    parser.add_argument("--out", required=True, help="folder for report.md and report.json")
    parser.add_argument("--memory", default="bm25", help="memory module for the retrieval audit ('none' skips it)")
    parser.add_argument("--train-scenarios", type=int, default=100,
                        help="train-split scenarios the baseline learns from")


def run(args: argparse.Namespace) -> int:
    """Write the report and print its summary table; exit 1 when a check fails."""
    import json
    from pathlib import Path

    from vmb_gym.errors import VmbError
    from vmb_gym.generator import GeneratorOptions, split_options
    from vmb_gym.generator.validate import render_markdown, validate

    try:
        data = args.data
        root = Path(data) if data != "default" else None
        if root is None:
            from vmb_gym.data import embedded_benchmark_dir

            root = embedded_benchmark_dir()
        mpath = root / "manifest.json"
        manifest = json.loads(mpath.read_text(encoding="utf-8")) if mpath.is_file() else None
        train = split_options("train", manifest)
        train = GeneratorOptions.from_json({**train.to_json(), "scenarios": args.train_scenarios})
        report = validate(data, args.out, train=train, memory=None if args.memory == "none" else args.memory)
    except VmbError as exc:
        print(f"error: {exc}")
        return 2
    print(render_markdown(report))
    return 0 if report["ok"] else 1
