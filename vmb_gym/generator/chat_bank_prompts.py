"""What the chat bank's language model is asked for, and how its replies are read back.

:mod:`scripts.build_chat_bank` (``python scripts/build_chat_bank.py --help``) asks a small chat
model (SmolLM2-135M-Instruct by default) for short casual conversations between two named
people about one thing: the job of one of them (an occupation of
:data:`vmb_gym.generator.banks.OCCUPATIONS`), one of their interests
(``INTERESTS`` of ``data/interests.json``) or an everyday topic. The prompts are
drawn from a seed and an index only, so a run can stop and resume, and the same seed asks the
same questions. Nothing of the official release is in a prompt.

:func:`parse_reply` turns a reply into ``(speaker, text)`` turns (speaker 0 is the person the
prompt names first), with the two first names replaced by the placeholders ``{a}`` and ``{b}``;
:mod:`vmb_gym.generator.chat_bank` filters them and writes the bank.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass
from typing import Any

from vmb_gym.generator import banks
from vmb_gym.generator.bank_data import load

__all__ = ["EVERYDAY", "ChatPrompt", "chat_prompt", "parse_reply", "topic_key"]

#: Everyday topics besides jobs and interests (what friends talk about).
EVERYDAY: tuple[str, ...] = (
    "a family visit last weekend", "a new recipe they tried", "their neighbours", "a book they are reading",
    "plans for the holidays", "a friend's wedding", "moving to a new flat", "a series they are watching",
    "the weather this week", "a concert they went to", "their kids' school", "a trip they want to take",
    "a problem at home with the plumbing", "learning something new", "an old friend they met again",
    "saving money", "their health and sleep", "a birthday party they are planning", "a pet that got sick",
    "a local festival", "a museum exhibition", "their morning routine", "a restaurant that just opened",
    "a sports match on TV", "volunteering at a community event", "a course they signed up for",
)
#: How a prompt frames the talk (``{a}``, ``{b}``, ``{about}`` are filled in).
_FRAMES: tuple[str, ...] = (
    "Write a casual conversation between {a} and {b}, two friends catching up. They talk about {about}.",
    "Write a relaxed everyday chat between {a} and {b} who share a home. They talk about {about}.",
    "Write a friendly dialogue between {a} and {b}. {a} tells {b} about {about}, and {b} asks questions.",
    "Write a natural conversation between two colleagues, {a} and {b}, about {about}.",
)
_TAIL = " Write about {n} short lines. Each line starts with the speaker's name and a colon."


@dataclass(frozen=True)
class ChatPrompt:
    """One request to the model: who talks (first names), about what, and the bank key it files under."""

    index: int
    a: str
    b: str
    about: str
    key: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def topic_key(kind: str, name: str) -> str:
    """The bank key of a topic: ``job:nurse``, ``interest:chess`` or ``everyday``."""
    return f"{kind}:{name}" if name else kind


def chat_prompt(seed: int, index: int) -> ChatPrompt:
    """The ``index``-th prompt of a run with ``seed`` (a pure function of the two)."""
    rng = random.Random(f"vmb-chat-bank/{seed}/{index}")
    a, b = rng.sample(banks.MALE_FIRST + banks.FEMALE_FIRST, 2)
    kind = rng.choices(("job", "interest", "everyday"), (5, 3, 2))[0]
    if kind == "job":
        occupation, workplace, work = rng.choice(banks.OCCUPATIONS)
        about = f"{a}'s work as a {occupation} at {workplace}, especially {rng.choice(work)}"
        key = topic_key("job", occupation)
    elif kind == "interest":
        interests = load("interests").INTERESTS
        interest = rng.choice(sorted(interests))
        about = f"{a}'s hobby, {interest}, and {rng.choice(interests[interest]['stuff'])}"
        key = topic_key("interest", interest)
    else:
        about, key = rng.choice(EVERYDAY), topic_key("everyday", "")
    text = rng.choice(_FRAMES).format(a=a, b=b, about=about) + _TAIL.format(n=rng.choice((8, 10, 12)))
    return ChatPrompt(index=index, a=a, b=b, about=about, key=key, text=text)


_TURN = re.compile(r"^\s*\**\s*(?P<name>[A-Z][a-z]{1,11})\s*\**\s*:\s*\**\s*(?P<text>.+?)\s*$")
_STAGE = re.compile(r"\s*[(\[*][^()\[\]*]{0,80}[)\]*]\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"\u201c])")
_SYMBOLS = re.compile("[\U0001F000-\U0001FFFF\u2600-\u27BF\u200d\ufe0f]+")
_UNFINISHED = re.compile(r"(?<=[.!?])\s+[^.!?]*$")
#: A turn longer than this many words keeps its first sentences up to it.
MAX_TURN_WORDS = 40


def _shorten(text: str, limit: int = MAX_TURN_WORDS) -> str:
    """``text`` cut after its last whole sentence within ``limit`` words (the first sentence at least)."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if out and len(" ".join([*out, sentence]).split()) > limit:
            break
        out.append(sentence)
    return " ".join(out)


def parse_reply(reply: str, a: str, b: str) -> list[tuple[int, str]]:
    """The turns of a reply that continues ``"{a}:"``: ``(0 or 1, text)``, speaker 0 being ``a``.

    Every ``Name: text`` line is a turn: ``a``'s are speaker 0, ``b``'s speaker 1, and a name the
    model made up takes the other speaker than the turn before (the model often renames people
    midway). Reading stops at the first non-empty line that is not a turn (the model has left the
    conversation). Stage directions ("(smiling)"), emoji, quotes around a turn and an unfinished last
    sentence are removed, a long turn
    keeps its first sentences (:data:`MAX_TURN_WORDS`), the two names become ``{a}``/``{b}`` and
    other braces are dropped.
    """
    out: list[tuple[int, str]] = []
    last_name, speaker = "", 1
    for raw in (a + ":" + reply).splitlines():
        if not raw.strip():
            continue
        m = _TURN.match(raw)
        if m is None:
            break
        name = m.group("name")
        if name == a or name == b:
            speaker = 0 if name == a else 1
        elif name != last_name:
            speaker = 1 - speaker
        last_name = name
        text = _STAGE.sub(" ", _SYMBOLS.sub("", m.group("text"))).strip().strip('"').strip()
        text = _UNFINISHED.sub("", text)  # a turn cut off by the token limit keeps its whole sentences
        text = text.replace("{", "").replace("}", "")
        text = re.sub(rf"\b{a}\b", "{a}", text)
        text = re.sub(rf"\b{b}\b", "{b}", text)
        out.append((speaker, _shorten(" ".join(text.split()))))
    return out
