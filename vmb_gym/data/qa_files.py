"""The QA files of a release-style folder (``qa_data/qa_N.json``) and the gold read from them alone.

:func:`read_qa` checks a QA file; :func:`load_gold_queries` turns the QA files of a folder into
:class:`~vmb_gym.types.Query` objects without reading the history files, which is all that
scoring needs (``vmb score``). :mod:`vmb_gym.data.official` builds full scenarios on top.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vmb_gym.data.call_parser import parse_gold_calls
from vmb_gym.data.layout import checked_qa_path, select_scenarios
from vmb_gym.errors import DataError
from vmb_gym.types import REASONING_TYPES, Query, ToolCall

__all__ = [
    "QAItem", "gold_files", "item_error", "load_gold_queries", "load_json", "log_gold_warnings", "read_gold",
    "read_gold_file", "read_qa",
]

logger = logging.getLogger(__name__)

_QA_KEY = "related_to_vehicle_preference"
_ITEM_KEYS: dict[str, type] = {
    "gold_memory": str,
    "reasoning_type": str,
    "query": str,
    "new_answer": list,
}


def load_json(path: Path) -> tuple[Any, str]:
    """The parsed JSON of ``path`` and its text (for line numbers in later errors).

    Raises:
        DataError: the file cannot be read or is not valid JSON.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, f"cannot read the file as UTF-8 text: {exc}") from exc
    try:
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        raise DataError(
            path, f"expected valid JSON, found a syntax error: {exc.msg} (column {exc.colno})",
            exc.lineno,
        ) from None


def _array_item_lines(text: str, key: str) -> list[int]:
    """Best-effort 1-based line numbers of the items of the top-level array under ``key``."""
    decoder = json.JSONDecoder()
    match = re.search(r'"' + re.escape(key) + r'"\s*:\s*\[', text)
    if match is None:
        return []
    position = match.end()
    result: list[int] = []
    try:
        while True:
            while position < len(text) and text[position] in " \t\r\n,":
                position += 1
            if position >= len(text) or text[position] == "]":
                return result
            result.append(text.count("\n", 0, position) + 1)
            _, position = decoder.raw_decode(text, position)
    except json.JSONDecodeError:
        return result


def item_error(path: Path, text: str, key: str, index: int, message: str) -> DataError:
    """A :class:`DataError` for item ``index`` of the array under ``key``, at that item's line."""
    lines = _array_item_lines(text, key)
    line = lines[index] if index < len(lines) else None
    return DataError(path, f"item {index} of {key!r}: {message}", line)


@dataclass(frozen=True, slots=True)
class QAItem:
    """One checked item of a QA file."""

    gold_memory: str
    reasoning_type: str
    query: str
    new_answer: tuple[str, ...]


def read_qa(path: Path) -> list[QAItem]:
    """Read and check a ``qa_N.json`` file.

    Raises:
        DataError: the file is unreadable or an item is malformed (file and line named).
    """
    data, text = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get(_QA_KEY), list):
        raise DataError(
            path,
            f"expected an object {{\"{_QA_KEY}\": [items]}}, found "
            f"{type(data).__name__}{' with keys ' + str(sorted(data)) if isinstance(data, dict) else ''}",
            1,
        )
    items: list[QAItem] = []
    for index, item in enumerate(data[_QA_KEY]):
        if not isinstance(item, dict):
            raise item_error(
                path, text, _QA_KEY, index, f"expected an object, found {type(item).__name__}"
            )
        missing = [key for key in _ITEM_KEYS if key not in item]
        if missing:
            raise item_error(
                path, text, _QA_KEY, index,
                f"missing key(s) {missing}; every item needs {list(_ITEM_KEYS)}",
            )
        for key, kind in _ITEM_KEYS.items():
            if not isinstance(item[key], kind):
                raise item_error(
                    path, text, _QA_KEY, index,
                    f"expected {key!r} to be a {kind.__name__}, found {type(item[key]).__name__}",
                )
        answers = item["new_answer"]
        bad = [i for i, answer in enumerate(answers) if not isinstance(answer, str)]
        if bad:
            raise item_error(
                path, text, _QA_KEY, index,
                f"expected 'new_answer' to be a list of strings, entry {bad[0]} is "
                f"{type(answers[bad[0]]).__name__}",
            )
        if item["reasoning_type"] not in REASONING_TYPES:
            raise item_error(
                path, text, _QA_KEY, index,
                f"expected 'reasoning_type' in {list(REASONING_TYPES)}, found "
                f"{item['reasoning_type']!r}",
            )
        if not item["query"].strip():
            raise item_error(path, text, _QA_KEY, index, "expected a non-empty 'query'")
        items.append(
            QAItem(item["gold_memory"], item["reasoning_type"], item["query"], tuple(answers))
        )
    return items


