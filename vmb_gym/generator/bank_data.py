"""The generator's text banks: JSON files shipped in ``vmb_gym/generator/data/``, read on first use.

One file per family of banks (:data:`SCHEMA` names them), each an object with three keys:

* ``about``: what the file holds, as a list of lines;
* ``notes``: bank name -> what that bank is for (not every bank has one);
* ``banks``: bank name -> its value, a list of texts, a list of fixed-size records, or an object of them.

:func:`load` reads one family once and hands its banks out with every list as a tuple (a bank
reads, iterates and hashes like the Python constant it used to be, and the renderers draw from
the same sequences in the same order). Nothing is checked at read time: :func:`validate` lists
a file's problems against :data:`SCHEMA` (a bank missing, unknown or of the wrong shape, an empty
list or text, a placeholder the family's renderer does not fill, a ``[a|b]`` choice left open;
the scene rules on top are :func:`vmb_gym.generator.talk_scenes.bank_problems`), and the
generator's tests run it over every shipped file.
"""

from __future__ import annotations

import json
import string
import typing
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NewType

__all__ = ["DATA", "PLACEHOLDERS", "SCHEMA", "Tail", "Text", "frozen", "load", "read", "validate"]

#: Folder of the bank files (package data).
DATA = Path(__file__).resolve().parent / "data"

#: A list of texts.
Text = tuple[str, ...]
#: A piece said after a line: empty, or text that starts with a space.
Tail = NewType("Tail", str)

_PAIRS = tuple[tuple[str, str], ...]
_TOPIC = dict[str, dict[str, Text]]
_QA = tuple[tuple[str, Text], ...]
_SCENES = dict[str, tuple[Text, ...]]


def _texts(*names: str) -> dict[str, Any]:
    return dict.fromkeys(names, Text)


