"""Load test of ``vmb serve`` on loopback: concurrent sessions, step latency, throughput, exactness.

Starts ``vmb serve`` as a subprocess on a free 127.0.0.1 port, opens ``--sessions`` concurrent
sessions (all in this process's event loop) and runs ``--episodes`` episodes in each: even
sessions play the oracle (the task's gold calls, then ``finish``), odd ones random calls sampled
from the env's action space (1-4, then ``finish``). Bounded: it stops after the episodes or at
``--time-limit`` seconds, whichever comes first, and stops the server.

``--client`` picks how sessions talk to the server:

* ``openenv``: one :class:`~vmb_gym.server.client.VmbEnvClient` (OpenEnv's ``EnvClient``) each;
* ``mcp``: one MCP session each on ``/mcp`` (the official ``mcp`` client, streamable HTTP): an episode is
  ``start_episode(task_id=...)``, the calls as tools, then ``finish``, whose result carries the reward;
* ``lean``: one WebSocket each, the same messages sent with ``orjson`` (a client that costs little,
  so the server is what is measured);
* ``batch``: the sessions spread over ``--connections`` WebSockets, each frame a ``batch`` message
  carrying the next message of every session of that connection that is ready. With
  ``--workers N`` the sessions are spread evenly over the server processes (each handshake names
  the process that took the connection; more connections are opened until every one has one),
  and the summary says how many connections and sessions each process held.

``--rate R`` paces the steps (open loop: R steps/s offered across the sessions for the whole step
phase, each session's steps due at fixed times spread over it, a session with fewer steps at longer
intervals; in a frame of the batch client go all steps due by then, at most one frame per
``--coalesce-ms`` per connection) and measures each step's latency from the time it was due, so a late
server shows as latency, not as a slower offered rate; without it, every session sends its next
message as soon as the reply to the last one arrives (closed loop: with N sessions in flight the
mean latency is N / throughput, Little's law).

Reports (JSON on stdout, and ``--out FILE``): p50/p99 client-observed step latency, steps/s
across sessions (steps of the step phase over its wall time; connecting and the first reset of
each session come before it), errors, and two checks against the in-process env replaying every
episode's actions: reward mismatches (exact float equality) and cross-session leaks (a session's
observation that names another task, or whose text differs from the in-process env's).

Usage::

    python scripts/loadtest.py --sessions 64 --episodes 20
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Episode:
    """One episode as a session played it."""

    session: int
    task_id: str
    actions: list[dict[str, Any]]
    texts: list[str] = field(default_factory=list)  # each observation's text, reset first (kept, not hashed)
    task_ids: list[str | None] = field(default_factory=list)
    reward: float | None = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_call(sample: Any) -> dict[str, Any]:
    """An action-space sample (a JSON string or a dict) as a ``{"name", "arguments"}`` dict."""
    call = json.loads(sample) if isinstance(sample, str) else sample
    return {"name": str(call["name"]), "arguments": dict(call.get("arguments") or {})}


def plan_episodes(local: Any, session: int, episodes: int, seed: int) -> list[Episode]:
    """The episodes a session will play (tasks and actions fixed up front, so the replay is exact)."""
    rng = random.Random(seed * 1_000_003 + session)
    queries = local.tasks.queries
    space = local.action_space
    space.seed(seed * 7919 + session)
    plan = []
    for _ in range(episodes):
        q = queries[rng.randrange(len(queries))]
        if session % 2 == 0:
            actions = [{"name": c.name, "arguments": dict(c.arguments)} for c in q.gold_calls]
        else:
            actions = [_as_call(space.sample()) for _ in range(rng.randint(1, 4))]
        plan.append(Episode(session, q.task_id, [*actions, {"name": "finish", "arguments": {}}]))
    return plan


Reset = Callable[[str], Awaitable[tuple[str, Any]]]
Step = Callable[[dict[str, Any]], Awaitable[tuple[str, Any, bool, Any]]]


async def _play(plan: list[Episode], reset: Reset, step: Step, start: asyncio.Event, ready: list[int],
                latencies: list[float], errors: list[str], deadline: float, ended: list[float] | None) -> None:
    """Play ``plan`` through one client: ``reset(task_id)`` -> (text, task id), ``step(action)`` -> (text, task
    id, done, reward). Episode 0's reset is the session's set-up (its env is built now); then ``start`` is awaited."""
    first = await reset(plan[0].task_id)
    ready.append(1)
    await start.wait()
    for k, ep in enumerate(plan):
        if time.monotonic() > deadline:
            errors.append(f"session {ep.session}: time limit before episode {k}")
            break
        if k:
            first = await reset(ep.task_id)
        ep.texts.append(first[0])
        ep.task_ids.append(first[1])
        for action in ep.actions:
            t0 = time.perf_counter()
            text, task_id, done, reward = await step(action)
            latencies.append(time.perf_counter() - t0)
            ep.texts.append(text)
            ep.task_ids.append(task_id)
            if done:
                ep.reward = reward
                break
    if ended is not None:
        ended.append(time.perf_counter())


async def _session(
    url: str,
    token: str | None,
    plan: list[Episode],
    start: asyncio.Event,
    ready: list[int],
    latencies: list[float],
    errors: list[str],
    deadline: float,
    ended: list[float] | None = None,
) -> None:
    from vmb_gym.server.client import VmbEnvClient
    from vmb_gym.server.models import VmbAction

    client = VmbEnvClient(url, token=token, message_timeout_s=60)

    async def reset(task_id: str) -> tuple[str, Any]:
        got = await client.reset(task_id=task_id)
        return got.observation.text, got.observation.task_id

    async def step(action: dict[str, Any]) -> tuple[str, Any, bool, Any]:
        got = await client.step(VmbAction(**action))
        return got.observation.text, got.observation.task_id, bool(got.done), got.reward

    try:
        await client.connect()
        await _play(plan, reset, step, start, ready, latencies, errors, deadline, ended)
    except Exception as e:  # noqa: BLE001 - counted, never fatal: the report says what went wrong
        errors.append(f"session {plan[0].session}: {type(e).__name__}: {e}")
        ready.append(1)
    finally:
        await client.close()


async def mcp_session(
    url: str,
    token: str | None,
    plan: list[Episode],
    start: asyncio.Event,
    ready: list[int],
    latencies: list[float],
    errors: list[str],
    deadline: float,
    ended: list[float] | None = None,
) -> None:
    """One MCP session on ``/mcp`` playing ``plan`` (the ``mcp`` client: one episode after another)."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                streamable_http_client(url + "/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()

            async def reset(task_id: str) -> tuple[str, Any]:
                got = await session.call_tool("start_episode", {"task_id": task_id})
                return got.content[0].text, (got.structured_content or {}).get("task_id")

            async def step(action: dict[str, Any]) -> tuple[str, Any, bool, Any]:
                got = await session.call_tool(action["name"], action["arguments"])
                data = got.structured_content or {}
                return got.content[0].text, data.get("task_id"), bool(data.get("done")), data.get("reward")

            await _play(plan, reset, step, start, ready, latencies, errors, deadline, ended)
    except BaseException as e:  # counted, never fatal (the mcp client raises exception groups)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        errors.append(f"session {plan[0].session}: {type(e).__name__}: {e}")
        ready.append(1)


