"""Reading a request: its quotes, who speaks, who the setting is for, their seat, conditions, changes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from vmb_agents.reader.words import conditions_in, number_word, phrase_pattern

_SPEECH = (r"told|said|asked|mentioned|complained|muttered|groaned|replied|commanded|sighed|noted|explained|added"
           r"|shouted|whispered|remarked|instructed|called|says|tells|asks")
_SEAT_PHRASES = re.compile(r"\b(driver'?s?|passenger|back|rear|front)\s+seat\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i’m|my|me|mine|i've|i'd|i'll)\b", re.IGNORECASE)
_UP = r"higher|more|brighter|stronger|louder|warmer|up|further|bigger|hotter|faster|wider"
_DOWN = r"lower|less|dimmer|weaker|quieter|cooler|colder|down|softer|smaller|slower|darker"
_AMOUNT = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a bit|a little|a touch|slightly|a|an)"
_UNIT = r"(?:\s+(?:more\s+)?(?:levels?|units?|degrees?|percent|%|notch(?:es)?|steps?|points?|centimeters?|cm|clicks?))?"
_RELATIVE = re.compile(rf"\b{_AMOUNT}{_UNIT}\s+(?:more\s+|even\s+)?({_UP}|{_DOWN})\b", re.IGNORECASE)
_RAISE = r"increase|raise|bump|up"
_LOWER = r"decrease|lower|reduce|drop|down"
#: The direction first: "lower it by one level", "increase the leg support by 2", "turn it up one notch".
_RELATIVE_VERB = re.compile(rf"\b({_RAISE}|{_LOWER})\b(?!\s+to\b)(?:\s+(?!by\b)[\w’']+){{0,4}}?\s+(?:by\s+)?{_AMOUNT}"
                            r"\s*(levels?|units?|degrees?|percent|%|notch(?:es)?|steps?|points?|centimeters?|cm|clicks?)\b",
                            re.IGNORECASE)


@dataclass
class Request:
    """What the rules read from one request text."""

    text: str
    quotes: list[str]
    target: str | None
    seat: str
    conditions: set[str]
    delta: int | None = None
    people: list[str] = field(default_factory=list)
    driver: str | None = None


def read_request(text: str, speakers: Sequence[str]) -> Request:
    """Quotes, target person, their seat, conditions and relative change of a request."""
    body = re.sub(r"^\s*At \d{1,2}:\d{2}\s*(AM|PM)?,?\s*", "", text, flags=re.IGNORECASE)
    quotes = _quotes(body)
    names = _name_forms(speakers)
    mentions = sorted((m.start(), full) for form, full in names for m in phrase_pattern(form).finditer(body))
    people = list(dict.fromkeys(full for _, full in mentions))
    target = None
    # "for Samuel's ...", "the theme Samuel likes" inside a quote name the person the setting is for
    for q in quotes:
        for form, full in names:
            if re.search(
                rf"(?<!not )\b{re.escape(form)}(?:'s|’s|\s+(?:likes|prefers|loves|wants|uses|chose|picked))\b", q
            ):
                target = full
                break
        if target:
            break
    driver = _driver(body, names)
    if target is None and quotes and re.search(r"\b(the )?passenger's\b", " ".join(quotes), re.IGNORECASE):
        others = [p for p in people if p != driver]
        target = others[0] if others else None
    if target is None:
        target = _speaker(body, names) or (people[0] if people else None)
    seat = _seat_of(body, target, driver, names)
    quote_text = " ".join(quotes) or body
    delta = None
    m = _RELATIVE.search(quote_text) or _RELATIVE.search(body)
    if m:
        amount = number_word(m.group(1)) or 1
        delta = amount if re.fullmatch(_UP, m.group(2).lower()) else -amount
    elif m := _RELATIVE_VERB.search(quote_text):
        amount = number_word(m.group(2)) or 1
        delta = amount if re.fullmatch(_RAISE, m.group(1).lower()) else -amount
    return Request(text=body, quotes=quotes, target=target, seat=seat, conditions=conditions_in(body),
                   delta=delta, people=people, driver=driver)


def _quotes(text: str) -> list[str]:
    """The quoted speech of a text (after ``:`` or ``,``; apostrophes inside words do not close a quote)."""
    out = []
    for m in re.finditer(r"[:,]\s*['‘\"“]", text):
        start = m.end()
        end = len(text)
        for j in range(start, len(text)):
            ch = text[j]
            if ch in "'’\"”":
                before = text[j - 1] if j > 0 else " "
                after = text[j + 1] if j + 1 < len(text) else " "
                if before.isalpha() and after.isalpha():
                    continue  # an apostrophe inside a word
                if after.isalpha():
                    continue
                end = j
                break
        out.append(text[start:end].strip())
    return [q for q in out if q]


def _name_forms(speakers: Sequence[str]) -> list[tuple[str, str]]:
    """(form, full name) pairs: every full name, then each first name that only one speaker has."""
    forms: list[tuple[str, str]] = []
    firsts = [s.split()[0] for s in speakers if s.strip()]
    for s in speakers:
        forms.append((s, s))
    for s in speakers:
        first = s.split()[0]
        if firsts.count(first) == 1:
            forms.append((first, s))
    return forms


def _driver(body: str, names: list[tuple[str, str]]) -> str | None:
    """The person the text says is driving, if any."""
    for form, full in names:
        f = re.escape(form)
        if re.search(
            rf"\b{f}\b[^.]{{0,40}}?\b(got into the driver|got in the driver|sat in the driver|drove\b|was driving|"
            rf"is driving|driving\b|took the wheel|behind the wheel)",
            body,
        ):
            return full
        if re.search(rf"\bwith {f} driving\b|\bwhile {f} drove\b|\b{f} (?:was )?in the driver", body):
            return full
    return None


def _speaker(body: str, names: list[tuple[str, str]]) -> str | None:
    """The person whose first-person quote the request carries (else the last speaker)."""
    best: str | None = None
    for m in re.finditer(rf"({_SPEECH})\b[^:'‘\"“]{{0,40}}[:,]\s*['‘\"“]", body):
        before = body[: m.start()]
        cut = max(before.rfind(". "), before.rfind("! "), before.rfind("? "), before.rfind("' "))
        sentence = before[cut + 1:]
        who = _last_name(sentence, names)
        if who is None and re.search(r"\b(he|she)\s*$", sentence.strip(), re.IGNORECASE):
            prev_cut = max(before.rfind(". ", 0, max(cut, 0)), before.rfind("! ", 0, max(cut, 0)))
            who = _first_name_in(before[prev_cut + 1: cut + 1], names) if cut >= 0 else None
        quote = _quotes(body[m.end() - 2:])
        if who and quote and _FIRST_PERSON.search(quote[0]):
            return who
        best = who or best
    return best


def _last_name(text: str, names: list[tuple[str, str]]) -> str | None:
    """The person named last in ``text``."""
    who, pos = None, -1
    for form, full in names:
        for n in phrase_pattern(form).finditer(text):
            if n.start() > pos:
                pos, who = n.start(), full
    return who


def _first_name_in(text: str, names: list[tuple[str, str]]) -> str | None:
    """The person named first in ``text``."""
    who, pos = None, len(text) + 1
    for form, full in names:
        n = phrase_pattern(form).search(text)
        if n and n.start() < pos:
            pos, who = n.start(), full
    return who


def _seat_of(body: str, target: str | None, driver: str | None, names: list[tuple[str, str]]) -> str:
    """Where ``target`` sits: the back or passenger seat when the text says so, else by who drives."""
    if target is None:
        return "driver"
    forms = [re.escape(f) for f, full in names if full == target]
    near = "|".join(forms)
    # the words between the name and the seat must not name the driver's seat: "Samantha got into the driver's
    # seat with Jack as a passenger" seats Samantha at the wheel
    between = r"(?:(?!driver)[^.]){0,50}"
    if near and re.search(rf"\b({near})\b{between}\b(back seat|rear|in the back|back row)", body, re.IGNORECASE):
        return "rear_left"
    if near and re.search(rf"\b({near})\b{between}\bpassenger", body, re.IGNORECASE):
        return "passenger"
    if driver is not None and driver != target:
        return "passenger"
    return "driver"


def api_text(req: Request) -> str:
    """The text the rules score functions on: the quotes, then the request, without seat phrases."""
    text = " ".join(req.quotes) + " . " + req.text
    return _SEAT_PHRASES.sub(" ", text)


def request_destination(req: Request) -> str | None:
    """Where the request says the car is going ("was driving to Oakwood Stadium")."""
    m = re.search(r"\b(?:driving|drive|heading|going|on the way|on our way|on his way|on her way|taking \w+)\s+"
                  r"(?:back\s+)?to\s+(?:the\s+)?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)", req.text)
    return m.group(1).strip() if m else None