#: Family (file name without ``.json``) -> bank name -> shape, in file order.
SCHEMA: Mapping[str, Mapping[str, Any]] = {
    "banks": {
        **_texts("MALE_FIRST", "FEMALE_FIRST", "LAST_NAMES"),
        "OCCUPATIONS": tuple[tuple[str, str, Text], ...], "RELATIVES": _PAIRS, "HOUSEHOLD_RELATIONS": Text,
        "DISTRICTS": Text, "ACTIVITIES": _PAIRS, "DESTINATIONS": Text, "SONGS": _PAIRS, "VIDEOS": Text,
        "STATIONS": Text, "REASONS": tuple[tuple[str, str, str, str], ...],
        **_texts("STATE", "BASE", "COND", "REVISE", "REVISE_FOR_NOW", "TRY", "CORRECT_DOWN", "CORRECT_UP",
                 "CORRECT_SWAP", "CORRECT_DOWN_NAMED", "CORRECT_UP_NAMED", "CORRECT_SWAP_NAMED", "CORRECT_KEEP",
                 "REL_INTRO", "REL_PREF", "CONFLICT_REPLY", "CONFLICT_REPLY_SHORT", "COND_SHORT", "COMPANION",
                 "NEAR_MISS", "NEAR_MISS_OWN", "NEAR_MISS_REL", "MENTION", "REASON_TALK"),
        "CONDITION_TALK": dict[str, Text], "PLACE_TALK": Text, "WHOLE_CAR": Text, "DEVICE_NOUNS": dict[str, Text],
        **_texts("ACKS", "REQUEST", "REQUEST_REL", "REQUEST_PAST", "REQUEST_SITUATION", "REQUEST_REASON_PAST",
                 "REQUEST_REASON_NOW", "REQUEST_OVER", "REQUEST_STANDARD", "REQUEST_REASON_OVER"),
        "COMPANION_REQ": tuple[Tail, ...], "TOPIC_LINES": dict[str, Text], "REPLIES": Text, "FILL": dict[str, Text],
        "LIFE_STORIES": tuple[Text, ...],
    },
    "car": _texts("LEAD", "TAIL", "OTHER_CAR", "OTHER_VERB", "OTHER_COMMENT", "WHY_HEAD", "WHY_MORE", "REASON",
                  "WHEN", "REMARK", "ACK_HEAD", "ACK_BODY", "ACK_MORE"),
    "chat": _texts("GREET", "REACT", "FOLLOW", "HEDGE", "AGREE", "SUPPORT", "TAIL", "ASK_BACK", "SHIFT",
                   "ASIDE_IN", "ASIDE_OUT", "THOUGHT_LEAD", "THOUGHT_CLAUSE", "THOUGHT_END"),
    "clauses": {"CLAUSES": dict[str, Text], "RELATIVES2": Text},
    "close": _texts("WRAP", "PLAN", "SIGN_OFF", "ANSWER", "WISH"),
    "fields": {"FIELDS": _TOPIC},
    "generic": _texts("SAY", "ASK", "REPLY", "NP", "ADJ", "ADJ_SHORT", "CLAUSE", "PERSONS", "TIMES"),
    "ideas": {"OPEN": Text, "QA": _QA, "RELATE": Text, "OFFER": Text, "THANK": Text, "REPORT": Text,
              "COLLEAGUES": tuple[tuple[str, str, str], ...], "IDEAS": Text, "CLAIMS": Text, "REFLECT": Text,
              "REACT": Text},
    "interests": {"INTERESTS": _TOPIC, "OPEN": Text, "QA": _QA, "RELATE": Text},
    "scenes": {"everyday": _SCENES, "interest": _SCENES, "job": _SCENES},
    "speech": {"NATURAL": dict[str, Text], "ACKS": Text, "REPLIES": Text, "REPLY_COMMENTS": Text,
               "LIFE_STORIES": tuple[tuple[Text, ...], ...], "NATURAL_REQUESTS": dict[str, Text]},
    "topics": {"TOPICS": _TOPIC},
    "words": {**_texts("THINGS", "FOODS", "PLACES", "HOBBIES", "EVENTS", "SHOWS", "CITIES", "SUBJECTS", "WORK_SNAGS",
                       "ROLES", "FEELINGS", "WHEN"), "SYNONYMS": dict[str, Text]},
    "work": {"JOB_TALK": dict[str, Text], "WORK_ASIDES": Text},
}

#: Family -> the placeholders its renderer fills (``{Name}``, capitalised, is the capitalised ``{name}``).
PLACEHOLDERS: Mapping[str, frozenset[str]] = {family: frozenset(names.split()) for family, names in {
    "banks": "act again cnoun cond cval d dest district event food grocery he him his hobby listener name noun old "
             "place reason relation relative rname seat val weather weekday work workplace",
    "car": "noun val",
    "chat": "hobby name relative work workplace",
    "clauses": "relative relative2 rname",
    "close": "name",
    "fields": "",
    "generic": "adj adj_short clause np person person2 time when yperson",
    "ideas": "claim colleague doing her idea name odoing ostuff oworld relative rhe she snag snag_does snag_is stuff "
             "stuff2 stuff_is stuff_looks world",
    "interests": "doing odoing snag snag_does snag_is stuff world",
    "scenes": "a b",
    "speech": "again cnoun cond cval dest district he him his listener noun old reason relation relative rname seat "
              "val weekday",
    "topics": "city district event feeling food grocery hobby place relative rhe rhim rname role show snag snag2 "
              "subject subject2 thing weather weekday when work workplace",
    "words": "",
    "work": "weekday work workplace",
}.items()}


def frozen(value: object) -> Any:
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: frozen(v) for k, v in value.items()}
    return value


