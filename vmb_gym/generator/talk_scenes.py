"""Authored conversations ("scenes") for the natural renderer's chit-chat, loaded and checked.

The scenes are the package data file ``data/scenes.json`` (:mod:`vmb_gym.generator.bank_data`):
one bank per kind of key, :data:`JOB` (an occupation of :data:`vmb_gym.generator.banks.OCCUPATIONS`),
:data:`INTEREST` (an interest of ``data/interests.json``) and :data:`EVERYDAY` (any other word: an
everyday topic). A key maps to scenes, and a scene is a list of lines ``"A: text"`` or
``"B: text"`` (A owns the key: their job, their interest, or simply the one who raises the topic;
``{a}`` and ``{b}`` are A's and B's first names).

:func:`load_bank` reads the file and checks it:

* format (:func:`scene_problems`; :func:`bank_problems` checks a whole scenes file): a dict
  of non-empty tuples, each line ``A: ``/``B: `` and text, no digits, no braces but ``{a}``/``{b}``,
  between :data:`MIN_LINES` and :data:`MAX_LINES` lines; a job or interest key that is no
  occupation or interest. A malformed bank raises :class:`~vmb_gym.errors.DataError` (the kind,
  key, scene and line are named);
* vehicle vocabulary (:func:`vehicle_line`): a scene with a line that names a car or a vehicle
  setting, a scale word the value matcher reads ("full blast", "lowest"), or a value word of the
  simulator vocabulary beside a word that names a function or module ("shuffle the songs") is left
  out of the bank and listed in :attr:`SceneBank.rejected`. Small talk never states a car
  preference, so no chit-chat line can be read as evidence.

:class:`SceneDraw` is one history's use of the bank: :meth:`SceneDraw.pick` draws an unused
scene keyed by the sharer's occupation, one of their two interests or an everyday topic (now and
then the other person's job or interest, who then plays A), never the same scene twice in one
history.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from vmb_gym.errors import DataError
from vmb_gym.generator.bank_data import frozen, load, validate
from vmb_gym.generator.records import Person

__all__ = [
    "CAR_WORDS",
    "EVERYDAY",
    "INTEREST",
    "JOB",
    "KIND_WEIGHTS",
    "MAX_LINES",
    "MIN_LINES",
    "OTHER_WEIGHT",
    "Scene",
    "SceneBank",
    "SceneDraw",
    "bank_problems",
    "build_bank",
    "load_bank",
    "scene_problems",
    "vehicle_line",
]

#: Lines a scene may have.
MIN_LINES, MAX_LINES = 4, 24
#: The kinds of key (the banks of ``data/scenes.json``): the sharer's job, one of their interests, an everyday topic.
JOB, INTEREST, EVERYDAY = "job", "interest", "everyday"
#: How often each kind is drawn (among the kinds that still have an unused scene for the sharer).
KIND_WEIGHTS: Mapping[str, float] = {JOB: 3.0, INTEREST: 3.0, EVERYDAY: 3.0}
#: Weight of the other person's job and interests, relative to the sharer's.
OTHER_WEIGHT = 0.5

_LINE = re.compile(r"^([AB]): (\S.*)$")
_NAMES = re.compile(r"\{[ab]\}")
_DIGIT = re.compile(r"\d")
#: Words the rules reader's value matcher reads as the top or bottom of a scale (vmb_agents.reader.values).
_EXTREMES = re.compile(r"\b(?:max|maxed|maximum|all the way up|highest|full blast|hurricane|strongest|minimum|lowest|"
                       r"all the way down|weakest|dimmest|softest)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Scene:
    """One authored conversation.

    Attributes:
        sid: ``"kind:key:index"``, unique in the bank.
        kind: :data:`JOB`, :data:`INTEREST` or :data:`EVERYDAY`.
        key: the occupation, interest or topic.
        lines: ``(speaker, text)`` with speaker ``"A"`` (the key's owner) or ``"B"``.
    """

    sid: str
    kind: str
    key: str
    lines: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SceneBank:
    """Every usable scene by kind and key, and the scenes left out for their vocabulary."""

    by_key: Mapping[tuple[str, str], tuple[Scene, ...]]
    rejected: tuple[tuple[str, str], ...] = ()

    def scenes(self) -> list[Scene]:
        """All usable scenes, in bank order."""
        return [s for k in sorted(self.by_key) for s in self.by_key[k]]

    def __len__(self) -> int:
        return sum(map(len, self.by_key.values()))


#: Car words a scene never says, whatever else the line holds: cars and driving, and the writers'
#: list of setting words. Words that name a setting only in a car ("wheel", "route", "fuel") count as
#: function words (refused beside a value word); a mechanic's "engine" or a woodworker's "garage"
#: names no setting and stays.
CAR_WORDS: tuple[str, ...] = (
    "car", "cars", "vehicle", "vehicles", "drive", "driving", "drove", "driver", "passenger", "traffic", "road trip",
    "parking", "park the",
    "seat", "seats", "temperature", "climate", "fan", "a/c", "air con", "aircon", "heater", "heating", "heated",
    "window", "windows", "sunroof", "mirror", "mirrors", "lamp", "lamps", "light", "lights", "lighting", "volume",
    "massage", "ventilation", "ventilated", "steering", "wiper", "wipers", "navigation", "nav", "drive mode",
    "trunk", "door", "doors", "defrost", "defroster", "degree", "degrees", "percent", "level", "levels", "cabin",
    "dashboard", "radio", "playlist", "ambient", "brightness", "cooling", "warmer", "cooler",
)


@cache
def _vocabulary() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns of (car words and multi-word setting names, words naming a function or module, value words).

    From the simulator vocabulary (:mod:`vmb_gym.vehicle.lexicon`: module words, setting synonyms,
    value synonyms) and the generator catalogue (setting nouns, value wordings), as
    :func:`vmb_gym.generator.chat_bank.vehicle_words` reads them.
    """
    from vmb_gym.generator.catalog import catalogue, render_value
    from vmb_gym.vehicle.lexicon import MODULE_WORDS, SETTING_SYNONYMS, VALUE_SYNONYMS

    setting = {w for ws in MODULE_WORDS.values() for w in ws} | {w for ws in SETTING_SYNONYMS.values() for w in ws}
    value = {w for table in VALUE_SYNONYMS.values() for w in table}
    for api, st in catalogue().items():
        setting |= {re.sub(r"^the ", "", n.replace("{t}", "").strip()) for n in st.nouns}
        value |= {str(render_value(v, api)) for v in st.values}
    car = set(CAR_WORDS) | {w for w in setting if " " in w.strip()}

    def pattern(words: set[str]) -> re.Pattern[str]:
        kept = sorted({w.lower().strip() for w in words if len(w.strip()) > 2 and w.lower() not in ("off", "the")},
                      key=len, reverse=True)
        return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, kept)) + r")(?!\w)", re.IGNORECASE)
    return pattern(car), pattern(setting), pattern(value)


