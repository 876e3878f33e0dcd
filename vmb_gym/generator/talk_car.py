"""What the natural renderer says around a car line: lead-ins, remarks, the listener's why and note.

A planned line about a setting keeps its core (the value, the setting, the condition, the
relative); :func:`around` adds a lead-in or a remark now and then, or words a remark about another
car from parts; :func:`why` and :func:`because` are a listener's question and the speaker's
reason; :func:`ack` takes note of a preference. The texts are the banks of ``data/car.json``
(:func:`vmb_gym.generator.bank_data.load`): none of them names a value or a value word, so the
value matcher reads the same value from the line with or without them.
"""

from __future__ import annotations

import random

from vmb_gym.generator.bank_data import load

__all__ = ["PREFERENCE_BANKS", "ack", "around", "because", "why"]

#: Banks of ``data/speech.json``'s ``NATURAL`` whose lines state the speaker's own preference.
PREFERENCE_BANKS = frozenset({"STATE", "BASE", "REVISE", "REVISE_FOR_NOW", "COND", "CONFLICT_REPLY"})


def around(bank: str, template: str, rng: random.Random) -> str:
    """``template`` (a natural car line of ``bank``) with a lead-in or a remark added, now and then.

    A remark about another car (``NEAR_MISS``) is, half the time, built from parts instead.
    """
    car = load("car")
    if bank == "NEAR_MISS" and rng.random() < 0.5:
        return f"{rng.choice(car.OTHER_CAR)} {rng.choice(car.OTHER_VERB)}. {rng.choice(car.OTHER_COMMENT)}"
    if bank not in PREFERENCE_BANKS:
        return template
    if rng.random() < 0.25 and not template.startswith("{listener}"):
        core = "{" + template[1:2].lower() + template[2:] if template.startswith("{") else template
        if not core.startswith(("I ", "I'")):
            core = core[:1].lower() + core[1:]
        template = f"{rng.choice(car.LEAD)} {core}"
    if rng.random() < 0.35:
        template = f"{template} {rng.choice(car.TAIL)}"
    return template


def why(rng: random.Random) -> str:
    """The listener's question about a stated preference."""
    car = load("car")
    more = f" {rng.choice(car.WHY_MORE)}" if rng.random() < 0.4 else ""
    return rng.choice(car.WHY_HEAD) + more


def because(rng: random.Random) -> str:
    """The speaker's reason for a stated preference."""
    car = load("car")
    when = f", {rng.choice(car.WHEN)}" if rng.random() < 0.5 else ""
    remark = f" {rng.choice(car.REMARK)}" if rng.random() < 0.4 else ""
    return f"{rng.choice(car.REASON)}{when}.{remark}"


def ack(rng: random.Random) -> str:
    """Taking note of a stated preference (no value said)."""
    car = load("car")
    more = f" {rng.choice(car.ACK_MORE)}" if rng.random() < 0.35 else ""
    return f"{rng.choice(car.ACK_HEAD)} {rng.choice(car.ACK_BODY)}{more}"