def read(family: str) -> dict[str, Any]:
    """The parsed file of ``family`` as written (lists stay lists)."""
    with (DATA / f"{family}.json").open(encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
    return doc


@cache
def load(family: str) -> SimpleNamespace:
    """The banks of ``family`` as attributes (lists as tuples), read once per process."""
    return SimpleNamespace(**{name: frozen(value) for name, value in read(family)["banks"].items()})


def _text_problems(where: str, text: str, family: str, tail: bool) -> list[str]:
    out = []
    if tail:
        if text and not text.startswith(" "):
            out.append(f"{where}: a tail is empty or starts with a space, found {text[:50]!r}")
    elif not text.strip():
        out.append(f"{where}: an empty text")
    if text != text.rstrip() or "\n" in text:
        out.append(f"{where}: trailing space or a line break in {text[:50]!r}")
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as e:
        return [*out, f"{where}: {e} in {text[:50]!r}"]
    known = PLACEHOLDERS[family]
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if spec or conversion or (name[:1].lower() + name[1:]) not in known:
            out.append(f"{where}: unknown placeholder {{{name}}} in {text[:50]!r} (known: {' '.join(sorted(known))})")
    depth = 0
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if depth not in (0, 1):
            break
    if depth != 0:
        out.append(f"{where}: an unbalanced or nested [a|b] choice in {text[:50]!r}")
    return out


def _shape_problems(where: str, value: object, shape: Any, family: str) -> list[str]:
    """Problems of ``value`` (parsed JSON) against ``shape`` (``str``, :data:`Tail`, a tuple or dict type)."""
    if shape in (str, Tail):
        if not isinstance(value, str):
            return [f"{where}: expected a text, found {type(value).__name__}"]
        return _text_problems(where, value, family, shape is Tail)
    origin, args = typing.get_origin(shape), typing.get_args(shape)
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object, found {type(value).__name__}"]
        if not value:
            return [f"{where}: an empty object"]
        return [p for k, v in value.items()
                for p in ([f"{where}: an empty key"] if not k.strip() else []) + _shape_problems(f"{where}.{k}", v,
                                                                                                   args[1], family)]
    if not isinstance(value, list):
        return [f"{where}: expected a list, found {type(value).__name__}"]
    if not value:
        return [f"{where}: an empty list"]
    if len(args) == 2 and args[1] is Ellipsis:
        return [p for i, v in enumerate(value) for p in _shape_problems(f"{where}[{i}]", v, args[0], family)]
    if len(value) != len(args):
        return [f"{where}: expected {len(args)} items, found {len(value)}"]
    return [p for i, (v, s) in enumerate(zip(value, args, strict=True))
            for p in _shape_problems(f"{where}[{i}]", v, s, family)]


def validate(family: str, doc: object) -> list[str]:
    """Every problem of ``doc`` (a parsed file of ``family``, see :func:`read`); empty when it is well formed."""
    if family not in SCHEMA:
        return [f"{family}: no such family of banks (one of {', '.join(SCHEMA)})"]
    if not isinstance(doc, dict) or set(doc) != {"about", "notes", "banks"}:
        return [f"{family}: expected an object with about, notes and banks"]
    out = []
    about, notes, banks = doc["about"], doc["notes"], doc["banks"]
    if not isinstance(about, list) or not about or not all(isinstance(line, str) for line in about):
        out.append(f"{family}.about: expected a non-empty list of lines")
    if not isinstance(notes, dict) or not all(isinstance(n, str) and n.strip() for n in notes.values()):
        out.append(f"{family}.notes: expected an object of bank name -> text")
    elif not isinstance(banks, dict) or set(notes) - set(banks):
        out.append(f"{family}.notes: notes on no bank: {sorted(set(notes) - set(banks or {}))}")
    if not isinstance(banks, dict):
        return [*out, f"{family}.banks: expected an object"]
    schema = SCHEMA[family]
    if banks.keys() != schema.keys():
        out.append(f"{family}.banks: missing {sorted(schema.keys() - banks.keys())}, "
                   f"unknown {sorted(banks.keys() - schema.keys())}")
    for name in schema.keys() & banks.keys():
        out.extend(_shape_problems(f"{family}.{name}", banks[name], schema[name], family))
    return out
