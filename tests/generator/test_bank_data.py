"""The generator's text banks as package data: every shipped file is well formed, a malformed one is caught."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from vmb_gym.generator import bank_data, banks
from vmb_gym.generator.bank_data import DATA, SCHEMA, load, read, validate
from vmb_gym.generator.talk_scenes import bank_problems


def test_one_file_per_family() -> None:
    assert sorted(p.stem for p in DATA.glob("*.json")) == sorted(SCHEMA)


@pytest.mark.parametrize("family", sorted(SCHEMA))
def test_shipped_file_is_well_formed(family: str) -> None:
    assert _problems(family, read(family)) == []


def _problems(family: str, doc: Any) -> list[str]:
    """The schema's problems; for the scenes also their scene rules."""
    return bank_problems(doc) if family == "scenes" else validate(family, doc)


def test_load_gives_tuples_in_file_order() -> None:
    speech = load("speech")
    assert isinstance(speech.ACKS, tuple) and isinstance(speech.LIFE_STORIES[0][0], tuple)
    assert list(speech.NATURAL_REQUESTS) == list(read("speech")["banks"]["NATURAL_REQUESTS"])
    assert load("speech") is speech  # read once
    assert banks.RELATIVES == load("banks").RELATIVES and hash(banks.RELATIVES)
    with pytest.raises(AttributeError):
        _ = banks.NO_SUCH_BANK


def _broken(family: str, bank: str, change: Any) -> list[str]:
    doc = copy.deepcopy(read(family))
    if callable(change):
        change(doc["banks"])
    else:
        doc["banks"][bank] = change
    return _problems(family, doc)


@pytest.mark.parametrize(("family", "bank", "change", "problem"), [
    ("chat", "GREET", [], "an empty list"),
    ("chat", "GREET", "Hi.", "expected a list, found str"),
    ("chat", "GREET", ["Hi.", 3], "expected a text, found int"),
    ("chat", "GREET", ["Hi.", "  "], "an empty text"),
    ("chat", "GREET", ["Hi, {nmae}."], "unknown placeholder {nmae}"),
    ("chat", "GREET", ["Hi, {name!r}."], "unknown placeholder {name}"),
    ("chat", "GREET", ["Hi, {name."], "expected '}'"),
    ("chat", "GREET", ["[Hi|Hey, {name}."], "unbalanced or nested"),
    ("chat", "GREET", ["Hi. "], "trailing space"),
    ("banks", "COMPANION_REQ", ["And my routine."], "a tail is empty or starts with a space"),
    ("banks", "RELATIVES", [["sister", "f", "x"]], "expected 2 items, found 3"),
    ("banks", "FILL", {}, "an empty object"),
    ("topics", "TOPICS", {"day": {"open": []}}, "TOPICS.day.open: an empty list"),
    ("chat", "GREETS", ["Hi."], "unknown ['GREETS']"),
    ("chat", "GREET", lambda b: b.pop("GREET"), "missing ['GREET']"),
    ("scenes", "job", {"nurse": [["A: We met at 9."] * 8]}, "a digit"),
    ("scenes", "job", {"astronaut": [["A: Long day."] * 8]}, "is no job"),
    ("scenes", "everyday", {"weather": [["C: Hello there."] * 8]}, "expected 'A: text'"),
    ("scenes", "everyday", {"weather": [["A: Hi {c}, how was it?"] * 8]}, "unknown placeholder {c}"),
])
def test_malformed_bank_is_named(family: str, bank: str, change: Any, problem: str) -> None:
    problems = _broken(family, bank, change)
    assert any(problem in p for p in problems), problems


def test_malformed_file_layout() -> None:
    doc = read("car")
    assert validate("car", {"banks": doc["banks"]}) == ["car: expected an object with about, notes and banks"]
    assert validate("car", {**doc, "notes": {"NOPE": "a note on no bank"}}) == ["car.notes: notes on no bank: ['NOPE']"]
    assert validate("cars", doc)[0].startswith("cars: no such family")


def test_files_are_plain_json_in_utf8() -> None:
    for path in DATA.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert json.loads(text) == read(path.stem) and text.endswith("\n")
    assert bank_data.PLACEHOLDERS.keys() == SCHEMA.keys()
