"""``/mcp``: the env's tools over MCP, driven by the official ``mcp`` client against the real server on loopback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("mcp_types")  # the mcp SDK 2.x

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import vmb_gym  # noqa: F401
from vmb_gym.server.app import ServeConfig
from vmb_gym.server.mcp_tools import EPISODE_TOOLS

from .conftest import TOKEN, running_server


@asynccontextmanager
async def mcp_session(url: str, token: str | None = TOKEN) -> AsyncIterator[ClientSession]:
    """An initialized MCP session on the server at ``url``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
            streamable_http_client(url + "/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _gold_actions(query: Any) -> list[dict[str, Any]]:
    actions = [{"name": "search_memory", "arguments": {"query": query.text[:40], "top_k": 3}}]
    actions += [{"name": c.name, "arguments": dict(c.arguments)} for c in query.gold_calls]
    return [*actions, {"name": "finish", "arguments": {}}]


def _in_process(queries: list[Any]) -> dict[str, tuple[list[str], float, dict[str, Any]]]:
    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    out = {}
    for q in queries:
        local.reset(options={"task_id": q.task_id})
        texts, reward, info = [], 0.0, {}
        for action in _gold_actions(q):
            text, reward, _, _, info = local.step(action)
            texts.append(text)
        out[q.task_id] = (texts, float(reward), json.loads(json.dumps(info["metrics"])))
    return out


def test_tools_are_listed_with_their_schemas(server_url: str) -> None:
    async def run() -> list[Any]:
        async with mcp_session(server_url) as session:
            return list((await session.list_tools()).tools)

    tools = {t.name: t for t in asyncio.run(run())}
    vehicle = [n for n in tools if n.startswith("carcontrol_")]
    assert len(vehicle) == 111 and len(tools) == 116
    assert {"list_module_tools", "search_memory", "finish", *EPISODE_TOOLS} <= set(tools)
    heat = tools["carcontrol_seat_set_heating_level"].input_schema
    assert heat["type"] == "object" and {"seat", "level"} <= set(heat["properties"])
    assert tools["search_memory"].input_schema["required"] == ["query"]
    assert not {"reset", "step", "state", "close"} & set(tools)  # OpenEnv's reserved names


def test_an_episode_reward_equals_the_in_process_env(server_url: str) -> None:
    queries = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped.tasks.queries[:4]
    expected = _in_process(queries)

    async def run() -> dict[str, tuple[list[str], Any, Any]]:
        got = {}
        async with mcp_session(server_url) as session:
            for q in queries:
                first = await session.call_tool("start_episode", {"task_id": q.task_id})
                assert not first.is_error and first.structured_content["task_id"] == q.task_id
                texts, last = [], None
                for action in _gold_actions(q):
                    last = await session.call_tool(action["name"], action["arguments"])
                    texts.append(last.content[0].text)
                reward = await session.call_tool("get_reward", {})
                got[q.task_id] = (texts, last, reward)
        return got

    got = asyncio.run(run())
    for q in queries:
        texts, reward, metrics = expected[q.task_id]
        remote_texts, finish, again = got[q.task_id]
        assert remote_texts == texts
        assert finish.structured_content["done"] is True
        assert finish.structured_content["reward"] == pytest.approx(reward)
        assert finish.structured_content["metrics"] == metrics
        assert again.structured_content == {"task_id": q.task_id, "step": len(texts), "done": True,
                                            "reward": pytest.approx(reward)}
    assert any(expected[q.task_id][1] > 0 for q in queries)  # the gold earns a reward: the comparison means something


def test_a_bad_token_is_refused_with_a_clear_message(server_url: str) -> None:
    async def run(token: str | None) -> BaseException:
        try:
            async with mcp_session(server_url, token):
                pass
        except BaseException as e:  # noqa: BLE001  (the client raises an exception group)
            return e
        raise AssertionError("the session opened")

    for token in (None, "wrong"):
        error = run_and_flatten(asyncio.run(run(token)))
        assert "missing or wrong bearer token" in error and "Authorization: Bearer <token>" in error

    async def raw() -> httpx2.Response:
        async with httpx2.AsyncClient() as http:
            return await http.post(server_url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                   headers={"Authorization": "Bearer wrong"})

    reply = asyncio.run(raw())
    assert reply.status_code == 401 and "--token" in reply.json()["error"]["message"]


def run_and_flatten(error: BaseException) -> str:
    """Every message in an exception (group), joined."""
    parts = [str(error)]
    for inner in getattr(error, "exceptions", ()):
        parts.append(run_and_flatten(inner))
    return " | ".join(parts)


def _in_process_finish(calls: list[dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    local = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped
    local.reset(options={"task_id": "1_0"})
    for call in calls:
        local.step(call)
    _, reward, _, _, info = local.step({"name": "finish", "arguments": {}})
    return float(reward), json.loads(json.dumps(info["metrics"]))


def test_two_concurrent_sessions_stay_isolated(server_url: str) -> None:
    seat = {"name": "list_module_tools", "arguments": {"module_name": "seat"}}
    heat = {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}

    async def player(calls: list[dict[str, Any]], mine: asyncio.Event, theirs: asyncio.Event) -> Any:
        async with mcp_session(server_url) as session:
            await session.call_tool("start_episode", {"task_id": "1_0"})
            for call in calls:
                assert not (await session.call_tool(call["name"], call["arguments"])).is_error
            mine.set()
            await theirs.wait()  # both cars are set up before either finishes
            return (await session.call_tool("finish", {})).structured_content

    async def run() -> list[Any]:
        a, b = asyncio.Event(), asyncio.Event()
        return list(await asyncio.gather(player([seat, heat], a, b), player([seat], b, a)))

    heated, idle = asyncio.run(run())
    for remote, calls in ((heated, [seat, heat]), (idle, [seat])):
        reward, metrics = _in_process_finish(calls)
        assert remote["reward"] == pytest.approx(reward) and remote["metrics"] == metrics
    assert heated["metrics"] != idle["metrics"]  # one car changed, the other did not


def test_malformed_calls_are_tool_errors_and_the_server_goes_on(server_url: str) -> None:
    async def run() -> list[Any]:
        async with mcp_session(server_url) as session:
            before = await session.call_tool("finish", {})
            await session.call_tool("start_episode", {"task_id": "1_0"})
            results = [before]
            for name, arguments in (("carcontrol_seat_set_heating_level", {"seat": "driver", "level": "hot"}),
                                    ("carcontrol_seat_set_heating_level", {"seat": ["x"], "level": {"a": 1}}),
                                    ("no_such_tool", {}),
                                    ("list_module_tools", {"module": "seat", "extra": None}),
                                    ("search_memory", {"query": 7, "top_k": "many"}),
                                    ("start_episode", {"task_id": 5}),
                                    ("start_episode", {"task_id": "no_such_task"}),
                                    ("start_episode", {"bogus": 1})):
                results.append(await session.call_tool(name, arguments))
            results.append(await session.call_tool("list_module_tools", {"module_name": "seat"}))
            return results

    before, *bad, good = asyncio.run(run())
    assert before.is_error and "call start_episode(task_id=...) first" in before.content[0].text
    assert all(r.is_error for r in bad), [r.content[0].text[:80] for r in bad if not r.is_error]
    texts = [r.content[0].text for r in bad]
    assert "heating level must be an integer" in texts[0]
    assert "Function no_such_tool not found" in texts[2]
    assert "task_id must be a str" in texts[5]
    assert "no_such_task" in texts[6]
    assert "unknown argument 'bogus'" in texts[7]
    assert not good.is_error and "[list_module_tools]" in good.content[0].text

    async def raw() -> int:  # a tools/call whose arguments are not an object: refused, not a crash
        headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(headers=headers) as http:
            init = await http.post(server_url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                                               "params": {"protocolVersion": "2025-06-18",
                                                                          "capabilities": {},
                                                                          "clientInfo": {"name": "t", "version": "0"}}})
            sid = init.headers["mcp-session-id"]
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "finish", "arguments": "x"}}
            reply = await http.post(server_url + "/mcp", json=call,
                                    headers={"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"})
            await http.delete(server_url + "/mcp", headers={"mcp-session-id": sid})
            return reply.status_code

    assert asyncio.run(raw()) < 500
    assert asyncio.run(run())[-1].content[0].text.startswith("[list_module_tools]")  # the server goes on


