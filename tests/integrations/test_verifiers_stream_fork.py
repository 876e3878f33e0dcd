"""The verifiers stream adapter: verifiers' loaders find it, a task is a saved state, and the ``-r G`` rollouts of
a task (verifiers' own ``Env.slots``) start from byte-identical states after random writes; equal replies give
equal rewards; a rollout's writes never leak into its siblings; text replies skip or finish."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
from pathlib import Path
from types import SimpleNamespace
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import orjson
import pytest

vf = pytest.importorskip("verifiers.v1")

from verifiers.v1.agent import Segment
from verifiers.v1.utils.loaders import environment_class, taskset_class

from vmb_gym.envs.fork import StreamForkToolEnv, load_state, state_digest
from vmb_gym.errors import ConfigError
from vmb_gym.integrations.verifiers_stream import (
    STREAM_TASKSET_ID,
    VehicleMemStreamTaskset,
    VehicleMemStreamVfEnv,
    load_stream_environment,
    stream_tasks,
)

KW: dict[str, Any] = {"files": [1], "window_days": 2, "memory_cost": 0.001}
PACKAGE = Path(__file__).resolve().parents[2] / "environments" / "vmb_vehiclemem"
G = 4


@pytest.fixture(autouse=True)
def _package_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment package, installed by setup.sh; from the tree when it is not."""
    if "vmb_vehiclemem_stream" not in sys.modules:
        monkeypatch.syspath_prepend(str(PACKAGE))


class Player:
    """A verifiers agent whose reply to each turn is ``script(turn, message)`` (None: the exchange ends), or the
    next of a list of replies. Records what it was shown."""

    def __init__(self, script: list[Any] | Callable[[int, str], Any]) -> None:
        replies = list(script) if isinstance(script, list) else None
        self.script = script if replies is None else (lambda i, m: replies[i] if i < len(replies) else None)
        self.shown: list[str] = []
        self.trace = SimpleNamespace(rewards={}, metrics={}, info={},
                                     record_reward=lambda n, v, w=1.0: self.trace.rewards.update({n: (v, w)}),
                                     record_metrics=lambda m: self.trace.metrics.update(m))

    @contextlib.asynccontextmanager
    async def interaction(self, task: Any):
        player = self

        class Interaction:
            trace = player.trace

            async def turn(self, message: str | None = None) -> Segment:
                player.shown.append(message or "")
                reply = player.script(len(player.shown) - 1, message or "")
                return Segment(messages=[], terminated=True) if reply is None else Segment(messages=[reply])

        yield Interaction()


def _call(name: str, args: dict[str, Any]) -> Any:
    return vf.AssistantMessage(content=None, tool_calls=[vf.ToolCall(id="c0", name=name, arguments=json.dumps(args))])


def random_writer(seed: int) -> Any:
    rng = random.Random(seed)

    def write(obs: str, info: dict[str, Any]) -> Any:
        if info.get("phase") != "write":
            return {"name": "finish", "arguments": {}}
        calls: list[Any] = [{"name": "store", "arguments": {"line_ids": [ln["line_id"]]}}
                            for ln in info.get("lines") or [] if rng.random() < 0.5]
        return [*calls, {"name": "skip", "arguments": {}}]

    return write


def _run(env: VehicleMemStreamVfEnv, task: Any, player: Player) -> Any:
    asyncio.run(env.run(task, SimpleNamespace(player=player)))
    return player.trace


def _gold(task: Any) -> list[Any]:
    probe = gym.make("VehicleMemStream-v0", **KW).unwrapped
    query = next(q for q in probe.tasks.queries if q.task_id == task.data.task_id)
    return [_call(c.name, dict(c.arguments)) for c in query.gold_calls]


