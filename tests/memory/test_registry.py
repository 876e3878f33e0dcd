"""The memory registry's name lookup, option check and chat-backend specs (no module is ingested)."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.errors import ConfigError, UnknownMemoryError
from vmb_gym.memory import make_memory
from vmb_gym.memory.chat_backends import check_chat_backend, make_chat_backend, register_chat_backend, resolve_llm
from vmb_gym.memory.registry import check_memory, memory_options, resolve_memory_name
from vmb_gym.names import did_you_mean, match_name


def test_names_match_ignoring_case_and_suggest_close_ones() -> None:
    assert match_name("BM25", ["bm25", "dense"]) == "bm25"
    assert match_name("Ab", ["ab", "AB"]) is None  # ambiguous: no guess
    assert match_name("x", ["bm25"]) is None
    assert did_you_mean("bm2", ["bm25", "dense", "gold"]) == "; did you mean 'bm25'?"
    assert did_you_mean("zzzz", ["bm25"]) == ""


def test_resolve_memory_name() -> None:
    assert resolve_memory_name("BM25") == "bm25"
    assert resolve_memory_name(" Layered:facts+changes ") == "layered:facts+changes"
    with pytest.raises(UnknownMemoryError, match=r"unknown memory module 'hybird'.*did you mean 'hybrid'\?"):
        resolve_memory_name("hybird")
    with pytest.raises(UnknownMemoryError, match="did you mean 'layered'"):
        resolve_memory_name("layerd:facts")


def test_options_are_checked_before_building() -> None:
    assert memory_options("bm25") == []
    assert "llm" in (memory_options("summary") or [])
    assert "layers" in (memory_options("layered:facts") or [])
    assert check_memory("DENSE", embedder=None) == "dense"
    with pytest.raises(ConfigError, match=r"takes no option\(s\) 'embeder'.*did you mean 'embedder'\?"):
        check_memory("dense", embeder=None)
    with pytest.raises(ConfigError, match="memory 'bm25' takes no option"):
        make_memory("bm25", top_k=3)  # a ConfigError, not gym's TypeError
    assert type(make_memory("Bm25")).__name__ == "BM25Memory"


class _Backend:
    def __init__(self, arg: str) -> None:
        self.arg = arg

    def chat(self, messages: Any, tools: Any = None) -> dict[str, Any]:
        return {"content": "", "tool_calls": []}


def test_llm_specs_build_the_llm_memories() -> None:
    register_chat_backend("scripted", _Backend)
    assert check_chat_backend("Scripted:abc") == ("scripted", "abc")
    assert make_chat_backend("scripted:abc").arg == "abc"  # type: ignore[attr-defined]
    summary = make_memory("summary", llm="scripted:m1")
    assert isinstance(summary.llm, _Backend) and summary.llm.arg == "m1"  # type: ignore[attr-defined]
    kv = make_memory("key_value", llm="scripted:m2")
    assert kv.llm.arg == "m2"  # type: ignore[attr-defined]
    backend = _Backend("given")
    assert resolve_llm(backend, "summary") is backend
    with pytest.raises(ConfigError, match="summary memory needs an LLM backend.*--memory-llm openai:MODEL"):
        make_memory("summary")
    with pytest.raises(ConfigError, match="expected an LLM spec KIND:ARG"):
        make_chat_backend("scripted")
    with pytest.raises(ConfigError, match=r"unknown LLM backend kind 'scriptd'.*did you mean 'scripted'\?"):
        make_chat_backend("scriptd:x")


def test_agents_factory_registers_openai_and_hf() -> None:
    import vmb_agents.factory  # noqa: F401 - registers the kinds

    assert check_chat_backend("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert check_chat_backend("HF:/models/qwen") == ("hf", "/models/qwen")
