"""What a rewritten conversation must keep, and the check that it did.

An LLM renderer (:mod:`vmb_gym.generator.llm_render`) replaces the text of a generated history's
lines, one conversation at a time, and keeps their times and speakers. This module:

- reads a history back into lines (:func:`parse_history`) and groups them into conversations
  (:func:`conversations`: the dialogue places a conversation in one 20-minute slot and its lines
  advance by at most a minute, so a gap of more than two minutes starts a new one);
- derives from the scenario's sidecar what each line must keep (:func:`line_rules`): the value
  wording of every line that states a setting's value (evidence, revisions, near misses), the
  value the matcher reads from it, and the names of relatives;
- checks a rewrite (:func:`verify`): same line count, no empty or multi-line text, every kept
  wording and value still there, no line stating a value for a watched setting (asked by a query
  or stated anywhere in the sidecar's events) that its original did not state, and no line that
  repeats another line of the conversation (small models shift or copy lines, which would put a
  statement in the wrong person's mouth).

Values are read by a :data:`ValueReader` ``reader(api, text) -> value or None``. The default,
:func:`vocabulary_reader`, uses the simulator vocabulary (the generator catalogue's value
wordings and the lexicon's words for each function); ``vmb generate`` passes the rules reader's
value matcher (``vmb_agents.reader.values.extract_value``), the one the baselines read lines with.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from vmb_gym.errors import DataError
from vmb_gym.generator.catalog import catalogue, render_value
from vmb_gym.vehicle.lexicon import API_WORDS

__all__ = ["LineRule", "TalkLine", "ValueReader", "asked_apis", "conversations", "gated", "line_rules", "mentions",
           "parse_history", "render_line", "repeated_lines", "value_key", "verify", "vocabulary_reader",
           "watched_apis"]

#: ``reader(api, text)``: the value ``text`` states for the function ``api``, or None.
ValueReader = Callable[[str, str], Any]

_LINE = re.compile(r"^(\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]) ([^:]+): (.*)$")


@dataclass(frozen=True)
class TalkLine:
    """One history line: ``[stamp] speaker: text`` (``index`` is 0-based, the line id minus one)."""

    index: int
    stamp: str
    when: datetime
    speaker: str
    text: str


@dataclass
class LineRule:
    """What one line must keep through a rewrite.

    Attributes:
        keep: wordings that must survive (case-insensitive), e.g. ``"level 2"``, a relative's name.
        values: ``api -> value key`` the reader must still read from the line.
    """

    keep: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)


def parse_history(history: str) -> list[TalkLine]:
    """The lines of a history text in the official form.

    Raises:
        DataError: a line is not ``[YYYY-MM-DD HH:MM] Full Name: text``.
    """
    out: list[TalkLine] = []
    for i, raw in enumerate(history.splitlines()):
        m = _LINE.match(raw)
        if m is None:
            raise DataError(
                "history", f"line {i + 1}: expected '[YYYY-MM-DD HH:MM] Full Name: text', found {raw[:80]!r}"
            )
        out.append(TalkLine(i, m.group(1), datetime.strptime(m.group(2), "%Y-%m-%d %H:%M"), m.group(3), m.group(4)))
    return out


def render_line(line: TalkLine, text: str) -> str:
    """The history line with ``text`` in place of its text (time and speaker kept)."""
    return f"{line.stamp} {line.speaker}: {text}"


def conversations(lines: Sequence[TalkLine], gap_minutes: int = 2, max_lines: int = 24) -> list[list[TalkLine]]:
    """Consecutive lines grouped into conversations: a gap over ``gap_minutes`` starts a new one.

    A conversation longer than ``max_lines`` is cut into parts of at most that many lines (one
    request each), so a reply stays short enough for a small model.
    """
    groups: list[list[TalkLine]] = []
    gap = timedelta(minutes=gap_minutes)
    for line in lines:
        if groups and line.when - groups[-1][-1].when <= gap and len(groups[-1]) < max_lines:
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def value_key(value: Any) -> str | None:
    """A comparable form of a read value (None stays None)."""
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, default=str)


@cache
def _api_words(api: str) -> tuple[re.Pattern[str], ...]:
    st = catalogue().get(api)
    nouns = [re.sub(r"^the ", "", n.replace("{t}", "").strip()) for n in (st.nouns if st else ())]
    words = {w.lower() for w in (*API_WORDS.get(api, ()), *nouns) if len(w) > 2}
    return tuple(re.compile(rf"(?<!\w){re.escape(w)}(?!\w)") for w in sorted(words))


@cache
def _value_words(api: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    st = catalogue().get(api)
    out = []
    for v in st.values if st else ():
        w = render_value(v, api).lower()
        if w not in ("on", "off"):  # too common to read on their own
            out.append((re.compile(rf"(?<!\w){re.escape(w)}(?!\w)"), value_key(dict(v)) or ""))
    return tuple(out)


def mentions(api: str, text: str) -> bool:
    """Whether ``text`` names the function ``api`` (a lexicon word or a catalogue noun for it)."""
    low = text.lower()
    return any(p.search(low) for p in _api_words(api))


def gated(reader: ValueReader) -> ValueReader:
    """``reader`` asked only about lines that name the function (a matcher reads any number otherwise)."""
    def read(api: str, text: str) -> Any:
        return reader(api, text) if mentions(api, text) else None
    return read


def vocabulary_reader(api: str, text: str) -> str | None:
    """The catalogue value of ``api`` that ``text`` words (with a word for the function), else None."""
    if not mentions(api, text):
        return None
    low = text.lower()
    for pattern, key in _value_words(api):
        if pattern.search(low):
            return key
    return None


def asked_apis(meta: Mapping[str, Any]) -> set[str]:
    """The functions the scenario's queries ask for (their gold calls)."""
    return {c["name"] for q in meta.get("queries", []) for c in q.get("gold_calls", [])}


