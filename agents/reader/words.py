"""Which words name which vehicle function: phrase matching, numbers, conditions, API scores.

Everything here reads the request or a memory line against the simulator's vocabulary
(:data:`~vmb_gym.vehicle.API_SPECS`) and the everyday words of :mod:`vmb_gym.vehicle.lexicon`
(:data:`~vmb_gym.vehicle.lexicon.MODULE_WORDS`, :data:`~vmb_gym.vehicle.lexicon.API_WORDS`,
:data:`~vmb_gym.vehicle.lexicon.CONDITIONS`). Nothing is derived from any task's gold answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import (
    API_WORDS,
    CONDITIONS,
    MODULE_DEFAULT,
    MODULE_WORDS,
    NUMBER_WORDS,
    TENS_WORDS,
    phrase_pattern,
)

_NUM_RE = re.compile(
    r"(?<![\w.:])(\d{1,3})(?!\d)(?!:\d)(?:\s*(?:%|percent|degrees?|°c?|c\b))?"
    r"|\b((?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- "
    r"](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|hundred)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NumberMention:
    """A number written in a text (digits or English words) and where it starts."""

    value: int
    start: int
    worded: bool


def numbers_in(text: str) -> list[NumberMention]:
    """Every number from 0 to 100 written in ``text`` (digits or words), skipping clock times."""
    found: list[NumberMention] = []
    for m in _NUM_RE.finditer(text):
        if m.group(1) is not None:
            after = text[m.end(1): m.end(1) + 4].lower()
            if re.match(r"\s*(am|pm|a\.m|p\.m)\b", after):
                continue
            found.append(NumberMention(int(m.group(1)), m.start(), False))
        else:
            word = m.group(2).lower()
            parts = re.split(r"[- ]", word)
            value = TENS_WORDS.get(parts[0], NUMBER_WORDS.get(parts[0], 0))
            if len(parts) > 1:
                value += NUMBER_WORDS.get(parts[1], 0)
            found.append(NumberMention(value, m.start(), True))
    return found


def number_word(word: str) -> int | None:
    """The value of a small English number word or digits ("two" -> 2, "5" -> 5), else None."""
    w = word.lower()
    if w.isdigit():
        return int(w)
    if w in ("a", "an", "one", "a bit", "a little", "a touch", "slightly"):
        return 1
    return NUMBER_WORDS.get(w)


def find_phrases(text: str, phrases: Iterable[str]) -> list[tuple[str, int]]:
    """The phrases of ``phrases`` that occur in ``text``, with their first position."""
    out = []
    for p in phrases:
        m = phrase_pattern(p).search(text)
        if m:
            out.append((p, m.start()))
    return out


def module_words(module: str) -> tuple[str, ...]:
    """Words naming ``module``: :data:`~vmb_gym.vehicle.lexicon.MODULE_WORDS` plus the split camel-case key."""
    split = re.sub(r"([a-z])([A-Z])", r"\1 \2", module).lower()
    return tuple(dict.fromkeys((*MODULE_WORDS.get(module, ()), split)))


# ---------------------------------------------------------------------- conditions
def conditions_in(text: str) -> set[str]:
    """Condition groups (night, rain, hot, ...) whose words occur in ``text``."""
    return set(_conditions_cached(text))


@lru_cache(maxsize=200_000)
def _conditions_cached(text: str) -> frozenset[str]:
    """:func:`conditions_in`, cached per text (memory lines repeat across episodes)."""
    return frozenset(_conditions_in(text))


def _conditions_in(text: str) -> set[str]:
    """Condition groups named by their words, plus "night" for an evening clock time."""
    found = set()
    for group, words in CONDITIONS.items():
        if find_phrases(text, words):
            found.add(group)
    if re.search(r"\b(9|10|11|12):\d\d\s*PM|\b[6-8]:\d\d\s*PM", text) and "day" not in found:
        found.add("night")
    return found


# ---------------------------------------------------------------------- function scoring
def score_apis(text: str) -> dict[str, float]:
    """How strongly ``text`` names each vehicle function (0 = not at all)."""
    return dict(_score_apis_cached(text))


@lru_cache(maxsize=200_000)
def _score_apis_cached(text: str) -> tuple[tuple[str, float], ...]:
    """:func:`score_apis`, cached per text (as a tuple, so callers cannot change the cached scores)."""
    return tuple(_score_apis(text).items())


def unnamed_setting_modules(text: str) -> dict[str, float]:
    """The modules ``text`` names without naming any of their settings, with the module's score.

    "Restore my HUD settings" names the HUD and none of its settings: each HUD function is asked
    for alike, and which one the person meant is for the memory to tell (:func:`score_apis` gives
    such a module's default function its module score, so a request can still be planned without
    memory).
    """
    return dict(_unnamed_cached(text))


@lru_cache(maxsize=200_000)
def _unnamed_cached(text: str) -> tuple[tuple[str, float], ...]:
    """:func:`unnamed_setting_modules`, cached per text."""
    named = {s.module for api, s in API_SPECS.items() if find_phrases(text, API_WORDS.get(api, ()))}
    return tuple((m, score) for m, score in sorted(_module_scores(text).items()) if m not in named)


def _phrase_weight(found: list[tuple[str, int]]) -> float:
    """The weight of the longest matching phrase (1 for a word, +0.5 per further word; 0 for none)."""
    return max((1.0 + 0.5 * (len(p.split()) - 1) for p, _ in found), default=0.0)


@lru_cache(maxsize=200_000)
def _module_scores(text: str) -> dict[str, float]:
    """Each module ``text`` names, with the weight of its longest matching name (cached; callers do not change it)."""
    found = {module: find_phrases(text, module_words(module)) for module in {s.module for s in API_SPECS.values()}}
    return {module: _phrase_weight(f) for module, f in found.items() if f}


def _score_apis(text: str) -> dict[str, float]:
    """Module score (its longest matching phrase) plus field score per function; see :func:`score_apis`."""
    module_score = _module_scores(text)
    scores: dict[str, float] = {}
    for api, spec in API_SPECS.items():
        mod = module_score.get(spec.module, 0.0)
        found = find_phrases(text, API_WORDS.get(api, ()))
        field_score = _phrase_weight(found)
        if field_score == 0.0 and not (mod and MODULE_DEFAULT.get(spec.module) == api):
            continue
        if field_score and not mod:
            if all(len(_PHRASE_MODULES.get(p.lower(), ())) == 1 for p, _ in found):
                mod = 1.0  # a word only one device has ("headrest", "massage") names the device too
            elif field_score < 1.5:
                field_score *= 0.6  # a bare shared word ("brightness") without its device
        total = mod + field_score + (0.3 if mod and MODULE_DEFAULT.get(spec.module) == api else 0.0)
        if total > 0:
            scores[api] = total
    return scores


def _phrase_modules() -> dict[str, set[str]]:
    """Every lexicon phrase (lower case) -> the modules it may name."""
    table: dict[str, set[str]] = {}
    for api, words in API_WORDS.items():
        for w in words:
            table.setdefault(w.lower(), set()).add(API_SPECS[api].module)
    for module in {s.module for s in API_SPECS.values()}:
        for w in module_words(module):
            table.setdefault(w.lower(), set()).add(module)
    return table


_PHRASE_MODULES = _phrase_modules()


def top_scores(scores: dict[str, float], n: int) -> list[tuple[str, float]]:
    """The ``n`` best-scored functions of ``scores``, best first (ties keep ``scores``' order)."""
    return sorted(scores.items(), key=lambda kv: -kv[1])[:n]
