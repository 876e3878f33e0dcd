"""The layout of a release-style folder: which scenarios it holds and where their files are.

A folder holds ``history/history_N.txt`` and ``qa_data/qa_N.json`` for any subset of N, and
optionally ``meta/meta_N.json``. The scenario numbers are those of the history files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from vmb_gym.errors import DataError

__all__ = ["checked_qa_path", "format_ranges", "scenario_ids", "scenario_paths", "select_scenarios"]

_HISTORY_NAME = re.compile(r"history_(\d+)\.txt")


def scenario_paths(folder: Path, scenario_id: int) -> tuple[Path, Path, Path]:
    """``(history, qa, meta)`` paths of scenario ``scenario_id`` in ``folder`` (they may not exist)."""
    return (
        folder / "history" / f"history_{scenario_id}.txt",
        folder / "qa_data" / f"qa_{scenario_id}.json",
        folder / "meta" / f"meta_{scenario_id}.json",
    )


def scenario_ids(folder: str | os.PathLike[str]) -> list[int]:
    """The scenario numbers N with a ``history/history_N.txt`` in ``folder``, ascending.

    Raises:
        DataError: ``folder`` or its ``history/`` sub-folder does not exist.
    """
    root = Path(folder)
    history = root / "history"
    if not history.is_dir():
        raise DataError(
            root,
            "expected a benchmark folder with history/history_N.txt and qa_data/qa_N.json, "
            "found no history/ sub-folder; point to the folder that contains history/ and "
            "qa_data/",
        )
    found = []
    for entry in os.scandir(history):
        match = _HISTORY_NAME.fullmatch(entry.name)
        if match and entry.is_file():
            found.append(int(match.group(1)))
    return sorted(found)


def select_scenarios(root: Path, files: Iterable[int] | None) -> list[int]:
    """The scenario numbers to load: all of ``root`` (ascending), or ``files`` in order without repeats.

    Raises:
        DataError: ``root`` has no ``history/`` folder or a requested scenario has no history file.
    """
    available = scenario_ids(root)
    if files is None:
        return available
    wanted = list(dict.fromkeys(int(n) for n in files))
    absent = [n for n in wanted if n not in set(available)]
    if absent:
        raise DataError(
            root / "history",
            f"expected history_N.txt for requested scenario(s) {absent}, found only "
            f"{format_ranges(available) or 'none'}; choose files that exist",
        )
    return wanted


def checked_qa_path(root: Path, scenario_id: int) -> Path:
    """The QA file of scenario ``scenario_id``.

    Raises:
        DataError: the QA file is missing.
    """
    qa_path = root / f"qa_data/qa_{scenario_id}.json"  # scenario_paths' QA path, one join
    if not qa_path.is_file():
        raise DataError(
            qa_path,
            f"expected the QA file of scenario {scenario_id} next to history_{scenario_id}.txt, "
            "found none; add it or remove the history file",
        )
    return qa_path


def format_ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``"1-3,5"``."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
