"""Reading requests and memory lines for the slot design: relations, cue words, stems, reasons, speakers.

Pure text helpers (no slot state): what the value features and the follow-up queries read off
the request and each memory line.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from vmb_agents.reader import STOP_WORDS, content_words, read_request, same_person
from vmb_agents.sb3.slots.layout import N_LINE_HASH
from vmb_agents.reader import API_WORDS, MODULE_WORDS
from vmb_gym.vehicle import API_SPECS

#: Kinship and relation words a request uses for a person who is not a speaker ("my grandmother").
RELATIONS = ("grandmother", "grandfather", "grandma", "grandpa", "mother", "father", "mom", "mum", "dad", "sister",
             "brother", "aunt", "uncle", "cousin", "nephew", "niece", "son", "daughter", "wife", "husband", "partner",
             "best friend", "old roommate", "roommate", "friend", "colleague", "coworker", "neighbour", "neighbor",
             "boss", "godmother", "godfather", "godson", "goddaughter", "godchild", "stepmother", "stepfather",
             "mother-in-law", "father-in-law",
             "sister-in-law", "brother-in-law", "grandson", "granddaughter", "fiancé", "fiancee", "girlfriend",
             "boyfriend", "classmate", "teammate", "mentor", "flatmate", "landlord", "babysitter", "nanny")
RELATION_RE = re.compile(r"\b(?:my|his|her|their|\w+'s|\w+’s)\s+((?:best |old )?(?:" +
                          "|".join(sorted({r.split()[-1] for r in RELATIONS}, key=len, reverse=True)) + r"))\b", re.I)



NOW = datetime(2100, 1, 1)


def prior_text(req: Any) -> str:
    """The words of a request that name its setting: the quotes (else the text) without names."""
    text = " ".join(req.quotes) or req.text
    for p in req.people:
        for part in p.split():
            text = re.sub(rf"\b{re.escape(part)}\b", " ", text)
    return text


COMPANION_RE = re.compile(r"(?:\bOh, and|\bAnd I like|\bPlus|\bSame routine:|\bAlso|\band also)\s+(.+?)"
                        r"(?:\s+too|\s+at the same time|,\s*always|\s+as well)?\s*[.!]?\s*$", re.I)



def companion_clause(text: str) -> str | None:
    """A second setting stated at the end of a line ("..., Plus the sunroof lock locked, always.")."""
    m = COMPANION_RE.search(text)
    return m.group(1) if m else None



def relation_words(request: str) -> list[str]:
    """Relations the request speaks of ("my grandmother", "Lena's sister"), lower case, in order."""
    body = read_request(request, ()).text
    return list(dict.fromkeys(m.group(1).lower() for m in RELATION_RE.finditer(body)))


_NAME = r"([A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)"


def relative_names(relations: Sequence[str], hit_texts: Iterable[str], speakers: Sequence[str]) -> list[str]:
    """Names the hits give the request's relations ("Joanna, my grandmother, is visiting" -> Joanna)."""
    found: list[str] = []
    firsts = {p.split()[0] for p in speakers if p.split()}
    for rel in relations:
        r = re.escape(rel)
        pats = (re.compile(rf"{_NAME},\s+(?:my|our)\s+{r}\b"), re.compile(rf"\b(?:my|our)\s+{r},?\s+{_NAME}"))
        for text in hit_texts:
            for pat in pats:
                for m in pat.finditer(text):
                    name = m.group(1).split()[0]
                    if name not in firsts and name not in ("The", "My", "Our") and name not in found:
                        found.append(name)
    return found


def line_hash(body: str) -> np.ndarray:
    """Hashed words and word pairs of a line (numbers and names masked), L2-normalised."""
    words = re.findall(r"[a-z']+|\d+|[?!]", re.sub(r"\d+", "0", body.lower()))
    vec = np.zeros(N_LINE_HASH, dtype=np.float32)
    for tok in [*words, *(a + " " + b for a, b in zip(words, words[1:], strict=False))]:
        h = zlib.crc32(tok.encode())
        vec[h % N_LINE_HASH] += 1.0 if (h >> 16) & 1 else -1.0
    n = float(np.linalg.norm(vec))
    return vec / n if n > 0 else vec


