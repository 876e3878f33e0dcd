"""Readings for the LM tests: a request and searches of memory lines, as the policy's episodes build them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from vmb_agents.llm.hf import read_conversation
from vmb_agents.reader.reading import Reading, hit_from_record
from vmb_gym.memory import MemoryHit


def hit(line: str, rank: int = 0) -> dict[str, Any]:
    """The ``info["memory_hits"]`` record of a memory line written ``[YYYY-MM-DD HH:MM] Name: text``."""
    stamp, text = line[1:17], line[19:]
    return {"entry_id": f"L{rank}", "text": text, "score": 1.0,
            "timestamp": datetime.fromisoformat(stamp).isoformat(), "line_ids": [rank],
            "people": [text.split(": ", 1)[0]], "layer": "raw", "status": "active"}


def memory_hits(*lines: str) -> list[MemoryHit]:
    """The structured hits of memory lines written ``[YYYY-MM-DD HH:MM] Name: text`` (best ranked first), as a view
    gets them from the step's ``info["memory_hits"]``."""
    return [hit_from_record(hit(line, k)) for k, line in enumerate(lines)]


def step(*searches: Sequence[str]) -> dict[str, Any]:
    """A step's info with one successful search per list of lines (best ranked first)."""
    return {"calls": [{"name": "search_memory", "arguments": {"query": "q"}, "result": {"success": True}}
                      for _ in searches],
            "memory_hits": [{"query": "q", "hits": [hit(line, k) for k, line in enumerate(lines)]}
                            for lines in searches]}


def reading(request: str, *searches: Sequence[str]) -> Reading:
    """The reading of ``request`` (as the policy reads a conversation's) after ``searches``, one step each."""
    out = read_conversation([{"role": "user", "content": request}])
    for lines in searches:
        out = out.with_step(step(lines))
    return out
