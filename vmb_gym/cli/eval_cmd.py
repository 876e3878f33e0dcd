"""``vmb eval``: run a policy over a benchmark and write a run directory.

The run directory gets ``config.json``, ``results.jsonl`` (appended and fsynced episode by
episode; ``--resume`` runs only what is missing), ``metric.json`` (official keys plus tool F1,
memory audit, MemoryScore, pass^k), ``report.md`` and PNG plots. See
:mod:`vmb_gym.evaluation` for the formats.

MemoryScore needs the same policy's run with ``--memory gold``: give it with ``--gold-run DIR``,
or put both runs under one parent folder (e.g. ``runs/oracle-bm25`` and ``runs/oracle-gold``):
a sibling directory whose ``config.json`` has memory ``gold`` and the same policy, data, files,
limit, schema and max steps is found automatically.
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = "Evaluate a policy on the benchmark: results.jsonl, metric.json, report.md and plots in --out."


def _json_object(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object such as '{{\"top_k\": 5}}', found {text!r} ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, found {type(value).__name__}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb eval``."""
    parser.add_argument("--policy", required=True,
                        help="oracle, noop, random, rules, hf:PATH, openai:MODEL or sb3:CHECKPOINT")
    parser.add_argument("--memory", default="none", help="memory module name (none, gold, bm25, ...)")
    parser.add_argument("--memory-kwargs", type=_json_object, default={}, help="JSON object of memory-module options")
    parser.add_argument("--policy-kwargs", type=_json_object, default={},
                        help="JSON object of policy options (e.g. base_url, temperature); secrets are never saved")
    parser.add_argument("--data", default="default", help="'default' (shipped set) or 'official:DIR'")
    parser.add_argument("--files", default=None, help="scenario numbers, e.g. '1-10' or '1,3,5' (default: all)")
    parser.add_argument("--trials", type=int, default=1, help="episodes per task (K); K > 1 reports pass^k")
    parser.add_argument("--workers", type=int, default=1, help="processes; each builds its own env and policy")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where episodes run: this machine (--workers processes) or Ray tasks (pip install vmb_gym[ray])")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address for --backend ray (default: start a local Ray)")
    parser.add_argument("--out", required=True, help="run directory to write")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out: skip finished (task, trial) pairs, redo infrastructure errors")
    parser.add_argument("--max-steps", type=int, default=20, help="step limit of an episode")
    parser.add_argument("--schema", choices=("official", "rich"), default="official", help="tool-schema flavour")
    parser.add_argument("--limit", type=int, default=None, help="run only the first N tasks")
    parser.add_argument("--seed", type=int, default=0, help="base seed (per-episode seeds derive from it)")
    parser.add_argument("--gold-run", default=None,
                        help="run directory of the same policy with --memory gold, for MemoryScore "
                             "(default: a matching sibling of --out)")
    parser.add_argument("--compare", nargs="+", default=[], metavar="DIR",
                        help="other run directories to show in the plots")
    parser.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the evaluation, write the outputs and print the table."""
    from agents.factory import check_policy, make_policy
    from vmb_gym.data import parse_file_range
    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.records import read_json
    from vmb_gym.evaluation.report import format_table, write_outputs
    from vmb_gym.evaluation.lock import OutLock
    from vmb_gym.evaluation.run import run_evaluation
    from vmb_gym.evaluation.runner import EvalConfig

    try:
        check_policy(args.policy)
        config = EvalConfig(
            policy=args.policy, memory=args.memory, data=args.data,
            files=parse_file_range(args.files) if args.files else None,
            trials=args.trials, workers=args.workers, max_steps=args.max_steps, schema=args.schema,
            limit=args.limit, seed=args.seed, memory_kwargs=args.memory_kwargs, policy_kwargs=args.policy_kwargs,
            gold_run=args.gold_run, compare=list(args.compare),
        )
        with OutLock(args.out, "vmb eval"):
            records = run_evaluation(config, args.out, make_policy, resume=args.resume,
                                     progress=not args.no_progress, backend=args.backend, address=args.address,
                                     lock=False)
            saved = read_json(f"{args.out}/config.json")
            metric = write_outputs(args.out, saved, records, plots=not args.no_plots)
    except VmbError as exc:
        print(f"vmb eval: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(metric))
    print(f"wrote {args.out}/metric.json, results.jsonl and report.md")
    return 0