def render_value(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values())
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value).replace("_", " ")


#: A line that states a conditional rule, and one that states the everyday default.
CONDITIONAL_RE = re.compile(r"\b(when|whenever|if|unless|exception|except|different|on rainy|at night|after dark|"
                          r"in the rain|on the way|through|rides? with)\b", re.IGNORECASE)
DEFAULT_LINE_RE = re.compile(r"\b(ordinary|everyday|most of the time|usually|normally|default|regular|typical|"
                           r"by default|day to day|otherwise|in general|generally)\b", re.IGNORECASE)
SITUATION_STOP = {"driv", "seat", "sat", "fron", "rear", "left", "righ", "pass", "said", "aske", "alon", "was",
                   "were", "with", "the", "and", "into", "from", "that", "this", "then", "car", "outs"}


#: Stems that name the same situation ("after dark" / "at night" / "in the evening").
STEM_ALIAS = {"dark": "nigh", "even": "nigh", "dusk": "nigh", "toni": "nigh", "pour": "rain", "stor": "rain",
               "driz": "rain", "show": "rain", "dayl": "day", "sunn": "day", "brig": "day"}


def stems(text: str) -> set[str]:
    """Four-letter stems of a text's content words ("raining" and "rain" share "rain")."""
    return {STEM_ALIAS.get(w[:4], w[:4]) for w in content_words(text)}


def situation_stems(request: str, speakers: Sequence[str], setting_words: set[str], target: str = "") -> set[str]:
    """Stems of the request's situation: its words outside the spoken quote, without the setting's words,
    the speaker prefix words and seat words (names of other people stay: "when Hugo rides with me")."""
    m = re.search(r"\b(?:said|asked|says|asks|told [A-Z]\w*)\s*:?\s*['\"‘“]", request)
    context = request[:m.start()] if m else ""
    own = {w.lower()[:4] for w in target.split()}  # the speaker's own name (a vocative in a line is no condition)
    return stems(context) - {w[:4] for w in setting_words} - SITUATION_STOP - own



#: Request wording that is no reason ("put it back to", "the way I had it back then").
NO_REASON_RE = re.compile(r"\bback (?:to|then|in)\b|\bthe way\b|\bat that time\b|\bfrom then\b", re.I)
REQUEST_WORDS = frozenset("set way had old put used like likes right usual routine whole rest adjust fix sort get "
                           "can could you for the and with that what then from have let preference prefer prefers "
                           "level percent degrees how far high much know before here his her him she sits where "
                           "came along".split())


@functools.lru_cache(maxsize=1)
def setting_stems() -> frozenset[str]:
    """Stems of every word the vocabulary uses to name a module or a function ("boot", "trunk", "opening")."""
    phrases = [p for group in (*API_WORDS.values(), *MODULE_WORDS.values()) for p in group]
    phrases += [re.sub(r"([a-z])([A-Z])", r"\1 \2", api[len("carcontrol_"):]).replace("_", " ") for api in API_SPECS]
    return frozenset(w[:4] for p in phrases for w in re.findall(r"[a-z]{3,}", p.lower()))


def reason_words(text: str) -> set[str]:
    """Four-letter stems of the words of a text that give a reason ("flu", "back", "shoulder", "baby"):
    words of 3+ letters, without function words, request wording and the vocabulary's setting words."""
    text = NO_REASON_RE.sub(" ", RELATION_RE.sub(" ", text).lower())  # "my goddaughter" is who, not why
    words = {
        w for w in re.findall(r"[a-z]{3,}", text) if (w not in STOP_WORDS or w == "back") and w not in REQUEST_WORDS
    }
    setting = setting_stems()
    return {w[:4] for w in words if w == "back" or w[:4] not in setting}  # "my back" is a reason, "backrest" no


def said_by(hit: Any, person: str | None) -> bool:
    """Whether a memory hit is a line of ``person`` (first names match: "Julian" is "Julian Abbott")."""
    return bool(person) and any(same_person(p, person) for p in hit.people)

