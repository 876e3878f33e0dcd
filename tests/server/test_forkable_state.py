"""``get_state`` / ``set_state`` over ``vmb serve``, through the real client: a restored session's future
equals the original's, by the state's JSON and by its server-side id; refusals leave the session going."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from vmb_gym.server.app import ServeConfig
from vmb_gym.server.client import ServerError, VmbEnvClient
from vmb_gym.server.models import VmbAction

from .conftest import TOKEN, running_server

PREFIX = [{"name": "search_memory", "arguments": {"query": "seat heating", "top_k": 3}},
          {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}}]
REST = [{"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", "temperature": 24}},
        {"name": "search_memory", "arguments": {"query": "window", "top_k": 2}},
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}},
        {"name": "finish", "arguments": {}}]


def _client(url: str, token: str | None = TOKEN) -> Any:
    return VmbEnvClient(url, token=token).sync()


def _future(env: Any, actions: list[dict[str, Any]]) -> list[Any]:
    out = []
    for action in actions:
        r = env.step(VmbAction(**action))
        info = {k: v for k, v in r.observation.info.items() if k != "episode_stats"}  # search seconds vary
        stats = r.observation.info.get("episode_stats") or {}
        out.append([r.observation.text, r.reward, r.done, r.observation.step, info,
                    {k: v for k, v in stats.items() if "seconds" not in k}])
    return out


def test_restored_session_continues_like_the_original(server_url: str) -> None:
    with _client(server_url) as a, _client(server_url) as b, _client(server_url) as c:
        a.reset(task_id="1_2")
        for action in PREFIX:
            a.step(VmbAction(**action))
        saved = a.get_env_state()
        state = saved["state"]
        assert json.loads(json.dumps(state)) == state  # plain JSON
        assert state["env"]["version"] == 1 and state["env"]["env_id"] == "VehicleMem-v0"
        assert state["env"]["data"]["runtime"]["vehicle"]["seat"]  # the heated seat travels
        assert state["session"]["step_count"] == 2 and state["session"]["task_id"] == "1_2"
        original = _future(a, REST)
        assert original[-1][2] is True and "metrics" in original[-1][4]

        restored = b.set_env_state(state)  # another session, from the JSON
        assert restored.step_count == 2 and restored.task_id == "1_2" and not restored.done
        assert _future(b, REST) == original
        c.reset(task_id="1_0")  # a session mid-way in another task: forked by id
        assert c.set_env_state(state_id=saved["state_id"]).task_id == "1_2"
        assert _future(c, REST) == original
        a.set_env_state(state)  # the same session, back in time
        assert _future(a, REST) == original


def test_forks_diverge_only_by_their_actions(server_url: str) -> None:
    with _client(server_url) as a, _client(server_url) as b:
        a.reset(task_id="1_1")
        a.step(VmbAction(**PREFIX[1]))
        state_id = a.get_env_state(include_state=False)["state_id"]
        b.set_env_state(state_id=state_id)
        one = a.step(VmbAction(name="carcontrol_seat_set_heating_level", arguments={"seat": "driver", "level": 1}))
        two = b.step(VmbAction(name="carcontrol_seat_set_heating_level", arguments={"seat": "driver", "level": 3}))
        assert one.observation.text != two.observation.text
        assert a.get_env_state()["state"]["env"]["data"]["runtime"]["vehicle"]["seat"] != \
            b.get_env_state()["state"]["env"]["data"]["runtime"]["vehicle"]["seat"]


def test_refused_states_leave_the_session_going(server_url: str) -> None:
    with _client(server_url) as env:
        with pytest.raises(ServerError, match="no episode"):
            env.get_env_state()
        env.reset(task_id="1_3")
        env.step(VmbAction(**PREFIX[1]))
        state = env.get_env_state()["state"]
        wrong_version = copy.deepcopy(state)
        wrong_version["env"]["version"] = 99
        with pytest.raises(ServerError, match="version 99"):
            env.set_env_state(wrong_version)
        wrong_env = copy.deepcopy(state)
        wrong_env["env"]["env_id"] = "VehicleMemStream-v0"
        with pytest.raises(ServerError, match="VehicleMemStream-v0"):
            env.set_env_state(wrong_env)
        broken = copy.deepcopy(state)
        del broken["env"]["data"]["runtime"]["vehicle"]
        with pytest.raises(ServerError, match="malformed"):
            env.set_env_state(broken)
        with pytest.raises(ServerError, match="unknown state_id"):
            env.set_env_state(state_id="nope")
        with pytest.raises(ServerError, match="set_state needs"):
            env.set_env_state({"env": "x"})
        with pytest.raises(ServerError, match="not served"):
            env.set_env_state({**state, "session": {**state["session"], "memory": "dense"}})
        # the session is where it was: one step later, the car holds the seat call of before
        assert env.state().step_count == 1
        final = env.step(VmbAction(name="finish"))
        assert final.done and final.observation.info["episode_stats"]["tool_executions"] == 1


def test_stream_session_forks_mid_stream() -> None:
    config = ServeConfig(env_id="VehicleMemStream-v0", data=("default",), memory=("bm25",), token=None,
                         max_sessions=4, max_request_bytes=1024 * 1024)
    with running_server(config) as url, _client(url, token=None) as a, _client(url, token=None) as b:
        first = a.reset(scenario_id=1)
        line = first.observation.info["lines"][0]["line_id"]
        a.step(VmbAction(name="store", arguments={"line_ids": [line], "text": "Gary likes seat heating 2"}))
        saved = a.get_env_state()
        assert [op["op"] for op in saved["state"]["env"]["data"]["store_log"]] == ["store"]
        rest = [{"name": "store", "arguments": {"text": "a second note"}}, {"name": "skip", "arguments": {}},
                {"name": "skip", "arguments": {}}]
        original = _future(a, rest)
        b.set_env_state(saved["state"])
        assert _future(b, rest) == original