def test_loaders_find_the_stream_taskset_and_its_tasks_are_states() -> None:
    assert taskset_class(STREAM_TASKSET_ID) is VehicleMemStreamTaskset
    assert environment_class(STREAM_TASKSET_ID) is VehicleMemStreamVfEnv
    tasks = list(load_stream_environment(**KW).taskset)
    assert [t.data.id for t in tasks] == [f"0/1@{p}" for p in range(14, 23)]  # 9 requests in the window
    assert all(t.data.phase == "query" and t.data.task_id for t in tasks)
    assert "store(" in tasks[0].data.system_prompt and "<tool_call>" in tasks[0].data.system_prompt
    chunks = list(load_stream_environment(**KW, fork_at="chunk", every=5).taskset)
    assert chunks and all(t.data.phase == "write" and t.data.task_id is None for t in chunks)
    with pytest.raises(ConfigError, match="unknown writer"):
        list(load_stream_environment(**KW, writer="mine").taskset)


def test_a_group_starts_byte_identical_and_siblings_stay_apart() -> None:
    env = load_stream_environment(**KW)
    tasks = list(stream_tasks(gym.make("VehicleMemStream-v0", **KW), random_writer(11), at="request", seed=0))
    task = tasks[-1]  # the last request: the random writes of the whole window are in its store
    source = load_state(task.data.env_state)
    assert source.data["store_log"]
    slots = env.slots(task, n=G)  # verifiers' -r G: G episodes of one task
    gold = _gold(task)
    players = [Player([_call("search_memory", {"query": "seat"}), *gold, vf.AssistantMessage(content="Done.")])
               for _ in range(2)]
    players.append(Player([_call("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 0})]))
    players.append(Player([]))  # says nothing: the request is finished as reached
    traces = [_run(env, slot.task, player) for slot, player in zip(slots, players, strict=True)]
    assert {t.info["start_state"] for t in traces} == {state_digest(source)}
    assert {p.shown[0] for p in players} == {source.data["last_obs"]}
    assert traces[0].rewards["vmb_reward"] == traces[1].rewards["vmb_reward"] == (1.0, 1.0)
    assert traces[0].metrics == traces[1].metrics and traces[0].metrics["exact_state_match"] == 1.0
    assert traces[2].rewards["vmb_reward"][0] < 1.0 and traces[3].rewards["vmb_reward"][0] < 1.0
    # the same pooled env played all four; restoring the task again gives the source's state, byte for byte
    rollout = StreamForkToolEnv(**KW)
    rollout.reset(env_state=task.data.env_state)
    assert canonical(rollout.env.get_state()) == canonical(source)


def canonical(state: Any) -> bytes:
    """A state's JSON with sorted keys (pickle's bytes also depend on which values share one object)."""
    return orjson.dumps(state.to_json_data(), option=orjson.OPT_SORT_KEYS)


def _searcher(first: Any, query: str) -> Callable[[int, str], Any]:
    """Reply ``first`` (or plain text when None), plain text (skip) until a request, search it for ``query``, stop."""
    def script(turn: int, message: str) -> Any:
        if turn == 0 and first is not None:
            return first
        if message.startswith("[search_memory]"):
            return None
        if "Request at" in message:
            return _call("search_memory", {"query": query})
        return vf.AssistantMessage(content="nothing to keep here")
    return script


def test_writes_in_one_rollout_never_reach_the_next() -> None:
    env = load_stream_environment(**KW, fork_at="chunk", every=4)
    task = list(env.taskset)[1]
    source = load_state(task.data.env_state)
    secret = "the secret only one rollout wrote"
    writer = Player(_searcher(_call("store", {"text": secret}), secret))
    first = _run(env, task, writer)
    assert writer.shown[-1].startswith("[search_memory]") and secret in writer.shown[-1]  # its search found it
    reader = Player(_searcher(None, secret))
    second = _run(env, task, reader)  # the same pooled env, the next rollout of the group
    assert reader.shown[-1].startswith("[search_memory]") and not any(secret in shown for shown in reader.shown)
    assert first.info["start_state"] == second.info["start_state"] == state_digest(source)
    assert first.rewards["vmb_reward"][0] < second.rewards["vmb_reward"][0]  # it paid for its note
