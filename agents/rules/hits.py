"""Reading a memory hit: its text without names, its content words, and whose line it is."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from vmb_gym.memory import MemoryHit
from vmb_gym.vehicle.lexicon import STOP_WORDS


def hit_body(hit: MemoryHit, speakers: Sequence[str]) -> str:
    """A hit's text without the speaker prefix and without people's names ("Kimberly Green" is no colour)."""
    return hit_body_cached(hit.text, tuple(hit.people), tuple(speakers))


@lru_cache(maxsize=200_000)
def hit_body_cached(text: str, people: tuple[str, ...], speakers: tuple[str, ...]) -> str:
    """:func:`hit_body` of a hit given by its text and people, cached (the slot design calls it per line)."""
    hit = MemoryHit(entry_id="", text=text, score=0.0, timestamp=None, people=people)
    for name in (*hit.people, *speakers):
        if text.startswith(name + ":"):
            text = text[len(name) + 1:]
            break
    for name in speakers:
        for part in name.split():
            text = re.sub(rf"\b{re.escape(part)}\b", "_", text)
    return text


def content_words(text: str) -> set[str]:
    """Lower-cased words of 4+ letters that are not function words (for overlap scores)."""
    return {w for w in re.findall(r"[a-z][a-z'’]{3,}", text.lower()) if w not in STOP_WORDS}


def same_person(a: str, b: str) -> bool:
    """Whether two names are one person (same full name or same first name, case-insensitive)."""
    return a.lower() == b.lower() or a.split()[0].lower() == b.split()[0].lower()


def mentions_person(hit: MemoryHit, person: str) -> bool:
    """Whether ``hit`` is by ``person`` or names their first name."""
    if any(same_person(p, person) for p in hit.people):
        return True
    return bool(re.search(rf"\b{re.escape(person.split()[0])}\b", hit.text))
