"""The per-task drill-down of the dashboard: one payload per task, every run side by side.

For each task the payload holds the request and the gold calls, and for each run: the scores,
the failure label, the retrieved history lines (text read from the run's data folder) with the
gold evidence lines marked, the gold lines it missed, the calls with their results and the
state differences against the gold. The site writes each payload to its own small file, loaded
only when the task is opened.

Text from the data (requests, history lines, call arguments and results) is kept as plain
strings here; the page inserts it with ``textContent`` only, never as HTML.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_gym.data import data_folder, load_gold, read_history
from vmb_gym.data.layout import scenario_paths
from vmb_gym.errors import VmbError
from vmb_gym.evaluation.runs import Run, TaskRecord

__all__ = ["MAX_LINES", "HistoryTexts", "TaskTexts", "request_and_gold", "task_payload", "tasks_by_id"]

log = logging.getLogger(__name__)

#: Retrieved lines shown per run and task (a context module can hand over a whole history).
MAX_LINES = 60
#: Characters of a call result kept in the payload.
_MAX_RESULT = 600


class HistoryTexts:
    """History lines by (data spec, scenario, line id), read once per scenario file.

    A data folder that cannot be found (a run made elsewhere) gives no text; the drill-down
    then shows line ids only.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int], dict[int, tuple[str, str, str]]] = {}

    def lines(self, data: str, scenario_id: int) -> dict[int, tuple[str, str, str]]:
        """``line_id -> (time, speaker, text)`` of one scenario's history (empty when unreadable)."""
        key = (data, scenario_id)
        if key not in self._cache:
            self._cache[key] = self._read(data, scenario_id)
        return self._cache[key]

    @staticmethod
    def _read(data: str, scenario_id: int) -> dict[int, tuple[str, str, str]]:
        try:
            path = scenario_paths(Path(data_folder(data)), scenario_id)[0]
            lines, _ = read_history(path)
        except VmbError as exc:
            log.warning("dashboard: no history text for %s scenario %s (%s)", data, scenario_id, exc)
            return {}
        return {ln.line_id: (ln.timestamp.strftime("%Y-%m-%d %H:%M"), ln.speaker, ln.text) for ln in lines}


class TaskTexts:
    """Request text and gold calls of a task, read from a run's data folder (QA files only).

    For runs whose records do not carry them (``vmb eval-stream`` records hold scores only).
    """

    def __init__(self) -> None:
        self._cache: dict[str, dict[str, tuple[str, list[dict[str, Any]]]]] = {}

    def get(self, data: str, task_id: str) -> tuple[str, list[dict[str, Any]]]:
        """``(request, gold calls as {name, arguments})``; empty when the data cannot be read."""
        if data not in self._cache:
            try:
                queries = load_gold(data)
            except VmbError as exc:
                log.warning("dashboard: no request texts for data %s (%s)", data, exc)
                queries = []
            self._cache[data] = {q.task_id: (q.text, [c.to_json() for c in q.gold_calls]) for q in queries}
        return self._cache[data].get(task_id, ("", []))


def tasks_by_id(runs: Sequence[Run]) -> dict[str, list[TaskRecord | None]]:
    """Task id -> each run's record of it (first trial; ``None`` where a run lacks the task).

    Tasks are in first-seen order over the runs.
    """
    order: dict[str, list[TaskRecord | None]] = {}
    for i, run in enumerate(runs):
        for rec in sorted(run.scored(), key=lambda t: t.trial):
            cells = order.setdefault(rec.task_id, [None] * len(runs))
            if cells[i] is None:
                cells[i] = rec
    return order


def _scenario_of(rec: TaskRecord) -> int | None:
    value = rec.raw.get("scenario_id")
    if value is None and "_" in rec.task_id:
        value = rec.task_id.split("_", 1)[0]
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _line(line_id: int, texts: Mapping[int, tuple[str, str, str]], gold: bool) -> dict[str, Any]:
    when, speaker, text = texts.get(line_id, ("", "", ""))
    return {"id": line_id, "when": when, "speaker": speaker, "text": text, "gold": gold}


