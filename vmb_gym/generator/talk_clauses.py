"""Clauses people hang on the end of a statement, for the natural renderer's small talk.

Real turns run on: "..., but maybe that's just me", "..., and Dana agrees, for once",
"..., especially if the weather holds". :func:`extend` ends a line's last sentence with one such
clause now and then: a linking word and a body drawn apart from ``data/clauses.json``
(``CLAUSES``; a body may name the sharer's relative, ``{rname}``, ``{relative}``, or another
relative of ``RELATIVES2``), so the same clause rarely comes twice.
"""

from __future__ import annotations

import random
import re

from vmb_gym.generator.bank_data import load

__all__ = ["MAX_LINE_WORDS", "MIN_WORDS", "SHARE", "extend"]

#: Share of eligible statements extended.
SHARE = 0.35
#: Fewest words the last sentence must have before it may be extended.
MIN_WORDS = 7
#: Most words a line may have before it may be extended (long turns stay as they are).
MAX_LINE_WORDS = 16
_LAST = re.compile(r"(?:^|(?<=[.!?] ))([^.!?]+)\.$")


def extend(template: str, rng: random.Random) -> str:
    """``template`` with, now and then (:data:`SHARE`), a clause hung on its last sentence.

    Only a statement is extended (it ends with a full stop), and only when its last sentence
    has at least :data:`MIN_WORDS` words and the line at most :data:`MAX_LINE_WORDS`
    (placeholders and choices count as written).
    """
    m = _LAST.search(template)
    if m is None or rng.random() >= SHARE:
        return template
    last = m.group(1)
    if len(last.split()) < MIN_WORDS or len(template.split()) > MAX_LINE_WORDS or last.startswith(("Thank", "Thanks")):
        return template
    clauses = load("clauses")
    link = rng.choice(sorted(clauses.CLAUSES))
    body = rng.choice(clauses.CLAUSES[link]).replace("{relative2}", rng.choice(clauses.RELATIVES2))
    return f"{template[:-1]}, {link} {body}."
