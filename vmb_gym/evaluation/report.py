"""``metric.json``, ``report.md`` and the console table of an evaluation run.

``metric.json`` holds the official keys (from :func:`vmb_gym.scoring.aggregate.aggregate`, over
every episode that did not fail for infrastructure reasons; each is the mean of a per-task
metric, both names in :data:`vmb_gym.metrics.METRICS`) plus:

* ``model``/``memory_type`` (official names for the policy spec and the memory module);
* ``episodes``, ``tasks``, ``trials``, ``infrastructure_errors`` (+ the failed pairs);
* ``avg_memory_tokens``, ``avg_memory_searches``, ``avg_steps``, ``avg_invalid_actions``,
  ``avg_tool_executions``;
* ``memory_audit``: means of the per-episode retrieval audit (``recall@k``, ``all_recall@k``,
  ``precision@k``, ``mrr``) over episodes that searched, and ``evidence_retrieved_rate``;
* ``memory_score``: this run's ESM divided by the ESM of the same policy's run with memory
  ``gold`` (see :func:`find_gold_run`), with ``memory_score_gold_run`` and
  ``gold_exact_match_rate``; ``None`` when no gold run is found or its ESM is 0;
* ``pass^k`` (when trials > 1): for k = 1..K, the mean over tasks of C(c, k) / C(n, k) where a
  task has n finished trials, c of them exact matches (the probability that k trials drawn
  without replacement all succeed; k = K means every trial succeeded);
* ``by_module``: ESM, value-level F1 and tool F1 per vehicle module of the gold calls (a task
  counts once for each module its gold calls use; tasks without gold calls: ``(no change)``);
* ``failure_attribution``: primary-label counts (see :mod:`vmb_gym.evaluation.attribution`).

It depends only on the records, the config and the gold run's ``metric.json``, so
``vmb regrade`` reproduces it exactly.
"""

from __future__ import annotations

import logging
import math
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.attribution import FAILURE_LABELS
from vmb_gym.evaluation.records import CONFIG_FILE, METRIC_FILE, REPORT_FILE, read_json, write_json
from vmb_gym.metrics import AUDIT_KEYS
from vmb_gym.outdir import write_atomic
from vmb_gym.scoring.aggregate import aggregate
from vmb_gym.types import REASONING_TYPES

__all__ = ["PLOT_FILES", "find_gold_run", "format_table", "render_report", "summarize", "write_outputs"]

log = logging.getLogger(__name__)

#: The PNG files a run directory gets.
PLOT_FILES: dict[str, str] = {
    "esm_by_reasoning_type": "esm_by_reasoning_type.png",
    "memory_tokens_vs_esm": "memory_tokens_vs_esm.png",
}
_EPISODE_MEANS = ("memory_tokens", "memory_searches", "steps", "invalid_actions", "tool_executions")
_SAME_RUN_KEYS = ("policy", "data", "files", "limit", "schema", "max_steps")


def _mean(values: Sequence[float]) -> float | None:
    return float(statistics.fmean(values)) if values else None


def find_gold_run(run_dir: str | os.PathLike[str], config: Mapping[str, Any]) -> Path | None:
    """The gold-memory run MemoryScore divides by.

    Order: ``config["gold_run"]`` (``--gold-run DIR``) when set; the run itself when its memory is
    ``gold``; otherwise a *sibling* directory of ``run_dir`` (same parent) whose ``config.json``
    has memory ``gold`` and the same policy, data, files, limit, schema and max_steps, and which
    has a ``metric.json`` (the first by name when several match).

    Raises:
        ConfigError: ``gold_run`` is set but has no ``metric.json``.
    """
    run = Path(run_dir)
    explicit = config.get("gold_run")
    if explicit:
        path = Path(explicit)
        if not (path / METRIC_FILE).exists():
            raise ConfigError(f"--gold-run {path}: expected a run directory with {METRIC_FILE}, found none; "
                              "fix: run `vmb eval --memory gold` there first or drop --gold-run")
        return path
    if config.get("memory") == "gold":
        return run
    if not run.parent.is_dir():
        return None
    for sibling in sorted(run.parent.iterdir()):
        if (
            sibling.resolve() == run.resolve()
            or not (sibling / METRIC_FILE).exists()
            or not (sibling / CONFIG_FILE).exists()
        ):
            continue
        try:
            other = read_json(sibling / CONFIG_FILE)
        except Exception:  # noqa: BLE001 - an unreadable sibling is just not a match
            continue
        if other.get("memory") == "gold" and all(other.get(k) == config.get(k) for k in _SAME_RUN_KEYS):
            return sibling
    return None


