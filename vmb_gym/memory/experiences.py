"""The experience layer of the ``layered`` (TriLink-style) memory: reusable procedures for the car.

An :class:`Experience` is what a person reliably does, distilled from the change log without an
LLM (:func:`distill_history`), from the agent's own finished requests in ``VehicleMemStream-v0``
(:func:`agent_experience`) or, optionally, by a chat model (:class:`LLMDistiller`):

* ``routine`` -- settings one person sets together in one session ("when Gary drives at night he
  sets the seat heating to 2 and dims the ambient light"), or names together in one utterance
  ("Same routine: ambient light blue");
* ``usual`` -- what "the usual" means for a person in a situation: a change said with habit wording
  ("I always", "usually", "every time");
* ``correction`` -- a correction habit: a person sets a value and, in the same session, corrects
  it; the experience keeps the value they end up with;
* ``agent`` -- the calls the agent made for a request and the reward it got.

Each experience carries the situations it applies to (person, condition, time of day,
passenger), its steps (a setting with a value, or the line the value is read from), retrieval
keywords, the change-log indices it came from (its links to facts, see
:mod:`vmb_gym.memory.trilink`) and its time: the newest line it was distilled from. Distillation
only reads the changes it is given, so a caller that passes the changes visible at ``as_of`` gets
experiences that know nothing said later.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from vmb_gym.memory.llm import ChatBackend
from vmb_gym.types import HistoryLine

#: A pause longer than this starts a new session (a new drive/conversation) in the history.
SESSION_GAP = timedelta(minutes=10)
#: Lines this close before a change, in the same session, are its episode (the request it answers).
EPISODE_SPAN = timedelta(minutes=1)
#: Experience kinds, in the order :func:`distill_history` builds them.
KINDS: tuple[str, ...] = ("routine", "usual", "correction", "agent", "llm")
#: Habit wording: a change said this way is what "the usual" means for its person.
HABIT_WORDING = re.compile(
    r"\b(?:always|usually|every time|whenever|normally|my usual|as usual|routine|i prefer|i like it|by default)\b",
    re.IGNORECASE,
)
#: A request that asks for a routine (several settings at once).
ROUTINE_CUE = re.compile(r"\b(?:routine|the rest|whole|everything|all my|usual setup|same as always)\b", re.IGNORECASE)
#: A request that asks for "the usual" / a person's habit.
USUAL_CUE = re.compile(
    r"\b(?:usual|usually|always|normally|as before|the way i like|how i like|my preference|i prefer|routine)\b",
    re.IGNORECASE,
)
#: Where one utterance goes on to a second setting ("... Oh, and the ambient light blue too").
CLAUSE_BREAK = re.compile(r"(?<=[.!?])\s+|\b(oh, and|and i like|plus|same routine:|also|and also)(?!\w)", re.IGNORECASE)
_NIGHT = re.compile(r"\b(?:night|tonight|evening|dark|late)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]{3,}")


@dataclass(frozen=True, slots=True)
class Step:
    """One vehicle step of an experience: a setting with its value, or where the value is read from."""

    setting: str
    value: str | None = None
    source: str = ""

    def render(self) -> str:
        """``setting = value (source)``."""
        val = f" = {self.value}" if self.value else ""
        src = f" ({self.source})" if self.source else ""
        return f"{self.setting}{val}{src}"


@dataclass(frozen=True, slots=True)
class Experience:
    """A reusable procedure (see the module docstring)."""

    exp_id: str
    kind: str
    person: str
    settings: frozenset[str]
    steps: tuple[Step, ...]
    timestamp: datetime
    condition: str | None = None
    time_of_day: str | None = None
    passenger: str | None = None
    keywords: frozenset[str] = frozenset()
    change_indices: tuple[int, ...] = ()
    line_ids: tuple[int, ...] = ()
    quotes: tuple[str, ...] = ()
    outcome: float | None = None

    @property
    def situation(self) -> str:
        """The situations it applies to, as words (``night, when it rains, with Patricia Allen``)."""
        parts = [p for p in (self.time_of_day, self.condition) if p]
        if self.passenger:
            parts.append(f"with {self.passenger}")
        return ", ".join(parts)

    def render(self) -> str:
        """The text a hit shows: kind, person, situation, steps, the lines it came from, outcome."""
        sit = f" [{self.situation}]" if self.situation else ""
        head = f"{self.person}'s {self.kind}{sit}: " + "; ".join(s.render() for s in self.steps)
        quotes = "".join(f"\n  \"{q}\"" for q in self.quotes)
        out = f"\n  outcome: reward {self.outcome:.2f}" if self.outcome is not None else ""
        return head + quotes + out


@dataclass(frozen=True, slots=True)
class ChangeView:
    """What distillation reads of one change-log row (``layered.SettingChange`` has these fields)."""

    index: int
    line_id: int
    timestamp: datetime
    person: str
    setting: str
    settings: frozenset[str]
    values: tuple[str, ...]
    condition: str | None
    text: str


def time_of_day(ts: datetime) -> str:
    """``night`` (19:00-05:00) or ``day``, as the rules reader dates a line."""
    return "night" if ts.hour >= 19 or ts.hour < 5 else "day"


def keywords_of(*texts: str) -> frozenset[str]:
    """Retrieval keywords: lower-cased words of 3+ letters of ``texts`` (setting keys split on ``.|,``)."""
    words: set[str] = set()
    for t in texts:
        spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", re.sub(r"[.|,_]", " ", t))
        words.update(_WORD.findall(spaced.lower()))
    return frozenset(words)


def _sessions(changes: Sequence[Any], gap: timedelta) -> list[list[Any]]:
    """Changes split where two consecutive ones are more than ``gap`` apart (time order kept)."""
    out: list[list[Any]] = []
    last: datetime | None = None
    for ch in sorted(changes, key=lambda c: (c.timestamp, c.index)):
        if last is None or ch.timestamp - last > gap:
            out.append([])
        out[-1].append(ch)
        last = ch.timestamp
    return out


def _make(kind: str, person: str, chs: Sequence[Any], steps: Sequence[Step], passenger: str | None,
          outcome: float | None = None) -> Experience:
    newest = max(chs, key=lambda c: c.timestamp)
    settings = frozenset().union(*(c.settings for c in chs)) if chs else frozenset()
    cond = next((c.condition for c in chs if c.condition), None)
    return Experience(
        exp_id="", kind=kind, person=person, settings=settings, steps=tuple(steps), timestamp=newest.timestamp,
        condition=cond, time_of_day=time_of_day(newest.timestamp), passenger=passenger,
        keywords=keywords_of(kind, person, *(c.setting for c in chs), *(s.value or "" for s in steps), cond or ""),
        change_indices=tuple(c.index for c in chs), line_ids=tuple(c.line_id for c in chs if c.line_id),
        quotes=tuple(dict.fromkeys(c.text for c in chs)), outcome=outcome,
    )


def _step(ch: Any) -> Step:
    value = ch.values[-1] if ch.values else None
    return Step(ch.setting, value, f"line #{ch.line_id}" if ch.line_id else "policy note")


def clause_steps(ch: Any, extract: Callable[[str], tuple[str, tuple[str, ...]] | None]) -> list[Step]:
    """One step per clause of a change's utterance that names its own setting (``extract``: text ->
    ``(setting key, values)`` or ``None``); a routine said in one line gives two or more."""
    steps: dict[str, Step] = {}
    companion = False  # the clause follows a routine cue ("Same routine: the sunroof locked"): no value needed
    for clause in CLAUSE_BREAK.split(ch.text):
        if clause is None or not clause.strip():
            continue
        if CLAUSE_BREAK.fullmatch(clause.strip()):
            companion = True
            continue
        got = extract(clause)
        if got is not None and got[0] and got[0] not in steps and (got[1] or companion):
            steps[got[0]] = Step(got[0], got[1][-1] if got[1] else None, f"line #{ch.line_id}")
        companion = False
    return list(steps.values())


def distill_history(changes: Iterable[Any], *, gap: timedelta = SESSION_GAP,
                    speakers_of: Callable[[datetime, datetime], Sequence[str]] | None = None,
                    extract: Callable[[str], tuple[str, tuple[str, ...]] | None] | None = None) -> list[Experience]:
    """Routine, usual and correction experiences from salient change-log rows (no LLM).

    Args:
        changes: rows with the fields of :class:`ChangeView` (the layered memory's visible,
            salient ``SettingChange`` rows); only these are read.
        gap: a pause longer than this splits sessions.
        speakers_of: ``(start, end) -> speakers`` of the history in that span (the passenger is
            another speaker of the session); ``None``: no passenger.
        extract: ``text -> (setting key, values)`` for one clause (:func:`clause_steps`: a routine
            said in one utterance); ``None``: only routines over several utterances.

    Returns experiences ordered by kind then time, ids ``E1``, ``E2``, ...
    """
    rows = list(changes)
    out: list[Experience] = []
    for session in _sessions(rows, gap):
        start, end = session[0].timestamp, session[-1].timestamp
        spoken = tuple(speakers_of(start, end)) if speakers_of else ()
        by_person: dict[str, list[Any]] = {}
        for ch in session:
            by_person.setdefault(ch.person, []).append(ch)
        for person, chs in by_person.items():
            passenger = next((s for s in spoken if s != person), None)
            last: dict[str, Any] = {}
            for ch in chs:
                last[ch.setting] = ch
            if len(last) >= 2:  # several settings in one session: a routine, citing every line of it
                out.append(_make("routine", person, chs, [_step(c) for c in last.values()], passenger))
            for ch in chs:
                steps = clause_steps(ch, extract) if extract is not None and len(last) < 2 else []
                if len(steps) >= 2:  # "Set X to 2. Same routine: Y blue." in one utterance
                    out.append(_make("routine", person, [ch], steps, passenger))
                if HABIT_WORDING.search(ch.text):
                    out.append(_make("usual", person, [ch], [_step(ch)], passenger))
            for setting, final in last.items():
                revs = [c for c in chs if c.setting == setting]
                if len(revs) >= 2 and revs[0].values and final.values and revs[0].values[-1] != final.values[-1]:
                    out.append(_make("correction", person, revs, [_step(final)], passenger))
    order = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda e: (order[e.kind], e.timestamp, e.change_indices))
    return [_with_id(e, f"E{i + 1}") for i, e in enumerate(out)]


def _with_id(e: Experience, exp_id: str) -> Experience:
    return replace(e, exp_id=exp_id)


def agent_experience(exp_id: str, person: str, request: str, calls: Sequence[Mapping[str, Any]], reward: float,
                     when: datetime, settings: frozenset[str]) -> Experience:
    """The experience of one finished request: the vehicle calls the agent made and the reward it got."""
    steps = tuple(Step(str(c.get("name", "")), json.dumps(c.get("arguments", {}), sort_keys=True), "agent call")
                  for c in calls)
    return Experience(
        exp_id=exp_id, kind="agent", person=person, settings=settings, steps=steps, timestamp=when,
        time_of_day=time_of_day(when), keywords=keywords_of(request, *(s.setting for s in steps)),
        quotes=(request,), outcome=float(reward),
    )


@dataclass
class LLMDistiller:
    """Optional experience distiller over any :class:`~vmb_gym.memory.llm.ChatBackend`.

    The history is given to the model one day at a time; an experience is stamped with the last
    line of the day it was distilled from, so it is visible only at or after that time (``as_of``
    holds: a day's experiences know nothing of later days). The model answers a JSON list of
    ``{"kind", "person", "condition", "time_of_day", "passenger", "steps": [{"setting", "value"}],
    "keywords", "line_ids"}``; malformed replies give no experiences. Calls are counted in
    :attr:`calls`.
    """

    backend: ChatBackend
    max_lines: int = 400
    calls: int = 0
    prompt: str = field(default=(
        "From these in-car dialogue lines, list each person's reusable vehicle procedures (routines: "
        "settings set together; 'the usual' for a situation; correction habits). Answer only a JSON list of "
        "objects with keys kind, person, condition, time_of_day, passenger, steps (list of {setting, value}), "
        "keywords (list of words) and line_ids (the #ids it came from). Answer [] when there are none."))

    def distill(self, lines: Sequence[HistoryLine]) -> list[Experience]:
        """Experiences of ``lines``, one chat call per day (ids ``X1``, ``X2``, ...)."""
        days: dict[Any, list[HistoryLine]] = {}
        for ln in lines:
            days.setdefault(ln.timestamp.date(), []).append(ln)
        out: list[Experience] = []
        for day_lines in days.values():
            day_lines = day_lines[: self.max_lines]
            text = "\n".join(
                f"#{ln.line_id} [{ln.timestamp:%Y-%m-%d %H:%M}] {ln.speaker}: {ln.text}" for ln in day_lines
            )
            self.calls += 1
            reply = self.backend.chat([{"role": "system", "content": self.prompt}, {"role": "user", "content": text}])
            out.extend(self._parse(str(reply.get("content", "")), day_lines, len(out)))
        return out

    def _parse(self, content: str, lines: Sequence[HistoryLine], start: int) -> list[Experience]:
        m = re.search(r"\[.*\]", content, re.DOTALL)
        try:
            items = json.loads(m.group(0)) if m else []
        except json.JSONDecodeError:
            return []
        ids = {ln.line_id for ln in lines}
        stamp = lines[-1].timestamp
        out: list[Experience] = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("steps"), list):
                continue
            steps = tuple(
                Step(str(s.get("setting", "")), None if s.get("value") is None else str(s.get("value")), "llm")
                for s in item["steps"]
                if isinstance(s, dict) and s.get("setting")
            )
            if not steps:
                continue
            cited = tuple(i for i in item.get("line_ids", []) if isinstance(i, int) and i in ids)
            kind = str(item.get("kind") or "llm")
            out.append(Experience(
                exp_id=f"X{start + len(out) + 1}", kind=kind if kind in KINDS else "llm",
                person=str(item.get("person") or "household"), settings=frozenset(s.setting for s in steps),
                steps=steps, timestamp=stamp, condition=item.get("condition") or None,
                time_of_day=item.get("time_of_day") or None, passenger=item.get("passenger") or None,
                keywords=keywords_of(*(str(k) for k in item.get("keywords", []) if isinstance(k, str)),
                                     *(s.setting for s in steps)),
                line_ids=cited, quotes=tuple(ln.text for ln in lines if ln.line_id in cited),
            ))
        return out


def request_cues(text: str) -> tuple[bool, bool, str | None]:
    """``(asks for a routine, asks for the usual, time of day it names or None)`` of a request."""
    tod = "night" if _NIGHT.search(text) else None
    return bool(ROUTINE_CUE.search(text)), bool(USUAL_CUE.search(text)), tod


__all__ = [
    "CLAUSE_BREAK",
    "EPISODE_SPAN",
    "HABIT_WORDING",
    "KINDS",
    "ROUTINE_CUE",
    "SESSION_GAP",
    "USUAL_CUE",
    "ChangeView",
    "Experience",
    "LLMDistiller",
    "Step",
    "agent_experience",
    "clause_steps",
    "distill_history",
    "keywords_of",
    "request_cues",
    "time_of_day",
]
