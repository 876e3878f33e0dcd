"""``scripts/loadtest.py``'s batch client: sessions spread evenly over ``vmb serve``'s worker processes, paced
frames, exact replays."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from pathlib import Path

import pytest

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


def test_paced_batch_sessions_play_every_episode_and_match_the_in_process_env(server_url: str) -> None:
    """The batch client, paced (frames at least ``gap`` apart) and closed loop: every planned step is
    sent once and answered, and the in-process replay finds no reward mismatch and no leak."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    from .conftest import TOKEN

    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    for interval, gap in ((0.002, 0.001), (0.0, 0.0)):
        plans = [loadtest.plan_episodes(local, s, 3, 1) for s in range(4)]
        players = [loadtest.Player(plan, interval, interval * k / 4) for k, plan in enumerate(plans)]
        latencies: list[float] = []
        errors: list[str] = []

        async def run(players: list, latencies: list[float], errors: list[str], gap: float) -> None:
            (ws, _), = await loadtest.open_batch_connections(server_url, TOKEN, 1, 1)
            start = asyncio.Event()
            start.set()
            await loadtest.batch_connection(ws, players, start, [], latencies, errors, float("inf"), gap=gap)

        asyncio.run(run(players, latencies, errors, gap))
        episodes = [ep for plan in plans for ep in plan]
        assert errors == [] and all(p.finished for p in players)
        assert len(latencies) == sum(len(ep.actions) for ep in episodes)  # each episode ends with its finish
        assert loadtest.replay(local, episodes) == (12, 0, 0)


def test_paced_sessions_spread_their_steps_over_the_same_phase() -> None:
    """At ``rate`` steps/s every session's steps span the whole phase (all steps / rate), so the
    offered rate holds until the end: a session with twice the steps steps twice as often."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    plans = [loadtest.plan_episodes(local, s, 5, 0) for s in range(8)]
    counts = [sum(len(ep.actions) for ep in plan) for plan in plans]
    players = loadtest.paced_players(plans, 100.0)
    phase = sum(counts) / 100.0
    for p, n in zip(players, counts, strict=True):
        assert abs(p.interval * n - phase) < 1e-9 and 0 <= p.due < p.interval
    assert len(set(counts)) > 1  # the sessions differ in length, their intervals too
    assert all(p.interval == 0 and p.due == 0 for p in loadtest.paced_players(plans, 0.0))


def test_a_session_s_set_up_reset_is_its_first_episode_s_reset() -> None:
    """The reset sent before the step phase starts episode 0 (its text is the episode's first), so the
    next message is episode 0's first step, not a second reset of the same task."""
    episode = loadtest.Episode(0, "1_0", [{"name": "finish", "arguments": {}}])
    player = loadtest.Player([episode], 0.0, 0.0)
    assert player.message() == {"type": "reset", "data": {"task_id": "1_0"}}
    reset = {"type": "observation", "data": {"observation": {"text": "first", "task_id": "1_0"}, "reward": None,
                                             "done": False}}
    assert player.take(reset) is False
    assert player.message() == {"type": "step", "data": {"name": "finish", "arguments": {}}}
    final = {"type": "observation", "data": {"observation": {"text": "end", "task_id": "1_0"}, "reward": 0.5,
                                             "done": True}}
    assert player.take(final) is True and player.finished
    assert episode.texts == ["first", "end"] and episode.reward == 0.5


def test_mcp_sessions_play_every_episode_and_match_the_in_process_env(server_url: str) -> None:
    """The load test's MCP client: concurrent MCP sessions (oracle and random players) play every planned
    episode, and the in-process replay finds no reward mismatch and no leak."""
    pytest.importorskip("mcp_types")
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    from .conftest import TOKEN

    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    plans = [loadtest.plan_episodes(local, s, 2, 2) for s in range(4)]
    latencies: list[float] = []
    errors: list[str] = []

    async def run() -> None:
        start, ready = asyncio.Event(), []
        start.set()
        await asyncio.gather(*(loadtest.mcp_session(server_url, TOKEN, plan, start, ready, latencies, errors,
                                                    float("inf")) for plan in plans))

    asyncio.run(run())
    episodes = [ep for plan in plans for ep in plan]
    assert errors == []
    assert len(latencies) == sum(len(ep.actions) for ep in episodes)  # each episode ends with its finish
    assert loadtest.replay(local, episodes) == (8, 0, 0)