def read_gold(item: QAItem, qa_path: Path, number: int) -> tuple[tuple[ToolCall, ...], tuple[str, ...]]:
    """The parsed gold calls of item ``number`` and the gold strings that could not be parsed.

    Each parser warning is logged with the file and item number.
    """
    warnings: list[str] = []
    calls, dropped = parse_gold_calls(item.new_answer, warnings)
    log_gold_warnings(qa_path, [(number, warning) for warning in warnings])
    return tuple(calls), tuple(dropped)


def log_gold_warnings(qa_path: Path, warnings: Iterable[tuple[int, str]]) -> None:
    """Log ``(item number, parser warning)`` pairs of ``qa_path``, one line each."""
    for number, warning in warnings:
        logger.warning("%s item %d: %s", qa_path, number, warning)


def read_gold_file(qa_path: Path, scenario_id: int) -> tuple[list[Query], list[tuple[int, str]]]:
    """The queries of one QA file and its gold parser warnings as ``(item number, text)``, not logged.

    Raises:
        DataError: the QA file is unreadable or malformed.
    """
    queries: list[Query] = []
    warnings: list[tuple[int, str]] = []
    for number, item in enumerate(read_qa(qa_path)):
        found: list[str] = []
        calls, dropped = parse_gold_calls(item.new_answer, found)
        warnings.extend((number, warning) for warning in found)
        queries.append(Query(
            task_id=f"{scenario_id}_{number}", scenario_id=scenario_id, index=number, text=item.query,
            reasoning_type=item.reasoning_type, gold_calls=tuple(calls), gold_call_strings=item.new_answer,
            gold_memory=item.gold_memory, evidence=(), as_of=None, unparsed_gold=tuple(dropped),
        ))
    return queries, warnings


def load_gold_queries(
    folder: str | os.PathLike[str], files: Iterable[int] | None = None
) -> list[Query]:
    """The queries of a release-style folder read from its QA files only, for scoring.

    The scenarios are chosen as :func:`~vmb_gym.data.official.load_official` chooses them (the
    ``history/history_N.txt`` names, a QA file required beside each) and the queries come in
    the same order with the same ids, text, reasoning type and gold calls. Neither the history
    files nor the ``meta/`` sidecars are read, so ``evidence`` is empty, ``as_of`` is ``None``
    and ``qa`` is ``None``: use ``load_official`` for anything but scoring. Gold parser warnings
    are logged (file and item number).

    Raises:
        DataError: the folder, a requested scenario or its QA file is missing, or a QA file is
            malformed.
    """
    root = Path(folder).expanduser().resolve()
    queries: list[Query] = []
    for scenario_id, qa_path in gold_files(root, files):
        found, warnings = read_gold_file(qa_path, scenario_id)
        log_gold_warnings(qa_path, warnings)
        queries.extend(found)
    return queries


def gold_files(root: Path, files: Iterable[int] | None = None) -> list[tuple[int, Path]]:
    """``(scenario id, QA file)`` of the scenarios of ``root`` to score, in load order.

    Raises:
        DataError: ``root`` has no ``history/`` folder, or a requested scenario or its QA file is missing.
    """
    return [(n, checked_qa_path(root, n)) for n in select_scenarios(root, files)]
