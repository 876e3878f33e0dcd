"""The one chat-model interface: :class:`ChatBackend`, its message types and tool helpers.

The LLM-built memories (``summary``, ``key_value``) call a backend; the model-backed policies
(``vmb_agents.llm``: HF and OpenAI-compatible) implement it, so one object serves both. Tests use a
scripted one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, NotRequired, Protocol, TypedDict, runtime_checkable

from vmb_gym.memory.base import BaseMemory
from vmb_gym.types import HistoryLine


__all__ = ["ChatBackend", "ChatReply", "DailyLLMMemory", "Messages", "ToolCallDict", "Tools", "tool_arguments",
           "tool_schema"]

#: Chat messages (OpenAI shape: ``{"role", "content", ...}``) as backends take them.
Messages = Sequence[Mapping[str, Any]]
#: Tool schemas (OpenAI function shape ``{"type": "function", "function": {...}}`` or bare).
Tools = Sequence[Mapping[str, Any]]


class ToolCallDict(TypedDict):
    """One tool call of a reply: ``{"name": str, "arguments": dict}``."""

    name: str
    arguments: dict[str, Any]


class ChatReply(TypedDict):
    """A chat reply: text plus tool calls (possibly none), and what a policy backend adds.

    ``usage`` (``prompt_tokens``/``completion_tokens``), ``parse_errors`` (calls the backend could
    not read) and the rest are optional: memories read only ``content`` and ``tool_calls``.
    """

    content: str
    tool_calls: list[ToolCallDict]
    usage: NotRequired[dict[str, int]]
    parse_errors: NotRequired[list[str]]


@runtime_checkable
class ChatBackend(Protocol):
    """Anything that answers a chat with optional tool calls (memory builders and policies alike).

    ``messages`` are OpenAI-style ``{"role", "content"}`` dicts (assistant ``tool_calls`` may carry
    ``arguments`` as a dict); ``tools`` are OpenAI function schemas (``{"type": "function",
    "function": {...}}``), or None for none. The reply is a :class:`ChatReply`; ``arguments`` in
    it may be a dict or a JSON string (callers use :func:`tool_arguments`).
    """

    def chat(self, messages: Messages, tools: Tools | None = None) -> ChatReply:
        """One completion (temperature 0 where the backend has one)."""


def tool_schema(name: str, description: str, params: Mapping[str, str], required: Sequence[str] | None = None) -> dict:
    """An OpenAI function schema with string parameters (``params``: name -> description)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
                "required": list(params) if required is None else list(required),
            },
        },
    }


def tool_arguments(call: Mapping[str, Any], field: str | None = None) -> dict[str, Any]:
    """The arguments of a tool call as a dict.

    A JSON string is parsed; when parsing fails and ``field`` is given, the value of ``field`` is
    pulled out with a regex (the official summary builder's fallback); else ``{}``.
    """
    args = call.get("arguments", {})
    if isinstance(args, Mapping):
        return dict(args)
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
            return dict(parsed) if isinstance(parsed, Mapping) else {}
        except json.JSONDecodeError:
            if field:
                m = re.search(rf'"{re.escape(field)}"\s*:\s*"(.*?)"?\s*}}?\s*$', args, re.DOTALL)
                if m:
                    raw = m.group(1)
                    return {field: raw.replace("\\n", "\n").replace('\\"', '"')}
    return {}


class DailyLLMMemory(BaseMemory):
    """Base of the official LLM-built memories: history lines are buffered per day and each
    finished day is handed to :meth:`_flush` (one LLM round per day, as upstream)."""

    _day: date | None
    _pending: list[HistoryLine]

    def observe(self, line: HistoryLine) -> None:
        """Buffer the line; a new day first processes the finished one."""
        super().observe(line)
        d = line.timestamp.date()
        if self._day is not None and d != self._day:
            self._flush()
        self._day = d
        self._pending.append(line)

    def _finish_ingest(self) -> None:
        self._flush()

    def _flush(self) -> None:
        raise NotImplementedError
