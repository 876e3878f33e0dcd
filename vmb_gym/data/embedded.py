"""Location of the benchmark set shipped with vmb_gym (the repository's ``benchmark/`` folder).

A wheel installs that folder as ``vmb_gym/benchmark`` (``package-dir`` in ``pyproject.toml``).
"""

from __future__ import annotations

import os
from pathlib import Path

from vmb_gym.errors import DataError

__all__ = ["BENCHMARK_DIR_ENV", "embedded_benchmark_dir"]

#: Environment variable that, when set, replaces the shipped folder.
BENCHMARK_DIR_ENV = "VMB_BENCHMARK_DIR"


def embedded_benchmark_dir() -> Path:
    """The folder of the default scenario set: ``history/``, ``qa_data/`` and ``meta/``.

    It is the installed copy ``vmb_gym/benchmark`` (a wheel) or ``benchmark/`` next to the ``vmb_gym``
    package (the repository root), unless the environment variable ``VMB_BENCHMARK_DIR`` names
    another folder.

    Returns:
        The folder, as an absolute path.

    Raises:
        DataError: the folder, or its ``history/`` sub-folder, is missing.
    """
    override = os.environ.get(BENCHMARK_DIR_ENV)
    if override:
        folder = Path(override).expanduser().resolve()
        origin = f"${BENCHMARK_DIR_ENV}"
    else:
        installed = Path(__file__).resolve().parents[1] / "benchmark"
        folder = installed if installed.is_dir() else Path(__file__).resolve().parents[2] / "benchmark"
        origin = "the shipped default set"
    history = folder / "history"
    if not history.is_dir() or not any(history.glob("history_*.txt")):
        raise DataError(
            folder,
            f"expected {origin} here with history/history_N.txt, qa_data/qa_N.json and "
            "meta/meta_N.json, found no history files; generate the set into this folder "
            "with vmb_gym's generator, set VMB_BENCHMARK_DIR to a folder that has it, or "
            "load the official release with spec 'official:DIR'",
        )
    return folder
