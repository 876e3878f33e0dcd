"""Baseline memory writers for ``VehicleMemStream-v0``, each paired with the same simple reader.

A writer decides, chunk by chunk, which streamed lines go into the policy's own store:

* :class:`StoreEverythingWriter`: every line, one entry per line;
* :class:`StoreNothingWriter`: nothing (the lower bound: search always comes back empty);
* :class:`RuleWriter`: lines that name a vehicle setting *and* state a value for it, read with the
  simulator vocabulary of :mod:`agents.vocabulary` / :mod:`agents.rules` (``API_SPECS`` words,
  value ranges, enum spellings);
* :class:`LayeredWriter`: the ``layered`` memory module (when registered) observes the lines; the
  entries it derives are written to the store, citing their lines.

**Memory budget.** Every writer takes an optional cap on its store, ``budget_tokens`` (cl100k
tokens of the active entries it wrote, counted exactly as the env counts a ``store``), set with
:meth:`Writer.set_budget` or the ``@TOKENS`` suffix of :func:`make_writer` (``everything@2000``,
``rules@2000/stop``, ``sb3:CKPT@2000``). What happens to a store that does not fit is the
``overflow`` policy:

* ``fifo`` (default of the baseline writers): the oldest entries are deleted to make room, so the
  store holds the most recent lines that fit (a ring buffer; storing everything under a budget
  keeps the last ``budget_tokens`` of the history);
* ``stop``: the store is dropped (a later, shorter one may still fit): the store fills and then
  only takes what still fits.

The active store never holds more than ``budget_tokens`` tokens at any step (deletes are sent
before the stores they make room for); a single entry longer than the budget is never stored.

At a request every writer reads the same way (:class:`StreamReader`): the rule-based reader of
:mod:`agents.rules` asks its searches through the env's ``search_memory`` tool (so it only ever
sees the policy's own store, as of the request) and then emits its calls and ``finish``. No
writer or reader looks at a task's gold calls, gold memory or evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import gymnasium as gym

from vmb_gym.envs.vehicle_mem_stream import stored_lines_text
from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import MemoryHit
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Scenario

SKIP: dict[str, Any] = {"name": "skip", "arguments": {}}
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}
#: Calls per action the writers send (the env accepts at most 32).
BATCH = 31


# ---------------------------------------------------------------------- reading at a request
class _RecordingMemory:
    """Stands in for a memory module while the rule reader plans: records its searches, or replays hits."""

    provides_search = True
    provides_context = False

    def __init__(self, scenario_id: int) -> None:
        self.scenario_id = scenario_id
        self.asked: list[tuple[str, int]] = []
        self.answers: dict[str, list[MemoryHit]] = {}

    def search(self, text: str, as_of: datetime, top_k: int = 5, person: str | None = None) -> list[MemoryHit]:
        """Record the search and return the hits the env gave for it (none while recording)."""
        self.asked.append((text, top_k))
        return list(self.answers.get(text, []))

    def ingest(self, scenario: Scenario) -> None:
        """Never needed: the reader only searches through the env."""


def hit_from_dict(d: dict[str, Any]) -> MemoryHit:
    """A :class:`MemoryHit` from the env's ``info["memory_hits"]`` form."""
    ts = d.get("timestamp")
    return MemoryHit(entry_id=d["entry_id"], text=d["text"], score=float(d.get("score", 0.0)),
                     timestamp=datetime.fromisoformat(ts) if ts else None, line_ids=tuple(d.get("line_ids", ())),
                     people=tuple(d.get("people", ())), layer="policy", status=d.get("status", "active"))


