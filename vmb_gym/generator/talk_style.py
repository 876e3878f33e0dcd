"""Typographic variety of the natural renderer's small talk: dashes and ellipses as people type them.

The official histories join about one line in nine with an em dash ("I finished the draft—now
the edits") and trail off with an ellipsis in about one in two hundred. :func:`punctuate` does
the same to a line of small talk (never to a line that states a vehicle value, so the value
matcher reads those as generated).
"""

from __future__ import annotations

import random
import re

__all__ = ["DASH_SHARE", "ELLIPSIS_SHARE", "FILLER_DROP", "punctuate"]

#: Lines of two sentences or more whose first sentence break becomes an em dash.
DASH_SHARE = 0.16
#: Lines of one sentence whose first comma becomes an em dash.
COMMA_DASH_SHARE = 0.06
#: Lines whose first break becomes an ellipsis.
ELLIPSIS_SHARE = 0.008

#: Share of lines whose leading filler ("Okay, ", "Honestly, ") is dropped: people type fewer than they say.
FILLER_DROP = 0.5
_FILLER = re.compile(r"^(?:Okay|Alright|Honestly|Well|So|Wow|Right|Truthfully|Frankly)[,.!] (?=[A-Za-z])")

#: A sentence break: the next sentence starts with a word (not a name-like capital after a title).
_BREAK = re.compile(r"(?<![A-Z][a-z])(?<!\b[A-Z])\. (?=[A-Z][a-z']*\b)")
_COMMA = re.compile(r", (?=[a-z])")


def _lower_first(match_end: int, text: str) -> str:
    """``text`` with the word at ``match_end`` lower-cased, unless it is "I" or "I'm" and the like."""
    word = re.match(r"[A-Za-z']+", text[match_end:])
    if word is None or word.group(0) == "I" or word.group(0).startswith(("I'", "I\u2019")):
        return text
    return text[:match_end] + text[match_end].lower() + text[match_end + 1:]


def punctuate(text: str, rng: random.Random) -> str:
    """``text`` with, now and then, its leading filler dropped and its first sentence break set as
    an em dash or an ellipsis."""
    filler = _FILLER.match(text)
    if filler is not None and rng.random() < FILLER_DROP:
        rest = text[filler.end():]
        text = rest[:1].upper() + rest[1:]
    draw = rng.random()
    brk = _BREAK.search(text)
    if draw < ELLIPSIS_SHARE:
        m = brk or _COMMA.search(text)
        if m is not None:
            return text[:m.start()] + "\u2026 " + text[m.end():]
        return text
    if brk is not None and draw < DASH_SHARE:
        joined = text[:brk.start()] + "\u2014" + text[brk.end():]
        return _lower_first(brk.start() + 1, joined)
    comma = _COMMA.search(text)
    if brk is None and comma is not None and draw < COMMA_DASH_SHARE:
        return text[:comma.start()] + "\u2014" + text[comma.end():]
    return text
