"""Recompute every metric of a run from its saved trajectories.

For each episode of ``results.jsonl`` the calls the env scored (see
:func:`~vmb_gym.evaluation.records.scored_calls`) are executed again on a fresh car by the
scorer (:func:`~vmb_gym.scoring.scorer.score_task`), which gives the per-task metrics; the
failure attribution is recomputed from them; then ``metric.json``, ``report.md`` and the plots
are rewritten. The task data comes from the run's ``config.json`` (``data`` and ``files``) unless
another spec is given.

Memory figures (tokens, audit) are measurements of the episode, not scores: they are kept as
saved. Infrastructure-error episodes stay errors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError, DataError
from vmb_gym.evaluation.attribution import attribute
from vmb_gym.evaluation.records import (
    CONFIG_FILE,
    RESULTS_FILE,
    dumps,
    latest_by_key,
    read_json,
    read_results,
    scored_calls,
    write_json,
)
from vmb_gym.evaluation.report import write_outputs
from vmb_gym.evaluation.runner import task_order

__all__ = ["RegradeResult", "regrade"]

_REWARD_FROM = {"esm": "exact_match", "f1_change": "f1_change", "f1_positive": "f1_positive"}


@dataclass
class RegradeResult:
    """What a regrade did."""

    metric: dict[str, Any]
    records: list[dict[str, Any]]
    episodes: int
    changed: list[str]
    out_dir: Path


def _metrics_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return dumps(dict(sorted(a.items()))) == dumps(dict(sorted(b.items())))


def regrade(results: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None, *,
            data: str | None = None, plots: bool = True) -> RegradeResult:
    """Regrade a run.

    Args:
        results: the run's ``results.jsonl`` (its ``config.json`` must be beside it).
        out_dir: where to write ``metric.json``/``report.md``/plots (default: the results'
            folder). A different folder also gets ``config.json`` and the regraded ``results.jsonl``.
        data: data spec overriding the config's (e.g. the official folder moved).
        plots: write the PNG plots.

    Returns:
        The new metric dict, the regraded records and the ids (``task#trial``) whose per-task
        metrics changed.

    Raises:
        DataError: ``config.json`` or ``results.jsonl`` is missing, or a task id is not in the data.
    """
    from vmb_gym.envs.task_set import TaskSet
    from vmb_gym.scoring.scorer import score_task

    src = Path(results)
    run_dir = src.parent
    config = read_json(run_dir / CONFIG_FILE)
    out = Path(out_dir) if out_dir is not None else run_dir
    out.mkdir(parents=True, exist_ok=True)
    latest = latest_by_key(read_results(src))
    records = [latest[k] for k in sorted(latest, key=lambda x: (task_order(x[0]), x[1]))]
    tasks = TaskSet.load(data or config["data"], files=config.get("files"))
    reward_key = _REWARD_FROM.get(str(config.get("reward", "f1_change")), "f1_change")
    changed: list[str] = []
    regraded: list[dict[str, Any]] = []
    for record in records:
        rec = dict(record)
        if not rec.get("error_kind"):
            try:
                query = tasks.queries[tasks.index_of(rec["task_id"])]
            except ConfigError as exc:  # an id the data does not hold
                raise DataError(src, f"task {rec['task_id']!r} is not in data {data or config['data']!r} ({exc}); "
                                "fix: pass --data with the run's data") from None
            metrics = score_task(query, scored_calls(rec)).to_record()
            metrics["reward"] = float(metrics[reward_key])
            if not _metrics_equal(metrics, rec.get("metrics") or {}):
                changed.append(f"{rec['task_id']}#{rec.get('trial', 0)}")
            rec["metrics"] = metrics
            rec["differences"] = list(metrics["differences"])
            rec["reward"] = metrics["reward"]
            rec["attribution"] = attribute(rec)
        regraded.append(rec)
    if out.resolve() != run_dir.resolve():
        write_json(out / CONFIG_FILE, config)
    if out.resolve() != run_dir.resolve() or changed:
        tmp = out / (RESULTS_FILE + ".tmp")
        with open(tmp, "wb") as f:
            for rec in regraded:
                f.write(dumps(rec) + b"\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out / RESULTS_FILE)
    metric = write_outputs(out, {**config, "data": config["data"]}, regraded, plots=plots)
    return RegradeResult(metric=metric, records=regraded, episodes=len(regraded), changed=changed, out_dir=out)
