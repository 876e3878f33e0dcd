"""The names a memory query may start with: the people a request names (for ``name_in_query``).

A small model writes memory queries such as ``"Radiometer"`` or ``"Polar Sunroof open degree"``; a
bm25 search finds a person's preferences only with the person's name in it. With
a guide's ``name_in_query`` (:mod:`vmb_agents.llm.constrained`) every ``search_memory`` query starts
with one of :func:`request_names` followed by a space; which of them, and everything after it, the
model decides. The names are read from the request's narration, not its quotes (``'Restore my
lights'``): capitalised words that are not common sentence words (:data:`NOT_NAMES`) and not a
place (a capitalised run after ``to``, ``at``, ``from`` ...: ``driving to Oakwood Stadium``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["NOT_NAMES", "request_names", "request_text"]

#: Capitalised words of a request that are not names (sentence starts, pronouns, days, months, titles, roles).
NOT_NAMES = frozenset("""A An The At AM PM I I'm It He She They We You Your My Our His Her Their This That These Those
Let Set Can Could Would Will Please Make Turn Open Close Put Adjust Change Keep Give Get Go Do Just Actually Okay OK
Oh Hey Hi Yes No Not And But So Then When While After Before As If Thanks Thank Sure Well Now Today Tonight There Here
What Why How Where Who Which Also Maybe Alright Great Good Perfect Wow Ah Um Monday Tuesday Wednesday Thursday Friday
Saturday Sunday January February March April May June July August September October November December Dr Mr Mrs Ms
HUD AC Driver Passenger""".split())

#: A quote of the request (``'...'``; an apostrophe inside a word does not close it).
_QUOTE = re.compile(r"(?<![\w])['‘\"“](?=\S).*?['’\"”](?=[\s.,!?;:)]|$)", re.DOTALL)
#: A run of capitalised words.
_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)")
#: What precedes a place name.
_PLACE_BEFORE = re.compile(r"\b(?:to|at|from|in|near|toward|towards|into|past|via|through|the)\s+$")


def request_names(request: str) -> list[str]:
    """The names of the people ``request`` narrates, in order of first mention (each word of a full name)."""
    narration = _QUOTE.sub(" ", request)
    out: list[str] = []
    for m in _CAPITALISED.finditer(narration):
        if _PLACE_BEFORE.search(narration[:m.start()]):
            continue
        for word in re.split(r"[ -]", m.group(1)):
            if word not in NOT_NAMES and word not in out:
                out.append(word)
    return out


def request_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The request of a conversation: its first user message ("" when none)."""
    return next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