def _retrieved(rec: TaskRecord, texts: Mapping[int, tuple[str, str, str]]) -> dict[str, Any]:
    memory = rec.raw.get("memory") or {}
    episode = rec.raw.get("episode") or {}
    hits = [int(i) for i in (memory.get("hit_lines") or episode.get("memory_hit_line_ids") or [])]
    gold = [int(i) for i in memory.get("evidence_lines") or []]
    gold_set, hit_set = set(gold), set(hits)
    # Gold lines first so that a long context still shows them, then the rest in line order.
    ordered = [i for i in hits if i in gold_set] + [i for i in hits if i not in gold_set]
    shown = sorted(ordered[:MAX_LINES])
    return {
        "module": memory.get("name"),
        "context": bool(memory.get("provides_context")),
        "lines": [_line(i, texts, i in gold_set) for i in shown],
        "more": max(len(hits) - len(shown), 0),
        "missed": [_line(i, texts, True) for i in gold if i not in hit_set],
        "gold_count": len(gold),
    }


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _MAX_RESULT else text[:_MAX_RESULT] + " ..."


def _calls(rec: TaskRecord) -> list[dict[str, Any]]:
    out = []
    for call in (rec.raw.get("trajectory") or {}).get("calls") or []:
        result = call.get("result")
        success = result.get("success") if isinstance(result, Mapping) else None
        message = result.get("message") if isinstance(result, Mapping) else None
        out.append({"name": str(call.get("name")), "arguments": _clip(call.get("arguments") or {}),
                    "success": success, "message": _clip(message) if message is not None else _clip(result)})
    return out


def _run_cell(rec: TaskRecord | None, run: Run, history: HistoryTexts) -> dict[str, Any]:
    if rec is None:
        return {"missing": True}
    scenario = _scenario_of(rec)
    texts = history.lines(run.config.data, scenario) if scenario is not None else {}
    attribution = rec.raw.get("attribution") or {}
    return {
        "missing": False,
        "exact_match": rec.exact_match,
        "f1_change": rec.f1_change,
        "tool_f1": rec.tool_f1,
        "memory_tokens": rec.memory_tokens,
        "memory_searches": rec.memory_searches,
        "label": rec.failure_label,
        "labels": list(attribution.get("labels") or []),
        "detail": attribution.get("detail"),
        "retrieved": _retrieved(rec, texts),
        "calls": _calls(rec),
        "differences": [
            str(d) for d in rec.raw.get("differences") or (rec.raw.get("metrics") or {}).get("differences") or []
        ],
        "error": rec.raw.get("error"),
    }


def request_and_gold(task_id: str, cells: Sequence[TaskRecord | None], runs: Sequence[Run],
                     texts: TaskTexts) -> tuple[str, list[dict[str, Any]]]:
    """The task's request and gold calls: from the first record carrying them, else from the data."""
    for rec in cells:
        if rec is not None and rec.raw.get("request"):
            return str(rec.raw["request"]), [dict(c) for c in rec.raw.get("gold_calls") or [] if isinstance(c, Mapping)]
    run = next(r for r, c in zip(runs, cells, strict=False) if c is not None)
    return texts.get(run.config.data, task_id)


def task_payload(task_id: str, cells: Sequence[TaskRecord | None], runs: Sequence[Run],
                 history: HistoryTexts, texts: TaskTexts) -> dict[str, Any]:
    """The drill-down of one task: request, gold calls and one cell per run (see the module doc)."""
    first = next((c for c in cells if c is not None and c.modules), None) or next(c for c in cells if c is not None)
    request, gold = request_and_gold(task_id, cells, runs, texts)
    return {
        "id": task_id,
        "reasoning_type": first.reasoning_type,
        "modules": list(first.modules),
        "request": request,
        "gold_calls": [{"name": str(c.get("name")), "arguments": _clip(c.get("arguments") or {})} for c in gold],
        "runs": [_run_cell(rec, run, history) for rec, run in zip(cells, runs, strict=False)],
    }
