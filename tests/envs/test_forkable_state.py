"""Forkable episodes: ``get_state``/``set_state`` round trips on both envs, refusals, pickling, the checker's
round trip (and a broken ``set_state`` it catches), and G forks of one stream state for group RL."""

from __future__ import annotations

import json
import pickle
from typing import Any

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_gym.envs.env_state import STATE_VERSION, EnvState
from vmb_gym.envs.fork import StreamForkToolEnv, fork, save_state, saved_state
from vmb_gym.envs.vehicle_mem import VehicleMemEnv
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError, StateError
from vmb_gym.testing import EnvContractError, _comparable, check_state_round_trip
from vmb_gym.vehicle import VehicleSimulator

MEM_KW: dict[str, Any] = {"files": [1, 2], "memory": "bm25"}
STREAM_KW: dict[str, Any] = {"files": [1], "window_days": 2}
FINISH = {"name": "finish", "arguments": {}}
SKIP = {"name": "skip", "arguments": {}}
MEM_ACTIONS: list[Any] = [
    {"name": "search_memory", "arguments": {"query": "seat heating", "top_k": 3}},
    {"name": "list_module_tools", "arguments": {"module_name": "seat"}},
    {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
    "not a call(",
    {"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", "temperature": 23}},
    [{"name": "carcontrol_window_set_open_degree", "arguments": {"window": "driver", "degree": 30}}, FINISH],
]


def _mem() -> VehicleMemEnv:
    return gym.make("VehicleMem-v0", **MEM_KW).unwrapped  # type: ignore[return-value]


def _stream() -> VehicleMemStreamEnv:
    return gym.make("VehicleMemStream-v0", **STREAM_KW).unwrapped  # type: ignore[return-value]


def _run(env: Any, actions: list[Any]) -> list[str]:
    """Each step's output as text (wall-clock figures left out), up to the end of the episode."""
    out = []
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        out.append(_comparable([obs, float(reward), terminated, truncated, info]))
        if terminated or truncated:
            break
    return out


def _stream_policy(info: dict[str, Any], i: int) -> Any:
    """A fixed, varied policy: notes, cited lines, skips; searches and finishes at requests."""
    if info.get("phase") == "write":
        lines = info.get("lines") or []
        if i % 3 == 0 and lines:
            return [{"name": "store", "arguments": {"line_ids": [lines[-1]["line_id"]]}}, SKIP]
        if i % 4 == 1:
            return {"name": "store", "arguments": {"text": f"note {i}", "people": ["Gary"]}}
        return SKIP
    if i % 3 == 0:
        return {"name": "search_memory", "arguments": {"query": "temperature"}}
    if i % 3 == 1:
        return {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 1}}
    return FINISH


def _drive(env: Any, info: dict[str, Any], start: int, steps: int) -> tuple[list[str], dict[str, Any]]:
    out = []
    for i in range(start, start + steps):
        obs, reward, terminated, truncated, info = env.step(_stream_policy(info, i))
        out.append(_comparable([obs, float(reward), terminated, truncated, info]))
        if terminated:
            break
    return out, info


def _entries(env: VehicleMemStreamEnv) -> list[tuple[Any, ...]]:
    return [(e.entry_id, e.text, e.status, e.line_ids, e.people, e.timestamp, e.superseded_by)
            for e in env.store.entries]


# ------------------------------------------------------------------------------------------ VehicleMem-v0
@pytest.mark.parametrize("k", [0, 2, 4])
def test_vehicle_mem_round_trip_at_several_points(k: int) -> None:
    env = _mem()
    env.reset(seed=5)
    for action in MEM_ACTIONS[:k]:
        env.step(action)
    state = env.get_state()
    blob = pickle.dumps(state)
    original = _run(env, MEM_ACTIONS[k:])
    assert json.loads(original[-1])[2] is True  # terminated: the final metrics are compared too
    assert "metrics" in json.loads(original[-1])[4]
    fresh = _mem()
    fresh.set_state(pickle.loads(blob))
    assert _run(fresh, MEM_ACTIONS[k:]) == original
    env.set_state(state)  # the same env, back in time
    assert _run(env, MEM_ACTIONS[k:]) == original
    # the next reset walks the same seeded task cycle
    assert env.reset()[0] == fresh.reset()[0]


