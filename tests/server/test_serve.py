"""``vmb serve``: episodes equal the in-process env's, sessions isolated, bad requests answered, server alive."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import gymnasium as gym
import pytest
from websockets.sync.client import connect

import vmb_gym  # noqa: F401
from vmb_gym.server.app import ServeConfig
from vmb_gym.server.client import ServerError, VmbEnvClient
from vmb_gym.server.models import VmbAction

from .conftest import TOKEN, running_server


def _client(url: str, token: str | None = TOKEN):
    return VmbEnvClient(url, token=token).sync()


def _raw(url: str, token: str = TOKEN):
    return connect(url.replace("http", "ws") + "/ws", additional_headers={"Authorization": f"Bearer {token}"})


def _alive(url: str) -> None:
    """The server still answers: a fresh session runs a step."""
    with _client(url) as env:
        assert env.reset(task_id="1_1").observation.task_id == "1_1"
        assert "[list_module_tools]" in env.step(VmbAction(name="list_module_tools",
                                                           arguments={"module_name": "seat"})).observation.text


def test_client_episode_equals_in_process_env(server_url: str) -> None:
    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    queries = local.tasks.queries[:6]
    with _client(server_url) as env:
        for q in queries:
            first = env.reset(task_id=q.task_id)
            obs, _ = local.reset(options={"task_id": q.task_id})
            assert first.observation.text == obs and first.observation.task_id == q.task_id
            actions = [{"name": "search_memory", "arguments": {"query": q.text[:40], "top_k": 3}}]
            actions += [{"name": c.name, "arguments": dict(c.arguments)} for c in q.gold_calls]
            for action in [*actions, {"name": "finish", "arguments": {}}]:
                remote = env.step(VmbAction(**action))
                text, reward, terminated, truncated, info = local.step(action)
                assert remote.observation.text == text
                assert remote.done == (terminated or truncated)
            assert remote.reward == pytest.approx(reward)
            assert remote.observation.info["metrics"] == json.loads(json.dumps(info["metrics"]))
            assert set(info) <= set(remote.observation.info)  # the final info travels whole
        assert env.state().task_id == queries[-1].task_id


def test_sessions_are_isolated(server_url: str) -> None:
    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    qa, qb = local.tasks.queries[0], local.tasks.queries[7]
    with _client(server_url) as a, _client(server_url) as b:
        assert a.reset(task_id=qa.task_id).observation.task_id == qa.task_id
        assert b.reset(task_id=qb.task_id).observation.task_id == qb.task_id
        for call in qa.gold_calls:  # A changes its car; B's car stays the official initial state
            a.step(VmbAction(name=call.name, arguments=dict(call.arguments)))
        b_final = b.step(VmbAction(name="finish"))
        local.reset(options={"task_id": qb.task_id})
        assert b_final.reward == pytest.approx(local.step({"name": "finish", "arguments": {}})[1])
        assert b_final.observation.task_id == qb.task_id and b.state().task_id == qb.task_id
        a_final = a.step(VmbAction(name="finish"))
        assert a_final.reward == pytest.approx(1.0) and a.state().task_id == qa.task_id
        assert qb.text not in json.dumps(a_final.observation.info) and qa.text not in json.dumps(
            b_final.observation.info
        )


def test_reset_picks_memory_within_the_served_set(server_url: str) -> None:
    with _client(server_url) as env:
        assert env.reset(task_id="1_0", memory="gold").observation.info["memory"] == "gold"
        with pytest.raises(ServerError, match="not served here"):
            env.reset(task_id="1_0", memory="mem0")
        with pytest.raises(ServerError, match="not served here"):
            env.reset(data="/etc")
        assert env.reset(task_id="1_0").observation.info["memory"] == "bm25"


def test_token_is_enforced(server_url: str) -> None:
    for token in (None, "wrong"):
        with pytest.raises(ConnectionError, match="403"):
            _client(server_url, token=token).connect()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(server_url + "/health", timeout=5)
    assert err.value.code == 401 and "bearer token" in err.value.read().decode()
    ok = urllib.request.Request(server_url + "/health", headers={"Authorization": f"Bearer {TOKEN}"})
    assert json.loads(urllib.request.urlopen(ok, timeout=5).read())["status"] == "healthy"
    _alive(server_url)


def test_bad_requests_get_errors_and_the_session_goes_on(server_url: str) -> None:
    big = {"type": "step", "data": {"name": "x", "arguments": {"a": "b" * 100_000}}}
    bad = [
        ("{not json", "INVALID_JSON"),
        (json.dumps({"type": "step", "data": {"name": "finish"}}), "EXECUTION_ERROR"),  # step before reset
        (json.dumps({"type": "step", "data": {}}), "VALIDATION_ERROR"),
        (json.dumps({"type": "launch"}), "UNKNOWN_TYPE"),
        (json.dumps({"type": "reset", "data": {"task_id": "99_99"}}), "EXECUTION_ERROR"),
        (json.dumps({"type": "step", "data": {"name": "finish", "text": "finish()"}}), "VALIDATION_ERROR"),
        (json.dumps({"type": "step", "data": {"name": "finish", "bogus": 1}}), "VALIDATION_ERROR"),
        (json.dumps({"type": "step", "data": {"name": "finish", "arguments": [1]}}), "VALIDATION_ERROR"),
        (json.dumps(big), "PAYLOAD_TOO_LARGE"),
    ]
    with _raw(server_url) as ws:
        for message, code in bad:
            ws.send(message)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "error" and reply["data"]["code"] == code, (message[:60], reply)
            if message.startswith('{"type": "reset"'):
                assert "unknown task_id" in reply["data"]["message"]
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "1_0"}}))
        assert json.loads(ws.recv(timeout=10))["data"]["observation"]["task_id"] == "1_0"
        ws.send(json.dumps({"type": "step", "data": {"name": "no_such_tool"}}))  # an env-level mistake
        step = json.loads(ws.recv(timeout=10))["data"]
        assert step["observation"]["info"]["action_error"] and not step["done"]
    request = urllib.request.Request(server_url + "/step", data=json.dumps(big).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=5)
    assert err.value.code == 413
    _alive(server_url)


def test_timeout_and_capacity() -> None:
    config = ServeConfig(data=("default",), memory=("none",), max_sessions=2, session_timeout=3.0)
    with running_server(config) as url:
        with _client(url, token=None) as a, _client(url, token=None) as b:
            a.reset(task_id="1_0")
            b.reset(task_id="1_0")
            with _raw(url) as third:  # over --max-sessions
                reply = json.loads(third.recv(timeout=10))
                assert reply["data"]["code"] == "CAPACITY_REACHED" and reply["data"]["max_sessions"] == 2
            time.sleep(3.3)
            with _client(url, token=None) as late:  # a and b are idle past the timeout: their slots are free
                assert late.reset(task_id="1_1").observation.task_id == "1_1"
            with pytest.raises(ServerError, match="session timeout"):
                a.step(VmbAction(name="finish"))
        with _client(url, token=None) as fresh:
            assert fresh.reset(task_id="1_2").observation.task_id == "1_2"


def test_workers_must_be_positive() -> None:
    from vmb_gym.errors import ConfigError

    with pytest.raises(ConfigError, match="--workers must be at least 1, got 0"):
        ServeConfig(workers=0)
    assert ServeConfig(workers=2).workers == 2


def test_freeze_startup_heap_moves_live_objects_out_of_the_collector() -> None:
    import gc

    from vmb_gym.server.app import freeze_startup_heap

    before = gc.get_freeze_count()
    try:
        kept = [{"n": k} for k in range(1000)]  # alive at "start-up"
        freeze_startup_heap()
        assert gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()  # the test process is not a server: hand them back
