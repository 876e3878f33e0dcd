"""``vmb compare``: runs side by side, by reasoning type and module, with paired statistics.

:func:`compare_runs` turns loaded runs (:mod:`vmb_gym.evaluation.runs`) into one
:class:`Comparison`: a row per run (policy, memory, data, tasks, ESM, value F1, field F1, tool
F1, MemoryScore, memory tokens, searches, seconds per episode, pass^k), ESM by reasoning type
and by module, the paired differences of each run against its references
(:mod:`vmb_gym.evaluation.stats`: bootstrap interval and exact sign test on ESM, bootstrap on
value F1) and the failure-attribution split. :func:`render_markdown` prints it and
:meth:`Comparison.to_json` saves it; the figures are in :mod:`vmb_gym.evaluation.compare_plots`.

Every figure is computed from the per-task records (so ``eval`` and ``eval-stream`` runs
compare alike). Paired statistics need the same task set: a pair whose task ids differ is
refused with a message naming both counts and a task id in one but not the other
(:func:`check_same_tasks`).

References: ``against`` names runs by 1-based position, directory, label (``rules/gold``) or
memory name (``gold``). A name matching several runs pairs each run with the match on its own
task set, so ``--against gold`` over default and official runs pairs each with its set's gold run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.attribution import FAILURE_LABELS
from vmb_gym.evaluation.runs import Run, TaskRecord
from vmb_gym.evaluation.stats import paired_difference
from vmb_gym.types import REASONING_TYPES

__all__ = ["Comparison", "check_same_tasks", "compare_runs", "display_names", "render_markdown", "run_row",
           "task_values"]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ranges(files: str) -> str:
    """``"[1, 2, 3, 5]"`` -> ``"1-3,5"`` (a saved file list as the --files spelling); other text as is."""
    try:
        nums = sorted({int(x) for x in files.strip("[]() ").split(",") if x.strip()})
    except ValueError:
        return files
    parts: list[str] = []
    for n in nums:
        if parts and parts[-1].split("-")[-1] == str(n - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ",".join(parts)


def _short_data(run: Run) -> str:
    data = run.config.data.split(":", 1)[0]
    return f"{data} {_ranges(run.config.files)}" if run.config.files else data


def display_names(runs: Sequence[Run]) -> list[str]:
    """A name per run: its label, with the data set when labels repeat, with ``#i`` when still ambiguous."""
    labels = [r.label for r in runs]
    names = [f"{r.label} ({_short_data(r)})" if labels.count(r.label) > 1 else r.label for r in runs]
    return [f"{n} #{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def task_values(run: Run, metric: str = "exact_match") -> dict[str, float]:
    """Per task id, the mean over its trials of one :class:`TaskRecord` field (scored records only)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for t in run.scored():
        groups[t.task_id].append(float(getattr(t, metric)))
    return {k: sum(v) / len(v) for k, v in groups.items()}


def _pass_k(tasks: Sequence[TaskRecord]) -> tuple[int, float | None]:
    """(K, pass^K): K the most trials of a task; the mean over tasks with K trials of C(c, K) / C(K, K)."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for t in tasks:
        by_task[t.task_id].append(t.exact_match)
    if not by_task:
        return 1, None
    k = max(len(v) for v in by_task.values())
    vals = [math.comb(int(sum(v)), k) / math.comb(len(v), k) for v in by_task.values() if len(v) >= k]
    return k, _mean(vals)


def _memory_score(run: Run, runs: Sequence[Run]) -> float | None:
    """ESM over the ESM of the same policy's gold run on the same tasks (in ``runs``), else metric.json's."""
    for other in runs:
        if (other.config.memory == "gold" and other.config.policy == run.config.policy
                and set(other.task_ids()) == set(run.task_ids())):
            gold = _mean([t.exact_match for t in other.scored()])
            return (_mean([t.exact_match for t in run.scored()]) or 0.0) / gold if gold else None
    value = run.metric.get("memory_score")
    return None if value is None else float(value)


def run_row(run: Run, runs: Sequence[Run] = ()) -> dict[str, Any]:
    """The comparison row of one run (means over its scored records)."""
    s = run.scored()

    def mean_of(get: Callable[[TaskRecord], float | None]) -> float | None:
        return _mean([v for v in (get(t) for t in s) if v is not None])

    k, pass_k = _pass_k(s)
    return {
        "path": str(run.path), "kind": run.kind, "policy": run.config.policy, "memory": run.config.memory,
        "data": _short_data(run), "tasks": len(run.task_ids()), "episodes": len(s),
        "esm": mean_of(lambda t: t.exact_match), "value_f1": mean_of(lambda t: t.f1_change),
        "field_f1": mean_of(lambda t: t.f1_positive), "tool_f1": mean_of(lambda t: t.tool_f1),
        "memory_score": _memory_score(run, runs or [run]), "memory_tokens": mean_of(lambda t: t.memory_tokens),
        "searches": mean_of(lambda t: t.memory_searches), "seconds_per_episode": mean_of(lambda t: t.seconds),
        "k": k, "pass_k": pass_k,
    }


def _esm_by(runs: Sequence[Run], key: Callable[[TaskRecord], Sequence[str]],
            order: Sequence[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """Group -> one ``{"n", "esm"}`` per run (n = 0 and esm None where the run has none of the group)."""
    groups: list[str] = list(order)
    for run in runs:
        for t in run.scored():
            groups += [g for g in key(t) if g not in groups]
    out: dict[str, list[dict[str, Any]]] = {}
    for g in groups:
        cells = []
        for run in runs:
            vals = [t.exact_match for t in run.scored() if g in key(t)]
            cells.append({"n": len(vals), "esm": _mean(vals)})
        if any(c["n"] for c in cells):
            out[g] = cells
    return out


def check_same_tasks(run: Run, reference: Run, names: tuple[str, str] = ("run", "reference")) -> list[str]:
    """The common task ids, in ``reference``'s order.

    Raises:
        ConfigError: the two runs' scored task sets differ (the message names both counts and a
            task id in one and not the other).
    """
    a, b = set(run.task_ids()), set(reference.task_ids())
    if a != b:
        only_a, only_b = sorted(a - b), sorted(b - a)
        example = (f"{only_a[0]!r} is in {names[0]} only" if only_a else f"{only_b[0]!r} is in {names[1]} only")
        raise ConfigError(f"paired statistics need the same tasks: {names[0]} has {len(a)} scored tasks, "
                          f"{names[1]} has {len(b)}, {len(a & b)} in common ({example}); compare runs made with "
                          "the same --data/--files/--limit, or leave this pair out")
    return reference.task_ids()


def _resolve(spec: str, runs: Sequence[Run], names: Sequence[str]) -> list[int]:
    """Indices of the runs ``spec`` names (position, directory, display name, label, memory or policy name)."""
    if spec.isdigit() and 1 <= int(spec) <= len(runs):
        return [int(spec) - 1]
    for match in (lambda i: Path(spec).resolve() == runs[i].path.resolve(), lambda i: names[i] == spec,
                  lambda i: runs[i].label == spec, lambda i: runs[i].config.memory == spec,
                  lambda i: runs[i].config.policy == spec):
        found = [i for i in range(len(runs)) if match(i)]
        if found:
            return found
    raise ConfigError(f"--against {spec!r} names none of the runs; expected a position (1-{len(runs)}), a run "
                      f"directory, a label or a memory name, e.g. {runs[0].config.memory!r}")


@dataclass
class Comparison:
    """What :func:`compare_runs` found (see the module doc); :meth:`to_json` is ``comparison.json``."""

    names: list[str]
    rows: list[dict[str, Any]]
    by_reasoning_type: dict[str, list[dict[str, Any]]]
    by_module: dict[str, list[dict[str, Any]]]
    paired: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    failures: dict[str, list[int]] = field(default_factory=dict)
    recall: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """All of it as a JSON-ready dict."""
        return {"runs": [{"name": n, **r} for n, r in zip(self.names, self.rows, strict=True)],
                "by_reasoning_type": self.by_reasoning_type, "by_module": self.by_module, "paired": self.paired,
                "refused": self.refused, "failure_attribution": self.failures, "recall": self.recall,
                "settings": self.settings}


def _pairs(runs: Sequence[Run], names: Sequence[str], against: Sequence[str]) -> list[tuple[int, int]]:
    """(run, reference) index pairs: each run against each reference spec (the first run by default).

    A pair whose mirror is already listed (``bm25 - gold`` before ``gold - bm25``) is left out.
    """
    out: list[tuple[int, int]] = []
    for spec in against or ["1"]:
        refs = _resolve(spec, runs, names)
        for i, run in enumerate(runs):
            if i in refs:
                continue
            same = [j for j in refs if set(runs[j].task_ids()) == set(run.task_ids())]
            pair = (i, (same or refs)[0])
            if pair not in out and pair[::-1] not in out:  # b - a is a - b mirrored: listed once
                out.append(pair)
    return out


def _paired(runs: Sequence[Run], names: Sequence[str], pairs: Sequence[tuple[int, int]], resamples: int,
            seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    paired, refused = [], []
    for i, j in pairs:
        try:
            ids = check_same_tasks(runs[i], runs[j], (names[i], names[j]))
        except ConfigError as exc:
            refused.append({"run": names[i], "reference": names[j], "reason": str(exc)})
            continue
        entry: dict[str, Any] = {"run": names[i], "reference": names[j]}
        for metric in ("exact_match", "f1_change"):
            a, b = task_values(runs[i], metric), task_values(runs[j], metric)
            entry[metric] = paired_difference([a[t] for t in ids], [b[t] for t in ids], metric=metric,
                                              resamples=resamples, seed=seed).to_json()
        paired.append(entry)
    return paired, refused


def _recall(runs: Sequence[Run], names: Sequence[str], k: int) -> list[dict[str, Any]]:
    """Per run with audits: mean recall@k over the records that have one, and the run's ESM."""
    out = []
    key = f"recall@{k}"
    for name, run in zip(names, runs, strict=True):
        vals = [float(t.audit[key]) for t in run.scored() if t.audit and t.audit.get(key) is not None]
        if vals:
            out.append({"run": name, "k": k, "recall": sum(vals) / len(vals), "audited": len(vals),
                        "esm": _mean([t.exact_match for t in run.scored()])})
    return out


def compare_runs(runs: Sequence[Run], *, against: Sequence[str] = (), resamples: int = 10_000, seed: int = 0,
                 recall_k: int = 10) -> Comparison:
    """Compare ``runs`` (see the module doc).

    Args:
        runs: the loaded runs, in table order.
        against: the reference runs of the paired statistics (default: the first run).
        resamples: bootstrap resamples.
        seed: the bootstrap seed.
        recall_k: the k of the recall@k figure.

    Raises:
        ConfigError: no runs, or an ``against`` that names none of them.
    """
    if not runs:
        raise ConfigError("vmb compare needs at least one run directory; found none")
    names = display_names(runs)
    paired, refused = _paired(runs, names, _pairs(runs, names, against), resamples, seed) if len(runs) > 1 else ([], [])
    failures = {label: [sum(1 for t in r.scored() if t.failure_label == label) for r in runs]
                for label in FAILURE_LABELS}
    failures["success"] = [sum(1 for t in r.scored() if t.exact_match) for r in runs]
    return Comparison(
        names=names, rows=[run_row(r, runs) for r in runs],
        by_reasoning_type=_esm_by(runs, lambda t: (t.reasoning_type,), REASONING_TYPES),
        by_module=_esm_by(runs, lambda t: t.modules, sorted({m for r in runs for t in r.scored() for m in t.modules})),
        paired=paired, refused=refused, failures=failures, recall=_recall(runs, names, recall_k),
        settings={"against": list(against) or ["1"], "resamples": resamples, "seed": seed, "recall_k": recall_k})


def _fmt(value: Any, spec: str = ".3f") -> str:
    if value is None:
        return "-"
    return format(value, spec) if isinstance(value, float) else str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _group_table(title: str, groups: Mapping[str, list[dict[str, Any]]], names: Sequence[str]) -> list[str]:
    rows = [[g, *(f"{_fmt(c['esm'])} ({c['n']})" if c["n"] else "-" for c in cells)] for g, cells in groups.items()]
    return [f"## {title}", "", "ESM (tasks) per run.", "", _table([title.split(" by ")[-1], *names], rows), ""]


def _diff_cell(d: Mapping[str, Any], spec: str = "+.3f") -> str:
    return f"{d['mean']:{spec}} [{d['ci_low']:{spec}}, {d['ci_high']:{spec}}]"


def render_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown (what ``vmb compare`` prints)."""
    rows = [[n, r["policy"], r["memory"], r["data"], r["tasks"], r["esm"], r["value_f1"], r["field_f1"], r["tool_f1"],
             r["memory_score"], _fmt(r["memory_tokens"], ".0f"), _fmt(r["searches"], ".2f"),
             _fmt(r["seconds_per_episode"], ".3f"), f"{_fmt(r['pass_k'])} (k={r['k']})"]
            for n, r in zip(cmp.names, cmp.rows, strict=True)]
    out = [f"# Comparison of {len(cmp.names)} run(s)", "",
           _table(["run", "policy", "memory", "data", "tasks", "ESM", "value F1", "field F1", "tool F1", "MemoryScore",
                   "memory tokens", "searches", "s/episode", "pass^k"], rows), ""]
    out += _group_table("ESM by reasoning type", cmp.by_reasoning_type, cmp.names)
    if cmp.by_module:
        out += _group_table("ESM by module", cmp.by_module, cmp.names)
    if cmp.paired or cmp.refused:
        s = cmp.settings
        out += ["## Paired differences (run - reference, same tasks)", "",
                f"Mean difference with a {s['resamples']:,}-resample bootstrap 95% interval (seed {s['seed']}); "
                "wins/losses/ties count tasks; p: exact two-sided sign test on ESM.", ""]
        prow = [[p["run"], p["reference"], p["exact_match"]["tasks"], _diff_cell(p["exact_match"]),
                 f"{p['exact_match']['wins']}/{p['exact_match']['losses']}/{p['exact_match']['ties']}",
                 _fmt(p["exact_match"]["p_sign"], ".3g"), _diff_cell(p["f1_change"])] for p in cmp.paired]
        if prow:
            out += [_table(["run", "reference", "tasks", "ΔESM [95% CI]", "W/L/T", "p (sign)", "Δvalue F1 [95% CI]"],
                           prow), ""]
        out += [f"Not paired: {r['reason']}" for r in cmp.refused] + ([""] if cmp.refused else [])
    out += ["## Failure attribution", "", "Episodes per label (the first label of a failed episode).", "",
            _table(["label", *cmp.names], [[label, *counts] for label, counts in cmp.failures.items()]), ""]
    if cmp.recall:
        out += ["## Retrieval", "", _table(["run", f"recall@{cmp.recall[0]['k']}", "audited", "ESM"],
                                           [[r["run"], r["recall"], r["audited"], r["esm"]] for r in cmp.recall]), ""]
    return "\n".join(out)
