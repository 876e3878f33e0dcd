"""The fixed reader every memory writer of ``VehicleMemStream-v0`` is paired with.

At a request the reader plans with :class:`~vmb_agents.reader.RulesPolicy` in two steps: a dry run
against a recording stand-in memory learns which searches the rules would make; one action sends
them as ``search_memory`` calls (so the reader only ever sees the policy's own store, as of the
request); a second run plans on the hits the env returned (``info["memory_hits"]``) and sends its
calls and ``finish``. It never looks at a task's gold calls, gold memory or evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vmb_agents.reader import READER_TOP_K, RulesPolicy
from vmb_agents.reader.reading import Reading
from vmb_gym.envs.tool_runtime import MAX_TOP_K
from vmb_gym.memory.base import DEFAULT_TOP_K, MemoryHit
from vmb_gym.types import Scenario

__all__ = ["BATCH", "FINISH", "SKIP", "StreamReader", "hit_from_dict"]

#: The stream env's ``skip`` action (go on to the next item of the timeline).
SKIP: dict[str, Any] = {"name": "skip", "arguments": {}}
#: The action that ends a request.
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}
#: Calls per action the writers and the reader send (the env accepts at most 32).
BATCH = 31


class _RecordingMemory:
    """Stands in for a memory module while the rule reader plans: records its searches, or replays hits."""

    provides_search = True
    provides_context = False

    def __init__(self, scenario_id: int) -> None:
        self.scenario_id = scenario_id
        self.asked: list[tuple[str, int]] = []
        self.answers: dict[str, list[MemoryHit]] = {}

    def search(self, text: str, as_of: datetime, top_k: int = DEFAULT_TOP_K,
               person: str | None = None) -> list[MemoryHit]:
        """Record the search and return the hits the env gave for it (none while recording)."""
        self.asked.append((text, top_k))
        return list(self.answers.get(text, []))

    def ingest(self, scenario: Scenario) -> None:
        """Never needed: the reader only searches through the env."""


def hit_from_dict(d: dict[str, Any]) -> MemoryHit:
    """A :class:`MemoryHit` from the env's ``info["memory_hits"]`` form."""
    ts = d.get("timestamp")
    return MemoryHit(entry_id=d["entry_id"], text=d["text"], score=float(d.get("score", 0.0)),
                     timestamp=datetime.fromisoformat(ts) if ts else None, line_ids=tuple(d.get("line_ids", ())),
                     people=tuple(d.get("people", ())), layer="policy", status=d.get("status", "active"))


class StreamReader:
    """Two-step reader for a request: search the policy's store, then act (see the module doc).

    Args:
        top_k: hits per search.
    """

    def __init__(self, top_k: int = READER_TOP_K) -> None:
        self.top_k = top_k
        self._rules = RulesPolicy("none", top_k=top_k)
        self._stage = 0
        self._mem: _RecordingMemory | None = None
        self._context: tuple[Reading, Scenario, datetime | None] | None = None

    def start(self, info: dict[str, Any], scenario_id: int, speakers: Sequence[str]) -> None:
        """A new request (``info`` of the step that showed it)."""
        self._stage = 0
        self._rules.clear_memory_figures()  # plan() counts searches in per-request state that its act() path resets
        as_of = datetime.fromisoformat(info["as_of"]) if info.get("as_of") else None
        scenario = Scenario(scenario_id, tuple(speakers), (), ())
        # the request is read once; each plan() below reads this Reading
        self._context = (Reading.of(info["request"], scenario.speakers), scenario, as_of)

    def act(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """The next action of the request."""
        assert self._context is not None
        reading, scenario, as_of = self._context
        if self._stage == 0:
            self._stage = 1
            self._mem = _RecordingMemory(scenario.scenario_id)
            self._rules.memory = self._mem
            self._rules.plan(reading, scenario, as_of)
            asked = list(dict.fromkeys(self._mem.asked))[:BATCH]
            if not asked:
                self._stage = 2
                return [*self._rules.plan(reading, scenario, as_of)[: BATCH - 1], FINISH]
            return [{"name": "search_memory", "arguments": {"query": q, "top_k": max(1, min(MAX_TOP_K, k))}}
                    for q, k in asked]
        if self._mem is None:
            return [FINISH]
        for group in info.get("memory_hits", []):
            self._mem.answers[group["query"]] = [hit_from_dict(h) for h in group["hits"]]
        calls = self._rules.plan(reading, scenario, as_of)
        return [*calls[: BATCH - 1], FINISH]
