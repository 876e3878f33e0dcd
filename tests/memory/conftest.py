"""Fixtures: a small synthetic household (the official data comes from the root ``tests/conftest.py``)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from vmb_gym.memory.base import clear_snapshots
from vmb_gym.testing import CONTRACT_SCRIPT as SCRIPT  # the contract checker's household: one script for both
from vmb_gym.testing import CONTRACT_T0 as T0
from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario


def make_lines(script=SCRIPT, start: datetime = T0) -> tuple[HistoryLine, ...]:
    """History lines from (minute offset, speaker, text) rows."""
    return tuple(HistoryLine(i + 1, start + timedelta(minutes=m), sp, tx) for i, (m, sp, tx) in enumerate(script))


def make_query(lines, index: int, text: str, evidence_ids: list[tuple[int, ...]], rt: str = "preference_conflict",
               as_of: datetime | None = None, scenario_id: int = 1) -> Query:
    """A query whose events are the given line-id groups."""
    by_id = {ln.line_id: ln for ln in lines}
    events = tuple(EvidenceEvent(by_id[g[0]].text, by_id[g[0]].timestamp, g) for g in evidence_ids)
    gold = "\n".join(f"[{by_id[g[0]].timestamp:%B %d, %Y}] {by_id[g[0]].text}" for g in evidence_ids)
    return Query(f"{scenario_id}_{index}", scenario_id, index, text, rt, (), (), gold, events,
                 as_of or lines[-1].timestamp + timedelta(minutes=1))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path / "cache"))
    clear_snapshots()
    yield
    clear_snapshots()


@pytest.fixture
def scenario() -> Scenario:
    lines = make_lines()
    queries = (
        make_query(lines, 0, "Gary wants his usual green instrument panel color back.", [(1,), (5,)]),
        make_query(lines, 1, "Patricia: I need to adjust the headrest height.", [(11,), (12,)]),
        make_query(lines, 2, "Justin: seat ventilation on at the comfortable level.", [(7,)], rt="error_correction"),
    )
    return Scenario(1, ("Gary Allen", "Justin Martinez", "Patricia Garcia"), lines, queries, "synthetic")

