"""The verified LLM renderer against a loopback OpenAI-compatible server (no network, no model).

The server answers chat completions with a scripted function of the request; the client is the
project's :class:`~vmb_agents.llm.openai_compat.OpenAIClient`, so the requests go through the
``openai`` SDK as in ``vmb generate --renderer openai:MODEL``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from vmb_agents.llm.openai_compat import OpenAIClient
from vmb_agents.reader.values import extract_value
from vmb_gym.cli import main as vmb_main
from vmb_gym.generator import GeneratorOptions, build_scenario
from vmb_gym.generator.catalog import catalogue, render_value
from vmb_gym.generator.llm_render import LLMRenderer, parse_reply
from vmb_gym.generator.render_cache import ReplyCache
from vmb_gym.generator.render_verify import (
    asked_apis,
    conversations,
    gated,
    line_rules,
    parse_history,
    verify,
    vocabulary_reader,
    watched_apis,
)
from vmb_gym.vehicle import API_SPECS

KEY = "sk-test-never-logged-4242"
OPTS = GeneratorOptions(seed=3, scenarios=1, queries_per_scenario=3, history_length=60, days=7)

Script = Callable[[dict[str, Any], int], Any]


def request_lines(body: dict[str, Any]) -> list[str]:
    """The original texts of the lines a renderer request lists."""
    user = body["messages"][1]["content"]
    out = []
    for row in user.split("Lines:\n", 1)[1].splitlines():
        m = re.match(r"^\d+\. [^:]+: (.*)$", row)
        if m:
            out.append(json.JSONDecoder().raw_decode(m.group(1))[0])
    return out


def honest(body: dict[str, Any], n: int) -> Any:
    """A good rewrite: every text changed, values and names kept."""
    return json.dumps(["Honestly \u2014 " + t for t in request_lines(body)])


class Loopback:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 answering with ``script``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                outer.auth.append(self.headers.get("Authorization"))
                reply = outer.script(body, len(outer.bodies))
                if isinstance(reply, float):  # a delay past the client's timeout
                    time.sleep(reply)
                    reply = honest(body, 0)
                payload = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"], "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}]})
                data = payload.encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Script], Loopback]]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    servers: list[Loopback] = []

    def start(script: Script) -> Loopback:
        servers.append(Loopback(script))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


@pytest.fixture(scope="module")
def scenario() -> Any:
    return build_scenario(OPTS, 0)


def matcher(api: str, text: str) -> Any:
    return extract_value(API_SPECS[api], text)


def renderer(server: Loopback, cache: ReplyCache | None = None, timeout: float = 10.0) -> LLMRenderer:
    client = OpenAIClient("loop-model", server.url, timeout=timeout, max_retries=0)
    return LLMRenderer(client, "openai:loop-model", reader=gated(matcher), cache=cache, progress=False)


def test_good_replies_change_text_and_keep_structure(serve: Any, scenario: Any) -> None:
    server = serve(honest)
    new, stats = renderer(server).render(scenario)
    old_lines, new_lines = parse_history(scenario.history), parse_history(new.history)
    assert len(new_lines) == len(old_lines)
    assert [(a.stamp, a.speaker) for a in old_lines] == [(b.stamp, b.speaker) for b in new_lines]
    assert all(b.text == "Honestly \u2014 " + a.text for a, b in zip(old_lines, new_lines, strict=True))
    assert stats.rendered == stats.conversations == len(conversations(old_lines)) == len(server.bodies)
    assert stats.fallback == stats.re_rendered == 0 and stats.lines_changed == len(old_lines)
    assert new.meta["events"] == scenario.meta["events"]
    for q, item in zip(new.meta["queries"], new.qa["related_to_vehicle_preference"], strict=True):
        for ev in q["evidence"]:
            text = new_lines[ev["line_ids"][0] - 1].text
            assert ev["text"].endswith(f'"{text}"') and ev["text"] in item["gold_memory"]
    assert new.meta["generator"]["llm_render"]["rendered"] == stats.rendered
    assert new.meta["generator"]["paraphrased"] is True and scenario.meta["generator"]["paraphrased"] is False
    assert new.qa["related_to_vehicle_preference"][0]["new_answer"] == \
        scenario.qa["related_to_vehicle_preference"][0]["new_answer"]


def test_the_natural_renderer_is_a_base_too(serve: Any) -> None:
    base = build_scenario(replace(OPTS, renderer="natural"), 0)
    new, stats = renderer(serve(honest)).render(base)
    assert stats.rendered == stats.conversations and stats.fallback == 0
    assert new.meta["generator"]["options"]["renderer"] == "natural"
    assert len(new.history.splitlines()) == len(base.history.splitlines())


def test_requests_carry_the_lines_and_what_they_must_keep(serve: Any, scenario: Any) -> None:
    server = serve(honest)
    renderer(server).render(scenario)
    users = "\n".join(b["messages"][1]["content"] for b in server.bodies)
    ev = scenario.meta["events"]
    kept = [e for e in ev if e.get("kind") == "preference" and not e.get("distractor")]
    assert kept and "KEEP:" in users
    assert all(b["model"] == "loop-model" and b["messages"][0]["role"] == "system" for b in server.bodies)


@pytest.mark.parametrize("bad, kind", [
    (lambda body, n: "Sure! Here you go: the lines, rewritten.", "malformed"),
    (lambda body, n: json.dumps(["Honestly \u2014 " + t for t in request_lines(body)][:-1] or ["x", "y"]),
     "line count"),
    (lambda body, n: json.dumps([re.sub(r"\d+", "some", t) for t in request_lines(body)]), "kept wording"),
])
def test_a_bad_reply_is_re_rendered_then_falls_back(serve: Any, scenario: Any, bad: Script, kind: str) -> None:
    server = serve(bad)
    new, stats = renderer(server).render(scenario)
    # conversations whose text the bad reply happens to leave valid pass; every other one is asked twice
    failed = stats.conversations - stats.rendered
    assert failed > 0 and stats.fallback == failed and stats.re_rendered == 0
    assert len(server.bodies) == stats.rendered + 2 * failed
    assert stats.failures[kind] >= failed
    if kind != "kept wording":
        assert new.history == scenario.history
    retry = next(b for b in server.bodies if len(b["messages"]) == 4)
    assert retry["messages"][3]["content"].startswith("That answer was rejected:")


def test_a_reply_that_drops_the_value_is_re_rendered(serve: Any, scenario: Any) -> None:
    def drop_first(body: dict[str, Any], n: int) -> Any:
        texts = request_lines(body)
        if len(body["messages"]) == 2:  # the first request of a conversation
            return json.dumps([re.sub(r"\d+", "some", t) for t in texts])
        return honest(body, n)

    server = serve(drop_first)
    new, stats = renderer(server).render(scenario)
    assert stats.re_rendered > 0 and stats.fallback == 0
    assert stats.re_rendered + stats.rendered == stats.conversations
    assert stats.failures["kept wording"] == stats.re_rendered
    ids = [lid for q in new.meta["queries"] for ev in q["evidence"] for lid in ev["line_ids"]]
    lines, before = parse_history(new.history), parse_history(scenario.history)
    with_digits = [lid for lid in ids if re.search(r"\d", before[lid - 1].text)]
    assert with_digits and all(lines[lid - 1].text == "Honestly \u2014 " + before[lid - 1].text for lid in with_digits)


def test_a_timeout_is_a_failed_attempt(serve: Any, scenario: Any) -> None:
    server = serve(lambda body, n: 1.5 if n <= 2 else honest(body, n))
    r = renderer(server, timeout=0.3)
    new, stats = r.render(scenario)
    assert stats.endpoint_errors == 2 and stats.fallback == 1
    assert stats.rendered == stats.conversations - 1
    assert stats.failures["endpoint"] == 2
    first = conversations(parse_history(scenario.history))[0]
    assert parse_history(new.history)[0].text == first[0].text  # the fallback keeps the offline text


def test_the_cache_makes_a_rerun_free(serve: Any, scenario: Any, tmp_path: Path) -> None:
    server = serve(honest)
    cache = ReplyCache(tmp_path / "cache")
    first, s1 = renderer(server, cache).render(scenario)
    n = len(server.bodies)
    again, s2 = renderer(server, cache).render(scenario)
    assert len(server.bodies) == n and s2.requests == 0 and s2.cached_replies == s1.requests
    assert again.history == first.history and s2.rendered == s1.rendered


def test_verify_flags_an_added_value_for_an_asked_setting(scenario: Any) -> None:
    lines = parse_history(scenario.history)
    reader = gated(matcher)
    rules = line_rules(scenario.meta, lines, reader)
    asked = asked_apis(scenario.meta)
    plain = next(g for g in conversations(lines) if not any(x.index in rules for x in g))
    api = min(asked)
    st = catalogue()[api]
    said = f"By the way, I want {st.nouns[0].replace('{t}', '')} at {render_value(st.values[-1], api)}."
    new = [x.text for x in plain]
    new[0] = said
    problems = verify(plain, new, rules, asked, reader)
    assert any("watched setting" in p for p in problems), (said, problems)
    assert verify(plain, [x.text for x in plain], rules, asked, reader) == []
    assert verify(plain, ["", *new[1:]], rules, asked, reader)[0].endswith("is empty")
    assert "line break" in verify(plain, ["a\nb", *new[1:]], rules, asked, vocabulary_reader)[0]


def test_verify_flags_a_shifted_copy_and_watches_distractor_settings(scenario: Any) -> None:
    lines = parse_history(scenario.history)
    group = next(g for g in conversations(lines) if len({x.text for x in g}) >= 3)
    shifted = [x.text for x in group]
    shifted[0] = group[1].text  # a line said by the wrong person
    problems = verify(group, shifted, {}, set(), vocabulary_reader)
    assert problems and problems[0].startswith("line 1 repeats line 2")
    distractors = {e["api"] for e in scenario.meta["events"] if e.get("distractor") and "api" in e}
    assert distractors - asked_apis(scenario.meta) and distractors <= watched_apis(scenario.meta)


def test_parse_reply_strips_fences_and_speaker_prefixes(scenario: Any) -> None:
    lines = parse_history(scenario.history)[:2]
    content = "```json\n" + json.dumps([f"{lines[0].speaker}: hi there", "fine."]) + "\n```"
    assert parse_reply(content, lines) == ["hi there", "fine."]
    numbered = f'1. {lines[0].speaker}: "Well, hi."\n2. {lines[1].speaker}: "Fine, thanks."\nAnswer with'
    assert parse_reply(numbered, lines) == ["Well, hi.", "Fine, thanks."]
    with pytest.raises(ValueError, match="malformed"):
        parse_reply('["unclosed', lines)


def test_vmb_generate_renderer_openai_writes_the_manifest_and_never_the_key(
        serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    server = serve(lambda body, n: "not json" if n == 1 else honest(body, n))
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "set"
    rc = vmb_main(["generate", "--out", str(out), "--seed", "3", "--scenarios", "1", "--queries-per-scenario", "3",
                   "--history-length", "60", "--days", "7", "--renderer", "openai:loop-model"])
    assert rc == 0
    printed = capsys.readouterr()
    manifest = json.loads((out / "render_manifest.json").read_text())
    assert manifest["renderer"] == "openai:loop-model" and manifest["re_rendered"] == 1
    assert manifest["rendered"] == manifest["conversations"] - 1 and manifest["fallback"] == 0
    assert "1 re-rendered" in printed.out
    meta = json.loads(next((out / "meta").glob("*.json")).read_text())
    assert meta["generator"]["llm_render"]["model"] == "openai:loop-model" and meta["generator"]["paraphrased"]
    assert set(server.auth) == {f"Bearer {KEY}"}
    written = [p.read_text() for p in out.rglob("*") if p.is_file()]
    written += [p.read_text() for p in (tmp_path / "cache").rglob("*.json")]
    assert all(KEY not in text for text in written + [printed.out, printed.err])