def test_sessions_are_capped_with_the_websocket_ones() -> None:
    async def run(url: str) -> str:
        async with mcp_session(url) as first:
            await first.call_tool("start_episode", {"task_id": "1_0"})
            try:
                async with mcp_session(url):
                    pass
            except BaseException as e:  # noqa: BLE001
                refused = run_and_flatten(e)
            else:
                raise AssertionError("a second session opened past --max-sessions 1")
            still = await first.call_tool("list_module_tools", {"module_name": "seat"})
            assert not still.is_error
        async with mcp_session(url) as again:  # the closed session's slot is free again
            assert not (await again.call_tool("start_episode", {"task_id": "1_1"})).is_error
        return refused

    with running_server(ServeConfig(token=TOKEN, max_sessions=1)) as url:
        refused = asyncio.run(run(url))
    assert "Server at capacity: 1/1 sessions active" in refused


def test_an_oversized_request_is_refused_and_the_session_goes_on(server_url: str) -> None:
    async def run() -> tuple[str, Any]:
        async with mcp_session(server_url) as session:
            await session.call_tool("start_episode", {"task_id": "1_0"})
            try:
                await session.call_tool("search_memory", {"query": "x" * 100_000})  # the server's cap is 64 KiB
            except Exception as e:  # noqa: BLE001  (the client raises the server's JSON-RPC error)
                refused = str(e)
            else:
                raise AssertionError("a request over --max-request-bytes was run")
            return refused, await session.call_tool("list_module_tools", {"module_name": "seat"})

    refused, after = asyncio.run(run())
    assert "over the server's limit of 65536 bytes" in refused and "--max-request-bytes" in refused
    assert not after.is_error