def test_vehicle_mem_state_holds_the_car_the_memory_and_the_bookkeeping() -> None:
    env = _mem()
    env.reset(options={"task_id": "1_2"})
    for action in MEM_ACTIONS[:4]:
        env.step(action)
    state = env.get_state()
    data = state.data
    assert (state.version, state.env_id) == (STATE_VERSION, "VehicleMem-v0")
    assert data["task_id"] == "1_2" and data["steps"] == 4
    assert data["runtime"]["vehicle"]["seat"] == env.runtime.sim.module("seat").state
    assert data["runtime"]["memory"]["searches"] == 1 and data["runtime"]["memory"]["hits"]
    assert data["runtime"]["counters"]["invalid"] == 1  # the unreadable action
    assert data["runtime"]["discovered"] == ["seat"]
    assert data["messages"] == env.messages
    assert json.loads(json.dumps(state.to_json_data())) == state.to_json_data()  # plain JSON
    restored = _mem()
    restored.set_state(EnvState.from_json_data(json.loads(json.dumps(state.to_json_data()))))
    assert restored.get_state().to_json_data() == state.to_json_data()
    env.runtime.sim.call("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3})
    assert data["runtime"]["vehicle"]["seat"] != env.runtime.sim.module("seat").state  # a copy, not a view


def test_a_state_restores_into_an_env_that_never_reset() -> None:
    env = _mem()
    state = env.get_state()
    assert state.data["task_id"] is None
    other = _mem()
    other.reset(seed=1)
    other.set_state(state)
    obs, _, terminated, _, info = other.step(FINISH)  # the episode is not running
    assert terminated and "reset()" in info["action_error"]


# ------------------------------------------------------------------------------------------ refusals
def test_refusals_name_the_problem_and_leave_the_env_unchanged() -> None:
    env = _mem()
    env.reset(seed=0)
    env.step(MEM_ACTIONS[2])
    state = env.get_state()
    other = _mem()
    other.reset(seed=3)
    other.step(MEM_ACTIONS[4])
    before = other.get_state().to_json_data()

    wrong_version = state.to_json_data() | {"version": STATE_VERSION + 1}
    with pytest.raises(StateError, match=f"version {STATE_VERSION + 1}"):
        other.set_state(wrong_version)
    with pytest.raises(StateError, match="VehicleMemStream-v0"):
        _stream().set_state(state)
    with pytest.raises(StateError, match="same arguments"):
        gym.make("VehicleMem-v0", **MEM_KW, max_steps=5).unwrapped.set_state(state)
    with pytest.raises(StateError, match="same arguments"):  # another task set
        gym.make("VehicleMem-v0", files=[3], memory="bm25").unwrapped.set_state(state)
    malformed = state.to_json_data()
    del malformed["data"]["runtime"]["counters"]
    with pytest.raises(StateError, match="malformed"):
        other.set_state(malformed)
    unknown_task = state.to_json_data()
    unknown_task["data"]["task_id"] = "99_9"
    with pytest.raises(StateError, match="99_9"):
        other.set_state(unknown_task)
    with pytest.raises(StateError, match="a dict with version"):
        other.set_state("not a state")  # type: ignore[arg-type]
    assert issubclass(StateError, ConfigError)
    assert other.get_state().to_json_data() == before  # every refusal left it as it was
    assert json.loads(_run(other, [FINISH])[0])[2] is True


# ------------------------------------------------------------------------------------------ stream env
@pytest.mark.parametrize("k", [0, 3, 14, 19, 23])  # after reset, mid-chunk, mid-stream, at requests mid-way
def test_stream_round_trip_mid_stream_and_at_requests(k: int) -> None:
    env = _stream()
    _, info = env.reset(seed=0)
    _, info = _drive(env, info, 0, k)
    state = env.get_state()
    blob = pickle.dumps(state)
    original, _ = _drive(env, info, k, 400)
    assert json.loads(original[-1])[2] is True and "episode_stats" in json.loads(original[-1])[4]
    fresh = _stream()
    fresh.set_state(pickle.loads(blob))
    assert _entries(fresh) == _entries(_restored(state))
    assert _drive(fresh, info, k, 400)[0] == original
    env.set_state(state)
    assert _drive(env, info, k, 400)[0] == original


def _restored(state: EnvState) -> VehicleMemStreamEnv:
    env = _stream()
    env.set_state(state)
    return env


def test_stream_state_holds_the_store_the_policy_built() -> None:
    env = _stream()
    _, info = env.reset(seed=0)
    _, info = _drive(env, info, 0, 20)
    data = env.get_state().data
    assert data["pos"] == env._pos and data["steps"] == 20
    assert data["query"] is not None and data["query"]["steps"] == 2 and len(data["query_records"]) == 1
    assert data["query"]["runtime"]["memory"]["searches"] == 1 and data["query"]["runtime"]["vehicle"]["seat"]
    ops = [op["op"] for op in data["store_log"]]
    assert ops.count("store") == env._entries_written > 0
    restored = _restored(env.get_state())
    assert _entries(restored) == _entries(env)
    assert restored.episode_summary() == env.episode_summary()
    assert restored._seen.keys() == env._seen.keys()
    assert restored.get_state().to_json_data() == env.get_state().to_json_data()


def test_stream_update_and_delete_replay() -> None:
    env = _stream()
    _, info = env.reset(seed=0)
    line = info["lines"][0]["line_id"]
    _, _, _, _, info = env.step([{"name": "store", "arguments": {"line_ids": [line]}},
                                 {"name": "store", "arguments": {"text": "second"}},
                                 {"name": "update", "arguments": {"entry_id": "P1", "text": "revised"}},
                                 {"name": "delete", "arguments": {"entry_id": "P2"}}])
    assert info["action_error"] is None
    restored = _restored(env.get_state())
    assert _entries(restored) == _entries(env)
    assert [e.status for e in restored.store.entries] == ["superseded", "deleted", "active"]


# ------------------------------------------------------------------------------------------ the checker
@pytest.mark.parametrize("make", [_mem, _stream])
def test_checker_round_trip_passes(make: Any) -> None:
    check_state_round_trip(make, seed=0, steps=8)


class ForgetsTheCar(VehicleMemEnv):
    """A broken set_state: the car of the saved episode is not restored."""

    def set_state(self, state: Any) -> None:
        super().set_state(state)
        if self._query is not None:
            self._runtime.sim = VehicleSimulator()


class ForgetsTheStore(VehicleMemStreamEnv):
    """A broken set_state: the policy's writes are not replayed."""

    def _replay_write(self, op: Any) -> None:
        return None


def test_checker_catches_a_set_state_that_forgets_the_car() -> None:
    with pytest.raises(EnvContractError, match="vehicle"):
        check_state_round_trip(lambda: ForgetsTheCar(**MEM_KW), seed=0, steps=8)


def test_checker_catches_a_set_state_that_forgets_the_store() -> None:
    with pytest.raises(EnvContractError, match="continue like the original"):
        check_state_round_trip(lambda: ForgetsTheStore(**STREAM_KW), seed=0, steps=8)


# ------------------------------------------------------------------------------------------ group forks
def test_g_forks_start_from_identical_stores_and_diverge_only_by_their_actions() -> None:
    env = _stream()
    _, info = env.reset(seed=0)
    _, info = _drive(env, info, 0, 3)
    assert info["phase"] == "write" and env._entries_written > 0  # mid-stream, after writes
    group = fork(env, n=4)
    assert len(group) == 4 and all(g is not env for g in group)
    assert all(_entries(g) == _entries(env) for g in group)
    assert all(g.get_state().to_json_data() == env.get_state().to_json_data() for g in group)
    for i, g in enumerate(group[:3]):
        g.step({"name": "store", "arguments": {"text": f"fork {i}"}})
    base = _entries(env)
    for i, g in enumerate(group[:3]):
        assert _entries(g)[:-1] == base and _entries(g)[-1][1] == f"fork {i}"
    assert _entries(group[3]) == base  # untouched
    same_a, same_b = fork(env, n=2)
    assert _drive(same_a, info, 3, 400)[0] == _drive(same_b, info, 3, 400)[0]
    with pytest.raises(ConfigError, match="positive integer"):
        fork(env, n=0)


def test_stream_fork_tool_env_rolls_a_group_from_one_state() -> None:
    env = _stream()
    _, info = env.reset(seed=0)
    for i in range(40):
        if info.get("phase") == "query":
            break
        lines = info.get("lines") or []
        cite = {"line_ids": [lines[0]["line_id"]]} if lines else {}
        _, _, _, _, info = env.step([{"name": "store", "arguments": {"text": f"note {i}", **cite}}, SKIP])
    assert info["phase"] == "query"
    state_id = save_state(env.get_state())
    assert saved_state(state_id).data["pos"] == env._pos
    group = [StreamForkToolEnv(**STREAM_KW) for _ in range(3)]
    firsts = [g.reset(state_id=state_id, prompt="ignored") for g in group]
    assert firsts[0] == firsts[1] == firsts[2] and group[0].last_info["task_id"] == info["task_id"]
    assert all(_entries(g.env) == _entries(env) for g in group)
    hits = [g.search_memory("note") for g in group]
    assert hits[0] == hits[1] == hits[2]  # identical stores answer alike
    group[0].call_vehicle("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})
    group[1].call_vehicle("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})
    group[2].call_vehicle("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 0})
    rewards = [g.get_reward() for g in group]  # each rollout ends with its request
    assert rewards[0] == rewards[1]
    expected = env.step([{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
                         FINISH])[1]
    assert rewards[0] == pytest.approx(expected)
    assert group[0].finish().startswith('{"success": false')  # the rollout is over
    with pytest.raises(StateError, match="unknown state_id"):
        StreamForkToolEnv(**STREAM_KW).reset(state_id="nope")
    with pytest.raises(ConfigError, match="until"):
        StreamForkToolEnv(until="forever", **STREAM_KW)


def test_stream_fork_tool_env_tools_render_for_trl() -> None:
    """TRL exposes every public function but reset/get_reward as a tool: each renders a JSON schema."""
    import inspect

    get_json_schema = pytest.importorskip("transformers.utils").get_json_schema
    names = [n for n, _ in inspect.getmembers(StreamForkToolEnv, predicate=inspect.isfunction)
             if n not in ("reset", "get_reward") and not n.startswith("_")]
    assert set(names) == {"list_module_tools", "search_memory", "call_vehicle", "finish", "store", "update", "delete",
                          "skip"}
    probe = StreamForkToolEnv(**STREAM_KW)
    schemas = {n: get_json_schema(getattr(probe, n))["function"] for n in names}
    assert schemas["store"]["parameters"]["properties"]["line_ids"]["type"] == "array"
    assert schemas["update"]["parameters"]["required"] == ["entry_id", "text"]


def test_layered_store_replays_its_experiences() -> None:
    """A store that learns from finished requests (``layered``): the experiences are writes, replayed too."""
    def make() -> VehicleMemStreamEnv:
        return gym.make("VehicleMemStream-v0", store="layered", **STREAM_KW).unwrapped  # type: ignore[return-value]

    env = make()
    _, info = env.reset(seed=0)
    _, info = _drive(env, info, 0, 23)
    state = env.get_state()
    assert [op["op"] for op in state.data["store_log"]].count("experience") == 2
    fresh = make()
    fresh.set_state(state)
    assert [e.exp_id for e in fresh.store.agent_experiences] == [e.exp_id for e in env.store.agent_experiences]
    assert len(env.store.agent_experiences) == 1
    assert _drive(fresh, info, 23, 400)[0] == _drive(env, info, 23, 400)[0]


def test_crafted_states_are_refused_before_they_reach_the_car_or_the_store() -> None:
    env = _mem()
    env.reset(seed=0)
    env.step(MEM_ACTIONS[2])
    state = env.get_state().to_json_data()
    seat = state["data"]["runtime"]["vehicle"]["seat"]
    field = next(iter(seat))
    for bad, match in (({**seat, "no_such_field": 1}, "fields of vehicle module seat"),
                       ({**seat, field: "a string"}, f"{field}=")):
        crafted = json.loads(json.dumps(state))
        crafted["data"]["runtime"]["vehicle"]["seat"] = bad
        with pytest.raises(StateError, match=match):
            _mem().set_state(crafted)

    stream = _stream()
    _, info = stream.reset(seed=0)
    _, info = _drive(stream, info, 0, 3)
    crafted = stream.get_state().to_json_data()
    crafted["data"]["store_log"].append({"op": "store", "pos": 0, "entry_id": "P9", "text": "from the future",
                                         "people": [], "setting": None, "condition": None, "when": None,
                                         "line_ids": [10**6]})
    target = _stream()
    target.reset(seed=1)
    before = target.get_state().to_json_data()
    with pytest.raises(StateError, match="not streamed"):
        target.set_state(crafted)
    assert target.get_state().to_json_data() == before
