"""The text the ``"vocab"`` line prior reads: a line with the simulator vocabulary masked.

Word n-grams fitted on generated histories learn the templates' setting names and values ("the
reading lamp at level 0") as much as the way people state a preference, and official lines name
the same settings and values in other words ("Navigation voice at fifty", "green always feels a bit
easier on the eyes"). :func:`vocab_text` replaces what the vocabulary knows by three tokens, so the
n-grams read how a line is said, not which setting or value it names:

* every number, in digits or in words ("fifty", "seventy-five") -> ``0``;
* every spelling of an enum value of the simulator ("green", "shuffle", "north-up", "detailed") ->
  ``zval``;
* every phrase that names a device or a setting in the lexicon (``MODULE_WORDS``, ``API_WORDS``:
  "navigation voice", "seat heating", "panel") -> ``zset``.

Names are masked by the caller, as in every rules body (:func:`vmb_agents.reader.hit_body`).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: The token of a value of an enum parameter.
VALUE_TOKEN = "zval"
#: The token of a device or setting phrase.
SETTING_TOKEN = "zset"
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")


def _alternation(phrases: set[str]) -> str:
    """A regex alternation of ``phrases``, longest first (so "seat heating" wins over "seat")."""
    return "|".join(re.escape(p) for p in sorted(phrases, key=lambda p: (-len(p), p)))


@lru_cache(maxsize=1)
def vocab_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The number-word, enum-value and setting-phrase patterns (lower case), built once from the lexicon."""
    from vmb_agents.reader.params import enum_spellings, value_param
    from vmb_gym.vehicle import API_SPECS
    from vmb_gym.vehicle.lexicon import API_WORDS, MODULE_WORDS, NUMBER_WORDS, TENS_WORDS

    numbers = _alternation(set(NUMBER_WORDS) | set(TENS_WORDS))
    enums: set[str] = set()
    for spec in API_SPECS.values():
        vp = value_param(spec)
        if vp is not None and vp.constraint is not None and vp.constraint.choices:
            enums |= {k for k in enum_spellings(spec, vp) if len(k) > 1}
    settings = {w.lower() for words in (*MODULE_WORDS.values(), *API_WORDS.values()) for w in words}
    return (re.compile(rf"\b(?:{numbers})(?:[- ](?:{numbers}))?\b"),
            re.compile(rf"(?<!\w)(?:{_alternation(enums)})(?!\w)"),
            re.compile(rf"(?<!\w)(?:{_alternation(settings)})(?!\w)"))


@lru_cache(maxsize=200_000)
def vocab_text(body: str) -> str:
    """``body`` lower-cased with numbers (digits and words), enum values and setting phrases masked.

    >>> vocab_text("Navigation voice at fifty, that's a good standard volume.").split()
    ['zset', 'zset', 'at', '0,', "that's", 'a', 'good', 'standard', 'zset', '.']
    """
    numbers, values, settings = vocab_patterns()
    text = _DIGITS.sub("0", body.lower())
    text = numbers.sub("0", text)
    text = values.sub(f" {VALUE_TOKEN} ", text)
    return settings.sub(f" {SETTING_TOKEN} ", text)