def test_an_idle_session_is_closed_and_its_slot_freed() -> None:
    async def run(url: str) -> tuple[str, bool]:
        async with mcp_session(url) as idle:
            await idle.call_tool("start_episode", {"task_id": "1_0"})
            await asyncio.sleep(2.0)  # past the 0.5 s idle timeout
            async with mcp_session(url) as fresh:  # the idle session's slot is free (max_sessions=1)
                opened = not (await fresh.call_tool("start_episode", {"task_id": "1_1"})).is_error
            try:
                late = await idle.call_tool("list_module_tools", {"module_name": "seat"})
                told = late.content[0].text if late.is_error else "ran"
            except Exception as e:  # noqa: BLE001  (the session manager ended the session: 404)
                told = str(e)
        return told, opened

    with running_server(ServeConfig(token=TOKEN, max_sessions=1, session_timeout=0.5)) as url:
        told, opened = asyncio.run(run(url))
    assert opened
    assert "is closed (ended, or idle longer than the server's session timeout of 0.5 s): open a new session" in told
    assert "serve MCP clients with --workers 1" in told


def test_websocket_mcp_messages_list_and_call_the_tools(server_url: str) -> None:
    """OpenEnv's ``mcp`` message on a ``/ws`` session: the same tools, on that session's env."""
    from websockets.sync.client import connect

    def ask(ws: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        ws.send(json.dumps({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 7, "method": method,
                                                   "params": params or {}}}))
        reply = json.loads(ws.recv(timeout=30))
        assert reply["type"] == "mcp" and reply["data"]["id"] == 7
        return reply["data"]

    with connect(server_url.replace("http", "ws") + "/ws",
                 additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
        tools = ask(ws, "tools/list")["result"]["tools"]
        assert len(tools) == 116 and {"name", "description", "inputSchema"} <= set(tools[0])
        assert ask(ws, "tools/call", {"name": "start_episode", "arguments": {"task_id": "1_0"}})["result"][
            "structuredContent"]["task_id"] == "1_0"
        refused = ask(ws, "tools/call", {"name": "carcontrol_seat_set_heating_level",
                                         "arguments": {"seat": "driver", "level": "hot"}})["result"]
        assert refused["isError"] is True and "heating level must be an integer" in refused["content"][0]["text"]
        assert "'arguments': {...}" in ask(ws, "tools/call", {"name": "finish", "arguments": "x"})["error"]["message"]
        assert "not served on /ws" in ask(ws, "resources/list")["error"]["message"]
        done = ask(ws, "tools/call", {"name": "finish", "arguments": {}})["result"]["structuredContent"]
        assert done["done"] is True and done["reward"] == pytest.approx(_in_process_finish([])[0])
        ws.send(json.dumps({"type": "state"}))  # the WebSocket session's own state saw the MCP calls
        state = json.loads(ws.recv(timeout=30))["data"]
        assert state["task_id"] == "1_0" and state["done"] is True and state["step_count"] == 2


def test_openenv_production_client_lists_and_calls_the_tools(server_url: str) -> None:
    """OpenEnv's own production-mode client (``MCPToolClient``: JSON-RPC on HTTP ``/mcp`` with
    ``openenv/session/create``), and what ``openenv validate --url`` asks of ``/mcp``."""
    from openenv.core.mcp_client import MCPToolClient

    from vmb_gym.server.openenv_api import CLIENT_CONNECT_HOOK

    if CLIENT_CONNECT_HOOK == "connect":
        pytest.skip("MCPToolClient's production mode (with headers) is openenv 0.10's; openenv-core 0.3 is installed")
    q = gym.make("VehicleMem-v0", data="default", memory="bm25").unwrapped.tasks.queries[0]
    texts, reward, metrics = _in_process([q])[q.task_id]

    async def run() -> tuple[int, list[str], Any]:
        client = MCPToolClient(base_url=server_url, mode="production", headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            tools = await client.list_tools()
            await client.call_tool("start_episode", task_id=q.task_id)
            results = [await client.call_tool(a["name"], **a["arguments"]) for a in _gold_actions(q)]
        finally:
            await client.close()
        return len(tools), [r["content"][0]["text"] for r in results], results[-1]["structuredContent"]

    count, remote_texts, final = asyncio.run(run())
    assert count == 116 and remote_texts == texts
    assert final["reward"] == pytest.approx(reward) and final["metrics"] == metrics

    async def raw(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            reply = await http.post(server_url + "/mcp", json=body)
            return reply.status_code, reply.json()

    status, empty = asyncio.run(raw({}))  # openenv validate's probe: a JSON-RPC answer with 200
    assert status == 200 and empty["jsonrpc"] == "2.0" and "initialize first" in empty["error"]["message"]
    _, stale = asyncio.run(raw({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "finish", "arguments": {}, "session_id": "openenv-nope"}}))
    assert "needs a live params.session_id (from openenv/session/create)" in stale["error"]["message"]