class StreamReader:
    """Two-step reader for a request: search the policy's store, then act.

    With :mod:`agents.rules` available it plans with :class:`~agents.rules.RulesPolicy`: a dry run
    records the searches the rules would make, one action sends them as ``search_memory`` calls,
    and a second run plans on the hits the env returned. Otherwise it searches the request and
    finishes.

    Args:
        top_k: hits per search.
    """

    def __init__(self, top_k: int = 10) -> None:
        self.top_k = top_k
        try:
            from agents.rules import RulesPolicy

            self._rules: Any = RulesPolicy("none", top_k=top_k)
        except ImportError:  # pragma: no cover - rules ship with the repository
            self._rules = None
        self._stage = 0
        self._mem: _RecordingMemory | None = None
        self._context: tuple[str, Scenario, datetime | None] | None = None

    def start(self, info: dict[str, Any], scenario_id: int, speakers: Sequence[str]) -> None:
        """A new request (``info`` of the step that showed it)."""
        self._stage = 0
        if self._rules is not None:  # plan() counts searches in per-request state that its act() path resets
            self._rules._memory_searches = 0
            self._rules._memory_hits = []
        as_of = datetime.fromisoformat(info["as_of"]) if info.get("as_of") else None
        self._context = (info["request"], Scenario(scenario_id, tuple(speakers), (), ()), as_of)

    def act(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """The next action of the request."""
        assert self._context is not None
        request, scenario, as_of = self._context
        if self._stage == 0:
            self._stage = 1
            if self._rules is None:
                return [{"name": "search_memory", "arguments": {"query": request, "top_k": self.top_k}}]
            self._mem = _RecordingMemory(scenario.scenario_id)
            self._rules.memory = self._mem
            self._rules.plan(request, scenario, as_of)
            asked = list(dict.fromkeys(self._mem.asked))[:BATCH]
            if not asked:
                self._stage = 2
                return [*self._rules.plan(request, scenario, as_of)[: BATCH - 1], FINISH]
            return [{"name": "search_memory", "arguments": {"query": q, "top_k": max(1, min(20, k))}} for q, k in asked]
        if self._rules is None or self._mem is None:
            return [FINISH]
        for group in info.get("memory_hits", []):
            self._mem.answers[group["query"]] = [hit_from_dict(h) for h in group["hits"]]
        calls = self._rules.plan(request, scenario, as_of)
        return [*calls[: BATCH - 1], FINISH]


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

    def __init__(self, top_k: int = 10, name: str = "writer", budget_tokens: int | None = None,
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


def _store_line(line: dict[str, Any]) -> dict[str, Any]:
    return {"name": "store", "arguments": {"line_ids": [line["line_id"]], "people": [line["speaker"]]}}


class StoreEverythingWriter(Writer):
    """Stores every streamed line as its own entry."""

    def __init__(self, top_k: int = 10) -> None:
        super().__init__(top_k=top_k, name="store_everything")

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One store per line."""
        return [_store_line(ln) for ln in lines]


class StoreNothingWriter(Writer):
    """Stores nothing."""

    def __init__(self, top_k: int = 10) -> None:
        super().__init__(top_k=top_k, name="store_nothing")

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """No writes."""
        return []


class RuleWriter(Writer):
    """Keeps lines that name a vehicle setting and state a value for it (simulator vocabulary).

    A line is kept when

    * some vehicle function scores at least ``min_score`` on it (module and field words of
      :func:`agents.rules.score_apis`) and :func:`agents.rules.extract_value` reads a value for
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

    def __init__(self, min_score: float = 1.0, follow_up: int = 2, top_k: int = 10) -> None:
        super().__init__(top_k=top_k, name="rule")
        self.min_score = min_score
        self.follow_up = follow_up
        from agents.rules import conditions_in, extract_value, score_apis
        from vmb_gym.vehicle import API_SPECS

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
            if _RELATION.search(ln["text"]):
                out.append(_store_line(ln))
                continue
            if _ELSEWHERE.search(ln["text"]):
                continue
            api = self.setting_of(ln["text"])
            if api is None:
                if pos - last_kept <= self.follow_up and _VALUE.search(ln["text"]):
                    out.append(_store_line(ln))
                continue
            last_kept = pos
            call = _store_line(ln)
            call["arguments"]["setting"] = api.removeprefix("carcontrol_")
            conditions = sorted(self._conditions(ln["text"]))
            if conditions:
                call["arguments"]["condition"] = ",".join(conditions)
            out.append(call)
        return out


_VALUE = re.compile(r"\b(level \d+|\d+ (?:percent|degrees?)|\d+|max|maximum|minimum|lowest|highest)\b", re.IGNORECASE)
_ELSEWHERE = re.compile(
    r"\b(rental|(?:work |old |her |his |their )?(?:van|truck)|(?:\w+'s|her|his|their|my old|my work) car|"
    r"if we ever|trade (?:this|the) car|not now|in the manual|the manual)\b", re.IGNORECASE)
_KIN = (r"(?:grand)?(?:mother|father|mom|dad|mum|son|daughter|sister|brother|aunt|uncle|niece|nephew|cousin|wife|"
        r"husband|partner|fianc[eé]e?|girlfriend|boyfriend|friend|colleague|coworker|co-worker|boss|neighbou?r|grandma|"
        r"grandpa|roommate|in-law)")
#: A person introduced by relation: "Joanna, my grandmother, ..." or "my uncle Aaron ...".
_RELATION = re.compile(rf"\b[A-Z][a-z]+,\s+my\s+(?:\w+\s+)?{_KIN}\b|\bmy\s+(?:\w+\s+)?{_KIN},?\s+[A-Z][a-z]+\b")


class LayeredWriter(Writer):
    """The ``layered`` memory module as a writer: it observes the lines, its derived entries are stored.

    Each chunk's lines go through the module's ``observe``; every new non-history entry it holds
    afterwards (facts, summaries) is written with ``store(text=..., line_ids=...)`` citing the
    lines it came from (only streamed lines can be cited).

    Args:
        top_k: hits per search of the reader.
        memory_kwargs: arguments of the layered module.

    Raises:
        ConfigError: when no ``layered`` module is registered.
    """

    def __init__(self, top_k: int = 10, memory_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__(top_k=top_k, name="layered")
        from vmb_gym.memory import make_memory

        try:
            self.module: Any = make_memory("layered", **(memory_kwargs or {}))
        except (ImportError, AttributeError, ConfigError) as exc:
            raise ConfigError(f"the layered writer needs the 'layered' memory module ({exc})") from exc
        self._written: set[str] = set()
        self._seen: set[int] = set()

    def begin(self, info: dict[str, Any]) -> None:
        """Start an empty layered memory for the timeline."""
        self.module.reset(int(info["scenario_id"]), tuple(info.get("speakers", ())))
        self._written = set()
        self._seen = set()

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Observe the chunk; store the module's new derived entries."""
        from vmb_gym.types import HistoryLine

        for ln in lines:
            self._seen.add(ln["line_id"])
            self.module.observe(HistoryLine(ln["line_id"], datetime.fromisoformat(ln["timestamp"]), ln["speaker"], ln["text"]))
        out = []
        for e in getattr(self.module, "entries", []):
            if e.source == "history" or e.entry_id in self._written or e.status != "active":
                continue
            self._written.add(e.entry_id)
            cited = [i for i in e.line_ids if i in self._seen]
            args: dict[str, Any] = {"text": e.text, "line_ids": cited, "people": list(e.people)}
            if e.setting:
                args["setting"] = e.setting
            if e.condition:
                args["condition"] = e.condition
            out.append({"name": "store", "arguments": args})
        return out


WRITERS: dict[str, Callable[[], Writer]] = {
    "store_everything": StoreEverythingWriter,
    "store_nothing": StoreNothingWriter,
    "rule": RuleWriter,
    "layered": LayeredWriter,
}


# ---------------------------------------------------------------------- running
@dataclass
class StreamEpisode:
    """One finished timeline: its return and the env's episode figures."""

    scenario_id: int
    episode_return: float
    steps: int
    episode: dict[str, Any]


def run_stream_episode(env: gym.Env[str, Any], policy: Any, *, seed: int | None = None,
                       options: dict[str, Any] | None = None) -> StreamEpisode:
    """Reset ``env`` and let ``policy`` (``reset``/``act``) run the timeline to its end."""
    obs, info = env.reset(seed=seed, options=options)
    policy.reset(obs, info)
    view = dict(info)
    total = 0.0
    steps = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, view))
        total += float(reward)
        steps += 1
        view = info
        if terminated or truncated:
            return StreamEpisode(int(info.get("episode_stats", {}).get("scenario_id", -1)), total, steps, info.get("episode_stats", {}))


#: ``vmb eval-stream --writer`` names -> :data:`WRITERS` keys.
WRITER_ALIASES: dict[str, str] = {"everything": "store_everything", "nothing": "store_nothing", "rules": "rule",
                                  "store_everything": "store_everything", "store_nothing": "store_nothing",
                                  "rule": "rule", "layered": "layered"}


_BUDGET_SPEC = re.compile(r"^(?P<tokens>\d+)(?:/(?P<overflow>fifo|stop))?$")


def parse_writer_spec(spec: str) -> tuple[str, int | None, str | None]:
    """``NAME[@TOKENS[/fifo|/stop]]`` -> ``(NAME, budget tokens or None, overflow or None)``.

    Raises:
        ConfigError: for a malformed budget suffix.
    """
    if "@" not in spec:
        return spec, None, None
    name, _, suffix = spec.rpartition("@")
    m = _BUDGET_SPEC.match(suffix)
    if not m or not name:
        raise ConfigError(f"bad memory budget in writer {spec!r}; expected NAME@TOKENS or NAME@TOKENS/fifo|stop "
                          "(e.g. everything@2000)")
    return name, int(m["tokens"]), m["overflow"]


def make_writer(spec: str, top_k: int = 10) -> Any:
    """A writer from its name (``everything``, ``nothing``, ``rules``, ``layered``) or ``sb3:CHECKPOINT``.

    A suffix ``@TOKENS`` caps the writer's store at that many tokens, ``@TOKENS/stop`` or
    ``@TOKENS/fifo`` also picks the overflow policy (see the module doc; baseline writers default
    to ``fifo``; a learned writer never overflows: its ``keep`` is masked when a line does not fit,
    and without a suffix it uses the budget it was trained with).

    Raises:
        ConfigError: for an unknown name or a malformed budget.
    """
    spec, budget, overflow = parse_writer_spec(spec)
    if spec.startswith("sb3:"):
        from agents.stream_sb3 import load_stream_writer

        writer = load_stream_writer(spec.removeprefix("sb3:"), top_k=top_k)
        if budget is not None:
            writer.set_budget(budget, overflow)
        return writer
    key = WRITER_ALIASES.get(spec)
    if key is None:
        raise ConfigError(f"unknown writer {spec!r}; expected one of {sorted(set(WRITER_ALIASES))} or sb3:CHECKPOINT")
    writer = WRITERS[key](top_k=top_k)
    if budget is not None:
        writer.set_budget(budget, overflow)
        writer.name = f"{writer.name}@{budget}"
    return writer
