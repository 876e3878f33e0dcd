"""The natural renderer's request narratives: the template situation told in the official query style.

The template narrates a query as ``At 8:50 AM, Neil was driving to Union Square. Ana sat in the
front passenger seat. Neil said: '...'``. :func:`restyle` tells the same facts the way the
official queries do ("got into the driver's seat", "took the wheel for the drive to",
"told Ana: '...'"), keeping what a reader of the request needs: the time, who drives (a driving
phrase right after the driver's name), who sits where (name and seat in one sentence), where
the car is going (``driving``/``drive``/``heading ... to PLACE``) and the quote itself.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from vmb_gym.generator import banks
from vmb_gym.generator.bank_data import load
from vmb_gym.generator.talk import expand

__all__ = ["restyle", "reword_request"]

_DRIVE = re.compile(r"^At (\d{1,2}:\d{2} [AP]M), (?!a friend\b)(.+?) was driving(,? .*?)?(, alone)?\. ")
_FRIEND = re.compile(r"^At (\d{1,2}:\d{2} [AP]M), a friend was driving (.+?)( to .*?|, .*?)\. ")
_SAT = re.compile(r"(?<=\. )([^.']+?) sat in the ((?:front passenger|rear left|rear right|driver's) seat)\.")
_SAID = re.compile(r" ([^.']+?) said: '")


def _drive(m: re.Match[str], rng: random.Random) -> str:
    time, driver, purpose, alone = m.group(1), m.group(2), (m.group(3) or "").strip(), m.group(4)
    lone = rng.choice([" alone", " with nobody else in the car"]) if alone else ""
    if purpose.startswith(","):  # an activity: ", heading to the gym"
        return f"At {time}, {driver} got into the driver's seat{lone}{purpose}. "
    if purpose.startswith("to "):
        forms = [f"At {time}, {driver} got into the driver's seat{lone} and was heading {purpose}. ",
                 f"At {time}, {driver} took the wheel for the drive {purpose}{lone}. ",
                 f"At {time}, {driver} was behind the wheel{lone}, driving {purpose}. "]
        return rng.choice(forms)
    return m.group(0)


def _friend(m: re.Match[str], rng: random.Random) -> str:
    time, who, purpose = m.group(1), m.group(2), m.group(3)
    if purpose.startswith(" to "):
        forms = [f"At {time}, a friend was driving {who}{purpose}. ",
                 f"At {time}, {who} got a lift from a friend, heading{purpose}. "]
        return rng.choice(forms)
    return m.group(0)


def _sat(m: re.Match[str], rng: random.Random) -> str:
    who, seat = m.group(1), m.group(2)
    return rng.choice([f"{who} sat in the {seat}.", f"{who} took the {seat}.", f"{who} rode in the {seat}."])


@lru_cache(maxsize=1)
def _request_patterns() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for bank in load("speech").NATURAL_REQUESTS:
        for template in getattr(banks, bank):
            parts = re.split(r"\{(\w+)\}", template)
            rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
            out.append((re.compile(rx + r"$"), bank))
    return out


def reword_request(quote: str, rng: random.Random) -> str:
    """A template request quote said the natural way (unchanged when no template matches it)."""
    tail = next((c for c in banks.COMPANION_REQ if c and quote.endswith(c)), "")
    body = quote[: len(quote) - len(tail)]
    for rx, bank in _request_patterns():
        m = rx.match(body)
        if m:
            fields = m.groupdict()
            if "his" in fields:  # "do {noun} {his} way": the natural forms name the relative instead
                continue
            return expand(rng.choice(load("speech").NATURAL_REQUESTS[bank]), rng).format(**fields) + tail
    return quote


def restyle(text: str, rng: random.Random, companion: str | None = None) -> str:
    """The official-style narrative of a template query ``text`` (unchanged parts stay as they are).

    Args:
        text: the template query text.
        rng: the generator of the wording choices.
        companion: the first name of someone else in the car, if any (``X told NAME: '...'``).
    """
    out = _DRIVE.sub(lambda m: _drive(m, rng), text, count=1)
    out = _FRIEND.sub(lambda m: _friend(m, rng), out, count=1)
    out = _SAT.sub(lambda m: _sat(m, rng), out)
    verbs = [" {who} said: '", " {who} told the car: '", " {who} asked: '", " {who} said to the car: '"]
    if companion:
        verbs += [f" {{who}} told {companion}: '", f" {{who}} said to {companion}: '"]
    verb = rng.choice(verbs)
    out = _SAID.sub(lambda m: verb.format(who=m.group(1)), out, count=1)
    head, sep, quote = out.partition(": '")
    if sep and quote.endswith("'"):
        out = head + sep + reword_request(quote[:-1], rng) + "'"
    return out
