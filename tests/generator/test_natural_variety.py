"""The natural renderer's variety: composed shop talk, goodbyes, clauses, car lines and typography."""

from __future__ import annotations

import random
import re
from collections import Counter

from vmb_gym.generator import (
    GeneratorOptions,
    banks,
    build_scenario,
    talk,
    talk_clauses,
    talk_close,
    talk_ideas,
    talk_style,
)
from vmb_gym.generator.bank_data import load
from vmb_gym.generator.catalog import API_SPECS
from vmb_gym.generator.domain_gap import mask_line
from vmb_gym.generator.records import Person, Utt, fill

SMALL = {"seed": 11, "scenarios": 1, "history_length": 1500, "days": 21, "renderer": "natural"}
_TEXT = re.compile(r"^\[[^\]]+\] [^:]+: (.*)$")


def _person(first: str, occupation: str) -> Person:
    return Person(first, "Quinn", "f", occupation, "somewhere", ("the report",))


def test_every_occupation_has_shop_talk() -> None:
    fields, interests = load("fields").FIELDS, load("interests").INTERESTS
    assert {o for o, _, _ in banks.OCCUPATIONS} <= set(fields)
    for pieces in (*fields.values(), *interests.values()):
        assert set(pieces) == {"stuff", "doing", "world", "snag"} and len(pieces["stuff"]) >= 2


def test_distinct_lines_share() -> None:
    sc = build_scenario(GeneratorOptions(**SMALL), 0)
    parts = sorted({part for p in sc.meta["people"] for part in p["name"].split()}, key=len, reverse=True)
    names = re.compile(r"\b(?:" + "|".join(parts) + r")(?:'s|\u2019s)?\b")
    lines = [mask_line(_TEXT.match(raw).group(1), names) for raw in sc.history.splitlines()]
    assert len(set(lines)) / len(lines) >= 0.93  # the template renderer: ~0.45; the official release: 0.996
    assert not any("{" in t or "[" in t for t in lines)  # every placeholder and choice was filled


def test_typography_in_realistic_proportions() -> None:
    sc = build_scenario(GeneratorOptions(**SMALL), 0)
    texts = [_TEXT.match(raw).group(1) for raw in sc.history.splitlines()]
    dash = sum("\u2014" in t for t in texts) / len(texts)
    assert 0.04 <= dash <= 0.2  # official: 0.115 of lines
    assert sum("\u2019" in t for t in texts) > 5 * sum("'" in t for t in texts)


def test_shop_answers_fit_their_question() -> None:
    rng = random.Random(1)
    for topic, pairs in talk_ideas.qa().items():
        answers = dict(pairs)
        for _ in range(50):
            q, a = talk_ideas.shop_qa(rng, topic)
            assert any(a.endswith(x) for x in answers[q]), (q, a)


def test_shop_fields_fill_every_frame() -> None:
    rng = random.Random(2)
    a, b = _person("Ana", "nurse"), _person("Ben", "chef")
    assert talk_ideas.interests_of(a) == talk_ideas.interests_of(_person("Ana", "nurse"))  # kept through the history
    for topic, moves in talk_ideas.moves().items():
        relative = {"relative": "sister", "rname": "Dana", "rhe": "she", "rhim": "her", "rhis": "her"}  # the talk's own
        fields = talk_ideas.shop_fields(rng, a, b, topic) | relative | {"name": "Ben"}
        frames = [f for group in moves.values() for f in group]
        frames += [x for q, ans in talk_ideas.qa()[topic] for x in (q, *ans)]
        for frame in frames:
            text = fill(talk.expand(frame, rng), **fields)
            assert "{" not in text and "[" not in text, frame


def test_used_frames_are_not_repeated_in_a_conversation() -> None:
    rng = random.Random(3)
    used: set[str] = set()
    frames = [talk_ideas.shop_line(rng, "relate", used=used) for _ in range(len(talk_ideas.moves()["shop"]["relate"]))]
    assert len(set(frames)) == len(frames)


def test_goodbyes_vary() -> None:
    rng = random.Random(4)
    pairs = [talk_close.goodbye(rng) for _ in range(300)]
    assert len(set(pairs)) > 250
    assert all(first and second for first, second in pairs)


def test_clauses_extend_statements_only() -> None:
    rng = random.Random(5)
    long_q = "Do you think the new schedule will work for all of us?"
    long_s = "I spent the whole afternoon sorting out the new schedule."
    assert {talk_clauses.extend(long_q, rng) for _ in range(50)} == {long_q}
    assert {talk_clauses.extend("Thanks, Ana.", rng) for _ in range(50)} == {"Thanks, Ana."}
    out = [talk_clauses.extend(long_s, rng) for _ in range(400)]
    extended = [t for t in out if t != long_s]
    assert 0.25 < len(extended) / len(out) < 0.45
    assert all(t.startswith(long_s[:-1] + ", ") and t.endswith(".") for t in extended)


def test_car_parts_name_no_value_words() -> None:
    phrases = {"on", "off", "up", "down", "low", "high", "open", "close", "closed"}
    for spec in API_SPECS.values():
        for p in spec.params:
            for choice in getattr(p.constraint, "choices", None) or ():
                phrases.add(str(choice).lower().replace("_", " "))
    car = load("car")
    parts = " ".join(" ".join(getattr(car, k)) for k in ("LEAD", "TAIL", "OTHER_CAR", "OTHER_COMMENT", "WHY_HEAD",
                                                          "WHY_MORE", "REASON", "WHEN", "REMARK", "ACK_HEAD",
                                                          "ACK_BODY", "ACK_MORE"))
    every_choice = re.sub(r"[\[\]|]", " ", parts).lower()  # all alternatives of each [a|b]
    assert not re.search(r"\d", parts)
    assert [p for p in sorted(phrases) if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", every_choice)] == []


def test_car_lines_keep_their_value() -> None:
    rng = random.Random(6)
    src = fill(banks.STATE[0], noun="the reading lamp brightness", val="level 3", listener="Ana")
    said = [talk.reword(Utt(0, src, keep=("level 3",)), rng) for _ in range(200)]
    assert all("level 3" in s and "the reading lamp brightness" in s for s in said)
    assert len(set(said)) > 60
    near = fill(banks.NEAR_MISS[0], noun="the seat heating", val="level 2")
    said = [talk.reword(Utt(0, near, keep=("level 2",)), rng) for _ in range(100)]
    assert all("level 2" in s for s in said) and len(set(said)) > 30


def test_punctuate_dash_and_ellipsis_shares() -> None:
    rng = random.Random(7)
    text = "I finally finished the draft. Now on to the edits."
    out = Counter(talk_style.punctuate(text, rng) for _ in range(4000))
    assert out["I finally finished the draft\u2014now on to the edits."] / 4000 > 0.1
    assert 0 < out["I finally finished the draft\u2026 Now on to the edits."] / 4000 < 0.02
    assert out[text] / 4000 > 0.75
    assert talk_style.punctuate("I can. I'm sure.", random.Random(0)) in {
        "I can. I'm sure.", "I can\u2014I'm sure.", "I can\u2026 I'm sure."}  # "I" stays upper case
