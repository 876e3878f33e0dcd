"""Loading of scenario folders laid out like the official VehicleMemBench release.

A folder holds ``history/history_N.txt`` and ``qa_data/qa_N.json`` for any subset of N, and
optionally ``meta/meta_N.json`` sidecars written by vmb_gym's generator (they supply the
query time, the evidence lines and the QA form, overriding what is derived here).

Parsed scenarios are cached in-process, keyed by each file's path, mtime and size.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from vmb_gym.data.layout import checked_qa_path, scenario_ids, scenario_paths, select_scenarios
from vmb_gym.data.qa_files import item_error, load_json, read_gold, read_qa
from vmb_gym.errors import DataError
from vmb_gym.types import (
    EvidenceEvent,
    HistoryLine,
    QAQuestion,
    Query,
    Scenario,
    ToolCall,
)

__all__ = [
    "EVIDENCE_WINDOW_MINUTES",
    "clear_cache",
    "load_official",
    "locate_evidence",
    "parse_gold_memory",
    "read_history",
    "scenario_ids",
]

#: How far (in minutes) evidence lines may be from a gold-memory event's time.
EVIDENCE_WINDOW_MINUTES = 3

_LINE = re.compile(r"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] (.*)")
_SPEAKER_SEP = ": "
_MONTHS = {
    name: number
    for number, name in enumerate(
        (
            "January", "February", "March", "April", "May", "June", "July", "August",
            "September", "October", "November", "December",
        ),
        start=1,
    )
}
# "[April 15, 2025] At 9:00 AM, narrative"; two official lines have a stray quote before "At".
_MEMORY_LINE = re.compile(
    r"\[([A-Z][a-z]+) (\d{1,2}), (\d{4})\]\s+['\"]?At (\d{1,2}):(\d{2})\s*([AaPp])\.?[Mm]\.?,?\s"
)


# --------------------------------------------------------------------------------------------
# History
# --------------------------------------------------------------------------------------------


def _timestamp(text: str, cache: dict[str, datetime]) -> datetime:
    """Parse ``YYYY-MM-DD HH:MM`` (already shape-checked) with a per-file memo."""
    value = cache.get(text)
    if value is None:
        value = datetime(
            int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]), int(text[14:16])
        )
        cache[text] = value
    return value


def read_history(path: Path) -> tuple[tuple[HistoryLine, ...], tuple[str, ...]]:
    """Read a history file into lines and speakers.

    Lines have the form ``[YYYY-MM-DD HH:MM] Full Name: utterance``. Blank lines are skipped
    (line ids stay physical line numbers). A line whose content starts with its own timestamp
    a second time (official history_18:1870) keeps the remainder as content.

    Args:
        path: the ``history_N.txt`` file.

    Returns:
        ``(lines, speakers)``; speakers are ordered by number of lines, most first, ties by
        first appearance.

    Raises:
        DataError: the file cannot be read or a line is malformed (file and line named).
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, f"cannot read the history file as UTF-8 text: {exc}") from exc
    lines: list[HistoryLine] = []
    counts: dict[str, int] = {}
    stamps: dict[str, datetime] = {}
    for number, line in enumerate(raw.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            raise DataError(
                path,
                f"expected '[YYYY-MM-DD HH:MM] Full Name: text', found {line[:80]!r}; fix or "
                "remove this line",
                number,
            )
        stamp_text, rest = match.group(1), match.group(2)
        doubled = f"[{stamp_text}] "
        while rest.startswith(doubled):  # history_18:1870 repeats its timestamp
            rest = rest[len(doubled):]
        speaker, sep, text = rest.partition(_SPEAKER_SEP)
        speaker = speaker.strip()
        if not sep or not speaker or len(speaker) > 80 or "[" in speaker:
            raise DataError(
                path,
                f"expected 'Full Name: text' after the timestamp, found {rest[:80]!r}; the "
                "speaker's name must be followed by ': '",
                number,
            )
        when = stamps.get(stamp_text)
        if when is None:
            try:
                when = _timestamp(stamp_text, stamps)
            except ValueError:
                raise DataError(
                    path,
                    f"expected a valid date and time, found [{stamp_text}]; fix the timestamp",
                    number,
                ) from None
        lines.append(HistoryLine(line_id=number, timestamp=when, speaker=speaker, text=text))
        counts[speaker] = counts.get(speaker, 0) + 1
    # dicts keep first-appearance order and sorted() is stable: ties stay in that order.
    speakers = tuple(sorted(counts, key=lambda name: -counts[name]))
    return tuple(lines), speakers


# --------------------------------------------------------------------------------------------
# Gold memory and evidence
# --------------------------------------------------------------------------------------------


def parse_gold_memory(gold_memory: str) -> list[tuple[str, datetime | None]]:
    """Split a gold memory into its event lines and each event's date and time.

    Args:
        gold_memory: lines ``[Month D, YYYY] At h:mm AM, narrative`` separated by newlines.

    Returns:
        ``(line, when)`` per non-blank line; ``when`` is ``None`` when no time can be read.
    """
    events: list[tuple[str, datetime | None]] = []
    for line in gold_memory.split("\n"):
        line = line.strip()
        if not line:
            continue
        events.append((line, _memory_time(line)))
    return events


def _memory_time(line: str) -> datetime | None:
    match = _MEMORY_LINE.match(line)
    if match is None:
        return None
    month = _MONTHS.get(match.group(1))
    hour, minute = int(match.group(4)), int(match.group(5))
    if month is None or not 1 <= hour <= 12:
        return None
    hour = hour % 12 + (12 if match.group(6) in "Pp" else 0)
    try:
        return datetime(int(match.group(3)), month, int(match.group(2)), hour, minute)
    except ValueError:
        return None


def _minute_index(lines: Iterable[HistoryLine]) -> dict[datetime, list[int]]:
    index: dict[datetime, list[int]] = {}
    for line in lines:
        index.setdefault(line.timestamp, []).append(line.line_id)
    return index


def locate_evidence(
    when: datetime | None,
    index: Mapping[datetime, list[int]],
    window: int = EVIDENCE_WINDOW_MINUTES,
) -> tuple[int, ...]:
    """History lines for an event time: same minute, else the closest minute within ``window``.

    Args:
        when: the event's time (``None`` gives no lines).
        index: history line ids by minute.
        window: the largest distance in minutes to search.

    Returns:
        Sorted line ids at the closest minute that has any (both sides at equal distance).
    """
    if when is None:
        return ()
    for distance in range(window + 1):
        found: list[int] = list(index.get(when - timedelta(minutes=distance), ()))
        if distance:
            found += index.get(when + timedelta(minutes=distance), ())
        if found:
            return tuple(sorted(found))
    return ()


# --------------------------------------------------------------------------------------------
# QA files
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Sidecars
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _MetaQuery:
    as_of: datetime | None
    evidence: tuple[EvidenceEvent, ...] | None
    qa: QAQuestion | None


def _meta_time(value: Any, path: Path, what: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    raise DataError(path, f"{what}: expected 'YYYY-MM-DDTHH:MM' or null, found {value!r}")


def _read_meta(path: Path, scenario_id: int, n_queries: int, n_lines: int | None = None) -> dict[int, _MetaQuery]:
    data, text = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("queries"), list):
        raise DataError(path, "expected an object with a 'queries' list", 1)
    if "scenario_id" in data and data["scenario_id"] != scenario_id:
        raise DataError(
            path,
            f"expected scenario_id {scenario_id} (from the file name), found "
            f"{data['scenario_id']!r}; regenerate the sidecar",
            1,
        )
    result: dict[int, _MetaQuery] = {}
    for position, entry in enumerate(data["queries"]):
        fail = functools.partial(item_error, path, text, "queries", position)
        if not isinstance(entry, dict):
            raise fail(f"expected an object, found {type(entry).__name__}")
        index = entry.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n_queries:
            raise fail(f"expected 'index' an int in 0..{n_queries - 1}, found {index!r}")
        as_of = _meta_time(entry.get("as_of"), path, f"queries[{position}].as_of")
        evidence: tuple[EvidenceEvent, ...] | None = None
        if entry.get("evidence") is not None:
            evidence = _meta_evidence(entry["evidence"], fail, path, position, scenario_id, n_lines)
        qa = _meta_qa(entry["qa"], fail) if entry.get("qa") is not None else None
        result[index] = _MetaQuery(as_of=as_of, evidence=evidence, qa=qa)
    return result


def _meta_evidence(
    raw_events: Any, fail: Callable[[str], DataError], path: Path, position: int, scenario_id: int,
    n_lines: int | None,
) -> tuple[EvidenceEvent, ...]:
    """The checked ``evidence`` list of sidecar entry ``position``."""
    if not isinstance(raw_events, list):
        raise fail("expected 'evidence' to be a list of events")
    events = []
    for number, event in enumerate(raw_events):
        if (
            not isinstance(event, dict)
            or not isinstance(event.get("text"), str)
            or not isinstance(event.get("line_ids", []), list)
            or not all(
                isinstance(i, int) and not isinstance(i, bool)
                for i in event.get("line_ids", [])
            )
        ):
            raise fail(
                f"evidence[{number}]: expected {{\"text\": str, \"when\": str|null, "
                "\"line_ids\": [int]}}"
            )
        beyond = [i for i in event.get("line_ids", []) if n_lines is not None and not 1 <= i <= n_lines]
        if beyond:
            raise fail(
                f"evidence[{number}]: line ids {beyond[:3]} are outside the 1..{n_lines} lines of "
                f"history_{scenario_id}.txt; that history file is truncated or does not belong to this "
                "sidecar (regenerate both)"
            )
        events.append(
            EvidenceEvent(
                text=event["text"],
                when=_meta_time(
                    event.get("when"), path, f"queries[{position}].evidence[{number}].when"
                ),
                line_ids=tuple(event.get("line_ids", [])),
            )
        )
    return tuple(events)


def _meta_qa(raw_qa: Any, fail: Callable[[str], DataError]) -> QAQuestion:
    """The checked ``qa`` object of a sidecar entry."""
    answer = raw_qa.get("answer") if isinstance(raw_qa, dict) else None
    if (
        not isinstance(raw_qa, dict)
        or not isinstance(raw_qa.get("question"), str)
        or not isinstance(answer, dict)
        or not isinstance(answer.get("name"), str)
        or not isinstance(answer.get("arguments", {}), dict)
    ):
        raise fail(
            "expected 'qa' null or {\"question\": str, \"answer\": {\"name\": str, "
            "\"arguments\": {}}}"
        )
    return QAQuestion(
        question=raw_qa["question"],
        answer=ToolCall(name=answer["name"], arguments=dict(answer.get("arguments", {}))),
    )


# --------------------------------------------------------------------------------------------
# Scenario assembly and cache
# --------------------------------------------------------------------------------------------

_CacheKey = tuple[tuple[str, int, int] | None, ...]
_cache: dict[tuple[str, int], tuple[_CacheKey, Scenario]] = {}
_cache_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every cached scenario (files are re-read on the next load)."""
    with _cache_lock:
        _cache.clear()


def _stat_key(path: Path) -> tuple[str, int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return (str(path), stat.st_mtime_ns, stat.st_size)


def _build_scenario(folder: Path, scenario_id: int) -> Scenario:
    history_path, qa_path, meta_path = scenario_paths(folder, scenario_id)
    lines, speakers = read_history(history_path)
    items = read_qa(qa_path)
    last_line = lines[-1].line_id if lines else 0
    meta = _read_meta(meta_path, scenario_id, len(items), last_line) if meta_path.is_file() else {}
    end_time = lines[-1].timestamp if lines else None
    index = _minute_index(lines)
    queries: list[Query] = []
    for number, item in enumerate(items):
        calls, dropped = read_gold(item, qa_path, number)
        override = meta.get(number)
        if override is not None and override.evidence is not None:
            evidence = override.evidence
        else:
            evidence = tuple(
                EvidenceEvent(text=text, when=when, line_ids=locate_evidence(when, index))
                for text, when in parse_gold_memory(item.gold_memory)
            )
        as_of = override.as_of if override is not None and override.as_of else end_time
        queries.append(
            Query(
                task_id=f"{scenario_id}_{number}",
                scenario_id=scenario_id,
                index=number,
                text=item.query,
                reasoning_type=item.reasoning_type,
                gold_calls=calls,
                gold_call_strings=item.new_answer,
                gold_memory=item.gold_memory,
                evidence=evidence,
                as_of=as_of,
                unparsed_gold=dropped,
                qa=override.qa if override is not None else None,
            )
        )
    return Scenario(
        scenario_id=scenario_id,
        speakers=speakers,
        lines=lines,
        queries=tuple(queries),
        source=str(history_path),
    )


def load_official(
    folder: str | os.PathLike[str], files: Iterable[int] | None = None
) -> list[Scenario]:
    """Load every scenario (or the chosen ones) of a release-style folder.

    Args:
        folder: a folder holding ``history/history_N.txt``, ``qa_data/qa_N.json`` and optionally
            ``meta/meta_N.json``.
        files: scenario numbers N to load; ``None`` loads all histories present.

    Returns:
        The scenarios in ascending N (or in the order of ``files``, without repeats).

    Raises:
        DataError: the folder, a requested scenario or its QA file is missing, or a file is
            malformed (the message names the file and line).
    """
    root = Path(folder).expanduser().resolve()
    scenarios = []
    for scenario_id in select_scenarios(root, files):
        checked_qa_path(root, scenario_id)
        history_path, qa_path, meta_path = scenario_paths(root, scenario_id)
        key: _CacheKey = (_stat_key(history_path), _stat_key(qa_path), _stat_key(meta_path))
        cache_id = (str(root), scenario_id)
        with _cache_lock:
            cached = _cache.get(cache_id)
        if cached is not None and cached[0] == key:
            scenarios.append(cached[1])
            continue
        scenario = _build_scenario(root, scenario_id)
        with _cache_lock:
            _cache[cache_id] = (key, scenario)
        scenarios.append(scenario)
    return scenarios