class Player:
    """One session's messages in order (each episode's reset and steps), as dicts.

    The first episode's reset is the session's set-up (sent before the step phase, when the
    session's env is built or drawn): every later reset is part of the phase, as is every step.
    ``due`` is when the next step may be sent (paced runs; 0: at once); ``take`` records a reply.
    """

    def __init__(self, plan: list[Episode], interval: float, phase: float) -> None:
        self.plan, self.interval, self.due = plan, interval, phase
        self.episode, self.action = 0, -1  # action -1: the episode's reset is next

    @property
    def finished(self) -> bool:
        """Every episode is played."""
        return self.episode >= len(self.plan)

    def ready(self, now: float) -> bool:
        """Whether the next message may go at ``now``: a reset at once, a paced step once it is due."""
        return self.episode < len(self.plan) and (self.action < 0 or not self.interval or self.due <= now)

    def message(self) -> dict[str, Any] | None:
        """The next message (None: every episode is played)."""
        if self.episode >= len(self.plan):
            return None
        ep = self.plan[self.episode]
        if self.action < 0:
            return {"type": "reset", "data": {"task_id": ep.task_id}}
        return {"type": "step", "data": ep.actions[self.action]}

    def take(self, reply: dict[str, Any]) -> bool:
        """Record the reply to :meth:`message`; whether it answered a step. Raises on an error reply."""
        if reply.get("type") != "observation":
            raise RuntimeError(f"session {self.plan[0].session}: {reply.get('data')}")
        data = reply["data"]
        ep = self.plan[self.episode]
        ep.texts.append(data["observation"]["text"])
        ep.task_ids.append(data["observation"]["task_id"])
        stepped = self.action >= 0
        self.action += 1
        if data["done"]:
            ep.reward = data["reward"]
        if data["done"] or self.action >= len(ep.actions):
            self.episode, self.action = self.episode + 1, -1
        if stepped and self.interval:
            self.due += self.interval
        return stepped


