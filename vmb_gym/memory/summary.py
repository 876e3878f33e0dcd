"""``summary``: the official recursive-summary memory (spec §2.9), driven by any ChatBackend.

One LLM call per history day, in date order, with the previous memory and that day's lines
and a single tool ``memory_update(new_memory)``. The first call's ``new_memory`` replaces the
memory; with no call the memory stays, or becomes the sentinel when it was empty. A memory over
8,192 characters is cut at the last ``"\\n-"`` before 8,192 when that is past 4,096, else at
8,192, and a truncation line is appended. The final text is served as context.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import ClassVar

from vmb_gym.memory.chat_backends import resolve_llm
from vmb_gym.memory.llm import ChatBackend, DailyLLMMemory, tool_arguments, tool_schema
from vmb_gym.types import HistoryLine, Query

MAX_CHARS = 8192
TRUNCATION_NOTE = "[Memory truncated due to length limit]"
EMPTY_SENTINEL = "No vehicle preferences recorded."

SYSTEM_PROMPT = (
    "You maintain a memory of the vehicle preferences of the people in a household's car. "
    "You get the current memory and one day of conversation. Call memory_update with the full new "
    "memory: concise bullet points per user (\"- Name: preference\"), keeping earlier preferences unless "
    "they changed, noting conditions (time of day, weather, place). Keep it under 2000 words."
)

MEMORY_UPDATE_TOOL = tool_schema(
    "memory_update", "Replace the whole memory with new_memory.", {"new_memory": "the complete updated memory"}
)


def truncate_memory(text: str, limit: int = MAX_CHARS) -> str:
    """The official length rule: cut at the last ``"\\n-"`` before ``limit`` if past limit/2."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n-", 0, limit)
    end = cut if cut > limit // 2 else limit
    return text[:end] + "\n" + TRUNCATION_NOTE


class SummaryMemory(DailyLLMMemory):
    """Recursive per-day summary built by an LLM; served as context.

    Args:
        llm: the :class:`ChatBackend` that writes the summary, or its spec (``openai:MODEL``, ``hf:PATH``: see
            :mod:`vmb_gym.memory.chat_backends`; ``vmb eval --memory-llm``).
        max_chars: the length cap (official: 8192).

    Attributes:
        summary: the memory after the last processed day.
        snapshots: the memory after each processed day (so an earlier ``as_of`` gets the right one).
        build_calls: LLM calls made while building.
    """

    name: ClassVar[str] = "summary"
    provides_context: ClassVar[bool] = True

    def __init__(self, llm: ChatBackend | str | None = None, max_chars: int = MAX_CHARS) -> None:
        super().__init__()
        self.llm = resolve_llm(llm, "summary")
        self.max_chars = max_chars
        self.summary = ""
        self.snapshots: list[tuple[date, str]] = []
        self.build_calls = 0
        self._day: date | None = None
        self._pending: list[HistoryLine] = []

    def _config_key(self) -> str:
        return f"{type(self.llm).__qualname__}:{id(self.llm)}:{self.max_chars}"

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Start from an empty summary."""
        super().reset(scenario_id, speakers)
        self.summary, self.snapshots, self._day, self._pending = "", [], None, []


    def _payload(self) -> dict[str, object]:
        return {"summary": self.summary, "snapshots": list(self.snapshots), "calls": self.build_calls}

    def _load_payload(self, payload: dict[str, object]) -> None:
        self.summary = str(payload["summary"])
        self.snapshots = list(payload["snapshots"])  # type: ignore[call-overload]

    def _flush(self) -> None:
        """One ``memory_update`` round for the buffered day."""
        if not self._pending:
            return
        day_text = "\n".join(f"[{ln.timestamp:%Y-%m-%d %H:%M}] {ln.speaker}: {ln.text}" for ln in self._pending)
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Current memory:\n{self.summary or '(empty)'}\n\n"
                                        f"Conversation of {self._pending[0].timestamp:%Y-%m-%d}:\n{day_text}"},
        ]
        reply = self.llm.chat(messages, [MEMORY_UPDATE_TOOL])
        self.build_calls += 1
        calls = [c for c in reply.get("tool_calls") or [] if c.get("name") == "memory_update"]
        if calls:
            new = tool_arguments(calls[0], field="new_memory").get("new_memory")
            if isinstance(new, str):
                self.summary = truncate_memory(new, self.max_chars)
        elif not self.summary:
            self.summary = EMPTY_SENTINEL
        self.snapshots.append((self._pending[0].timestamp.date(), self.summary))
        self._pending = []

    def summary_at(self, as_of: datetime | None) -> str:
        """The summary built from days strictly before ``as_of``'s day (all days when None)."""
        if as_of is None:
            return self.summary
        text = ""
        for d, s in self.snapshots:
            if d < as_of.date():
                text = s
        return text

    def context(self, query: Query) -> str:
        """The summary as of the query (official data: the final summary)."""
        if self._pending:
            self._flush()
        if query.as_of is not None and self._line_time and query.as_of >= max(self._line_time.values()):
            return self.summary
        return self.summary_at(query.as_of)
