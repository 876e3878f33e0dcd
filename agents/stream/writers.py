"""The memory-writer contract of ``VehicleMemStream-v0`` and the baseline writers.

A writer decides, chunk by chunk, which streamed lines go into the policy's own store:

* :class:`StoreEverythingWriter`: every line, one entry per line;
* :class:`StoreNothingWriter`: nothing (the lower bound: search always comes back empty);
* :class:`RuleWriter`: lines that name a vehicle setting *and* state a value for it, read with the
  simulator vocabulary of :mod:`vmb_agents.reader` (``API_SPECS`` words,
  value ranges, enum spellings);
* :class:`LayeredWriter`: the ``layered`` memory module (when registered) observes the lines; the
  lines its extraction keeps (the salient setting changes its facts are built from) are stored.

**Memory budget.** Every writer takes an optional cap on its store, ``budget_tokens`` (cl100k
tokens of the active entries it wrote, counted exactly as the env counts a ``store``), set with
:meth:`Writer.set_budget` or the ``@TOKENS`` suffix of a writer spec (:func:`vmb_agents.stream.factory.make_writer`:
``everything@2000``,
``rules@2000/stop``, ``sb3:CKPT@2000``). What happens to a store that does not fit is the
``overflow`` policy:

* ``fifo`` (default of the baseline writers): the oldest entries are deleted to make room, so the
  store holds the most recent lines that fit (a ring buffer; storing everything under a budget
  keeps the last ``budget_tokens`` of the history);
* ``stop``: the store is dropped (a later, shorter one may still fit): the store fills and then
  only takes what still fits.

The active store never holds more than ``budget_tokens`` tokens at any step (deletes are sent
before the stores they make room for); a single entry longer than the budget is never stored.

At a request every writer reads the same way (:class:`~vmb_agents.stream.reader.StreamReader`). No
writer looks at a task's gold calls, gold memory or evidence. The learned writer is
:class:`vmb_agents.stream.learned.SB3StreamWriter`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vmb_agents.reader import READER_TOP_K, conditions_in, extract_value, score_apis
from vmb_agents.stream.reader import BATCH, SKIP, StreamReader
from vmb_gym.envs.vehicle_mem_stream import stored_lines_text
from vmb_gym.errors import ConfigError
from vmb_gym.memory import make_memory
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import HistoryLine
from vmb_gym.vehicle import API_SPECS

__all__ = ["ELSEWHERE", "OVERFLOWS", "RELATION", "VALUE_WORDS", "WRITERS", "WRITER_ALIASES", "LayeredWriter",
           "RuleWriter", "StoreEverythingWriter", "StoreNothingWriter", "Writer", "store_line"]


# ---------------------------------------------------------------------- writers
#: Overflow policies of a writer's memory budget (see the module doc).
OVERFLOWS = ("fifo", "stop")


@dataclass
class _Held:
    """One entry the writer stored (or has queued): its env id once known and its tokens."""

    tokens: int
    entry_id: str | None = None


class Writer:
    """Base of the baseline writers: queue the chunk's writes, send them in batches, then ``skip``.

    Subclasses implement :meth:`writes` (the write calls for one chunk's lines). With a budget
    (:meth:`set_budget`) the chunk's stores are fitted to it before they are queued (the module doc
    says how); :attr:`used_tokens` is what the writer's active entries hold.

    Args:
        top_k: hits per search of the reader.
        name: the writer's name in reports.
        budget_tokens: cap on the tokens of the active store (None: no cap).
        overflow: ``"fifo"`` (evict the oldest entries) or ``"stop"`` (drop what does not fit).
    """

    def __init__(self, top_k: int = READER_TOP_K, name: str = "writer", budget_tokens: int | None = None,
                 overflow: str = "fifo") -> None:
        self.name = name
        self.reader = StreamReader(top_k)
        self._queue: list[dict[str, Any]] = []
        self._scenario_id = -1
        self._speakers: tuple[str, ...] = ()
        self.budget_tokens: int | None = None
        self.overflow = "fifo"
        self.set_budget(budget_tokens, overflow)
        self._held: list[_Held] = []
        self._inflight: list[_Held | None] = []
        self._queued: dict[int, _Held] = {}
        self._line_text: dict[int, str] = {}
        self._chunks_seen = 0
        self._chunks_total = 0

    def set_budget(self, budget_tokens: int | None, overflow: str | None = None) -> Writer:
        """Cap the active store at ``budget_tokens`` (None: no cap); returns the writer.

        Raises:
            ConfigError: for a negative budget or an unknown overflow policy.
        """
        if budget_tokens is not None and (isinstance(budget_tokens, bool) or int(budget_tokens) < 0):
            raise ConfigError(f"budget_tokens must be a non-negative integer or None, got {budget_tokens!r}")
        overflow = overflow or self.overflow
        if overflow not in OVERFLOWS:
            raise ConfigError(f"overflow must be one of {OVERFLOWS}, got {overflow!r}")
        self.budget_tokens = None if budget_tokens is None else int(budget_tokens)
        self.overflow = overflow
        return self

    @property
    def used_tokens(self) -> int:
        """Tokens of the entries the writer holds (stored, or queued to be stored) this timeline."""
        return sum(h.tokens for h in self._held)

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a timeline."""
        self._scenario_id = int(info["scenario_id"])
        self._speakers = tuple(info.get("speakers", ()))
        self._queue = []
        self._held = []
        self._inflight = []
        self._queued = {}
        self._line_text = {}
        self._chunks_seen = 0
        self._chunks_total = int(info.get("chunks", 0) or 0)
        self.begin(info)

    def begin(self, info: dict[str, Any]) -> None:
        """Hook: a new timeline starts."""

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """Writes while history streams, the reader at requests."""
        self._harvest(info)
        if info.get("phase") == "query":
            if "request" in info:  # the step that showed a new request
                self.reader.start(info, self._scenario_id, self._speakers)
            return self.reader.act(info)
        if "lines" in info:
            for ln in info["lines"]:
                self._line_text[int(ln["line_id"])] = stored_lines_text([(ln["speaker"], ln["text"])])
            calls = self.writes(info["lines"])
            self._chunks_seen += 1
            self._queue.extend(self._fit(calls))
        batch, self._queue = self._queue[:BATCH], self._queue[BATCH:]
        self._inflight = [self._queued.pop(id(c), None) for c in batch]
        return batch if self._queue else [*batch, SKIP]

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The write calls for one chunk."""
        raise NotImplementedError

    # ------------------------------------------------------------------ budget bookkeeping
    def store_tokens(self, call: Mapping[str, Any]) -> int:
        """Tokens the env will count for a ``store`` call (its text, or its cited lines' text)."""
        args = call.get("arguments", {})
        text = args.get("text")
        if isinstance(text, str) and text.strip():
            return count_tokens(text)
        ids = list(dict.fromkeys(args.get("line_ids", [])))
        return count_tokens("\n".join(self._line_text.get(int(i), "") for i in ids))

    def _harvest(self, info: Mapping[str, Any]) -> None:
        """Give the stores of the last batch their env ids; forget the ones the env refused."""
        if not self._inflight:
            return
        inflight, self._inflight = self._inflight, []
        records = list(info.get("calls", []))  # one record per call of the batch, in order
        for i, held in enumerate(inflight):
            if held is None:
                continue
            rec = records[i] if i < len(records) else {}
            result = rec.get("result") if rec.get("name") == "store" else None
            if isinstance(result, Mapping) and result.get("entry_id"):
                held.entry_id = str(result["entry_id"])
            else:
                self._held = [h for h in self._held if h is not held]

    def _hold(self, call: dict[str, Any], tokens: int) -> None:
        held = _Held(tokens)
        self._held.append(held)
        self._queued[id(call)] = held

    def _fit(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The chunk's calls fitted to the budget: deletes of evicted entries first, then the stores kept."""
        if self.budget_tokens is None:
            for c in calls:
                if c.get("name") == "store":
                    self._hold(c, self.store_tokens(c))
            return calls
        budget = self.budget_tokens
        stores = [(c, self.store_tokens(c)) for c in calls if c.get("name") == "store"]
        stores = [(c, t) for c, t in stores if t <= budget]  # an entry longer than the budget never fits
        deletes: list[dict[str, Any]] = []
        if self.overflow == "stop":
            kept, used = [], self.used_tokens
            for c, t in stores:
                if used + t <= budget:
                    kept.append((c, t))
                    used += t
        else:  # fifo: the newest stores win; then evict the oldest stored entries to make room
            kept, room = [], budget
            for c, t in reversed(stores):
                if t <= room:
                    kept.append((c, t))
                    room -= t
            kept.reverse()
            need = self.used_tokens + sum(t for _, t in kept) - budget
            evictable = [h for h in self._held if h.entry_id is not None]
            while need > 0 and evictable:
                h = evictable.pop(0)
                deletes.append({"name": "delete", "arguments": {"entry_id": h.entry_id}})
                self._held = [x for x in self._held if x is not h]
                need -= h.tokens
            while need > 0 and kept:  # entries without an id yet cannot be deleted: drop the oldest new stores
                need -= kept.pop(0)[1]
        for c, t in kept:
            self._hold(c, t)
        kept_ids = {id(c) for c, _ in kept}
        return deletes + [c for c in calls if c.get("name") != "store" or id(c) in kept_ids]


def store_line(line: dict[str, Any]) -> dict[str, Any]:
    """The ``store`` call of one streamed line on its own (cites it, tags its speaker)."""
    return {"name": "store", "arguments": {"line_ids": [line["line_id"]], "people": [line["speaker"]]}}


class StoreEverythingWriter(Writer):
    """Stores every streamed line as its own entry."""

    def __init__(self, top_k: int = READER_TOP_K) -> None:
        super().__init__(top_k=top_k, name="store_everything")

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One store per line."""
        return [store_line(ln) for ln in lines]


class StoreNothingWriter(Writer):
    """Stores nothing."""

    def __init__(self, top_k: int = READER_TOP_K) -> None:
        super().__init__(top_k=top_k, name="store_nothing")

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """No writes."""
        return []


class RuleWriter(Writer):
    """Keeps lines that name a vehicle setting and state a value for it (simulator vocabulary).

    A line is kept when

    * some vehicle function scores at least ``min_score`` on it (module and field words of
      :func:`vmb_agents.reader.score_apis`) and :func:`vmb_agents.reader.extract_value` reads a value for
      that function out of it (a number in range, an enum spelling, on/off, a place); the entry is
      tagged with the function (``setting``) and the line's condition words (``condition``);
    * or it states a value with no setting word ("When I'm driving I go with level 2") within
      ``follow_up`` lines after a kept line of the same chunk (a reply about the same setting);
    * or it names a person's relation ("Joanna, my grandmother, ...": what coreference needs).

    Lines about another vehicle or a hypothetical ("in the rental", "in her van", "if we ever
    trade this car in") are dropped: they state settings, but not preferences for this car.

    Args:
        min_score: least function score for a line to count as naming a setting.
        top_k: hits per search of the reader.
    """

    def __init__(self, min_score: float = 1.0, follow_up: int = 2, top_k: int = READER_TOP_K) -> None:
        super().__init__(top_k=top_k, name="rule")
        self.min_score = min_score
        self.follow_up = follow_up
        self._score: Callable[[str], dict[str, float]] = score_apis
        self._value = extract_value
        self._conditions = conditions_in
        self._specs = API_SPECS

    def setting_of(self, text: str) -> str | None:
        """The best-scoring function named in ``text`` that also has a value there, else None."""
        for api, score in sorted(self._score(text).items(), key=lambda kv: -kv[1]):
            if score < self.min_score:
                break
            if self._value(self._specs[api], text) is not None:
                return api
        return None

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A store per line that states a setting's value."""
        out = []
        last_kept = -10**9
        for pos, ln in enumerate(lines):
            if RELATION.search(ln["text"]):
                out.append(store_line(ln))
                continue
            if ELSEWHERE.search(ln["text"]):
                continue
            api = self.setting_of(ln["text"])
            if api is None:
                if pos - last_kept <= self.follow_up and VALUE_WORDS.search(ln["text"]):
                    out.append(store_line(ln))
                continue
            last_kept = pos
            call = store_line(ln)
            call["arguments"]["setting"] = api.removeprefix("carcontrol_")
            conditions = sorted(self._conditions(ln["text"]))
            if conditions:
                call["arguments"]["condition"] = ",".join(conditions)
            out.append(call)
        return out


#: Value words a bare follow-up line states ("level 2", "20 degrees", "max").
VALUE_WORDS = re.compile(
    r"\b(level \d+|\d+ (?:percent|degrees?)|\d+|max|maximum|minimum|lowest|highest)\b", re.IGNORECASE
)
#: Another vehicle or a hypothetical: the line states settings, but not preferences for this car.
ELSEWHERE = re.compile(
    r"\b(rental|(?:work |old |her |his |their )?(?:van|truck)|(?:\w+'s|her|his|their|my old|my work) car|"
    r"if we ever|trade (?:this|the) car|not now|in the manual|the manual)\b", re.IGNORECASE)
_KIN = (r"(?:grand)?(?:mother|father|mom|dad|mum|son|daughter|sister|brother|aunt|uncle|niece|nephew|cousin|wife|"
        r"husband|partner|fianc[eé]e?|girlfriend|boyfriend|friend|colleague|coworker|co-worker|boss|neighbou?r|grandma|"
        r"grandpa|roommate|in-law)")
#: A person introduced by relation: "Joanna, my grandmother, ..." or "my uncle Aaron ...".
RELATION = re.compile(rf"\b[A-Z][a-z]+,\s+my\s+(?:\w+\s+)?{_KIN}\b|\bmy\s+(?:\w+\s+)?{_KIN},?\s+[A-Z][a-z]+\b")


class LayeredWriter(Writer):
    """The ``layered`` memory module as a writer: the lines its extraction keeps are stored.

    Each chunk's lines go through the module's ``observe``, which logs every line that names a
    vehicle setting as a change (:attr:`~vmb_gym.memory.layered.LayeredMemory.changes`). The
    changes its facts are built from at search time (salience at least the module's
    ``min_salience``, see :meth:`~vmb_gym.memory.layered.LayeredMemory.facts`) are what the writer
    stores: one ``store(line_ids=[line])`` per new change, citing the change's line, tagged with
    the change's person, setting and condition. Chit-chat the module keeps only as a plain line is
    not stored, nor are the episode lines a fact hit shows as context. The stores go through the
    writer's budget like any other.

    Args:
        top_k: hits per search of the reader.
        memory_kwargs: arguments of the layered module.

    Raises:
        ConfigError: when no ``layered`` module is registered.
    """

    def __init__(self, top_k: int = READER_TOP_K, memory_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__(top_k=top_k, name="layered")
        try:
            self.module: Any = make_memory("layered", **(memory_kwargs or {}))
        except (ImportError, AttributeError, ConfigError) as exc:
            raise ConfigError(f"the layered writer needs the 'layered' memory module ({exc})") from exc
        self._logged = 0
        self._seen: set[int] = set()

    def begin(self, info: dict[str, Any]) -> None:
        """Start an empty layered memory for the timeline."""
        self.module.reset(int(info["scenario_id"]), tuple(info.get("speakers", ())))
        self._logged = 0
        self._seen = set()

    def kept(self, change: Any) -> bool:
        """Whether the module's facts keep ``change`` (a history line salient enough to be a revision)."""
        return bool(change.line_id) and change.salience >= getattr(self.module, "min_salience", 0.0)

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Observe the chunk; store the lines of the new changes the module's facts keep."""
        for ln in lines:
            self._seen.add(ln["line_id"])
            self.module.observe(
                HistoryLine(ln["line_id"], datetime.fromisoformat(ln["timestamp"]), ln["speaker"], ln["text"])
            )
        changes = list(getattr(self.module, "changes", []))
        new, self._logged = changes[self._logged:], len(changes)
        out = []
        for ch in new:
            if not self.kept(ch) or ch.line_id not in self._seen:
                continue
            args: dict[str, Any] = {"line_ids": [ch.line_id], "people": [ch.person]}
            if ch.setting:
                args["setting"] = ch.setting
            if ch.condition:
                args["condition"] = ch.condition
            out.append({"name": "store", "arguments": args})
        return out


WRITERS: dict[str, Callable[[], Writer]] = {
    "store_everything": StoreEverythingWriter,
    "store_nothing": StoreNothingWriter,
    "rule": RuleWriter,
    "layered": LayeredWriter,
}


#: ``vmb eval-stream --writer`` names -> :data:`WRITERS` keys.
WRITER_ALIASES: dict[str, str] = {"everything": "store_everything", "nothing": "store_nothing", "rules": "rule",
                                  "store_everything": "store_everything", "store_nothing": "store_nothing",
                                  "rule": "rule", "layered": "layered"}