async def _lean_session(url: str, token: str, player: Player, start: asyncio.Event, ready: list[int],
                        latencies: list[float], errors: list[str], deadline: float,
                        ended: list[float] | None = None) -> None:
    """One session on its own WebSocket, messages encoded with orjson (``ended``: gets the time of its last reply)."""
    import orjson
    from websockets.asyncio.client import connect

    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with connect(url.replace("http", "ws", 1) + "/ws", additional_headers=headers, compression=None,
                           max_size=None, proxy=None) as ws:
            await ws.send(orjson.dumps(player.message()).decode())
            player.take(orjson.loads(await ws.recv()))
            ready.append(1)
            await start.wait()
            player.due += time.perf_counter() if player.interval else 0.0
            while (message := player.message()) is not None and time.monotonic() < deadline:
                stepping = message["type"] == "step"
                if stepping and player.interval and player.due > time.perf_counter():
                    await asyncio.sleep(player.due - time.perf_counter())
                t0 = time.perf_counter()
                await ws.send(orjson.dumps(message).decode())
                if player.take(orjson.loads(await ws.recv())):
                    latencies.append(time.perf_counter() - (player.due - player.interval if player.interval else t0))
            if ended is not None:
                ended.append(time.perf_counter())
    except Exception as e:  # noqa: BLE001 - counted, never fatal
        errors.append(f"{type(e).__name__}: {e}")
        ready.append(1)


async def open_batch_connections(url: str, token: str, count: int, workers: int) -> list[tuple[Any, str]]:
    """``count`` WebSockets, each with the server process it reached (the handshake's ``x-vmb-worker``).

    The kernel hands each connection to whichever ``vmb serve`` worker accepts first, so ``count``
    may land unevenly, or all on one; more are opened (at most ``4 * max(count, workers)`` in all)
    until every one of ``workers`` processes holds one.
    """
    from websockets.asyncio.client import connect

    from vmb_gym.server.ws_sessions import WORKER_HEADER

    opened: list[tuple[Any, str]] = []
    limit = 4 * max(count, workers)
    while len(opened) < count or (len({w for _, w in opened}) < workers and len(opened) < limit):
        ws = await connect(url.replace("http", "ws", 1) + "/ws", compression=None, max_size=None, proxy=None,
                           additional_headers={"Authorization": f"Bearer {token}"})
        opened.append((ws, ws.response.headers.get(WORKER_HEADER, "")))
    return opened


