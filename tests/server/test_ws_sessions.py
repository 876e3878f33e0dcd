"""The lean ``/ws`` endpoint speaks OpenEnv's protocol: the same payloads as OpenEnv's serialiser, its error codes."""

from __future__ import annotations

import json
import os

import orjson
from websockets.sync.client import connect

from vmb_gym.server.app import mcp_unavailable
from vmb_gym.server.environment import EnvPool, VehicleMemEnvironment
from vmb_gym.server.models import VmbAction
from vmb_gym.server.openenv_api import serialize_observation
from vmb_gym.server.ws_sessions import WORKER_HEADER, dumps, observation_payload

from .conftest import TOKEN


def _raw(url: str):
    return connect(url.replace("http", "ws") + "/ws", additional_headers={"Authorization": f"Bearer {TOKEN}"})


def _ask(ws, message: dict) -> dict:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=10))


def test_payloads_equal_openenv_serialisation() -> None:
    pool = EnvPool("VehicleMem-v0", ["default"], ["bm25"])
    lean, reference = VehicleMemEnvironment(pool), VehicleMemEnvironment(pool)
    pairs = [(lean.reset_fields(task_id="2_3"), reference.reset(task_id="2_3"))]
    for action in (VmbAction(name="search_memory", arguments={"query": "seat heating", "top_k": 2}),
                   VmbAction(name="carcontrol_seat_set_heating_level", arguments={"seat": "driver", "level": 3}),
                   VmbAction(name="no_such_tool"), VmbAction(name="finish")):
        pairs.append((lean.step_fields(action), reference.step(action)))
    for fields, observation in pairs:
        wire = orjson.loads(dumps({"type": "observation", "data": observation_payload(fields)}))
        expected = json.loads(json.dumps(serialize_observation(observation)))
        for payload in (wire["data"], expected):  # a wall-clock figure: differs between any two runs
            payload["observation"]["info"].get("episode_stats", {}).pop("memory_search_seconds", None)
        assert wire["data"] == expected
    assert wire["data"]["done"] and wire["data"]["reward"] == reference.state.reward
    assert set(wire["data"]["observation"]["info"]) >= {"metrics", "reward_components"}
    lean.close()
    reference.close()


def test_dumps_writes_non_json_keys_and_values_as_the_env_info_does() -> None:
    """Plain JSON goes through orjson without options; an int key or a set still encodes (as ``str``)."""
    plain = {"type": "observation", "data": {"text": "caf\u00e9 \"x\"", "reward": 0.5, "done": True, "n": [1, None]}}
    assert dumps(plain) == json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
    assert orjson.loads(dumps({"info": {3: "a", "s": {"x"}}})) == {"info": {"3": "a", "s": "{'x'}"}}


def test_state_mcp_and_envelope_errors(server_url: str) -> None:
    with _raw(server_url) as ws:
        assert ws.response.headers[WORKER_HEADER] == str(os.getpid())  # the test server runs in this process
        first = _ask(ws, {"type": "reset", "data": {"task_id": "1_0", "episode_id": "ep-7"}})
        assert first["type"] == "observation" and first["data"]["done"] is False
        state = _ask(ws, {"type": "state"})
        assert state["type"] == "state"
        assert (state["data"]["episode_id"], state["data"]["task_id"], state["data"]["done"]) == ("ep-7", "1_0", False)
        rpc = _ask(ws, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}})
        assert rpc["type"] == "mcp" and rpc["data"]["id"] == 3 and rpc["data"]["error"]["code"] == -32601
        rpc = _ask(ws, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}})
        if mcp_unavailable() is None:
            assert rpc["data"]["id"] == 4 and len(rpc["data"]["result"]["tools"]) == 116  # test_mcp.py: more
        else:  # no mcp SDK 2.x: the reply says what to install
            assert "pip install 'mcp>=2'" in rpc["data"]["error"]["message"]
        for bad in ({"type": "step", "data": {"name": "finish"}, "extra": 1}, {"type": "step"},
                    {"type": "reset", "data": [1]}):
            assert _ask(ws, bad)["data"]["code"] == "VALIDATION_ERROR", bad
        ws.send("[1, 2]")
        assert json.loads(ws.recv(timeout=10))["data"]["code"] == "VALIDATION_ERROR"
        final = _ask(ws, {"type": "step", "data": {"name": "finish"}})
        assert final["data"]["done"] is True and final["data"]["observation"]["step"] == 1
        assert _ask(ws, {"type": "state"})["data"]["reward"] == final["data"]["reward"]
        ws.send(json.dumps({"type": "close"}))


def test_batch_frames_carry_isolated_sessions(server_url: str) -> None:
    import gymnasium as gym

    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    qa, qb = local.tasks.queries[0], local.tasks.queries[7]

    def batch(ws, *items: dict) -> list[dict]:
        reply = _ask(ws, {"type": "batch", "data": {"messages": list(items)}})
        assert reply["type"] == "batch" and [r["session"] for r in reply["data"]["replies"]] == [
            i.get("session") for i in items]
        return reply["data"]["replies"]

    with _raw(server_url) as ws:
        first = batch(ws, {"session": "a", "type": "reset", "data": {"task_id": qa.task_id}},
                      {"session": 2, "type": "reset", "data": {"task_id": qb.task_id}})
        assert [r["data"]["observation"]["task_id"] for r in first] == [qa.task_id, qb.task_id]
        gold = [{"session": "a", "type": "step", "data": {"name": c.name, "arguments": dict(c.arguments)}}
                for c in qa.gold_calls]
        assert all(r["type"] == "observation" for r in batch(ws, *gold))
        a_final, b_final, bad, closed = batch(
            ws, {"session": "a", "type": "step", "data": {"name": "finish"}},
            {"session": 2, "type": "step", "data": {"name": "finish"}},
            {"session": 2, "type": "step", "data": {"name": "finish", "bogus": 1}},
            {"session": "a", "type": "close"})
        local.reset(options={"task_id": qb.task_id})
        assert b_final["data"]["reward"] == local.step({"name": "finish", "arguments": {}})[1]
        assert a_final["data"]["reward"] == 1.0 and a_final["data"]["observation"]["task_id"] == qa.task_id
        assert bad["data"]["code"] == "VALIDATION_ERROR" and closed["type"] == "closed"
        assert batch(ws, {"session": "a", "type": "step", "data": {"name": "finish"}})[0]["data"]["code"] == \
            "EXECUTION_ERROR"  # a closed session is a fresh one: no episode until reset
        reply = _ask(ws, {"type": "batch", "data": {"messages": [{"type": "state"}]}})
        assert reply["data"]["replies"][0]["data"]["code"] == "VALIDATION_ERROR"  # no session key
        assert _ask(ws, {"type": "batch", "data": {}})["data"]["code"] == "VALIDATION_ERROR"
        assert _ask(ws, {"type": "reset", "data": {"task_id": "1_0"}})["type"] == "observation"  # its own session
