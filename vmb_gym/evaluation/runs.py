"""Loading finished run directories (``vmb eval`` and ``vmb eval-stream``) for comparison.

:func:`load_run` reads one run directory into a :class:`Run`: its configuration
(:class:`RunConfig`: policy, memory, data, files), its ``metric.json`` and one
:class:`TaskRecord` per scored request (task id, trial, reasoning type, gold modules, ESM, F1,
tool F1, memory tokens and searches, seconds, failure label, memory audit). Both kinds of run
directory give the same records:

* a ``vmb eval`` run has one ``results.jsonl`` line per (task, trial) episode;
* a ``vmb eval-stream`` run has one line per scenario timeline whose ``queries`` are the
  requests; each query becomes a record (trial 0) and the timeline's figures (store tokens,
  seconds) are spread over its queries.

A record of an infrastructure failure keeps its ``error_kind`` and is left out of
:meth:`Run.scored`, as it is left out of every metric. :func:`load_runs` loads several.

Example::

    run = load_run("runs/ablation/default-bm25")
    run.label, len(run.scored()), run.esm
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vmb_gym.errors import DataError
from vmb_gym.evaluation.records import CONFIG_FILE, METRIC_FILE, RESULTS_FILE, latest_by_key, read_json, read_results

__all__ = ["Run", "RunConfig", "RunKind", "TaskRecord", "load_run", "load_runs"]

RunKind = Literal["eval", "stream"]


@dataclass(frozen=True)
class RunConfig:
    """How a run was made (from its ``config.json``).

    Attributes:
        policy: the policy (``vmb eval``) or the memory writer (``vmb eval-stream``).
        memory: the memory module (``vmb eval``) or the store (``vmb eval-stream``).
        data: the data source (``default``, ``official:DIR``, a path).
        files: the scenario file range, ``None`` for all.
        trials: episodes per task.
        raw: the whole ``config.json``.
    """

    policy: str
    memory: str
    data: str
    files: str | None
    trials: int
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class TaskRecord:
    """One scored request of a run.

    Attributes:
        task_id: the task (``"<scenario>_<index>"``).
        trial: the trial (0 for stream runs).
        reasoning_type: the task's reasoning type.
        modules: the vehicle modules of the gold calls (empty when the run does not record them).
        exact_match: 1.0 when the final state matched the gold exactly, else 0.0 (ESM).
        f1_change: the value-level F1.
        f1_positive: the field-level F1.
        tool_f1: the tool-call F1.
        memory_tokens: memory tokens the policy read (store tokens per query on stream runs).
        memory_searches: memory searches made (``None`` when not recorded).
        seconds: wall seconds of the episode (a timeline's seconds split over its queries).
        failure_label: the failure-attribution label (``None`` for a success or no attribution).
        audit: the per-task memory audit (recall@k, mrr, ...), ``None`` when absent.
        error_kind: ``"infrastructure"`` for an episode left out of the metrics, else ``None``.
        raw: the whole record (for drill-down views).
    """

    task_id: str
    trial: int
    reasoning_type: str
    modules: tuple[str, ...]
    exact_match: float
    f1_change: float
    f1_positive: float
    tool_f1: float
    memory_tokens: float | None = None
    memory_searches: float | None = None
    seconds: float | None = None
    failure_label: str | None = None
    audit: Mapping[str, Any] | None = None
    error_kind: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Run:
    """One loaded run directory.

    Attributes:
        path: the run directory.
        kind: ``"eval"`` or ``"stream"``.
        config: how the run was made.
        metric: ``metric.json`` (empty when the run has not written it yet).
        tasks: every record, infrastructure failures included, in file order.
    """

    path: Path
    kind: RunKind
    config: RunConfig
    metric: Mapping[str, Any]
    tasks: tuple[TaskRecord, ...]

    @property
    def label(self) -> str:
        """``policy/memory`` (``writer/store`` for a stream run)."""
        return f"{self.config.policy}/{self.config.memory}"

    @property
    def esm(self) -> float:
        """The run's ESM: ``metric.json``'s ``exact_match_rate``, else the mean over scored records."""
        if self.metric.get("exact_match_rate") is not None:
            return float(self.metric["exact_match_rate"])
        scored = self.scored()
        return sum(t.exact_match for t in scored) / len(scored) if scored else 0.0

    def scored(self) -> list[TaskRecord]:
        """The records that count in the metrics (no infrastructure failure)."""
        return [t for t in self.tasks if not t.error_kind]

    def task_ids(self) -> list[str]:
        """The distinct task ids of the scored records, in first-seen order."""
        return list(dict.fromkeys(t.task_id for t in self.scored()))


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _config(raw: Mapping[str, Any], kind: RunKind) -> RunConfig:
    policy = raw.get("writer") if kind == "stream" else raw.get("policy")
    memory = raw.get("store") if kind == "stream" else raw.get("memory")
    files = raw.get("files")
    return RunConfig(policy=str(policy), memory=str(memory), data=str(raw.get("data")),
                     files=None if files is None else str(files), trials=int(raw.get("trials") or 1), raw=dict(raw))


def _eval_record(r: Mapping[str, Any]) -> TaskRecord:
    m = r.get("metrics") or {}
    ep = r.get("episode") or {}
    mem = r.get("memory") or {}
    attribution = r.get("attribution") or {}
    return TaskRecord(
        task_id=str(r.get("task_id")), trial=int(r.get("trial", 0)), reasoning_type=str(r.get("reasoning_type")),
        modules=tuple(r.get("gold_modules") or ()), exact_match=float(bool(m.get("exact_match"))),
        f1_change=float(m.get("f1_change") or 0.0), f1_positive=float(m.get("f1_positive") or 0.0),
        tool_f1=float(m.get("tool_f1") or 0.0),
        memory_tokens=_num(ep.get("memory_tokens", mem.get("tokens"))),
        memory_searches=_num(ep.get("memory_searches", mem.get("searches"))),
        seconds=_num(r.get("seconds")), failure_label=attribution.get("label"),
        audit=mem.get("audit") or ep.get("memory_audit"), error_kind=r.get("error_kind"), raw=dict(r))


def _stream_records(r: Mapping[str, Any]) -> list[TaskRecord]:
    queries = list(r.get("queries") or [])
    n = max(len(queries), 1)
    seconds = _num(r.get("seconds"))
    tokens = _num(r.get("store_tokens"))
    return [TaskRecord(
        task_id=str(q.get("task_id")), trial=0, reasoning_type=str(q.get("reasoning_type")), modules=(),
        exact_match=float(bool(q.get("exact_match"))), f1_change=float(q.get("f1_change") or 0.0),
        f1_positive=float(q.get("f1_positive") or 0.0), tool_f1=float(q.get("tool_f1") or 0.0),
        memory_tokens=tokens, memory_searches=None, seconds=None if seconds is None else seconds / n,
        raw={**dict(q), "scenario_id": r.get("scenario_id"), "writer": r.get("writer")})
        for q in queries]


def load_run(path: str | os.PathLike[str]) -> Run:
    """Load one ``vmb eval`` or ``vmb eval-stream`` run directory.

    Raises:
        DataError: ``path`` is not a directory, lacks ``config.json`` or ``results.jsonl``, or its
            records are neither kind.
    """
    out = Path(path)
    if not out.is_dir():
        raise DataError(out, "expected a run directory (written by vmb eval or vmb eval-stream --out), "
                             "found no directory; check the path")
    missing = [name for name in (CONFIG_FILE, RESULTS_FILE) if not (out / name).is_file()]
    if missing:
        raise DataError(out, f"expected a run directory holding {CONFIG_FILE} and {RESULTS_FILE}, "
                             f"found no {' or '.join(missing)}; pass a directory written by vmb eval or "
                             "vmb eval-stream --out")
    raw_config = read_json(out / CONFIG_FILE)
    records = read_results(out / RESULTS_FILE)
    metric = read_json(out / METRIC_FILE) if (out / METRIC_FILE).is_file() else {}
    stream = "writer" in raw_config or any("queries" in r for r in records)
    if stream:
        tasks = [t for r in records for t in _stream_records(r)]
    else:
        if any("task_id" not in r for r in records):
            raise DataError(out / RESULTS_FILE, "expected records with a task_id (vmb eval) or queries "
                                                "(vmb eval-stream), found neither; is this a run directory?")
        tasks = [_eval_record(r) for r in latest_by_key(records).values()]
    kind: RunKind = "stream" if stream else "eval"
    return Run(path=out, kind=kind, config=_config(raw_config, kind), metric=metric, tasks=tuple(tasks))


def load_runs(paths: Iterable[str | os.PathLike[str]]) -> list[Run]:
    """Load several run directories, in the given order (see :func:`load_run`)."""
    return [load_run(p) for p in paths]
