"""``vmb eval-stream``'s evaluation: memory writers over ``VehicleMemStream-v0`` timelines.

One episode is one scenario's timeline (or one window of it), run by
:func:`vmb_gym.policy.run_stream_episode` and turned into one ``results.jsonl`` record by
:func:`run_scenario`. :func:`run_stream_evaluation` runs the scenarios of an env the way
``vmb eval`` runs tasks: the run directory is locked, each record is appended and flushed as
its scenario finishes (:class:`~vmb_gym.evaluation.records.ResultsWriter`), and ``resume=True``
runs only the scenarios without a record (the saved ``config.json`` must match).
:func:`summarise` gives ``metric.json`` and :func:`format_stream` its one-line summary.

A record holds the return, per-request records (task id, reasoning type, ESM, F1 change, tool
F1), write recall / precision, entry precision, store entries and tokens, tokens written, lines
streamed and stored, and seconds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.interrupt import RunInterrupted
from vmb_gym.evaluation.records import CONFIG_FILE, RESULTS_FILE, ResultsWriter, read_json, read_results, write_json
from vmb_gym.outdir import DiskFull, claim_out, claimed_out, is_disk_full
from vmb_gym.policy import run_stream_episode
from vmb_gym.progress import progress_log

__all__ = ["QUERY_KEYS", "STREAM_KEYS", "STREAM_OUTPUTS", "format_stream", "run_scenario", "run_stream_evaluation",
           "running_means", "summarise"]

#: What a ``vmb eval-stream`` run writes into its folder (removed first by ``--overwrite``).
STREAM_OUTPUTS = ("config.json", "results.jsonl", "metric.json")

#: Per-request fields kept in a record's ``queries``.
QUERY_KEYS = ("task_id", "reasoning_type", "exact_match", "f1_change", "f1_positive", "change_accuracy",
              "tool_f1", "reward")
#: Episode figures of the stream env copied into a record.
STREAM_KEYS = ("write_recall", "write_precision", "entry_precision", "evidence_streamed", "evidence_stored",
               "store_entries", "store_tokens", "entries_written", "tokens_written", "lines_streamed", "lines_stored",
               "mean_esm", "mean_f1_change", "memory_cost_paid", "write_invalid_actions", "steps")


def run_scenario(env: Any, writer: Any, *, seed: int, scenario_id: int) -> dict[str, Any]:
    """One timeline with ``writer``: the ``results.jsonl`` record of the scenario."""
    t0 = time.perf_counter()
    ep = run_stream_episode(env, writer, seed=seed, options={"scenario_id": scenario_id})
    queries = [{k: m[k] for k in QUERY_KEYS if k in m} for m in ep.queries]
    window = getattr(env, "window", None)
    return {"scenario_id": scenario_id, "writer": getattr(writer, "name", "writer"), "reward": ep.episode_return,
            "window": [t.isoformat() for t in window] if window else None,
            "queries": queries, "esm": [float(q.get("exact_match", 0)) for q in queries],
            **{k: ep.episode.get(k) for k in STREAM_KEYS}, "seconds": round(time.perf_counter() - t0, 2)}


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


def running_means(records: list[dict[str, Any]]) -> dict[str, str]:
    """The progress bar's figures over the timelines so far, computed as :func:`summarise` computes them.

    ``mean_ret``: the mean return per timeline (``mean_reward``); ``mean_esm``: the request-level
    exact state match rate (``exact_match_rate``), so the bar's last figures are the final summary's.
    """
    rewards = [float(r["reward"]) for r in records if r.get("reward") is not None]
    esm = [1 if q.get("exact_match") else 0 for r in records for q in r.get("queries", [])]
    return {"mean_ret": f"{sum(rewards) / len(rewards):.2f}" if rewards else "n/a",
            "mean_esm": f"{sum(esm) / len(esm):.3f}" if esm else "n/a"}


def format_stream(metric: dict[str, Any], writer: str) -> str:
    """One line of stream figures under the query table."""
    s = metric["stream"]

    def f(v: Any, spec: str = ".3f") -> str:
        return "n/a" if v is None else format(v, spec)

    return (f"writer {writer}: {s['scenarios']} scenarios, return {f(s['mean_reward'])}, ESM "
            f"{f(metric.get('exact_match_rate'))}, F1 {f(metric.get('state_f1_change'))}, write recall "
            f"{f(s['write_recall'])}, write precision {f(s['mean_write_precision'])}, store tokens "
            f"{f(s['mean_store_tokens'], '.0f')}")


def _finished(out: Path, config: Mapping[str, Any], resume: bool) -> dict[int, dict[str, Any]]:
    """The records already in ``out`` by scenario id (checks the saved config on ``resume``).

    Raises:
        ConfigError: results exist without ``resume``, or ``resume`` with a different config.
    """
    results = out / RESULTS_FILE
    if not resume:
        if results.exists() and results.stat().st_size > 0:
            raise ConfigError(f"{out} already holds {RESULTS_FILE}; expected an empty or new directory; "
                              "fix: pass --resume to continue that run, or choose another --out")
        return {}
    if (out / CONFIG_FILE).exists():
        saved = read_json(out / CONFIG_FILE)
        for key, value in config.items():
            if saved.get(key) != value:
                raise ConfigError(f"--resume: {key} differs from the saved run in {out} (saved {saved.get(key)!r}, "
                                  f"now {value!r}); fix: pass the same options or choose another --out")
    if not results.exists():
        return {}
    return {int(r["scenario_id"]): r for r in read_results(results, repair=True) if "scenario_id" in r}


def run_stream_evaluation(env: Any, writer: Any, out_dir: str | Path, config: Mapping[str, Any], *,
                          seed: int = 0, resume: bool = False, progress: bool = True,
                          lock: bool = True, overwrite: bool = False) -> list[dict[str, Any]]:
    """Run ``writer`` over every scenario of ``env`` without a record in ``out_dir``; append each record.

    Scenario ``i`` of ``env.scenario_ids`` gets the seed ``seed + i`` (the same on a resumed run).

    Args:
        env: a ``VehicleMemStreamEnv`` (unwrapped: its ``scenario_ids`` and ``window`` are read).
        writer: the memory writer (``reset``/``act``; its ``name`` goes into the records).
        out_dir: the run directory (created when missing; locked while running).
        config: what made the run, saved as ``config.json`` (must match on ``resume``).
        seed: the base seed.
        resume: continue the run in ``out_dir`` (finished scenarios are skipped, and counted on stderr).
        progress: show a tqdm progress bar (on stderr).
        lock: hold the run directory's :class:`~vmb_gym.evaluation.lock.OutLock` while running
            (False when the caller already holds it).
        overwrite: replace an earlier ``vmb eval-stream`` run in ``out_dir`` (its outputs are removed
            first). ``out_dir`` is claimed by :func:`vmb_gym.outdir.claim_out`: another command's run
            is refused.

    Returns:
        One record per scenario of ``env``, in scenario order.

    Raises:
        ConfigError: see :func:`_finished` and :func:`vmb_gym.outdir.check_out`, or another process
            is writing ``out_dir``.
        RunInterrupted: Ctrl-C; the finished scenarios are saved (``resume=True`` continues).
        DiskFull: the disk filled up; the finished scenarios are saved whole (``resume=True`` continues).
    """
    from tqdm import tqdm

    out = Path(out_dir)
    claim: dict[str, Any] = {"overwrite": overwrite, "resume": resume, "outputs": STREAM_OUTPUTS}
    command = "vmb eval-stream"
    with claimed_out(out, command, **claim) if lock else nullcontext(claim_out(out, command, **claim)):
        out.mkdir(parents=True, exist_ok=True)
        done = _finished(out, config, resume)
        ids = list(env.scenario_ids)
        todo = [(i, sid) for i, sid in enumerate(ids) if sid not in done]
        if resume:
            progress_log.info("resuming %s: %d of %d scenarios already done, running %d",
                              out, len(ids) - len(todo), len(ids), len(todo))
        write_json(out / CONFIG_FILE, dict(config))
        try:
            with ResultsWriter(out / RESULTS_FILE) as results, tqdm(todo, disable=not progress, unit="scenario",
                                                                    desc=f"eval-stream {config.get('writer', '')}",
                                                                    file=sys.stderr) as bar:
                for i, sid in bar:
                    rec = run_scenario(env, writer, seed=seed + i, scenario_id=sid)
                    results.write(rec)  # whole or not at all
                    done[sid] = rec
                    bar.set_postfix(running_means(list(done.values())))
        except KeyboardInterrupt:
            raise RunInterrupted(out, sum(sid in done for sid in ids), len(ids), "scenarios") from None
        except OSError as exc:
            if not is_disk_full(exc) or isinstance(exc, DiskFull):
                raise
            raise DiskFull(exc, out, saved=sum(sid in done for sid in ids), total=len(ids), unit="scenarios",
                           file=out / RESULTS_FILE) from exc
    return [done[sid] for sid in ids if sid in done]
