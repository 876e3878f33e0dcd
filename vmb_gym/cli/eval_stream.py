"""``vmb eval-stream``: run a memory writer over ``VehicleMemStream-v0`` timelines.

One episode per scenario (the whole timeline, or with ``--window-days`` one window chosen by the
seed). Every writer is read by the same fixed rule reader (:class:`vmb_agents.stream.reader.StreamReader`),
so the numbers compare *what was written*.

Outputs in ``--out``:

* ``results.jsonl``: one line per scenario: the return, per-request records (task id, reasoning
  type, ESM, F1 change, tool F1), write recall / precision, entry precision, store entries and
  tokens, tokens written, lines streamed and stored, seconds;
* ``metric.json``: the official query-level keys (:func:`vmb_gym.scoring.aggregate.aggregate`
  over every request) plus ``stream``: means over scenarios (return, store tokens, write
  precision) and the pooled write recall (stored / streamed gold evidence lines);
* ``config.json``; and a table on stdout.

Records are appended and flushed scenario by scenario, so a killed run keeps what it finished and
``--resume`` runs only the rest; ``--out`` is locked while a run writes it. The evaluation itself
lives in :mod:`vmb_gym.evaluation.stream`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vmb_gym.outdir import OVERWRITE_HELP

HELP = "Evaluate a memory writer on VehicleMemStream-v0: results.jsonl and metric.json in --out."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb eval-stream``."""
    parser.add_argument("--writer", required=True, help="everything, nothing, rules, layered, sb3:stream (the shipped "
                        "learned writer) or sb3:CHECKPOINT; @TOKENS caps the store (e.g. rules@2000)")
    parser.add_argument("--data", default="default",
                        help="'default' (shipped set), 'official' ($VMB_OFFICIAL_DIR or "
                             "../shared/vehiclemembench), 'official:DIR' or a folder")
    parser.add_argument("--files", default=None, help="scenario numbers, e.g. '1-10' or '1,3,5' (default: all)")
    parser.add_argument(
        "--window-days",
        type=float,
        default=None,
        help="episode = the N days up to one request (chosen by the seed) instead of the whole timeline",
    )
    parser.add_argument("--memory-cost", type=float, default=0.0, help="reward cost per stored token")
    parser.add_argument("--store", default="bm25", help="searchable memory module the writer writes into")
    parser.add_argument("--top-k", type=int, default=10, help="hits per search of the reader")
    parser.add_argument("--seed", type=int, default=0, help="base seed (scenario i gets seed + i)")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="torch CPU threads of an sb3: writer (default: half the physical cores, 1 to 4; see "
                             "vmb eval --help)")
    parser.add_argument("--out", required=True, help="run directory to write")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out: skip scenarios that already have a record")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="let --writer sb3:PATH load a Stable-Baselines3 zip: a pickle, which runs any code its "
                             "author put in it (only for a file from a trusted source; see docs/trust.md)")


def run(args: argparse.Namespace) -> int:
    """Run the writer over the scenarios, write the outputs and print the table."""
    from vmb_agents.stream.factory import make_writer
    from vmb_agents.threads import apply_threads, check_threads, default_threads
    from vmb_gym.data import parse_file_range
    from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.records import METRIC_FILE, write_json
    from vmb_gym.evaluation.report import format_table
    from vmb_gym.evaluation.stream import STREAM_OUTPUTS, format_stream, run_stream_evaluation, summarise
    from vmb_gym.outdir import check_out, claimed_out

    config = {k: getattr(args, k) for k in ("writer", "data", "files", "window_days", "memory_cost", "store",
                                             "top_k", "seed")}
    claim = {"overwrite": args.overwrite, "resume": args.resume}
    try:
        check_out(args.out, "vmb eval-stream", **claim, outputs=STREAM_OUTPUTS)  # before building anything
        files = parse_file_range(args.files) if args.files else None
        threads = check_threads(args.threads, "--threads") if args.threads is not None else default_threads()
        writer = make_writer(args.writer, top_k=args.top_k, trust_checkpoint=args.trust_checkpoint)
        if "torch" in sys.modules:  # a writer on torch: its threads set before its first forward
            apply_threads(threads)
        env = VehicleMemStreamEnv(args.data, files=files, store=args.store, window_days=args.window_days,
                                  memory_cost=args.memory_cost, max_chunk_steps=64)
        with claimed_out(args.out, "vmb eval-stream", **claim, outputs=STREAM_OUTPUTS):
            records = run_stream_evaluation(env, writer, args.out, config, seed=args.seed,
                                            progress=not args.no_progress, lock=False, **claim)
            metric = summarise(records)
            write_json(Path(args.out) / METRIC_FILE, metric)
    except VmbError as exc:
        print(f"vmb eval-stream: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(metric))
    print(format_stream(metric, args.writer))
    print(f"wrote {args.out}/metric.json and results.jsonl")
    return 0
