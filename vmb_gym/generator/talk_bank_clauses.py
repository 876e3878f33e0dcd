"""Clauses people hang on the end of a statement, for the natural renderer's small talk (original text).

Real turns run on: "..., but maybe that's just me", "..., and Dana agrees, for once",
"..., especially if the weather holds". :func:`extend` ends a line's last sentence with one such
clause now and then; each clause is a linking word and a body drawn apart, and the bodies may
name the sharer's relative (``{rname}``, ``{relative}``), so the same clause rarely
comes twice. No clause names a vehicle setting or a value.
"""

from __future__ import annotations

import random
import re

__all__ = ["CLAUSES", "extend"]

#: Linking word -> what may follow it.
CLAUSES: dict[str, tuple[str, ...]] = {
    "and": (
        "I hope it stays that way", "{rname} agrees, for once", "that's saying something", "I'm fine with that",
        "your {relative2} would say the same", "nobody else seems to notice", "I think {rname} knows it too",
        "it's only getting busier", "I'm trying to keep perspective", "that's before we even talk about money",
        "I've stopped pretending otherwise", "it shows", "honestly I'm glad", "it's been that way for months",
        "maybe that's fine", "{rname} would say the same", "{rname} knows it", "your {relative2} would laugh", "those are the good days",
        "both of us know it", "I hope it lasts", "we'll both be glad after", "I'll let you know how it goes",
    ),
    "but": (
        "maybe that's just me", "{rname} thinks I'm overreacting", "I could be wrong", "it's early days",
        "I'm not complaining", "we'll see how long that lasts", "I'm learning to live with it", "{rname} disagrees",
        "don't quote me on that", "that might change by next week",
        "at least we're talking about it", "it's better than it was", "the kids don't seem to mind",
        "sometimes that's just how it goes", "{rname} says I worry too much", "{rname} thinks it's funny", "maybe I'm wrong",
        "those things take time", "your {relative2} might disagree", "any advice is welcome", "I'll always wonder",
    ),
    "especially": (
        "if the weather holds", "with everything else going on", "this time of year", "after last month",
        "when {rname} is around", "on the busy days", "with the holidays coming", "when everyone's tired",
        "now that the evenings are longer", "if it means less stress for everyone",
        "for those of us with early starts", "after the week we had", "for both of us", "with your {relative2} visiting",
    ),
    "if": (
        "that makes sense", "you know what I mean", "nothing changes", "I'm being honest", "all goes to plan",
        "{rname} has a say in it", "the timing works out", "I can find the energy", "that's not too much to ask",
        "your {relative2} agrees", "{rname} ever calls back", "those plans hold", "anyone asks me",
    ),
    "as": (
        "far as I can tell", "usual", "{rname} keeps reminding me", "long as nobody gets hurt", "I expected",
        "my {relative} would say", "you probably guessed", "much as I hate to admit it",
    ),
    "even": (
        "if it takes a while", "if nobody else notices", "if it's only for a week", "though it's a lot",
        "though {rname} thinks otherwise", "on the bad days", "when it feels pointless",
    ),
    "so": (
        "maybe it's time for a change", "that's something", "I'm not too worried", "fingers crossed",
        "we'll see", "I'll take it", "I guess that's progress",
    ),
}
#: Relatives a clause may name besides the sharer's own.
RELATIVES2: tuple[str, ...] = ("sister", "brother", "mom", "dad", "cousin", "grandmother", "aunt", "uncle")
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
    link = rng.choice(sorted(CLAUSES))
    body = rng.choice(CLAUSES[link]).replace("{relative2}", rng.choice(RELATIVES2))
    return f"{template[:-1]}, {link} {body}."
