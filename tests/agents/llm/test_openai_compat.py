"""OpenAIPolicy against a real HTTP server on loopback that speaks chat completions with scripted replies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401 - registers the env
from vmb_agents.llm.chat import FINISH
from vmb_agents.llm.openai_compat import EndpointError, OpenAIClient, OpenAIPolicy, to_openai_messages
from vmb_gym.errors import ConfigError, VmbError
from vmb_gym.policy import run_episode

SECRET = "sk-test-SECRET-0123456789"


class Script:
    """Replies the server gives, in order; each is (status, body or bytes, delay seconds)."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, Any, float]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        #: ("start" | "end", request number) in the order the server saw them.
        self.events: list[tuple[str, int]] = []
        #: when set, every request waits here before its reply (a test of concurrency sets Barrier(n))
        self.barrier: threading.Barrier | None = None
        self.lock = threading.Lock()

    def next(self) -> tuple[int, Any, float]:
        with self.lock:
            return self.replies.pop(0) if self.replies else (500, {"error": "script exhausted"}, 0.0)


def completion(content: str | None = None, calls: list[tuple[str, Any]] | None = None,
               usage: tuple[int, int] = (100, 10)) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
            for i, (n, a) in enumerate(calls)]
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message,
            "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}}


@pytest.fixture()
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # the http.server API names it
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            with script.lock:
                script.requests.append(body)
                script.headers.append(dict(self.headers))
                number = len(script.requests) - 1
                script.events.append(("start", number))
            if self.path != "/v1/chat/completions":
                status, payload, delay = 404, {"error": "not found"}, 0.0
            else:
                status, payload, delay = script.next()
            if script.barrier is not None:
                try:
                    script.barrier.wait()
                except threading.BrokenBarrierError:  # requests came one at a time: the test sees it
                    pass
            if delay:
                time.sleep(delay)
            with script.lock:
                script.events.append(("end", number))
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def env(scenarios):
    return gym.make("VehicleMem-v0", data=scenarios, memory="bm25")


