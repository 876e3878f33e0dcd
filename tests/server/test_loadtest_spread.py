"""``scripts/loadtest.py``'s batch client spreads its sessions evenly over ``vmb serve``'s worker processes."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "loadtest.py"
_SPEC = importlib.util.spec_from_file_location("loadtest", _PATH)
loadtest = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("loadtest", loadtest)
_SPEC.loader.exec_module(loadtest)


def _players(count: int) -> list:
    return [loadtest.Player([], 0.0, 0.0) for _ in range(count)]


def test_sessions_split_evenly_over_workers_then_connections() -> None:
    players = _players(64)
    spread = loadtest.spread_over_workers(players, ["a", "a", "a", "b"])  # three connections reached a, one reached b
    assert [len(g) for g in spread] == [11, 11, 10, 32]
    assert sorted(id(p) for g in spread for p in g) == sorted(id(p) for p in players)  # each session once
    assert [len(g) for g in loadtest.spread_over_workers(_players(8), ["a", "b", "a", "b"])] == [2, 2, 2, 2]
    assert [len(g) for g in loadtest.spread_over_workers(_players(5), ["a"])] == [5]


def test_open_batch_names_each_connection_s_worker(server_url: str) -> None:
    from .conftest import TOKEN

    async def run() -> list[str]:
        opened = await loadtest.open_batch_connections(server_url, TOKEN, 3, 1)
        for ws, _ in opened:
            await ws.close()
        return [w for _, w in opened]

    assert asyncio.run(run()) == [str(os.getpid())] * 3  # one process: no extra connections
