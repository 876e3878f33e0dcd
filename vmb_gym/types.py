"""Typed records shared across vmb_gym's packages (world, task data, scorer, env, memory).

Scenarios and queries are data, not code: frozen dataclasses built by the loaders in
:mod:`vmb_gym.data` and consumed by the scorer, the env and the memory modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

#: The five official reasoning types, in the order the official reports list them.
REASONING_TYPES: tuple[str, ...] = (
    "preference_conflict",
    "conditional_constraint",
    "coreference_resolution",
    "state_shift",
    "error_correction",
)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call: a name and its keyword arguments (JSON-typed values)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``{"name": ..., "arguments": {...}}`` form used in files and actions."""
        return {"name": self.name, "arguments": dict(self.arguments)}

    def to_python(self) -> str:
        """The Python-call form the official gold uses, e.g. ``f(a="x", b=2)``."""
        import json

        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.arguments.items())
        return f"{self.name}({args})"


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One dialogue line of a scenario's history: ``[YYYY-MM-DD HH:MM] Full Name: text``.

    ``line_id`` is the 1-based line number in the history file: stable across loads.
    """

    line_id: int
    timestamp: datetime
    speaker: str
    text: str


@dataclass(frozen=True, slots=True)
class EvidenceEvent:
    """One gold-memory event of a query and the history lines that state it.

    ``when`` is the event's date and time as written in the gold memory (``None`` when the line
    has none); ``line_ids`` are the evidence lines located by time (same minute first, then
    within 3 minutes).
    """

    text: str
    when: datetime | None
    line_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class QAQuestion:
    """The question form of a query (QA diagnostic track): answer = API name + argument values."""

    question: str
    answer: ToolCall


@dataclass(frozen=True, slots=True)
class Query:
    """One benchmark task: a request in a car and the gold calls that satisfy it.

    ``task_id`` is ``"<scenario>_<index>"`` with a 0-based index. ``as_of`` is the time of the
    request: generated scenarios carry it; for official data it is the end of the history.
    """

    task_id: str
    scenario_id: int
    index: int
    text: str
    reasoning_type: str
    gold_calls: tuple[ToolCall, ...]
    gold_call_strings: tuple[str, ...]
    gold_memory: str
    evidence: tuple[EvidenceEvent, ...]
    as_of: datetime | None
    unparsed_gold: tuple[str, ...] = ()
    qa: QAQuestion | None = None

    @property
    def evidence_line_ids(self) -> tuple[int, ...]:
        """All evidence line ids of the query, sorted and without repeats."""
        return tuple(sorted({i for e in self.evidence for i in e.line_ids}))


@dataclass(frozen=True, slots=True)
class Scenario:
    """One household's history and its queries (one ``history_N.txt`` + ``qa_N.json`` pair)."""

    scenario_id: int
    speakers: tuple[str, ...]
    lines: tuple[HistoryLine, ...]
    queries: tuple[Query, ...]
    source: str = ""

    @property
    def end_time(self) -> datetime | None:
        """Timestamp of the last history line (the implicit "now" of official queries)."""
        return self.lines[-1].timestamp if self.lines else None