def spread_over_workers(players: list[Player], workers: list[str]) -> list[list[Player]]:
    """Sessions per connection (``workers``: each connection's server process): an even share for each
    process, then an even share of that for each of its connections."""
    by_worker: dict[str, list[int]] = {}
    for c, worker in enumerate(workers):
        by_worker.setdefault(worker, []).append(c)
    groups = list(by_worker.values())
    spread: list[list[Player]] = [[] for _ in workers]
    for k, player in enumerate(players):
        connections = groups[k % len(groups)]
        spread[connections[(k // len(groups)) % len(connections)]].append(player)
    return spread


async def batch_connection(ws: Any, players: list[Player], start: asyncio.Event, ready: list[int],
                            latencies: list[float], errors: list[str], deadline: float, gap: float = 0.0,
                            ended: list[float] | None = None) -> None:
    """Several sessions on one WebSocket: each frame a batch of every ready session's next message.

    Frames go out as bytes marked as text and replies are read as bytes (no str round trip). In a
    paced run a frame carries every message due by then, and the next frame waits until ``gap``
    seconds after the last one went out (several due steps share a frame: the per-frame costs are
    paid fewer times; a step may wait up to ``gap``, which its latency includes). ``ended`` gets the
    time the last reply arrived (the connection's close handshake comes after it, outside the phase).
    """
    import orjson

    async def exchange(batch: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
        items = [{"session": k, **m} for k, m in batch]
        await ws.send(orjson.dumps({"type": "batch", "data": {"messages": items}}), text=True)
        return orjson.loads(await ws.recv(decode=False))["data"]["replies"]

    try:
        if players:
            for p, reply in zip(
                players, await exchange([(k, p.message()) for k, p in enumerate(players)]), strict=False
            ):
                p.take(reply)
        ready.extend([1] * len(players))
        await start.wait()
        t_start = time.perf_counter()
        for p in players:
            p.due += t_start if p.interval else 0.0
        sent = -gap
        while players and time.monotonic() < deadline:
            now = time.perf_counter()
            if now - sent < gap:
                await asyncio.sleep(gap - (now - sent))
                now = time.perf_counter()
            batch = [(k, p.message()) for k, p in enumerate(players) if p.ready(now)]
            if not batch:
                waiting = [p.due for p in players if not p.finished]
                if not waiting:
                    break
                await asyncio.sleep(max(0.0, min(waiting) - now))
                continue
            t0 = sent = time.perf_counter()
            replies = await exchange(batch)  # type: ignore[arg-type]  # ready players have a message
            t1 = time.perf_counter()
            for (k, _), reply in zip(batch, replies, strict=False):
                due = players[k].due
                if players[k].take(reply):
                    latencies.append(t1 - (due if players[k].interval else t0))
        if ended is not None:
            ended.append(time.perf_counter())
    except Exception as e:  # noqa: BLE001 - counted, never fatal
        errors.append(f"{type(e).__name__}: {e}")
        ready.extend([1] * len(players))
    finally:
        await ws.close()


def replay(local: Any, episodes: list[Episode]) -> tuple[int, int, int]:
    """(episodes checked, reward mismatches, leaks) against the in-process env."""
    checked = mismatches = leaks = 0
    for ep in episodes:
        if ep.reward is None:
            continue
        checked += 1
        obs, _ = local.reset(options={"task_id": ep.task_id})
        texts = [obs]
        reward = None
        for action in ep.actions:
            obs, r, terminated, truncated, _ = local.step(action)
            texts.append(obs)
            if terminated or truncated:
                reward = r
                break
        mismatches += reward != ep.reward
        leaks += texts != ep.texts or any(t != ep.task_id for t in ep.task_ids)
    return checked, mismatches, leaks


def _start_server(port: int, args: argparse.Namespace, token: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "VMB_SERVE_TOKEN": token, "PYTHONHASHSEED": "0"}
    cap = args.sessions + 4 * max(args.connections, args.workers)  # each connection's own session counts
    cmd = [sys.executable, "-m", "vmb_gym.cli", "serve", "--port", str(port), "--data", args.data,
           "--memory", args.memory, "--max-sessions", str(cap),
           "--warm", str(-(-args.sessions // args.workers)), "--workers", str(args.workers)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + args.startup_limit
    health = urllib.request.Request(f"http://127.0.0.1:{port}/health", headers={"Authorization": f"Bearer {token}"})
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"vmb serve exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
        try:
            urllib.request.urlopen(health, timeout=1)
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"vmb serve did not start within {args.startup_limit} s")


def paced_players(plans: list[list[Episode]], rate: float) -> list[Player]:
    """One :class:`Player` per session; with ``rate``, its steps spread evenly over the whole step phase.

    The phase lasts ``all steps / rate`` seconds; a session with ``n`` steps has one due every
    ``phase / n`` (so every session plays until the end and ``rate`` is offered throughout),
    the sessions' first steps staggered over one such interval. Without ``rate``: unpaced.
    """
    if not rate:
        return [Player(plan, 0.0, 0.0) for plan in plans]
    counts = [max(1, sum(len(ep.actions) for ep in plan)) for plan in plans]  # every episode ends at its finish
    phase = sum(counts) / rate
    return [
        Player(plan, phase / n, phase / n * k / len(plans))
        for k, (plan, n) in enumerate(zip(plans, counts, strict=True))
    ]


async def _drive(url: str, token: str, plans: list[list[Episode]], deadline: float, server_pid: int,
                 args: argparse.Namespace,
                 placed: dict[str, list[int]]) -> tuple[list[float], list[str], float, float, float]:
    """Run the sessions' step phase; latencies, errors, wall seconds, client and server CPU seconds.

    The phase runs from the start signal to the last reply (the connections' close handshakes
    come after it; CPU is counted until they are done). ``placed`` gets the batch client's
    connections and sessions per server process.
    """
    start, ready, latencies, errors, ended = asyncio.Event(), [], [], [], []
    common = (start, ready, latencies, errors, deadline)
    players = paced_players(plans, args.rate)
    if args.client == "openenv":
        jobs = [_session(url, token, p, *common, ended=ended) for p in plans]
    elif args.client == "lean":
        jobs = [_lean_session(url, token, p, *common, ended=ended) for p in players]
    elif args.client == "mcp":
        jobs = [mcp_session(url, token, p, *common, ended=ended) for p in plans]
    else:
        opened = await open_batch_connections(url, token, args.connections, args.workers)
        workers = [w for _, w in opened]
        spread = spread_over_workers(players, workers)
        gap = args.coalesce_ms / 1e3 if args.rate else 0.0
        jobs = [
            batch_connection(ws, group, *common, gap=gap, ended=ended)
            for (ws, _), group in zip(opened, spread, strict=True)
        ]
        for worker in sorted(set(workers)):
            placed["connections_per_worker"].append(workers.count(worker))
            placed["sessions_per_worker"].append(
                sum(len(g) for w, g in zip(workers, spread, strict=True) if w == worker)
            )
    tasks = [asyncio.create_task(job) for job in jobs]
    while len(ready) < len(plans) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    gc.collect()
    gc.freeze()  # the plans and connections live through the step phase: no collection walks them
    cpu0, server0, t0 = _cpu_seconds(), _cpu_seconds(server_pid), time.perf_counter()
    start.set()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=max(1.0, deadline - time.monotonic()))
    wall = (max(ended) if len(ended) == len(jobs) else time.perf_counter()) - t0  # a failed job: until now
    return latencies, errors, wall, _cpu_seconds() - cpu0, _cpu_seconds(server_pid) - server0


def _runner() -> asyncio.Runner:
    """The client's event loop: uvloop's when installed (it comes with ``uvicorn[standard]``), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.Runner()
    return asyncio.Runner(loop_factory=uvloop.new_event_loop)


def _cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process and its live children (this process when ``pid`` is None)."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") + sum(_cpu_seconds(int(c)) for c in children)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the load test; the summary dict."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    local = gym.make("VehicleMem-v0", data=args.data, memory=args.memory.split(",")[0]).unwrapped
    plans = [plan_episodes(local, s, args.episodes, args.seed) for s in range(args.sessions)]
    token = os.urandom(16).hex()
    port = _free_port()
    placed: dict[str, list[int]] = {"connections_per_worker": [], "sessions_per_worker": []}
    t_start = time.monotonic()
    proc = _start_server(port, args, token)
    startup = time.monotonic() - t_start
    try:
        deadline = time.monotonic() + args.time_limit
        with _runner() as runner:
            latencies, errors, wall, client_cpu, server_cpu = runner.run(
                _drive(f"http://127.0.0.1:{port}", token, plans, deadline, proc.pid, args, placed))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    episodes = [ep for plan in plans for ep in plan]
    from vmb_gym.scoring import warm_gold_references

    warm_gold_references(local.tasks.queries)  # as the server's start-up does
    replay_cpu = _cpu_seconds()
    checked, mismatches, leaks = replay(local, episodes)
    replay_cpu = _cpu_seconds() - replay_cpu
    return {
        "client": args.client, "connections": args.connections if args.client == "batch" else None,
        "offered_steps_per_s": args.rate or None, "coalesce_ms": args.coalesce_ms if args.rate else None,
        "server_workers": args.workers, **placed,
        "sessions": args.sessions, "episodes_per_session": args.episodes, "episodes_finished": checked,
        "episodes_planned": len(episodes), "steps": len(latencies), "step_phase_s": round(wall, 3),
        "steps_per_s": round(len(latencies) / wall, 1) if wall > 0 else 0.0,
        "p50_step_ms": round(_percentile(latencies, 0.50) * 1e3, 3),
        "p99_step_ms": round(_percentile(latencies, 0.99) * 1e3, 3),
        "server_cpu_ms_per_step": round(server_cpu / max(1, len(latencies)) * 1e3, 3),
        "client_cpu_ms_per_step": round(client_cpu / max(1, len(latencies)) * 1e3, 3),
        # the same episodes on the in-process env (resets included, gold warmed as the server's is): the env's own cost
        "in_process_cpu_ms_per_step": round(replay_cpu / max(1, len(latencies)) * 1e3, 3),
        "cpu_share_of_step_phase": round((server_cpu + client_cpu) / wall, 2) if wall > 0 else 0.0,
        "errors": len(errors), "error_samples": errors[:5], "reward_mismatches": mismatches,
        "cross_session_leaks": leaks, "server_startup_s": round(startup, 1), "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: run, print the JSON summary, exit 1 on errors, mismatches or leaks."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=64, help="concurrent sessions")
    parser.add_argument("--episodes", type=int, default=20, help="episodes per session")
    parser.add_argument("--data", default="default", help="data spec served and replayed")
    parser.add_argument("--memory", default="bm25", help="memory module served and replayed")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tasks and random actions")
    parser.add_argument("--client", choices=("openenv", "lean", "batch", "mcp"), default="lean",
                        help="OpenEnv's EnvClient per session, a lean WebSocket per session, batch frames, "
                             "or an MCP session per session (/mcp)")
    parser.add_argument(
        "--connections",
        type=int,
        default=2,
        help="WebSockets the batch client spreads sessions on (more are opened until each worker has one)",
    )
    parser.add_argument("--workers", type=int, default=1, help="vmb serve --workers (server processes)")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="steps/s offered across sessions (open loop; 0: closed loop, as fast as replies come)")
    parser.add_argument(
        "--coalesce-ms",
        type=float,
        default=1.0,
        help="paced runs: least time between two frames of one batch connection (due steps share a frame)",
    )
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds for the sessions, then stop")
    parser.add_argument("--startup-limit", type=float, default=180.0, help="seconds allowed for the server to start")
    parser.add_argument("--out", default=None, metavar="FILE", help="also write the summary here (JSON)")
    args = parser.parse_args(argv)
    if args.client == "mcp" and args.workers > 1:
        parser.error("--client mcp needs --workers 1: an MCP session lives in one server process, and its HTTP "
                     "requests may reach another")
    summary = run(args)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    bad = summary["errors"] or summary["reward_mismatches"] or summary["cross_session_leaks"]
    return 1 if bad or summary["episodes_finished"] < summary["episodes_planned"] else 0


if __name__ == "__main__":
    sys.exit(main())
