"""The records a scenario is planned with: people, utterances, beats, query plans and slot instances.

Also the per-phase seeded generators (:func:`phase_rng`) and the small text helpers
(:func:`fill`, :func:`cap`, :func:`time12`). :func:`fill` returns a :class:`Filled` string that
remembers its template and fields, so a later renderer can re-word the same content.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.generator import banks
from vmb_gym.generator.catalog import FIXED_LABELS, SlotType
from vmb_gym.types import ToolCall
from vmb_gym.vehicle import API_SPECS

PHASES: tuple[str, ...] = ("people", "preferences", "dialogue", "queries", "phrasing", "targets", "devices",
                          "indirect", "restate", "return")


def phase_rng(seed: int, scenario_id: int, phase: str) -> random.Random:
    """The seeded generator of one phase of one scenario (stable across Python runs)."""
    if phase not in PHASES and not phase.startswith("global"):
        raise ConfigError(f"unknown generator phase {phase!r}; expected one of {PHASES}")
    return random.Random(f"vmb-gen/{seed}/{scenario_id}/{phase}")


# ============================================================================ people
@dataclass
class Relative:
    """Someone a regular user talks about (not a driver of the car)."""

    name: str
    relation: str
    gender: str


@dataclass
class Person:
    """A regular user of the car."""

    first: str
    last: str
    gender: str
    occupation: str
    workplace: str
    work: tuple[str, ...]
    relatives: list[Relative] = field(default_factory=list)
    display: str = ""

    @property
    def full(self) -> str:
        """Full name as written in the history."""
        return f"{self.first} {self.last}"

    def to_json(self) -> dict[str, Any]:
        """Sidecar form."""
        return {"name": self.full, "first_name": self.first, "gender": self.gender,
                "occupation": self.occupation, "workplace": self.workplace,
                "relatives": [{"name": r.name, "relation": r.relation, "gender": r.gender} for r in self.relatives]}


def make_people(rng: random.Random, n: int) -> tuple[list[Person], dict[str, str]]:
    """Draw ``n`` regular users (sometimes two share a first name) and their relations."""
    lasts = rng.sample(banks.LAST_NAMES, n)
    occs = rng.sample(banks.OCCUPATIONS, n)
    used_first: set[str] = set()
    people: list[Person] = []
    for i in range(n):
        gender = rng.choice("mf")
        pool = banks.MALE_FIRST if gender == "m" else banks.FEMALE_FIRST
        first = rng.choice([f for f in pool if f not in used_first])
        used_first.add(first)
        occ, workplace, work = occs[i]
        people.append(Person(first, lasts[i], gender, occ, workplace, work))
    if n >= 2 and rng.random() < 0.2:  # two regular users who share a first name
        people[1].first = people[0].first
        people[1].gender = people[0].gender
    firsts = [p.first for p in people]
    for p in people:
        p.display = p.first if firsts.count(p.first) == 1 else p.full
    used_rel_names = set(firsts)
    for p in people:
        for relation, g in rng.sample(banks.RELATIVES, 2):
            pool = banks.MALE_FIRST if g == "m" else banks.FEMALE_FIRST
            name = rng.choice([f for f in pool if f not in used_rel_names])
            used_rel_names.add(name)
            p.relatives.append(Relative(name, relation, g))
    relations = {f"{people[i].full}|{people[j].full}": rng.choice(banks.HOUSEHOLD_RELATIONS)
                 for i in range(n) for j in range(i + 1, n)}
    return people, relations


def pronouns(gender: str) -> dict[str, str]:
    """he/him/his (or she/her/her) with capitalised variants."""
    he, him, his = ("he", "him", "his") if gender == "m" else ("she", "her", "her")
    return {"he": he, "him": him, "his": his, "He": he.capitalize(), "His": his.capitalize()}


# ============================================================================ planning records
@dataclass
class Utt:
    """One planned utterance; ``tag`` names it for evidence, ``keep`` must survive paraphrasing."""

    speaker: int
    text: str
    tag: str | None = None
    keep: tuple[str, ...] = ()
    event: dict[str, Any] | None = None
    #: The :func:`fill` result the text was made from (None for a plain bank string).
    src: Filled | None = None
    #: The companion clause appended to the text, if any.
    comp_src: Filled | None = None

    def __post_init__(self) -> None:
        if self.src is None and isinstance(self.text, Filled):
            self.src = self.text

    def retext(self, text: str) -> None:
        """Replace the text (and what it was made from; a companion clause is dropped)."""
        self.text = text
        self.src = text if isinstance(text, Filled) else None
        self.comp_src = None


@dataclass
class Beat:
    """Utterances that happen in one conversation on one day (between ``a`` and ``b``)."""

    day: int
    a: int
    b: int
    utts: list[Utt]
    wrap: int = 4


@dataclass
class QueryPlan:
    """A planned query: situation text, gold calls, evidence tags and the QA form."""

    reasoning_type: str
    text: str
    calls: list[ToolCall]
    evidence_tags: list[str]
    question: str
    answer: ToolCall
    when: tuple[int, int]
    info: dict[str, Any]
    #: Background clauses the asker also talks about outside the car (not written to the sidecar).
    talk: list[str] = field(default_factory=list)
    #: The condition rule of a conditional query and who it may not be said by (its asker and subject).
    rule: tuple[str, tuple[int, ...]] | None = None


def cap(text: str) -> str:
    """Upper-case the first character."""
    return text[:1].upper() + text[1:]


class Filled(str):
    """A string made by :func:`fill` that remembers its template and fields (for re-wording)."""

    template: str
    fields: dict[str, str]


def fill(template: str, **kw: str) -> str:
    """Format a template; ``{Name}`` placeholders get the capitalised value of ``name``.

    The result is a :class:`Filled` string (a plain ``str`` to every reader) that keeps the
    template and the fields, so the natural renderer can say the same content another way.
    """
    extra = {k[:1].upper() + k[1:]: cap(v) for k, v in kw.items() if k[:1].islower()}
    out = Filled(template.format(**kw, **{k: v for k, v in extra.items() if k not in kw}))
    out.template = template
    out.fields = dict(kw)
    return out


def time12(h: int, m: int) -> str:
    """``h:mm AM`` clock text."""
    suffix = "AM" if h < 12 else "PM"
    return f"{(h % 12) or 12}:{m:02d} {suffix}"


# ============================================================================ slot instances
@dataclass
class Slot:
    """A preference topic instantiated in one scenario (fixed target chosen, noun chosen)."""

    st: SlotType
    fixed: str | None
    whole_words: str = ""  # the words that say it is set for the whole car ("for everyone"), if said
    whole: bool = False  # set for the whole car (every seat, target "all")

    def noun(self, rng: random.Random | None = None) -> str:
        """A spoken noun (canonical when ``rng`` is None), with the whole-car words when said."""
        n = self.st.nouns[0] if rng is None else rng.choice(self.st.nouns)
        if "{t}" in n:
            n = n.replace("{t}", FIXED_LABELS[self.st.fixed_param][self.fixed])  # type: ignore[index]
        return f"{n} {self.whole_words}" if self.whole_words else n

    def call(self, value: Mapping[str, Any], seat: str | None, destination: str | None = None) -> ToolCall:
        """The call that applies ``value`` for someone sitting in ``seat`` (``"all"``: the whole car)."""
        args: dict[str, Any] = {}
        for p in API_SPECS[self.st.api].params:
            if p.name == self.st.seat_param:
                args[p.name] = seat or "driver"
            elif p.name == self.st.fixed_param:
                args[p.name] = self.fixed
            elif p.name in self.st.situational:
                args[p.name] = destination
            elif p.name in value:
                args[p.name] = value[p.name]
        return ToolCall(self.st.api, args)