def vehicle_line(text: str) -> str | None:
    """Why ``text`` could be read as a car preference, or None.

    A line is refused when it names a car or a setting (:data:`CAR_WORDS`, a multi-word setting
    name such as "reading light"), a scale word the value matcher reads ("full blast", "lowest"),
    or a value word ("high", "green", "shuffle") beside a word that names a function or module
    ("phone", "song", "colour"): the rules reader's value matcher reads a value only next to such a
    word. Either kind alone is everyday speech ("my phone died", "at high tide").
    """
    car, setting, value = _vocabulary()
    hit = car.search(text) or _EXTREMES.search(text)
    if hit is not None:
        return hit.group(0)
    named = [m.span() for m in setting.finditer(text)]
    for said in value.finditer(text):  # a value word beside another word that names a function
        for start, end in named:
            if end <= said.start() or said.end() <= start:
                return f"{text[start:end]} + {said.group(0)}"
    return None


def bank_problems(doc: object) -> list[str]:
    """Problems of a scenes data document: its schema (:func:`~vmb_gym.generator.bank_data.validate`), then the
    scene rules of each kind (:func:`scene_problems`) once the schema holds."""
    out = validate("scenes", doc)
    if not out and isinstance(doc, dict):
        for kind, scenes in doc["banks"].items():
            out.extend(scene_problems(kind, frozen(scenes), kind))
    return out


def scene_problems(name: str, scenes: object, kind: str) -> list[str]:
    """Format problems of the scenes of one ``kind`` (key -> scenes; empty when they are well formed)."""
    from vmb_gym.generator import banks

    if not isinstance(scenes, dict):
        return [f"{name} is a {type(scenes).__name__}, not a dict"]
    keys = {JOB: {o for o, _, _ in banks.OCCUPATIONS}, INTEREST: set(load("interests").INTERESTS)}.get(kind)
    out: list[str] = []
    for key, group in scenes.items():
        if keys is not None and key not in keys:
            out.append(f"{name} key {key!r} is no {kind} (one of {sorted(keys)[:4]}...)")
        if not isinstance(group, tuple) or not group:
            out.append(f"{name} {key!r}: scenes are not a non-empty tuple")
            continue
        for i, scene in enumerate(group):
            out.extend(_scene_problems(f"{name} {key!r} scene {i}", scene))
    return out


