"""Shop talk for the natural renderer: two people talking about their jobs or their interests.

A conversation on the ``shop`` topic draws one job's pieces for the sharer and one for the
listener (:func:`shop_fields`, from ``data/fields.json``), so its lines stay on the same work
while each frame (``data/ideas.json``) is rare. A conversation on the ``passion`` topic does the
same with one of the sharer's two interests (:func:`interests_of`, from ``data/interests.json``).
:func:`shop_line` gives the template of one line of a move, with now and then a reaction
before it and a thought after it; the renderer fills and typesets it like any other line.
"""

from __future__ import annotations

import random
from functools import cache

from vmb_gym.generator.bank_data import load
from vmb_gym.generator.records import Person

__all__ = ["DEFAULT_FIELD", "PASSION", "PER_PERSON", "SHOP", "TOPICS", "interests_of", "moves", "qa", "shop_fields",
           "shop_line", "shop_qa"]

#: The topic name of shop talk in :mod:`vmb_gym.generator.talk`.
SHOP = "shop"
#: The topic name of talk about one of the sharer's interests.
PASSION = "passion"
#: The topics of this module, in the order :mod:`vmb_gym.generator.talk` lists them.
TOPICS = (SHOP, PASSION)
#: Interests a person has.
PER_PERSON = 2
#: The job whose pieces stand in for a job without its own.
DEFAULT_FIELD = "research scientist"


@cache
def qa() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Topic -> (question, answers that fit it)."""
    return {SHOP: load("ideas").QA, PASSION: load("interests").QA}


@cache
def moves() -> dict[str, dict[str, tuple[str, ...]]]:
    """Topic -> move name -> its frames."""
    ideas, passions = load("ideas"), load("interests")
    return {
        SHOP: {"open": ideas.OPEN, "ask": tuple(q for q, _ in ideas.QA), "relate": ideas.RELATE,
               "offer": ideas.OFFER, "thank": ideas.THANK, "report": ideas.REPORT},
        PASSION: {"open": passions.OPEN, "ask": tuple(q for q, _ in passions.QA), "relate": passions.RELATE,
                  "offer": ideas.OFFER, "thank": ideas.THANK, "report": passions.OPEN},
    }


def interests_of(person: Person) -> list[str]:
    """The person's interests: the same ones every time (drawn from the full name)."""
    return random.Random(f"vmb-gen/interests/{person.full}").sample(sorted(load("interests").INTERESTS), PER_PERSON)


def _plural(phrase: str) -> bool:
    """Whether a noun phrase is plural ("the lesson plans"; not "the analysis", "the class")."""
    last = phrase.rsplit(" ", 1)[-1]
    return last.endswith("s") and not last.endswith(("ss", "sis", "us", "ics"))


def _agreement(key: str, phrase: str) -> dict[str, str]:
    """Verb forms that agree with a noun phrase: ``{key}_is``, ``{key}_does``, ``{key}_looks``."""
    many = _plural(phrase)
    return {f"{key}_is": "are" if many else "is", f"{key}_does": "do" if many else "does",
            f"{key}_looks": "look" if many else "looks"}


def _field(person: Person) -> dict[str, tuple[str, ...]]:
    fields: dict[str, dict[str, tuple[str, ...]]] = load("fields").FIELDS
    return fields.get(person.occupation, fields[DEFAULT_FIELD])


def shop_fields(rng: random.Random, sharer: Person, other: Person, topic: str = SHOP) -> dict[str, str]:
    """The fill-ins of one conversation: the sharer's job (or interest) pieces, the listener's, a theme."""
    ideas = load("ideas")
    if topic == PASSION:
        mine = load("interests").INTERESTS[rng.choice(interests_of(sharer))]
        theirs = load("interests").INTERESTS[rng.choice(interests_of(other))]
    else:
        mine, theirs = _field(sharer), _field(other)
    stuff, stuff2 = rng.sample(mine["stuff"], 2)
    who, she, her = rng.choice(ideas.COLLEAGUES)
    snag = rng.choice(mine["snag"])
    return {**_agreement("stuff", stuff), **_agreement("snag", snag),
        "stuff": stuff, "stuff2": stuff2, "doing": rng.choice(mine["doing"]), "world": rng.choice(mine["world"]),
        "snag": snag, "ostuff": rng.choice(theirs["stuff"]), "odoing": rng.choice(theirs["doing"]),
        "oworld": rng.choice(theirs["world"]), "idea": rng.choice(ideas.IDEAS), "claim": rng.choice(ideas.CLAIMS),
        "colleague": who[:1].lower() + who[1:], "she": she.lower(), "her": her,
    }


def _pick(rng: random.Random, frames: tuple[str, ...], used: set[str] | None) -> str:
    """A frame not yet ``used`` in this conversation (any frame once all were used); marks it used."""
    fresh = [f for f in frames if used is None or f not in used]
    frame = rng.choice(fresh or frames)
    if used is not None:
        used.add(frame)
    return frame


def _dress(rng: random.Random, body: str, react: float, reflect: float) -> str:
    """``body`` with, now and then, a reaction before it and a thought after it."""
    ideas = load("ideas")
    lead = rng.choice(ideas.REACT) if rng.random() < react else ""
    tail = rng.choice(ideas.REFLECT) if rng.random() < reflect and not body.endswith("?") else ""
    if lead.endswith(","):  # "Yes, the ..." / "Yes, {stuff} ..."
        if body.startswith("{"):
            body = "{" + body[1:2].lower() + body[2:]
        elif not body.startswith(("I ", "I'")):
            body = body[:1].lower() + body[1:]
    return " ".join(p for p in (lead, body, tail) if p)


def shop_line(rng: random.Random, move: str, react: float = 0.0, reflect: float = 0.0, topic: str = SHOP,
              used: set[str] | None = None) -> str:
    """The template of one line of ``move`` of ``topic`` (keys of :func:`moves`), before filling.

    With probability ``react`` a reaction leads the line, with ``reflect`` a thought ends it; a
    frame in ``used`` (the conversation's frames so far) is not said again while others remain.
    """
    if move == "reflect":  # a reaction and a thought, nothing else
        ideas = load("ideas")
        return f"{rng.choice(ideas.REACT).rstrip(',')}. {rng.choice(ideas.REFLECT)}".replace("..", ".")
    return _dress(rng, _pick(rng, moves()[topic][move], used), react, reflect)


def shop_qa(rng: random.Random, topic: str = SHOP, react: float = 0.0, reflect: float = 0.0,
            used: set[str] | None = None) -> tuple[str, str]:
    """A question of ``topic`` and an answer that fits it (templates, before filling)."""
    pairs = qa()[topic]
    question = _pick(rng, tuple(q for q, _ in pairs), used)
    answers = dict(pairs)[question]
    return _dress(rng, question, react, 0.0), _dress(rng, rng.choice(answers), 0.0, reflect)
