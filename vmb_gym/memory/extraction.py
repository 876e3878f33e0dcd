"""Rule-based extraction of vehicle settings from utterances (no LLM), for the layered memory.

Setting keys are ``module`` or ``module.attribute`` names of the simulator (``seat.headrest``,
``instrumentPanel``), plus cross-module attributes (``color``, ``brightness``, ...). Trigger
phrases come from the simulator itself (module names, API names, allowed values from
``API_SPECS``) and from the everyday wording of :mod:`vmb_gym.vehicle.lexicon`
(:data:`~vmb_gym.vehicle.lexicon.SETTING_SYNONYMS`: "dashboard", "too cold"). This module holds the
code: :class:`Vocabulary` (compiled phrases), :func:`salience`, :func:`setting_key`, and
:func:`people_in` (who a request names and who speaks in it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from vmb_gym.vehicle.lexicon import (
    CONDITION_CLAUSE,
    CONTROL_WORDING,
    DESTINATION_WORDING,
    GENERIC_VALUES,
    LEVEL_WORDING,
    PERSON_STATE_WORDING,
    PREFERENCE_WORDING,
    QUERY_HINTS,
    SETTING_ATTRIBUTES,
    SETTING_SYNONYMS,
    SPECIAL_SETTINGS,
)

#: Attributes shared by several modules (the lexicon's :data:`~vmb_gym.vehicle.lexicon.SETTING_ATTRIBUTES`).
ATTRIBUTES: frozenset[str] = SETTING_ATTRIBUTES


def salience(text: str, values: Iterable[str] = (), settings: Iterable[str] = ()) -> float:
    """How much an utterance reads as a setting change/preference (0 = chit-chat, up to 5).

    One point each for control wording ("set", "turn up", "let's"), preference wording ("I prefer",
    "too bright"), a level/number, an allowed value and a destination/situation pattern
    (:data:`~vmb_gym.vehicle.lexicon.SPECIAL_SETTINGS`); minus one for a bare question.
    """
    low = text.lower()
    s = 1.0 if SPECIAL_SETTINGS.intersection(settings) else 0.0
    control = bool(CONTROL_WORDING.search(low))
    s += 1.0 if control else 0.0
    s += 1.0 if PREFERENCE_WORDING.search(low) else 0.0
    s += 1.0 if LEVEL_WORDING.search(low) else 0.0
    s += 1.0 if any(True for _ in values) else 0.0
    if low.rstrip().endswith("?") and not control:
        s -= 1.0
    return max(s, 0.0)


_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d{1,3}(?:\.\d)?\b")


@dataclass(frozen=True)
class Extraction:
    """What one utterance says about vehicle settings."""

    settings: frozenset[str]
    values: tuple[str, ...]
    condition: str | None
    strength: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> str:
        """One setting key: the most strongly named device setting, plus shared attributes (``a|b``)."""
        return setting_key(self.settings, dict(self.strength))


def setting_key(settings: Iterable[str], strength: dict[str, int] | None = None) -> str:
    """``device|attr,attr`` for a set of setting names (``""`` for no device).

    The device is the one named by the longest phrase (``strength``: setting -> phrase length, as
    from :meth:`Vocabulary.strengths`; "airflow" beats "hot"), then the most specific name.
    """
    s = set(settings)
    st = strength or {}
    dev = sorted(k for k in s if k not in ATTRIBUTES)
    att = sorted(k for k in s if k in ATTRIBUTES)
    d = max(dev, key=lambda k: (st.get(k, 0), k.count("."), k)) if dev else ""
    return d + ("|" + ",".join(att) if att else "")


#: The verb that introduces what a person says in a request.
SPEECH_VERB = re.compile(
    r"\b(?:told|tells|said|says|asked|asks|mentioned|complained|muttered|groaned|replied|corrected|explained|"
    r"noted|added|sighed|shouted|exclaimed|whispered|called out)\b",
    re.IGNORECASE,
)


def people_in(text: str, speakers: Sequence[str]) -> tuple[set[str], str | None]:
    """Speakers a request names (full, last or unambiguous first name) and the one who speaks."""
    low = text.lower()
    firsts: dict[str, int] = {}
    lasts: dict[str, int] = {}
    for sp in speakers:
        parts = sp.lower().split()
        if parts:
            firsts[parts[0]] = firsts.get(parts[0], 0) + 1
            lasts[parts[-1]] = lasts.get(parts[-1], 0) + 1
    where: dict[str, list[int]] = {}
    for sp in speakers:
        parts = sp.lower().split()
        if not parts:
            continue
        keys = [sp.lower()]
        if len(parts) > 1 and lasts[parts[-1]] == 1:
            keys.append(parts[-1])
        if firsts[parts[0]] == 1:
            keys.append(parts[0])
        pos = sorted(m.start() for k in keys for m in re.finditer(r"\b" + re.escape(k) + r"\b", low))
        if pos:
            where[sp] = pos
    speaker = None
    m = SPEECH_VERB.search(text)
    if m:  # the subject of the clause that says "told/said/asked ...": its first named person
        lo = max(text.rfind(sep, 0, m.start()) for sep in (". ", "? ", "! ", ": '", ":'"))
        inside = {sp: min(i for i in pos if lo < i < m.start()) for sp, pos in where.items()
                  if any(lo < i < m.start() for i in pos)}
        if inside:
            speaker = min(inside, key=lambda sp: inside[sp])
    if speaker is None and where:  # "He told the car": the person the request is about, named first
        speaker = min(where, key=lambda sp: where[sp][0])
    return set(where), speaker


def family(setting: str) -> str:
    """The module part of a setting name (``seat.headrest`` -> ``seat``)."""
    return setting.split(".")[0]


class Vocabulary:
    """Compiled trigger phrases: the simulator's API specs plus the lexicon's
    :data:`~vmb_gym.vehicle.lexicon.SETTING_SYNONYMS` and :data:`~vmb_gym.vehicle.lexicon.QUERY_HINTS`."""

    def __init__(self, extra: dict[str, Iterable[str]] | None = None) -> None:
        phrases: dict[str, set[str]] = {k: set(v) for k, v in SETTING_SYNONYMS.items()}
        self.values: set[str] = set()
        for key, words in _simulator_phrases().items():
            phrases.setdefault(key, set()).update(words)
        for k, v in _simulator_values().items():
            phrases.setdefault(k, set()).update(v)
            self.values.update(v)
        for key, extra_words in (extra or {}).items():
            phrases.setdefault(key, set()).update(w.lower() for w in extra_words)
        self._patterns = {
            k: re.compile(r"(?<![\w-])(?:" + "|".join(sorted((re.escape(w) for w in ws), key=len, reverse=True))
                          + r")(?![\w-])")
            for k, ws in phrases.items() if ws
        }
        # prefilter: a phrase can only match where its first word is a word of the text
        self._by_first: dict[str, set[str]] = {}
        self._always: set[str] = set()
        for k, ws in phrases.items():
            for w in ws:
                m = _WORD.match(w)
                if m:
                    self._by_first.setdefault(m.group(0), set()).add(k)
                else:
                    self._always.add(k)
        self._hints = {
            k: re.compile(r"(?<![\w-])(?:" + "|".join(sorted((re.escape(w) for w in ws), key=len, reverse=True))
                          + r")(?![\w-])")
            for k, ws in QUERY_HINTS.items() if ws
        }
        alternatives = "|".join(sorted((re.escape(v) for v in self.values), key=len, reverse=True))
        self._values = re.compile(r"(?<![\w-])(?:" + alternatives + r")(?![\w-])") if self.values else None

    def settings(self, text: str) -> frozenset[str]:
        """Setting names that ``text`` mentions (plus a destination or a person's changed situation)."""
        return frozenset(self.strengths(text))

    def strengths(self, text: str) -> dict[str, int]:
        """Setting names that ``text`` mentions, each with the length of its longest matched phrase."""
        low = text.lower()
        found: dict[str, int] = {}
        cand = set(self._always)
        for word in _WORD.findall(low):
            cand.update(self._by_first.get(word, ()))
        for k in cand:
            p = self._patterns.get(k)
            if p is not None and p.search(low) is not None:
                found[k] = max(len(m.group(0)) for m in p.finditer(low))
        m = DESTINATION_WORDING.search(text)
        if m:
            found["navigation.destination"] = len(m.group(0))
        m = PERSON_STATE_WORDING.search(text)
        if m:
            found["person.state"] = 1
        return found

    def hints(self, text: str) -> frozenset[str]:
        """Setting names a request points at through :data:`~vmb_gym.vehicle.lexicon.QUERY_HINTS` wording."""
        low = text.lower()
        return frozenset(k for k, p in self._hints.items() if p.search(low))

    def extract_values(self, text: str) -> Extraction | None:
        """Values and condition of an utterance that names no setting ("set it to 8"), or ``None``."""
        low = text.lower()
        values = tuple(dict.fromkeys([*(self._values.findall(low) if self._values else []), *_NUMBER.findall(low)]))
        if not values:
            return None
        m = CONDITION_CLAUSE.search(text)
        return Extraction(frozenset(), values, m.group(0).strip().lower() if m else None)

    def extract(self, text: str) -> Extraction | None:
        """Settings, values and condition of an utterance (``None`` when it names no setting)."""
        strength = self.strengths(text)
        if not strength:
            return None
        low = text.lower()
        values = tuple(dict.fromkeys([*(self._values.findall(low) if self._values else []), *_NUMBER.findall(low)]))
        m = CONDITION_CLAUSE.search(text)
        condition = m.group(0).strip().lower() if m else None
        return Extraction(frozenset(strength), values, condition, tuple(sorted(strength.items())))


@lru_cache(maxsize=1)
def _simulator_phrases() -> dict[str, frozenset[str]]:
    """Module names of the simulator as phrases ("instrumentPanel" -> "instrument panel")."""
    try:
        from vmb_gym.vehicle import MODULE_KEYS
    except Exception:  # noqa: BLE001 - the vocabulary still works from SETTING_SYNONYMS alone
        return {}
    out: dict[str, frozenset[str]] = {}
    for key in MODULE_KEYS:
        words = re.sub(r"([a-z])([A-Z])", r"\1 \2", key).lower()
        out[key] = frozenset({words})
    return out


@lru_cache(maxsize=1)
def _simulator_values() -> dict[str, frozenset[str]]:
    """Allowed string values per setting, from the API specs (``color`` -> red, green, ...)."""
    try:
        from vmb_gym.vehicle import API_SPECS
    except Exception:  # noqa: BLE001
        return {}
    out: dict[str, set[str]] = {}
    for name, spec in API_SPECS.items():
        parts = name.split("_")
        if len(parts) < 2:
            continue
        module = parts[1]
        rest = "_".join(parts[2:])
        attr = next((a for a in ATTRIBUTES if a in rest), None)
        for p in spec.params:
            c = p.constraint
            if c is None or not c.choices:
                continue
            key = attr or module
            vals = {v.lower().replace("_", " ") for v in c.choices if v.isascii()} - GENERIC_VALUES
            out.setdefault(key, set()).update(vals)
    return {k: frozenset(v) for k, v in out.items()}