def watched_apis(meta: Mapping[str, Any]) -> set[str]:
    """The asked functions and every function an event of the sidecar states a value for."""
    out = asked_apis(meta)
    for e in meta.get("events", []):
        for item in (e, e.get("companion")):
            if isinstance(item, Mapping) and isinstance(item.get("api"), str):
                out.add(item["api"])
    return out


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def repeated_lines(old: Sequence[TalkLine], new: Sequence[str], threshold: float = 0.85) -> list[str]:
    """Problems where a rewritten line is closer to another original line than to its own."""
    out = []
    for k, text in enumerate(new):
        own = _similar(text, old[k].text)
        for j, other in enumerate(old):
            if j != k and other.text != old[k].text and _similar(text, other.text) >= max(threshold, own + 0.05):
                out.append(f"line {k + 1} repeats line {j + 1} instead of rewording its own")
                break
    return out


def _rule_for(event: Mapping[str, Any], text: str, reader: ValueReader, rule: LineRule) -> None:
    low = text.lower()
    pairs = [(event.get("api"), event.get("value"))]
    comp = event.get("companion")
    if isinstance(comp, Mapping):
        pairs.append((comp.get("api"), comp.get("value")))
    for api, value in pairs:
        if not api or not isinstance(value, Mapping) or not value:
            continue
        wording = render_value(value, api)
        if wording.lower() not in ("on", "off") and wording.lower() in low:
            rule.keep.append(wording)
        read = value_key(reader(api, text))
        if read is not None:
            rule.values[api] = read
    for key in ("relative", "for"):
        name = event.get(key)
        if isinstance(name, str) and name.lower() in low:
            rule.keep.append(name)


def line_rules(meta: Mapping[str, Any], lines: Sequence[TalkLine], reader: ValueReader = vocabulary_reader
               ) -> dict[int, LineRule]:
    """``line index -> LineRule`` for every line the sidecar's events point at."""
    rules: dict[int, LineRule] = {}
    for event in meta.get("events", []):
        idx = int(event.get("line_id", 0)) - 1
        if not 0 <= idx < len(lines):
            continue
        _rule_for(event, lines[idx].text, reader, rules.setdefault(idx, LineRule()))
    return rules


def verify(old: Sequence[TalkLine], new: Sequence[str], rules: Mapping[int, LineRule], watched: Iterable[str],
           reader: ValueReader = vocabulary_reader) -> list[str]:
    """Problems of a rewrite ``new`` of the conversation ``old`` (empty when it passes).

    ``watched`` are the settings no line may state a new value for (:func:`watched_apis`).
    """
    if len(new) != len(old):
        return [f"expected {len(old)} lines, got {len(new)}"]
    watched = sorted(watched)
    problems: list[str] = []
    problems += repeated_lines(old, new)
    for k, (line, text) in enumerate(zip(old, new, strict=True), start=1):
        if not isinstance(text, str) or not text.strip():
            problems.append(f"line {k} is empty")
            continue
        if "\n" in text or "\r" in text:
            problems.append(f"line {k} has a line break")
            continue
        low = text.lower()
        rule = rules.get(line.index, LineRule())
        problems += [f"line {k} must contain {w!r}" for w in rule.keep if w.lower() not in low]
        for api, want in rule.values.items():
            if value_key(reader(api, text)) != want:
                problems.append(f"line {k} must still state the value it stated ({want}) for {api}")
        for api in watched:
            if api in rule.values:
                continue
            got = value_key(reader(api, text))
            if got is not None and got != value_key(reader(api, line.text)):
                problems.append(f"line {k} states a value ({got}) for the watched setting {api} that it did not state")
    return problems
