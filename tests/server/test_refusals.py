"""What a refused request tells its sender: a session over ``--max-sessions``, OpenEnv's stateless HTTP
``/step`` and a ``/reset`` the env refuses; the server goes on after each."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

import pytest

from vmb_gym.errors import VmbError
from vmb_gym.server.app import ServeConfig
from vmb_gym.server.client import ServerError, SessionRefused, VmbEnvClient
from vmb_gym.server.models import VmbAction

from .conftest import TOKEN, running_server


def test_a_session_over_max_sessions_raises_the_servers_capacity_message() -> None:
    with running_server(ServeConfig(memory=("none",), max_sessions=1)) as url:
        refused_client = VmbEnvClient(url, token=None).sync()
        with VmbEnvClient(url, token=None).sync() as first:
            first.reset(task_id="1_0")
            with pytest.raises(SessionRefused) as err:
                refused_client.reset(task_id="1_0")
            text = str(err.value)
            assert "Server at capacity: 1/1 sessions active" in text, text
            assert "retry later" in text and "--max-sessions" in text and "refused the session" in text
            assert err.value.code == "CAPACITY_REACHED" and err.value.data["max_sessions"] == 1
            assert isinstance(err.value, ServerError) and isinstance(err.value, ConnectionError)
            assert isinstance(err.value, VmbError)
            assert first.step(VmbAction(name="finish")).done  # the open session is untouched
        # the first session closed: the same client's next call opens a session
        try:
            assert refused_client.reset(task_id="1_1").observation.task_id == "1_1"
        finally:
            refused_client.close()


def _post(url: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return int(reply.status), json.loads(reply.read())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return int(e.code), json.loads(raw)
        except ValueError:  # a bare 500 has no JSON body
            return int(e.code), {"raw": raw.decode(errors="replace")}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_http_step_says_the_routes_are_stateless_and_names_ws_and_mcp(server_url: str) -> None:
    logged, server_log = _Records(), logging.getLogger("uvicorn.error")  # where uvicorn logs a crashed request
    server_log.addHandler(logged)
    try:
        _refused_over_http(server_url)
    finally:
        server_log.removeHandler(logged)
    assert not [r.getMessage() for r in logged.records if r.exc_info]  # refused, not crashed: no traceback
    with VmbEnvClient(server_url, token=TOKEN).sync() as env:  # /ws sessions still run episodes
        assert env.reset(task_id="1_0").observation.task_id == "1_0"
        assert env.step(VmbAction(name="finish")).done


def _refused_over_http(server_url: str) -> None:
    status, _ = _post(server_url, "/reset", {"task_id": "1_0"})
    assert status == 200
    status, body = _post(server_url, "/step", {"action": {"name": "finish"}})  # right after a reset
    assert status == 409, body
    assert body["code"] == "STATELESS_HTTP"
    detail = body["detail"]
    assert "stateless" in detail and "/ws" in detail and "/mcp" in detail and "no episode" in detail
    status, body = _post(server_url, "/reset", {"task_id": "99_99"})  # what the env refuses: 400, its message
    assert status == 400 and body["code"] == "BAD_REQUEST" and "unknown task_id '99_99'" in body["detail"]
    status, body = _post(server_url, "/step", {"action": {"nam": "finish"}})  # OpenEnv's own validation
    assert status == 422


def test_served_env_is_not_gated(server_url: str) -> None:
    """A vehicle function runs without listing its module first (docs/openenv-mcp.md says so)."""
    pytest.importorskip("mcp_types")
    from websockets.sync.client import connect

    def call(ws: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        ws.send(json.dumps({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                   "params": {"name": name, "arguments": arguments}}}))
        return dict(json.loads(ws.recv(timeout=30))["data"]["result"])

    with connect(server_url.replace("http", "ws") + "/ws",
                 additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
        call(ws, "start_episode", {"task_id": "1_0"})
        result = call(ws, "carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})
        assert result["isError"] is False, result
        assert "not loaded" not in result["content"][0]["text"]
