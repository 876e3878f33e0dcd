"""One reading of a request per step: what every policy knows about the request and the memory it searched.

A :class:`Reading` holds the request text, the names it is read with, the reader's reading of it
(:class:`~vmb_agents.reader.request.Request`: quotes, the person it is for and their seat, conditions, a relative
change), the settings its wording names (:func:`~vmb_agents.reader.words.score_apis`) and the episode's searches
as structured hits (the env's ``info["memory_hits"]``). It is built once per episode from the request and grows
by each step's searches (:class:`ReadingTracker`); the rules reader, the slot design and the guided language model
all read it, never the rendered text of the hits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Any

from vmb_agents.reader.request import Request, api_text, read_request
from vmb_agents.reader.values import request_value
from vmb_agents.reader.words import score_apis
from vmb_gym.memory import MemoryHit
from vmb_gym.memory.records import minute_stamp

__all__ = ["Reading", "ReadingTracker", "Search", "hit_from_record"]


def hit_from_record(record: Mapping[str, Any]) -> MemoryHit:
    """A :class:`~vmb_gym.memory.MemoryHit` from its ``info["memory_hits"]`` record
    (:func:`vmb_gym.envs.tool_runtime.hit_record`)."""
    stamp = record.get("timestamp")
    return MemoryHit(entry_id=str(record.get("entry_id", "")), text=str(record.get("text", "")),
                     score=float(record.get("score") or 0.0),
                     timestamp=datetime.fromisoformat(stamp) if stamp else None,
                     line_ids=tuple(record.get("line_ids") or ()), people=tuple(record.get("people") or ()),
                     layer=str(record.get("layer") or "raw"), status=str(record.get("status") or "active"))


@dataclass(frozen=True)
class Search:
    """One successful memory search of the episode: its query and its hits, best first (the env's order)."""

    query: str | None
    hits: tuple[MemoryHit, ...]

    def in_time_order(self, first: int = 0) -> list[MemoryHit]:
        """The hits oldest first (ties keep the env's order); ``first`` > 0: only the first that many (by rank)."""
        hits = self.hits[:first] if first > 0 else self.hits
        return sorted(hits, key=lambda h: minute_stamp(h.timestamp) if h.timestamp else "")


def line_text(hit: MemoryHit) -> str:
    """A hit as a memory line without its time stamp: ``Name: text`` (with `` (superseded)`` where it is)."""
    return hit.render().split("] ", 1)[-1]


@dataclass(frozen=True)
class Reading:
    """The request and the memory searched so far, read once (see the module docstring).

    Attributes:
        text: the request.
        speakers: the names it is read with (the scenario's speakers, or the names the request narrates).
        request: the reader's reading of it (:func:`~vmb_agents.reader.request.read_request`).
        searches: the episode's successful memory searches, in order.
        memo: what a policy derives from the request alone, kept with the reading (shared by its later steps).
    """

    text: str
    speakers: tuple[str, ...]
    request: Request
    searches: tuple[Search, ...] = ()
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, text: str, speakers: Sequence[str]) -> Reading:
        """The reading of request ``text`` with ``speakers`` (no search yet)."""
        return cls(text=text, speakers=tuple(speakers), request=read_request(text, speakers))

    # the request
    @property
    def quotes(self) -> list[str]:
        """The request's quoted speech."""
        return self.request.quotes

    @property
    def speaker(self) -> str | None:
        """The person the setting is for (who asks, unless the request names another)."""
        return self.request.target

    @property
    def seat(self) -> str:
        """Where that person sits."""
        return self.request.seat

    @cached_property
    def settings(self) -> dict[str, float]:
        """How strongly the request's wording names each vehicle function (the candidate settings)."""
        return score_apis(api_text(self.request))

    def value(self, api: str) -> Any:
        """The value the request itself gives for ``api`` (an explicit or relative one), or None."""
        return request_value(api, self.request)

    # the memory
    def with_step(self, info: Mapping[str, Any], searched: int = 0) -> Reading:
        """This reading with one step's searches added: each ``search_memory`` call of the step's ``calls``, its hits
        from ``memory_hits`` (a failed search: none); itself when the step searched nothing. ``searched``: how many
        searches the step's action asked for (a policy that knows); those the env did not run count as empty."""
        found = [Search(s.get("query"), tuple(hit_from_record(r) for r in s.get("hits") or ()))
                 for s in info.get("memory_hits") or ()]
        searches: list[Search] = []
        for record in info.get("calls") or ():
            if record.get("name") != "search_memory":
                continue
            result = record.get("result")
            if isinstance(result, Mapping) and result.get("success") and found:
                searches.append(found.pop(0))
            else:
                query = (record.get("arguments") or {}).get("query")
                searches.append(Search(query if isinstance(query, str) else None, ()))
        searches += [Search(None, ())] * (searched - len(searches) - len(found))
        return replace(self, searches=self.searches + tuple(searches + found)) if searches or found else self

    @property
    def hits(self) -> list[MemoryHit]:
        """Every hit of the episode's searches, in order."""
        return [h for s in self.searches for h in s.hits]

    @property
    def last_search(self) -> Search | None:
        """The latest search (None before any)."""
        return self.searches[-1] if self.searches else None

    def search_lines(self, index: int = -1, limit: int | None = None) -> list[tuple[str, str]]:
        """``(line, body)`` of each hit of search ``index`` (default: the latest) oldest first, at most ``limit``:
        ``line`` is ``[YYYY-MM-DD HH:MM] Name: text``, ``body`` the same without its time stamp."""
        if not self.searches:
            return []
        hits = [h for h in self.searches[index].in_time_order() if h.timestamp is not None][:limit]
        return [(h.render(), line_text(h)) for h in hits]

    def memory_lines(self, first: int = 0) -> list[str]:
        """The bodies of the lines the searches showed (each search's first ``first`` hits by rank, 0: all, oldest
        first), each once, in order."""
        out: list[str] = []
        for search in self.searches:
            for hit in search.in_time_order(first):
                body = line_text(hit)
                if hit.timestamp is not None and body not in out:
                    out.append(body)
        return out


class ReadingTracker:
    """Keeps the step's :class:`Reading` from ``(observation, info)``: a new one at an episode's reset (its request),
    then each step's searches added.

    Args:
        speakers: the names a request is read with, from its text and the reset info (default: the info's
            ``speakers``, else none).
    """

    def __init__(self, speakers: Callable[[str, Mapping[str, Any]], Sequence[str]] | None = None) -> None:
        self._speakers = speakers or (lambda _text, info: tuple(info.get("speakers") or ()))
        self.reading: Reading | None = None

    def start(self, text: str, info: Mapping[str, Any]) -> Reading:
        """The reading of a new episode's request ``text``."""
        self.reading = Reading.of(text, self._speakers(text, info))
        return self.reading

    def update(self, observation: Any, info: Mapping[str, Any]) -> Reading | None:
        """The reading after a step: a reset info (it has ``request`` and no ``calls``) starts a new one, any other
        adds the step's ``memory_hits``."""
        if "request" in info and "calls" not in info:
            return self.start(str(info["request"]), info)
        if self.reading is not None:
            self.reading = self.reading.with_step(info)
        return self.reading
