"""``vmb score``: score a predictions file against a scenario set with the official metrics."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import Any

from vmb_gym.outdir import OVERWRITE_HELP

HELP = ("Score predicted vehicle calls (JSON Lines) with the official metrics; "
        "write results.jsonl and metric.json.")

_TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ESM", "exact_match_rate"),
    ("F1+", "state_f1_positive"),
    ("F1chg", "state_f1_change"),
    ("F1-", "state_f1_negative"),
    ("ChgAcc", "change_accuracy"),
    ("ToolF1", "tool_f1"),
    ("ToolF1*", "tool_f1_corrected"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb score``."""
    parser.add_argument("--data", default="default",
                        help="scenario set: 'default', 'official:DIR' or a folder with history/ and qa_data/")
    parser.add_argument("--predictions", required=True, metavar="FILE",
                        help='JSON Lines, one line per task: '
                             '{"task_id": "3_7", "calls": [{"name": ..., "arguments": {...}}]}')
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder for results.jsonl and metric.json "
                        "(new, or holding no run: your own files there stay; an earlier vmb score run "
                        "with --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--files", default=None, metavar="RANGE",
                        help="only these scenario numbers, e.g. '1-10' or '1,3,5' (all when omitted)")
    parser.add_argument("--no-cache", action="store_true",
                        help="build the gold side from the QA files without reading or writing the on-disk "
                             "gold cache ($VMB_CACHE_DIR or ~/.cache/vmb_gym, keyed by the QA files' and "
                             "the scorer's bytes)")


def _fmt(value: Any) -> str:
    return f"{float(value):.4f}"


def format_table(metric: dict[str, Any]) -> str:
    """A short plain-text table: overall and per reasoning type."""
    header = f"{'':26}{'n':>5}" + "".join(f"{name:>9}" for name, _ in _TABLE_COLUMNS)
    rows = [header]

    def row(label: str, count: int, block: dict[str, Any]) -> str:
        return f"{label:26}{count:>5}" + "".join(f"{_fmt(block.get(key, 0)):>9}" for _, key in _TABLE_COLUMNS)

    rows.append(row("all", metric["valid_tasks"], metric))
    for rtype, block in metric["by_reasoning_type"].items():
        rows.append(row(rtype, block["count"], block))
    return "\n".join(rows)


def run(args: argparse.Namespace) -> int:
    """Score, write the two files, print the table. Exit 2 on unusable input.

    The garbage collector is paused meanwhile (and restored after): scoring frees what it makes
    by reference counting, and each collection would walk every gold and prediction object.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _score(args)
    finally:
        if enabled:
            gc.enable()


#: What ``vmb score`` writes into ``--out``.
OUTPUTS = ("results.jsonl", "metric.json")


def _check_predictions_kept(predictions: Path, out: Path) -> None:
    """Refuse a predictions file that the scores would replace (``--out``'s ``results.jsonl`` or ``metric.json``).

    Raises:
        ConfigError: ``predictions`` is one of the files ``vmb score`` writes into ``out``.
    """
    from vmb_gym.errors import ConfigError

    if predictions.resolve() in {(out / name).resolve() for name in OUTPUTS}:
        raise ConfigError(f"--predictions {predictions} is one of the files vmb score writes into --out {out} "
                          f"({', '.join(OUTPUTS)}), so scoring would replace your predictions; fix: rename the "
                          "predictions file or choose another --out")


def _score(args: argparse.Namespace) -> int:
    from vmb_gym.data import parse_file_range
    from vmb_gym.errors import VmbError
    from vmb_gym.outdir import DiskFull, check_out, claimed_out, is_disk_full, write_atomic_many
    from vmb_gym.scoring.aggregate import aggregate_counted
    from vmb_gym.scoring.batch import score_counted
    from vmb_gym.scoring.gold_cache import load_gold_tasks
    from vmb_gym.scoring.predictions import read_predictions

    try:
        _check_predictions_kept(Path(args.predictions), Path(args.out))
        check_out(args.out, "vmb score", overwrite=args.overwrite)  # refuse before scoring
        files = parse_file_range(args.files) if args.files else None
        tasks = load_gold_tasks(args.data, files, use_cache=not args.no_cache)  # QA files only: no history
        predictions = read_predictions(args.predictions)
    except VmbError as exc:
        print(f"vmb score: error: {exc}", file=sys.stderr)
        return 2

    known = {t.task_id for t in tasks}
    missing = [t.task_id for t in tasks if t.task_id not in predictions]
    unknown = [t for t in predictions if t not in known]
    if missing:
        shown = ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else "")
        print(f"vmb score: warning: {len(missing)} task(s) have no prediction and are scored as no calls: {shown}",
              file=sys.stderr)
    if unknown:
        shown = ", ".join(unknown[:20]) + (" ..." if len(unknown) > 20 else "")
        print(f"vmb score: warning: {len(unknown)} prediction(s) name tasks not in the data and are ignored: {shown}",
              file=sys.stderr)

    counted, lines = score_counted(tasks, predictions)  # lines: json.dumps(record, ensure_ascii=False) + "\n"
    metric = aggregate_counted(counted)  # the same as aggregate() of one record per task
    metric["data"] = str(args.data)
    metric["predictions"] = str(args.predictions)
    metric["missing_predictions"] = missing
    metric["unknown_predictions"] = unknown

    out = Path(args.out)
    try:
        # one writer per --out; --overwrite removes nothing first: both files are replaced whole and together,
        # so a full disk leaves an earlier run's files as they were
        with claimed_out(out, "vmb score", overwrite=args.overwrite):
            write_atomic_many({out / OUTPUTS[0]: "".join(lines),
                               out / OUTPUTS[1]: json.dumps(metric, ensure_ascii=False, indent=2) + "\n"})
    except VmbError as exc:
        print(f"vmb score: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if is_disk_full(exc):
            raise DiskFull(exc, out, detail=f"nothing was written to {out} (results.jsonl and metric.json are "
                                            "replaced whole and together, or not at all)") from exc
        print(f"vmb score: error: cannot write to {out} ({exc.strerror or exc})", file=sys.stderr)
        return 2

    print(format_table(metric))
    print(f"scored {len(lines)} tasks ({len(missing)} without prediction); wrote {out / 'results.jsonl'} and "
          f"{out / 'metric.json'}")
    return 0
