"""Scenario data: loading release-style folders and parsing vehicle calls.

``load_scenarios("default")`` loads the set shipped with vmb_gym; ``"official"`` the official
release (``$VMB_OFFICIAL_DIR``, else ``../shared/vehiclemembench`` beside the package root);
``"official:DIR"`` or a plain folder path any folder laid out like it (see
:mod:`vmb_gym.data.spec`). ``load_gold`` reads the
same tasks from the QA files alone (no history), which is all that scoring needs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from vmb_gym.data.call_parser import parse_action_call, parse_gold_call, parse_gold_calls
from vmb_gym.data.embedded import embedded_benchmark_dir
from vmb_gym.data.official import (
    EVIDENCE_WINDOW_MINUTES,
    clear_cache,
    load_official,
    locate_evidence,
    parse_gold_memory,
    read_history,
    scenario_ids,
)
from vmb_gym.data.qa_files import load_gold_queries
from vmb_gym.data.spec import OFFICIAL_ENV, data_folder
from vmb_gym.errors import ConfigError
from vmb_gym.types import Query, Scenario

__all__ = [
    "EVIDENCE_WINDOW_MINUTES",
    "OFFICIAL_ENV",
    "clear_cache",
    "data_folder",
    "embedded_benchmark_dir",
    "load_gold",
    "load_official",
    "load_scenarios",
    "locate_evidence",
    "parse_action_call",
    "parse_file_range",
    "parse_gold_call",
    "parse_gold_calls",
    "parse_gold_memory",
    "read_history",
    "scenario_ids",
]

_RANGE_PART = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")


def load_scenarios(
    spec: str | os.PathLike[str] = "default", files: Iterable[int] | None = None
) -> list[Scenario]:
    """Load a scenario set.

    Args:
        spec: ``"default"`` (the shipped set), ``"official"``, ``"official:DIR"`` or a folder path
            (see :func:`data_folder`); the folder holds ``history/``, ``qa_data/`` and optionally ``meta/``.
        files: scenario numbers to load (``None``: all in the folder).

    Returns:
        The scenarios, ascending by number.

    Raises:
        ConfigError: ``spec`` is empty, ``"official:"`` without a folder, or a folder that does not exist.
        DataError: a file of the folder is missing or malformed.
    """
    return load_official(data_folder(spec), files)


def load_gold(spec: str | os.PathLike[str] = "default", files: Iterable[int] | None = None) -> list[Query]:
    """The queries of a scenario set read from its QA files only (what scoring needs).

    Same tasks, order, ids and gold calls as the queries of :func:`load_scenarios`; the history
    and ``meta/`` files are not read, so ``evidence`` is empty and ``as_of``/``qa`` are ``None``.

    Raises:
        ConfigError: ``spec`` is empty or ``"official:"`` without a folder.
        DataError: the folder, a scenario or its QA file is missing or malformed.
    """
    return load_gold_queries(data_folder(spec), files)


def parse_file_range(text: str) -> list[int]:
    """Parse a scenario selection such as ``"1-10,12"`` into ``[1, ..., 10, 12]``.

    Args:
        text: comma-separated numbers and inclusive ranges ``A-B`` (spaces allowed).

    Returns:
        The numbers, ascending and without repeats.

    Raises:
        ConfigError: a part is not a positive number or ``A-B`` with ``A <= B``.
    """
    numbers: set[int] = set()
    parts = [part.strip() for part in str(text).split(",")]
    if not any(parts):
        raise ConfigError(
            f"expected scenario numbers like '1-10,12', found {text!r}; give at least one number"
        )
    for part in parts:
        match = _RANGE_PART.fullmatch(part)
        if match is None:
            raise ConfigError(
                f"expected a number or a range like '3-7' in {text!r}, found {part!r}"
            )
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if low < 1 or high < low:
            raise ConfigError(
                f"expected a range A-B with 1 <= A <= B in {text!r}, found {part!r}"
            )
        numbers.update(range(low, high + 1))
    return sorted(numbers)
