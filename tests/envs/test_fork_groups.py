"""Group starts for GRPO on the stream env: :func:`fork_rows` walks a timeline once (random writes before the
fork points), TRL's own sampler repeats each row G times, and the G rollouts of a group restore byte-identical
states; equal actions give equal rewards; a sibling's writes never leak; the docs' examples run."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import orjson
import pytest

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_gym.envs.fork import (
    ForkPoint,
    StreamForkToolEnv,
    cite_all,
    closing_action,
    fork_points,
    fork_rows,
    load_state,
    skip_all,
    state_digest,
)
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError, StateError
from vmb_gym.memory.tokens import count_tokens

KW: dict[str, Any] = {"files": [1], "window_days": 2, "memory_cost": 0.001}
SKIP = {"name": "skip", "arguments": {}}
FINISH = {"name": "finish", "arguments": {}}
SEAT = {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}}
G = 4
NOTE = "same note in both rollouts"
DOC = Path(__file__).resolve().parents[2] / "docs" / "streaming.md"


def _stream() -> VehicleMemStreamEnv:
    return gym.make("VehicleMemStream-v0", **KW).unwrapped  # type: ignore[return-value]


def random_writer(seed: int) -> Any:
    """Random writes: some streamed lines cited, random notes, random request answers."""
    rng = random.Random(seed)

    def write(obs: str, info: dict[str, Any]) -> Any:
        if info.get("phase") != "write":
            return rng.choice([FINISH, [SEAT, FINISH]])
        calls: list[Any] = [{"name": "store", "arguments": {"line_ids": [ln["line_id"]]}}
                            for ln in info.get("lines") or [] if rng.random() < 0.4]
        if rng.random() < 0.5:
            calls.append({"name": "store", "arguments": {"text": f"note {rng.random():.6f}", "people": ["Gary"]}})
        return [*calls, SKIP]

    return write


def _entries(env: VehicleMemStreamEnv) -> list[tuple[Any, ...]]:
    return [(e.entry_id, e.text, e.status, e.line_ids, e.people) for e in env.store.entries]


def _same_actions(rollout: StreamForkToolEnv) -> float:
    """A fixed continuation: one note, skip to the request, make its gold calls, leave it open (get_reward ends it)."""
    rollout.store(text=NOTE)
    while rollout.phase == "write" and not rollout.over:
        rollout.skip()
    query = next(q for q in rollout.env.tasks.queries if q.task_id == rollout.last_info["task_id"])
    rollout.search_memory("seat heating")
    for call in query.gold_calls:
        rollout.call_vehicle(call.name, dict(call.arguments))
    return rollout.get_reward()


def _closed_out(state: Any) -> float:
    """The return of a continuation that only closes items (skip, finish) up to the end of the next request."""
    env = _stream()
    env.set_state(state)
    total, phase = 0.0, "write" if state.data["query"] is None else "query"
    while True:
        _, reward, terminated, _, info = env.step(closing_action(phase))
        total += float(reward)
        phase = info.get("phase", phase)
        if terminated or "query_metrics" in info:
            return total


def test_trl_groups_start_byte_identical_and_siblings_stay_apart() -> None:
    datasets = pytest.importorskip("datasets")
    RepeatSampler = pytest.importorskip("trl.trainer.utils").RepeatSampler
    rows = fork_rows(_stream(), random_writer(7), at="chunk", every=4)
    states = [load_state(r["env_state"]) for r in rows]
    assert len(rows) >= 3 and all(s.data["query"] is None for s in states)  # mid-stream, history phase
    assert len({len(s.data["store_log"]) for s in states}) > 1 and states[-1].data["store_log"]  # random writes
    dataset = datasets.Dataset.from_list(rows)  # what GRPOTrainer(train_dataset=...) holds
    order = list(RepeatSampler(dataset, mini_repeat_count=G, batch_size=len(rows), shuffle=True, seed=0))
    pool = [StreamForkToolEnv(**KW) for _ in range(G)]  # TRL's per-rollout instances, reused across groups
    for start in range(0, len(order), G):
        group = order[start:start + G]
        assert len(set(group)) == 1  # one row per group, repeated G times
        row, source = dataset[group[0]], states[group[0]]
        firsts = [env.reset(**row) for env in pool]
        blobs = {orjson.dumps(env.env.get_state().to_json_data(), option=orjson.OPT_SORT_KEYS) for env in pool}
        assert blobs == {orjson.dumps(source.to_json_data(), option=orjson.OPT_SORT_KEYS)}  # byte for byte
        assert len(set(firsts)) == 1 and firsts[0] == source.data["last_obs"]
        assert all(_entries(env.env) == _entries(pool[0].env) for env in pool)
        base = _entries(pool[0].env)
        rewards = [_same_actions(pool[0]), _same_actions(pool[1])]
        assert rewards[0] == rewards[1] == pytest.approx(1.0 - KW["memory_cost"] * count_tokens(NOTE))  # gold calls
        pool[2].store(text="secret only rollout 2 wrote")  # a sibling that writes another memory
        assert _entries(pool[3].env) == base  # ... never reaches the others
        assert pool[3].get_reward() == pytest.approx(_closed_out(source))  # left open: closed out
        pool[2].get_reward()  # next group: the instance that wrote the secret restores cleanly


def test_equal_writes_before_the_fork_points_give_equal_states_and_digests() -> None:
    a = list(fork_points(_stream(), random_writer(3), at="request", seed=0))
    b = list(fork_points(_stream(), random_writer(3), at="request", seed=0))
    c = list(fork_points(_stream(), random_writer(4), at="request", seed=0))
    assert [p.id for p in a] == [p.id for p in b] == [p.id for p in c] and len(a) == 9
    assert [state_digest(p.state) for p in a] == [state_digest(p.state) for p in b]
    assert [state_digest(p.state) for p in a] != [state_digest(p.state) for p in c]  # another writer's memory
    point = a[-1]
    assert isinstance(point, ForkPoint) and point.phase == "query" and point.task_id == point.state.data["query"][
        "runtime"]["task_id"]
    assert point.row()["prompt"][0]["content"] == point.instructions and "store(" in point.instructions
    rollout = StreamForkToolEnv(**KW)
    assert rollout.reset(env_state=point.row()["env_state"]) == point.observation and rollout.phase == "query"
    assert state_digest(rollout.env.get_state()) == state_digest(point.state)


def test_writers_and_refusals() -> None:
    stored = list(fork_points(_stream(), cite_all, at="request", seed=0))[0].state
    empty = list(fork_points(_stream(), skip_all, at="request", seed=0))[0].state
    assert [op["op"] for op in stored.data["store_log"]] and not empty.data["store_log"]
    assert len(fork_rows(_stream(), skip_all, at="request", every=4)) == 3  # 9 requests: the 1st, 5th, 9th
    for kwargs, match in (({"at": "anywhere"}, "at must be"), ({"every": 0}, "every must"),
                          ({"episodes": 0}, "episodes must")):
        with pytest.raises(ConfigError, match=match):
            fork_rows(_stream(), **kwargs)
    with pytest.raises(ConfigError, match="VehicleMemStream-v0"):
        fork_points(gym.make("VehicleMem-v0", files=[1]))
    with pytest.raises(StateError, match="JSON text"):
        StreamForkToolEnv(**KW).reset(env_state="{not json")
    as_float = StreamForkToolEnv(**{**KW, "window_days": 2.0})  # what a config that parses numbers as floats builds
    as_float.reset(env_state=stored.to_json_data())
    assert state_digest(as_float.env.get_state()) == state_digest(stored)
    other = StreamForkToolEnv(files=[1], window_days=3)
    with pytest.raises(StateError, match="same arguments"):
        other.reset(env_state=stored.to_json_data())


def _section_code(title: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_docs_examples_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("verifiers.v1")
    pytest.importorskip("datasets")
    monkeypatch.syspath_prepend(str(DOC.parents[1] / "environments" / "vmb_vehiclemem"))  # when not installed
    blocks = _section_code("Group rollouts from one state")
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "True" in out and "False" not in out
