"""Memory inside the policy: retrieve for the request at reset and put the hits in the prompt.

The env can serve memory itself (context in the first observation, or a ``search_memory``
tool). :class:`MemoryPrompter` is the other arrangement: the *policy* holds a memory module,
searches it once for the request at the request's time (``as_of``), and writes the hits into the
system message, in the same ``User preference memory:`` block the env uses for context modules.
It reports the figures the env reports for its own memory (``memory_searches``,
``memory_tokens``, the hit line ids and, when the query is known, the retrieval audit).

Any policy can use it: :class:`~vmb_agents.llm.chat.ToolChatPolicy` calls :meth:`augment` at reset
when built with ``memory=MemoryPrompter(...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory import DEFAULT_TOP_K
from vmb_gym.memory.llm import Messages
from vmb_gym.memory.session import MemorySession
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query, Scenario

__all__ = ["MEMORY_HEADER", "MemoryPrompter"]

#: Header of the memory block (the one the env writes for context modules).
MEMORY_HEADER = "User preference memory:\n"


class MemoryPrompter:
    """Retrieval (or context) from a memory module, written into an episode's first prompt.

    Args:
        memory: a memory module (:func:`vmb_gym.memory.make_memory` result) or a registered name.
        data: where the episode's scenario and query are found: the env's task set
            (``env.unwrapped.tasks``) or a sequence of scenarios. Without it the module must
            already hold the episode's scenario (ingested by the caller).
        top_k: hits per search.
        query: what to search for: ``"request"`` (the request text) or a callable
            ``info -> str``.
        memory_kwargs: keyword arguments when ``memory`` is a name.
    """

    def __init__(
        self,
        memory: Any,
        data: Any | None = None,
        *,
        top_k: int = DEFAULT_TOP_K,
        query: Any = "request",
        memory_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(memory, str):
            from vmb_gym.memory import make_memory

            memory = make_memory(memory, **dict(memory_kwargs or {}))
        if not (getattr(memory, "provides_search", False) or getattr(memory, "provides_context", False)):
            raise ConfigError(f"memory {getattr(memory, 'name', memory)!r} provides neither search nor context; "
                              "use a retrieval module such as 'bm25' or a context module such as 'gold'")
        if not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k must be a positive integer, got {top_k!r}")
        if query != "request" and not callable(query):
            raise ConfigError(f"query must be 'request' or a callable info -> str, got {query!r}")
        self.memory = memory
        self.top_k = top_k
        self.query = query
        self._scenarios: dict[int, Scenario] = {}
        self._queries: dict[str, Query] = {}
        if data is not None:
            scenarios = data.scenarios.values() if hasattr(data, "scenarios") else data
            for s in scenarios:
                if not isinstance(s, Scenario):
                    raise ConfigError(f"data must be a TaskSet or a sequence of Scenario, found {type(s).__name__}")
                self._scenarios[s.scenario_id] = s
                for q in s.queries:
                    self._queries[q.task_id] = q
        #: The episode's memory accounting (the one the env's ``search_memory`` uses); reset per retrieval.
        self.session = MemorySession(memory)

    @property
    def last_hits(self) -> list[Any]:
        """The hits of the last retrieval (empty for a context module)."""
        return list(self.session.hits)

    def _scenario(self, info: Mapping[str, Any]) -> Scenario | None:
        sid = info.get("scenario_id")
        if sid is None:
            return None
        return self._scenarios.get(int(sid))

    def retrieve(self, info: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The memory text for the episode of ``info`` and its figures.

        Returns:
            (text, figures) where figures has ``memory_searches``, ``memory_tokens``,
            ``memory_hit_line_ids`` (one list per search) and, when the query is known and the
            module searched, ``memory_audit``.

        Raises:
            ConfigError: the module holds another scenario and no data was given to load it,
                or the info has no ``as_of`` for a search.
        """
        scenario = self._scenario(info)
        sid = info.get("scenario_id")
        if scenario is not None:
            self.memory.ingest(scenario)  # cheap when the module already holds this history
        elif sid is not None and getattr(self.memory, "scenario_id", None) != sid:
            held = getattr(self.memory, "scenario_id", None)
            raise ConfigError(f"the memory holds scenario {held!r} but the episode "
                              f"is in scenario {sid!r}; pass data=env.unwrapped.tasks to MemoryPrompter")
        query_obj = self._queries.get(str(info.get("task_id")))
        figures: dict[str, Any] = {"memory_searches": 0, "memory_tokens": 0, "memory_hit_line_ids": []}
        self.session.reset()
        if getattr(self.memory, "provides_search", False):
            as_of_raw = info.get("as_of")
            if as_of_raw is None and query_obj is not None:
                as_of_raw = query_obj.as_of
            if as_of_raw is None:
                raise ConfigError("memory search needs the request time: info['as_of'] is missing")
            as_of = as_of_raw if isinstance(as_of_raw, datetime) else datetime.fromisoformat(str(as_of_raw))
            text = str(info.get("request", "")) if self.query == "request" else str(self.query(info))
            result = self.session.search(text, as_of=as_of, top_k=self.top_k)
            memory_text = result.text
            figures["memory_searches"] = 1
            figures["memory_hit_line_ids"] = [[i for h in result.hits for i in h.line_ids]]
            if query_obj is not None:
                from vmb_gym.memory.audit import audit_hits

                figures["memory_audit"] = audit_hits(query_obj, list(result.hits))
        else:
            if query_obj is None:
                raise ConfigError(f"context memory needs the episode's query; task {info.get('task_id')!r} is not in "
                                  "the data given to MemoryPrompter")
            memory_text = self.memory.context(query_obj)
            self.session.add_context(count_tokens(memory_text))
        figures["memory_tokens"] = self.session.tokens
        return memory_text, figures

    def augment(self, messages: Messages, info: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """``messages`` with the memory block at the top of the system message, and the figures."""
        text, figures = self.retrieve(info)
        out = [dict(m) for m in messages]
        if text:
            block = MEMORY_HEADER + text
            if out and out[0].get("role") == "system":
                out[0]["content"] = block + "\n\n" + str(out[0].get("content") or "")
            else:
                out.insert(0, {"role": "system", "content": block})
        return out, figures
