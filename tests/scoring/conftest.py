"""Fixtures for the scorer tests: official tasks and conformance call sequences (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmb_gym.types import Query, ToolCall


@pytest.fixture(scope="session")
def official_queries(official: Path) -> dict[str, Query]:
    """All official tasks present in the shared folder, by task id."""
    from vmb_gym.data import load_scenarios

    return {q.task_id: q for s in load_scenarios(f"official:{official}") for q in s.queries}


@pytest.fixture(scope="session")
def vector_calls(official: Path) -> list[tuple[str, tuple[ToolCall, ...]]]:
    """``(id, calls)`` of every conformance vector (official simulator call sequences)."""
    path = official / "conformance" / "vectors.jsonl"
    if not path.is_file():
        pytest.skip(f"conformance vectors not found at {path}")
    out = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            v = json.loads(line)
            out.append((v["id"], tuple(ToolCall(c["name"], c["arguments"]) for c in v["calls"])))
    return out