def test_official_episode_with_tool_calls_then_plain_reply(server, env, monkeypatch) -> None:
    url, script = server
    monkeypatch.setenv("VMB_TEST_KEY", SECRET)
    script.replies = [
        (200, completion(calls=[("list_module_tools", {"module_name": "seat"})], usage=(1000, 20)), 0),
        (200, completion(calls=[("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3}),
                                ("search_memory", {"query": "seat", "top_k": 2})], usage=(1500, 30)), 0),
        (200, completion(content="Your seat is warming up."), 0),
    ]
    policy = OpenAIPolicy("test-model", url, api_key_env="VMB_TEST_KEY", backoff=0.01)
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.terminated and ep.reward == pytest.approx(1.0)
    assert ep.actions[-1] == FINISH and len(ep.actions) == 3
    # Official request settings.
    first = script.requests[0]
    assert first["model"] == "test-model" and first["temperature"] == 0.0 and first["max_tokens"] == 8192
    assert first["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in first["tools"]] == ["list_module_tools", "search_memory", "finish"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    # The second request carries the seat tools and the tool result answering call_0.
    second = script.requests[1]
    assert any(t["function"]["name"] == "carcontrol_seat_set_heating_level" for t in second["tools"])
    asst, tool = second["messages"][-2], second["messages"][-1]
    assert asst["tool_calls"][0]["id"] == "call_0"
    assert json.loads(asst["tool_calls"][0]["function"]["arguments"]) == {"module_name": "seat"}
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_0" and "Loaded" in tool["content"]
    third = script.requests[2]["messages"]
    assert [m.get("tool_call_id") for m in third[-2:]] == ["call_0", "call_1"]
    assert "memory_text" in third[-1]["content"]
    # Token accounting and the key: sent as a header, never in repr or stats.
    assert policy.stats["prompt_tokens"] == 2600 and policy.stats["completion_tokens"] == 60
    assert script.headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in repr(policy) and SECRET not in json.dumps(policy.stats, default=str)
    assert SECRET not in json.dumps(ep.metrics, default=str) + json.dumps(ep.episode, default=str)


def test_retries_500_then_succeeds(server, monkeypatch) -> None:
    url, script = server
    script.replies = [(500, {"error": "boom"}, 0), (503, {"error": "busy"}, 0), (200, completion(content="hi"), 0)]
    client = OpenAIClient("m", url, timeout=5, max_retries=3, backoff=0.05)
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)  # the server sleeps only for a scripted delay (none here)
    reply = client.chat([{"role": "user", "content": "hello"}])
    assert reply["content"] == "hi" and reply["tool_calls"] == []
    assert client.requests_made == 3
    assert slept == [0.05, 0.1]  # exponential backoff: 0.05 then 0.1, one wait before each retry
    assert "tools" not in script.requests[0]


def test_persistent_500_raises_endpoint_error(server) -> None:
    url, script = server
    script.replies = [(500, {"error": "boom"}, 0)] * 3
    client = OpenAIClient("m", url, max_retries=2, backoff=0.0)
    with pytest.raises(EndpointError) as info:
        client.chat([{"role": "user", "content": "hello"}])
    assert isinstance(info.value, VmbError)
    assert info.value.status == 500 and info.value.attempts == 3
    assert "HTTP 500" in str(info.value)


def test_client_error_is_not_retried_and_key_is_scrubbed(server, monkeypatch) -> None:
    url, script = server
    monkeypatch.setenv("VMB_TEST_KEY", SECRET)
    script.replies = [(401, {"error": f"bad key {SECRET}"}, 0)]
    client = OpenAIClient("m", url, api_key_env="VMB_TEST_KEY", max_retries=3, backoff=0.0)
    with pytest.raises(EndpointError) as info:
        client.chat([{"role": "user", "content": "hello"}])
    assert info.value.status == 401 and info.value.attempts == 1
    assert SECRET not in str(info.value) and "***" in str(info.value)


def test_slow_reply_times_out(server) -> None:
    url, script = server
    script.replies = [(200, completion(content="late"), 10.0), (200, completion(content="late"), 10.0)]
    client = OpenAIClient("m", url, timeout=0.3, max_retries=1, backoff=0.0)
    with pytest.raises(EndpointError, match="no reply within 0.3 s") as info:
        client.chat([{"role": "user", "content": "hello"}])
    assert info.value.attempts == 2 and info.value.status is None
    with script.lock:  # the client gave up on both requests before the server answered either
        assert script.events == [("start", 0), ("start", 1)]


def test_malformed_json_reply_then_recovery(server) -> None:
    url, script = server
    script.replies = [(200, b"{not json", 0), (200, completion(content="ok"), 0)]
    client = OpenAIClient("m", url, max_retries=1, backoff=0.0)
    assert client.chat([{"role": "user", "content": "x"}])["content"] == "ok"
    script.replies = [(200, b"<html>oops</html>", 0)]
    with pytest.raises(EndpointError, match="malformed JSON"):
        OpenAIClient("m", url, max_retries=0).chat([{"role": "user", "content": "x"}])


def test_malformed_tool_arguments_become_empty(server) -> None:
    url, script = server
    script.replies = [(200, completion(calls=[("list_module_tools", "{module_name: seat")]), 0)]
    reply = OpenAIClient("m", url, max_retries=0).chat([{"role": "user", "content": "x"}])
    assert reply["tool_calls"] == [{"id": "call_0", "name": "list_module_tools", "arguments": {}}]
    assert reply["parse_errors"] and "not valid JSON" in reply["parse_errors"][0]


def test_connection_refused_and_policy_error_modes(env) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    url = f"http://127.0.0.1:{port}/v1"
    raising = OpenAIPolicy("m", url, max_retries=1, backoff=0.0, timeout=2)
    obs, info = env.reset(options={"task_id": "1_0"})
    raising.reset(obs, info)
    with pytest.raises(EndpointError, match="connection failed"):
        raising.act(obs, info)
    finishing = OpenAIPolicy("m", url, max_retries=0, on_endpoint_error="finish")
    ep = run_episode(env, finishing, task_id="1_0")
    assert ep.actions == [FINISH] and ep.terminated
    assert finishing.stats["endpoint_errors"] == 1 and finishing.stats["stop_reason"] == "endpoint_error"


def test_act_batch_sends_concurrently(server, scenarios) -> None:
    url, script = server
    script.replies = [(200, completion(content="done"), 0), (200, completion(content="done"), 0)]
    script.barrier = threading.Barrier(2, timeout=10)  # neither reply is sent until both requests arrived
    policy = OpenAIPolicy("m", url, max_retries=0, workers=2)
    envs = [gym.make("VehicleMem-v0", data=scenarios) for _ in range(2)]
    resets = [e.reset(options={"task_id": t}) for e, t in zip(envs, ["1_0", "1_1"], strict=True)]
    actions = policy.act_batch([o for o, _ in resets], [i for _, i in resets])
    assert actions == [FINISH, FINISH]
    assert len(script.requests) == 2
    # in parallel: the second request reached the server before the first reply was sent
    assert [kind for kind, _ in script.events] == ["start", "start", "end", "end"]


def test_wire_messages_and_config_errors() -> None:
    msgs = to_openai_messages([
        {"role": "assistant", "content": None,
         "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "name": "f", "content": {"success": True}},
    ])
    assert msgs[0]["content"] == "" and msgs[0]["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'
    assert msgs[1]["tool_call_id"] == msgs[0]["tool_calls"][0]["id"] and msgs[1]["content"] == '{"success": true}'
    with pytest.raises(ConfigError):
        OpenAIClient("m", "ftp://x")
    with pytest.raises(ConfigError):
        OpenAIPolicy("m", "http://x", on_endpoint_error="ignore")


def test_endpoint_options_are_one_list_for_client_and_policy() -> None:
    policy = OpenAIPolicy("m", "http://x/v1/", timeout=7, max_tokens=64, extra_body=None)
    opts = policy.client.options
    assert (opts.base_url, opts.timeout, opts.max_tokens, opts.extra_body) == ("http://x/v1", 7.0, 64, {})
    body = policy.client.request_body([{"role": "user", "content": "x"}], None)
    assert (body["temperature"], body["max_tokens"]) == (0.0, 64)
    with pytest.raises(ConfigError, match="unknown endpoint option.*temprature.*accepted: base_url"):
        OpenAIPolicy("m", "http://x", temprature=0.5)


def test_openai_base_url_variable_alone_reaches_the_local_server(server, env, monkeypatch, caplog) -> None:
    """The SDK convention: no base_url anywhere, only OPENAI_BASE_URL and OPENAI_API_KEY in the environment."""
    import logging

    from vmb_agents.factory import make_policy

    url, script = server
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    script.replies = [(200, completion(calls=[("list_module_tools", {"module_name": "seat"})]), 0),
                      (200, completion(content="done"), 0)]
    caplog.set_level(logging.DEBUG)  # the SDK's and httpx's debug logs too: the key must not be in them
    policy = make_policy("openai:test-model", env)
    assert policy.client.base_url == url and url in repr(policy)
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.terminated and len(script.requests) == 2 and script.requests[0]["model"] == "test-model"
    assert script.headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in caplog.text and SECRET not in repr(policy)
    # an explicit base_url still wins over the variable
    assert OpenAIClient("m", "http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://nowhere")
    with pytest.raises(ConfigError, match="from \\$OPENAI_BASE_URL"):
        OpenAIClient("m")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert OpenAIClient("m").base_url == "https://api.openai.com/v1"


def test_no_key_sends_no_authorization_header(server, monkeypatch) -> None:
    url, script = server
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    script.replies = [(200, completion(content="hi"), 0)]
    client = OpenAIClient("m", url, max_retries=0)
    assert client.chat([{"role": "user", "content": "x"}])["content"] == "hi"
    assert "Authorization" not in script.headers[0]
    # a used client pickles (Ray and --workers ship policies) and the copy works
    import pickle

    script.replies = [(200, completion(content="again"), 0)]
    assert pickle.loads(pickle.dumps(client)).chat([{"role": "user", "content": "x"}])["content"] == "again"


def test_vmb_eval_with_openai_base_url(server, monkeypatch, tmp_path) -> None:
    """`OPENAI_BASE_URL=... vmb eval --policy openai:MODEL`: every request reaches the local server."""
    from vmb_gym.cli import main

    url, script = server
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    script.replies = [(200, completion(content="nothing to do"), 0)] * 2
    out = tmp_path / "run"
    rc = main(["eval", "--policy", "openai:test-model", "--files", "1", "--limit", "2", "--out", str(out),
               "--no-plots", "--no-progress"])
    assert rc == 0 and len(script.requests) == 2
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r.get("error_kind") != "infrastructure" for r in records)
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace")


def test_public_endpoint_without_key_fails_at_construction(monkeypatch) -> None:
    """api.openai.com needs a key: no $OPENAI_API_KEY is one clear error at once; a local server needs none."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError,
                       match=r"https://api.openai.com/v1 needs an API key, but \$OPENAI_API_KEY is not set"):
        OpenAIPolicy("gpt-4o-mini")
    with pytest.raises(ConfigError, match=r"\$VMB_TEST_KEY is not set.*base_url"):
        OpenAIClient("m", "https://API.openai.com/v1", api_key_env="VMB_TEST_KEY")
    assert OpenAIClient("m", "http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert OpenAIClient("m").base_url == "https://api.openai.com/v1"


def test_vmb_eval_without_key_is_one_line(monkeypatch, tmp_path, capsys) -> None:
    from vmb_gym.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    rc = main(["eval", "--policy", "openai:gpt-4o-mini", "--files", "1", "--limit", "2", "--out",
               str(tmp_path / "run"), "--no-plots", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "needs an API key, but $OPENAI_API_KEY is not set" in err[0]
    assert "Traceback" not in err[0]
    # with worker processes the key is checked in the parent, before anything is written
    rc = main(["eval", "--policy", "openai:gpt-4o-mini", "--files", "1", "--limit", "2", "--workers", "2", "--out",
               str(tmp_path / "run2"), "--no-plots", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "needs an API key" in err[0]
    assert not (tmp_path / "run2" / "results.jsonl").exists()


def test_vmb_eval_fails_when_every_episode_is_an_infrastructure_error(monkeypatch, tmp_path, capsys) -> None:
    """A dead local port: every episode is an infrastructure error, and vmb eval says so and exits non-zero."""
    import socket

    from vmb_gym.cli import main

    with socket.socket() as s:  # a port nobody listens on once the socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "run"
    kwargs = json.dumps({"base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0, "timeout": 5})
    rc = main(["eval", "--policy", "openai:m", "--policy-kwargs", kwargs, "--files", "1", "--limit", "2",
               "--out", str(out), "--no-plots", "--no-progress"])
    err = capsys.readouterr().err
    assert rc != 0
    assert "vmb eval: error: all 2 episodes failed with an infrastructure error, so nothing was scored" in err
    assert "Connection refused" in err or "connection failed" in err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["error_kind"] for r in records] == ["infrastructure"] * 2
    assert not (out / "metric.json").exists()
