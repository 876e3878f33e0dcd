"""``vmb eval-stream``: run a memory writer over ``VehicleMemStream-v0`` timelines.

One episode per scenario (the whole timeline, or with ``--window-days`` one window chosen by the
seed). Every writer is read by the same fixed rule reader (:class:`agents.writers.StreamReader`),
so the numbers compare *what was written*.

Outputs in ``--out``:

* ``results.jsonl``: one line per scenario: the return, per-request records (task id, reasoning
  type, ESM, F1 change, tool F1), write recall / precision, entry precision, store entries and
  tokens, tokens written, lines streamed and stored, seconds;
* ``metric.json``: the official query-level keys (:func:`vmb_gym.scoring.aggregate.aggregate`
  over every request) plus ``stream``: means over scenarios (return, store tokens, write
  precision) and the pooled write recall (stored / streamed gold evidence lines);
* ``config.json``; and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HELP = "Evaluate a memory writer on VehicleMemStream-v0: results.jsonl and metric.json in --out."

_QUERY_KEYS = ("task_id", "reasoning_type", "exact_match", "f1_change", "f1_positive", "change_accuracy",
               "tool_f1", "reward")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb eval-stream``."""
    parser.add_argument("--writer", required=True, help="everything, nothing, rules, layered or sb3:CHECKPOINT")
    parser.add_argument("--data", default="default", help="'default' (shipped set) or 'official:DIR'")
    parser.add_argument("--files", default=None, help="scenario numbers, e.g. '1-10' or '1,3,5' (default: all)")
    parser.add_argument("--window-days", type=float, default=None,
                        help="episode = the N days up to one request (chosen by the seed) instead of the whole timeline")
    parser.add_argument("--memory-cost", type=float, default=0.0, help="reward cost per stored token")
    parser.add_argument("--store", default="bm25", help="searchable memory module the writer writes into")
    parser.add_argument("--top-k", type=int, default=10, help="hits per search of the reader")
    parser.add_argument("--seed", type=int, default=0, help="base seed (scenario i gets seed + i)")
    parser.add_argument("--out", required=True, help="run directory to write")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_episode(env: Any, writer: Any, *, seed: int, scenario_id: int) -> dict[str, Any]:
    """One timeline with ``writer``: the results.jsonl record of the scenario."""
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options={"scenario_id": scenario_id})
    writer.reset(obs, info)
    view: dict[str, Any] = dict(info)
    total = 0.0
    queries: list[dict[str, Any]] = []
    while True:
        obs, reward, terminated, truncated, info = env.step(writer.act(obs, view))
        total += float(reward)
        if "query_metrics" in info:
            m = info["query_metrics"]
            queries.append({k: m[k] for k in _QUERY_KEYS if k in m})
        view = info
        if terminated or truncated:
            break
    st = info.get("episode_stats", {})
    keys = ("write_recall", "write_precision", "entry_precision", "evidence_streamed", "evidence_stored",
            "store_entries", "store_tokens", "entries_written", "tokens_written", "lines_streamed", "lines_stored",
            "mean_esm", "mean_f1_change", "memory_cost_paid", "write_invalid_actions", "steps")
    return {"scenario_id": scenario_id, "writer": getattr(writer, "name", "writer"), "reward": total,
            "window": [t.isoformat() for t in env.window] if getattr(env, "window", None) else None,
            "queries": queries, "esm": [float(q.get("exact_match", 0)) for q in queries],
            **{k: st.get(k) for k in keys}, "seconds": round(time.perf_counter() - t0, 2)}


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``metric.json``: official query-level means plus the stream figures."""
    from vmb_gym.scoring.aggregate import aggregate

    def mean(key: str) -> float | None:
        vals = [float(r[key]) for r in records if r.get(key) is not None]
        return sum(vals) / len(vals) if vals else None

    metric = aggregate([q for r in records for q in r["queries"]])
    streamed = sum(int(r.get("evidence_streamed") or 0) for r in records)
    stored = sum(int(r.get("evidence_stored") or 0) for r in records)
    metric["stream"] = {
        "scenarios": len(records),
        "mean_reward": mean("reward"),
        "write_recall": stored / streamed if streamed else None,
        "mean_write_recall": mean("write_recall"),
        "mean_write_precision": mean("write_precision"),
        "mean_entry_precision": mean("entry_precision"),
        "mean_store_entries": mean("store_entries"),
        "mean_store_tokens": mean("store_tokens"),
        "mean_tokens_written": mean("tokens_written"),
        "mean_lines_streamed": mean("lines_streamed"),
        "mean_seconds": mean("seconds"),
    }
    return metric


def format_stream(metric: dict[str, Any], writer: str) -> str:
    """One line of stream figures under the query table."""
    s = metric["stream"]

    def f(v: Any, spec: str = ".3f") -> str:
        return "n/a" if v is None else format(v, spec)

    return (f"writer {writer}: {s['scenarios']} scenarios, return {f(s['mean_reward'])}, ESM "
            f"{f(metric.get('exact_match_rate'))}, F1 {f(metric.get('state_f1_change'))}, write recall "
            f"{f(s['write_recall'])}, write precision {f(s['mean_write_precision'])}, store tokens "
            f"{f(s['mean_store_tokens'], '.0f')}")


def run(args: argparse.Namespace) -> int:
    """Run the writer over the scenarios, write the outputs and print the table."""
    from tqdm import tqdm

    from agents.writers import make_writer
    from vmb_gym.data import parse_file_range
    from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
    from vmb_gym.errors import VmbError
    from vmb_gym.evaluation.report import format_table

    try:
        files = parse_file_range(args.files) if args.files else None
        writer = make_writer(args.writer, top_k=args.top_k)
        env = VehicleMemStreamEnv(args.data, files=files, store=args.store, window_days=args.window_days,
                                  memory_cost=args.memory_cost, max_chunk_steps=64)
    except VmbError as exc:
        print(f"vmb eval-stream: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config = {k: getattr(args, k) for k in ("writer", "data", "files", "window_days", "memory_cost", "store",
                                             "top_k", "seed")}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    records: list[dict[str, Any]] = []
    with (out / "results.jsonl").open("w") as fh, tqdm(env.scenario_ids, disable=args.no_progress, unit="scenario",
                                                       desc=f"eval-stream {args.writer}", file=sys.stderr) as bar:
        for i, sid in enumerate(bar):
            rec = run_episode(env, writer, seed=args.seed + i, scenario_id=sid)
            records.append(rec)
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            bar.set_postfix(ret=f"{rec['reward']:.2f}", esm=f"{rec['mean_esm'] or 0:.2f}")
    metric = summarise(records)
    (out / "metric.json").write_text(json.dumps(metric, indent=2))
    print(format_table(metric))
    print(format_stream(metric, args.writer))
    print(f"wrote {out}/metric.json and results.jsonl")
    return 0