def _pass_hat(records: Sequence[Mapping[str, Any]], trials: int) -> dict[str, float | None]:
    by_task: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        by_task[str(r["task_id"])].append(bool(r["metrics"].get("exact_match")))
    out: dict[str, float | None] = {}
    for k in range(1, trials + 1):
        vals = [math.comb(sum(v), k) / math.comb(len(v), k) for v in by_task.values() if len(v) >= k]
        out[f"pass^{k}"] = _mean(vals)
    return out


def _module_groups(records: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        row = {**r["metrics"], "reasoning_type": r.get("reasoning_type")}
        for module in r.get("gold_modules") or ["(no change)"]:
            groups[module].append(row)
    return dict(sorted(groups.items()))


def summarize(records: Sequence[Mapping[str, Any]], config: Mapping[str, Any],
              run_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The ``metric.json`` content of a run (see the module docstring)."""
    ok = [r for r in records if not r.get("error_kind")]
    failed = [r for r in records if r.get("error_kind")]
    rows = [{**r["metrics"], "reasoning_type": r.get("reasoning_type")} for r in ok]
    metric: dict[str, Any] = {"model": config.get("policy"), "memory_type": config.get("memory")}
    metric.update(aggregate(rows))
    trials = int(config.get("trials") or 1)
    metric["episodes"] = len(records)
    metric["tasks"] = len({r["task_id"] for r in records})
    metric["trials"] = trials
    metric["infrastructure_errors"] = len(failed)
    metric["infrastructure_error_episodes"] = [f"{r['task_id']}#{r.get('trial', 0)}" for r in failed]
    for key in _EPISODE_MEANS:
        metric[f"avg_{key}"] = _mean([r["episode"].get(key, 0) for r in ok]) if ok else 0.0
    # The official key, with its official meaning: every tool execution, discovery and memory included.
    metric["avg_pred_calls"] = metric.get("avg_tool_executions", 0.0)
    audits = [r["memory"]["audit"] for r in ok if (r.get("memory") or {}).get("audit")]
    audit_means: dict[str, Any] = {"episodes": len(audits)}
    for key in AUDIT_KEYS:
        audit_means[key] = _mean([a[key] for a in audits if a.get(key) is not None])
    from vmb_gym.evaluation.attribution import evidence_status

    statuses = Counter(evidence_status(r) for r in ok)
    searchable = statuses["retrieved"] + statuses["not_retrieved"] + statuses["not_searched"]
    audit_means["evidence_retrieved_rate"] = statuses["retrieved"] / searchable if searchable else None
    audit_means["evidence_status"] = dict(sorted(statuses.items()))
    metric["memory_audit"] = audit_means

    esm = float(metric["exact_match_rate"]) if ok else 0.0
    gold_dir = find_gold_run(run_dir, config) if run_dir is not None else None
    gold_esm: float | None = None
    if gold_dir is not None:
        gold_esm = esm if Path(gold_dir).resolve() == Path(run_dir).resolve() else float(  # type: ignore[arg-type]
            read_json(Path(gold_dir) / METRIC_FILE).get("exact_match_rate") or 0.0)
    metric["memory_score"] = esm / gold_esm if gold_esm else None
    metric["memory_score_gold_run"] = str(gold_dir) if gold_dir is not None else None
    metric["gold_exact_match_rate"] = gold_esm
    if trials > 1:
        metric.update(_pass_hat(ok, trials))
    metric["by_module"] = {}
    for module, group in _module_groups(ok).items():
        agg = aggregate(group)
        metric["by_module"][module] = {"count": len(group), "exact_match_rate": agg["exact_match_rate"],
                                       "state_f1_change": agg["state_f1_change"], "tool_f1": agg["tool_f1"]}
    labels = Counter((r.get("attribution") or {}).get("label") for r in ok if r.get("attribution"))
    metric["failure_attribution"] = {lb: labels[lb] for lb in FAILURE_LABELS if labels[lb]}
    return metric


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def format_table(metric: Mapping[str, Any]) -> str:
    """The console table: ESM and F1 (value-level and tool) by reasoning type, then overall."""
    rows = [(t, b["count"], b["exact_match_rate"], b["state_f1_change"], b["tool_f1"])
            for t, b in metric.get("by_reasoning_type", {}).items()]
    rows.append(("overall", metric.get("completed_tasks", 0), metric.get("exact_match_rate"),
                 metric.get("state_f1_change"), metric.get("tool_f1")))
    width = max([len(r[0]) for r in rows] + [14])
    out = [f"{'reasoning type':<{width}}  {'n':>5}  {'ESM':>6}  {'F1':>6}  {'toolF1':>6}"]
    for name, n, esm, f1, tf1 in rows:
        out.append(f"{name:<{width}}  {n:>5}  {float(esm or 0):>6.3f}  {float(f1 or 0):>6.3f}  {float(tf1 or 0):>6.3f}")
    extra = []
    if metric.get("memory_score") is not None:
        extra.append(f"MemoryScore {metric['memory_score']:.3f}")
    for key in sorted(k for k in metric if k.startswith("pass^")):
        if metric[key] is not None:
            extra.append(f"{key} {metric[key]:.3f}")
    if metric.get("infrastructure_errors"):
        extra.append(f"infrastructure errors {metric['infrastructure_errors']}")
    if extra:
        out.append("; ".join(extra))
    return "\n".join(out)


def render_report(metric: Mapping[str, Any], records: Sequence[Mapping[str, Any]], config: Mapping[str, Any],
                  plots: Sequence[str] = ()) -> str:
    """The Markdown report of a run."""
    ok = [r for r in records if not r.get("error_kind")]
    parts = [
        f"# Evaluation: {config.get('policy')} with memory {config.get('memory')}",
        "",
        f"Data `{config.get('data')}`, files {config.get('files') or 'all'}, {metric['tasks']} tasks x "
        f"{metric['trials']} trial(s) = {metric['episodes']} episodes; {metric['infrastructure_errors']} "
        "infrastructure error(s) (left out of every metric).",
        "",
        "## Overall",
        "",
        _table(["metric", "value"], [
            ("ESM (exact_match_rate)", metric.get("exact_match_rate")),
            ("value-level F1 (state_f1_change)", metric.get("state_f1_change")),
            ("field-level F1 (state_f1_positive)", metric.get("state_f1_positive")),
            ("change accuracy", metric.get("change_accuracy")),
            ("tool-call F1", metric.get("tool_f1")),
            ("tool-call F1 (corrected)", metric.get("tool_f1_corrected")),
            ("MemoryScore", metric.get("memory_score")),
            *[(k, metric[k]) for k in sorted(m for m in metric if m.startswith("pass^"))],
            ("avg memory tokens", metric.get("avg_memory_tokens")),
            ("avg memory searches", metric.get("avg_memory_searches")),
            ("avg steps", metric.get("avg_steps")),
        ]),
        "",
        "## By reasoning type",
        "",
        _table(["reasoning type", "n", "ESM", "F1 (value)", "F1 (field)", "tool F1"],
               [(t, b["count"], b["exact_match_rate"], b["state_f1_change"], b["state_f1_positive"], b["tool_f1"])
                for t, b in metric.get("by_reasoning_type", {}).items()]),
        "",
        "## By module (module of the gold calls)",
        "",
        _table(["module", "n", "ESM", "F1 (value)", "tool F1"],
               [(m, b["count"], b["exact_match_rate"], b["state_f1_change"], b["tool_f1"])
                for m, b in metric.get("by_module", {}).items()]),
        "",
        "## Memory",
        "",
    ]
    audit = metric.get("memory_audit", {})
    parts.append(
        _table(
            ["figure", "value"],
            [(k, audit.get(k)) for k in ("episodes", *AUDIT_KEYS, "evidence_retrieved_rate")]
            + [("evidence status", ", ".join(f"{k}: {v}" for k, v in audit.get("evidence_status", {}).items()))],
        )
    )
    if metric.get("memory_score_gold_run"):
        parts += ["", f"MemoryScore divides by the ESM of `{metric['memory_score_gold_run']}` "
                      f"({_fmt(metric.get('gold_exact_match_rate'))})."]
    parts += ["", "## Failure attribution", ""]
    failed = [r for r in ok if r.get("attribution")]
    if failed:
        types = [t for t in REASONING_TYPES if any(r.get("reasoning_type") == t for r in failed)]
        types += sorted({str(r.get("reasoning_type")) for r in failed} - set(types))
        cross = Counter((r["attribution"]["label"], r.get("reasoning_type")) for r in failed)
        rows = []
        for label in FAILURE_LABELS:
            total = sum(cross[(label, t)] for t in types)
            if total:
                rows.append((label, total, *[cross[(label, t)] for t in types]))
        parts.append(_table(["primary label", "failed", *types], rows))
        parts += ["", "Failed episodes (first 50):", ""]
        parts.append(_table(["task", "trial", "type", "label", "detail"],
                            [(r["task_id"], r.get("trial", 0), r.get("reasoning_type"), r["attribution"]["label"],
                              r["attribution"]["detail"].replace("|", "/")) for r in failed[:50]]))
    else:
        parts.append("No failed episode.")
    errors = [r for r in records if r.get("error_kind")]
    if errors:
        parts += [
            "",
            "## Infrastructure errors",
            "",
            _table(
                ["task", "trial", "attempts", "error"],
                [
                    (r["task_id"], r.get("trial", 0), r.get("attempts"), str(r.get("error"))[:200].replace("|", "/"))
                    for r in errors
                ],
            ),
        ]
    if plots:
        parts += ["", "## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots]
    return "\n".join(parts) + "\n"


def _compare_metrics(config: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for folder in config.get("compare") or []:
        path = Path(folder) / METRIC_FILE
        if not path.exists():
            raise ConfigError(f"--compare {folder}: expected a run directory with {METRIC_FILE}, found none; "
                              "fix: pass directories written by `vmb eval`")
        metric = read_json(path)
        out.append((f"{metric.get('model')}/{metric.get('memory_type')}", metric))
    return out


def write_outputs(run_dir: str | os.PathLike[str], config: Mapping[str, Any],
                  records: Sequence[Mapping[str, Any]], *, plots: bool = True) -> dict[str, Any]:
    """Write ``metric.json``, ``report.md`` and the plots of a run; return the metric dict."""
    run = Path(run_dir)
    metric = summarize(records, config, run)
    write_json(run / METRIC_FILE, metric)
    made: list[str] = []
    if plots:
        try:
            from vmb_gym.evaluation.plots import plot_esm_by_type, plot_tokens_vs_esm

            runs = [(f"{metric.get('model')}/{metric.get('memory_type')}", metric), *_compare_metrics(config)]
            made.append(str(plot_esm_by_type(runs, run / PLOT_FILES["esm_by_reasoning_type"])))
            made.append(str(plot_tokens_vs_esm(runs, run / PLOT_FILES["memory_tokens_vs_esm"])))
        except ConfigError:
            raise
        except Exception as exc:  # noqa: BLE001 - a plotting problem must not lose the metrics
            log.warning("plots not written: %s: %s", type(exc).__name__, exc)
    write_atomic(run / REPORT_FILE, render_report(metric, records, config, made))  # whole or not at all
    return metric
