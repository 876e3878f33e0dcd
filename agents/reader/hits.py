"""Reading a memory hit: its text without names, its content words, and whose line it is."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from vmb_gym.memory import MemoryHit
from vmb_gym.memory.base import ACTIVE, SUPERSEDED
from vmb_gym.vehicle.lexicon import ASIDE_WORDING, LINE_CUES, STOP_WORDS


def hit_body(hit: MemoryHit, speakers: Sequence[str]) -> str:
    """A hit's text without the speaker prefix and without people's names ("Kimberly Green" is no colour)."""
    return hit_body_cached(hit.text, tuple(hit.people), tuple(speakers))


def spoken_text(hit: MemoryHit, speakers: Sequence[str]) -> str:
    """A hit's text without the speaker prefix, people's names kept ("When Ursula rides with me": who the rule is
    about, where :func:`hit_body` reads "When _ rides with me")."""
    return _without_speaker(hit.text, (*hit.people, *speakers))


def _without_speaker(text: str, names: Sequence[str]) -> str:
    """``text`` without a leading ``"<name>:"`` of the first of ``names`` that starts it."""
    for name in names:
        if text.startswith(name + ":"):
            return text[len(name) + 1:]
    return text


@lru_cache(maxsize=200_000)
def hit_body_cached(text: str, people: tuple[str, ...], speakers: tuple[str, ...]) -> str:
    """:func:`hit_body` of a hit given by its text and people, cached (the slot design calls it per line)."""
    text = _without_speaker(text, (*people, *speakers))
    for name in speakers:
        for part in name.split():
            text = re.sub(rf"\b{re.escape(part)}\b", "_", text)
    return text


def content_words(text: str) -> set[str]:
    """Lower-cased words of 4+ letters that are not function words (for overlap scores)."""
    return {w for w in re.findall(r"[a-z][a-z'’]{3,}", text.lower()) if w not in STOP_WORDS}


#: The line cues of a value said aside: wondered about, or of another car ("Imagine someone choosing 12-hour for the
#: clock", "In my work van the low beam is stuck at highest").
ASIDE_CUES = (LINE_CUES["hypothetical"], LINE_CUES["elsewhere"], ASIDE_WORDING)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def said_aside(body: str, value: Any) -> bool:
    """Whether every sentence of ``body`` that states ``value`` (the whole body when none names it, or the value is
    not a plain word or number) is a hypothetical or about another car (:data:`ASIDE_CUES`): no setting of this
    car's. A sentence, not the line: "I imagine the paperwork is daunting. I really love this green panel." states
    green as a preference."""
    plain = isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return _said_aside(body, str(value).lower() if plain else None)


@lru_cache(maxsize=200_000)
def _said_aside(body: str, value: str | None) -> bool:
    """:func:`said_aside` with the value as lower-cased text (None: not a plain value), cached: the rules reader asks
    it for every function a line scores, and the slot design for every analysis."""
    sentences = [s for s in _SENTENCE_END.split(body) if s.strip()]
    if value is not None:
        said = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w.])")
        sentences = [s for s in sentences if said.search(s.lower())] or sentences
    return bool(sentences) and all(any(c.search(s) for c in ASIDE_CUES) for s in sentences)


def same_person(a: str, b: str) -> bool:
    """Whether two names are one person (same full name or same first name, case-insensitive)."""
    return a.lower() == b.lower() or a.split()[0].lower() == b.split()[0].lower()


def mentions_person(hit: MemoryHit, person: str) -> bool:
    """Whether ``hit`` is by ``person`` or names their first name."""
    if any(same_person(p, person) for p in hit.people):
        return True
    return bool(re.search(rf"\b{re.escape(person.split()[0])}\b", hit.text))


_REVISION = re.compile(r"^\s*\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] (.*?)( \[superseded\]| \(context\))?\s*$")


def revision_hits(hit: MemoryHit) -> list[MemoryHit]:
    """A ``layered`` fact hit read as one hit per revision, else ``[hit]``.

    A fact hit shows a head (``person / setting (when ...)``), then each revision (``[time] person:
    text``, ``[superseded]`` for earlier ones) after its episode lines (``(context)``). Read as one
    text, the values of every revision and the condition words of the head mix; so each revision
    becomes its own hit with its episode lines, its time and its status, as the memory without
    the fact layer shows them.
    """
    if hit.layer != "fact" or "\n" not in hit.text:
        return [hit]
    out: list[MemoryHit] = []
    context: list[str] = []
    for line in hit.text.splitlines()[1:]:
        m = _REVISION.match(line)
        if m is None:
            continue
        if m.group(3) == " (context)":
            context.append(m.group(2))
            continue
        ts = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M")
        status = SUPERSEDED if m.group(3) else ACTIVE
        text = "\n".join([*context, m.group(2)])
        out.append(replace(hit, text=text, timestamp=ts, status=status))
        context = []
    return out or [hit]