def _scene_problems(where: str, scene: object) -> list[str]:
    if not isinstance(scene, tuple) or not MIN_LINES <= len(scene) <= MAX_LINES:
        size = len(scene) if isinstance(scene, tuple) else type(scene).__name__
        return [f"{where}: expected a tuple of {MIN_LINES}-{MAX_LINES} lines, found {size}"]
    out = []
    for j, raw in enumerate(scene):
        m = _LINE.match(raw) if isinstance(raw, str) else None
        if m is None:
            out.append(f"{where} line {j}: expected 'A: text' or 'B: text', found {str(raw)[:50]!r}")
            continue
        text = _NAMES.sub("", m.group(2))
        if _DIGIT.search(text):
            out.append(f"{where} line {j}: a digit in {text[:50]!r}")
        if "{" in text or "}" in text:
            out.append(f"{where} line {j}: a brace other than {{a}}/{{b}} in {text[:50]!r}")
    return out


def build_bank(kinds: Iterable[tuple[str, object]]) -> SceneBank:
    """The bank of ``(kind, key -> scenes)`` pairs: checked, vehicle-word scenes left out.

    Raises:
        DataError: the scenes of a kind are malformed (every problem is listed, up to ten).
    """
    by_key: dict[tuple[str, str], list[Scene]] = {}
    rejected: list[tuple[str, str]] = []
    for kind, scenes in kinds:
        problems = scene_problems(kind, scenes, kind)
        if problems:
            raise DataError(kind, f"expected scenes of 'A: text'/'B: text' lines, found {len(problems)} problems: "
                            + "; ".join(problems[:10]) + "; fix: correct those lines in data/scenes.json")
        assert isinstance(scenes, dict)
        for key, group in scenes.items():
            for i, raw in enumerate(group):
                sid = f"{kind}:{key}:{i}"
                lines = tuple((m.group(1), m.group(2)) for m in map(_LINE.match, raw) if m is not None)
                bad = next((w for _, t in lines if (w := vehicle_line(t)) is not None), None)
                if bad is not None:
                    rejected.append((sid, bad))
                    continue
                by_key.setdefault((kind, key), []).append(Scene(sid, kind, key, lines))
    return SceneBank({k: tuple(v) for k, v in by_key.items()}, tuple(rejected))


@cache
def load_bank() -> SceneBank:
    """The scenes of ``data/scenes.json``, checked (see :func:`build_bank`)."""
    return build_bank(vars(load("scenes")).items())


@dataclass
class SceneDraw:
    """One history's draws from the scene bank: each scene at most once.

    Attributes:
        share: probability that a conversation long enough is a scene (when one is left).
        bank: the bank drawn from (default: :func:`load_bank`).
        min_lines: the shortest talk that may be a scene.
        used: ids of the scenes this history has used.
    """

    share: float
    bank: SceneBank | None = None
    min_lines: int = MIN_LINES
    used: set[str] = field(default_factory=set)

    def supply(self, people: Sequence[Person], interests: Sequence[Sequence[str]]) -> int:
        """How many scenes the household can use: its people's jobs and ``interests``, and every everyday topic."""
        bank = self.bank if self.bank is not None else load_bank()
        keys = {k for k in bank.by_key if k[0] == EVERYDAY} | {(JOB, p.occupation) for p in people}
        keys |= {(INTEREST, i) for likes in interests for i in likes}
        return sum(len(bank.by_key.get(k, ())) for k in keys)

    def pick(self, rng: random.Random, sharer: Person, other: Person, interests: Sequence[Sequence[str]],
             lines: int = MAX_LINES) -> tuple[Scene, bool] | None:
        """An unused scene and whether ``sharer`` owns it (is its A), or None.

        With probability :attr:`share` a scene is drawn: a kind of key by :data:`KIND_WEIGHTS`
        among those with an unused scene (the sharer's job, one of their ``interests[0]``, an
        everyday topic, and at :data:`OTHER_WEIGHT` of their weight the other's job and
        ``interests[1]``: then the other is A), then a scene of that kind, one of at most ``lines``
        lines when there is one (a scene is seldom cut). None when the draw says no or nothing is left.
        """
        if rng.random() >= self.share:
            return None
        bank = self.bank if self.bank is not None else load_bank()
        options: list[tuple[float, list[Scene], bool]] = []
        for mine, person, likes in ((True, sharer, interests[0]), (False, other, interests[1])):
            scale = 1.0 if mine else OTHER_WEIGHT
            for kind, keys in ((JOB, [(JOB, person.occupation)]), (INTEREST, [(INTEREST, i) for i in likes])):
                pool = [s for k in keys for s in bank.by_key.get(k, ()) if s.sid not in self.used]
                options.append((KIND_WEIGHTS[kind] * scale, pool, mine))
        everyday = [s for k in sorted(bank.by_key) if k[0] == EVERYDAY
                    for s in bank.by_key[k] if s.sid not in self.used]
        options.append((KIND_WEIGHTS[EVERYDAY], everyday, True))
        options = [o for o in options if o[1]]
        if not options:
            return None
        _, pool, mine = rng.choices(options, [w for w, _, _ in options])[0]
        fits = [s for s in pool if len(s.lines) <= lines]
        scene = rng.choice(fits or pool)
        self.used.add(scene.sid)
        return scene, mine
