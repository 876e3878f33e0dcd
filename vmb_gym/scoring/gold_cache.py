"""The gold side of ``vmb score`` read from the QA files, kept in an on-disk cache that cannot be stale.

A cache file holds the :class:`~vmb_gym.scoring.batch.GoldTask` list of one selection of QA files
and their gold parser warnings. Its name is the sha256 of everything the list depends on: a
format number, the Python and orjson versions, the bytes of every source file of
``vmb_gym/scoring``, ``vmb_gym/vehicle`` and ``vmb_gym/data`` and of ``vmb_gym/types.py``, and,
for each selected scenario in order, its number and the sha256 of its QA file's bytes. So an
edited QA file or an edited scorer, simulator or parser gives another name, and the file found
under a name is always the one built from those bytes (the key is stored inside and checked too).

Files live under ``$VMB_CACHE_DIR/scoring`` or ``~/.cache/vmb_gym/scoring`` (the root of
:mod:`vmb_gym.memory.cache`), are written through a temporary file and an atomic rename, and
are ``marshal`` data (plain values only: loading runs no code): the key, each task's parts
that every prediction may need, the warnings, and one blob (:class:`~vmb_gym.scoring.batch.ColdParts`)
with the parts only a prediction that changes the car otherwise needs, decoded when one does.
An unreadable or malformed file is rebuilt, with one warning log line. Only the :data:`MAX_FILES` most recently
written files are kept. The history files are never read.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from vmb_gym.cache_root import cache_dir
from vmb_gym.data import data_folder
from vmb_gym.data.layout import select_scenarios
from vmb_gym.data.qa_files import gold_files, log_gold_warnings, read_gold_file
from vmb_gym.scoring.batch import ColdParts, GoldTask

__all__ = ["CACHE_FORMAT", "MAX_FILES", "cache_path", "code_fingerprint", "load_gold_tasks", "scoring_cache_dir"]

logger = logging.getLogger(__name__)

#: Bumped whenever the layout of a cache file changes.
CACHE_FORMAT = 4
_PACKAGE = Path(__file__).resolve().parents[1]
_SOURCE_DIRS = ("scoring", "vehicle", "data")
_SOURCE_FILES = ("types.py",)
_FINGERPRINT: list[str] = []
#: Cache files kept (the most recently written; about 0.5-1 MB each for 500 tasks).
MAX_FILES = 32


def scoring_cache_dir() -> Path:
    """``$VMB_CACHE_DIR/scoring``, else ``~/.cache/vmb_gym/scoring``."""
    return cache_dir() / "scoring"


def code_fingerprint() -> str:
    """The sha256 of the cache format, the Python and orjson versions and the scoring-related source files.

    Raises:
        OSError: a source file cannot be read.
    """
    if not _FINGERPRINT:
        h = hashlib.sha256(f"vmb-gold-cache {CACHE_FORMAT}\0{sys.version}\0{orjson.__version__}\0".encode())
        paths = sorted(p for d in _SOURCE_DIRS for p in (_PACKAGE / d).rglob("*.py"))
        paths += [_PACKAGE / name for name in _SOURCE_FILES]
        for path in paths:
            h.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
        _FINGERPRINT.append(h.hexdigest())
    return _FINGERPRINT[0]


def cache_path(selection: Iterable[tuple[int, bytes]]) -> tuple[Path, str]:
    """The cache file and key of ``(scenario id, QA file bytes)`` pairs, in load order.

    Raises:
        OSError: a source file of the package cannot be read.
    """
    h = hashlib.sha256(code_fingerprint().encode())
    for scenario_id, data in selection:
        h.update(f"\0{scenario_id}\0".encode() + hashlib.sha256(data).digest())
    key = h.hexdigest()
    return scoring_cache_dir() / f"gold-{key[:40]}.marshal", key


def _build(pairs: list[tuple[int, Path]]) -> tuple[list[GoldTask], list[tuple[int, int, str]]]:
    """Read and execute the gold of each QA file (logging its parser warnings as it goes)."""
    tasks: list[GoldTask] = []
    warnings: list[tuple[int, int, str]] = []
    for position, (scenario_id, qa_path) in enumerate(pairs):
        queries, found = read_gold_file(qa_path, scenario_id)
        log_gold_warnings(qa_path, found)
        warnings.extend((position, number, text) for number, text in found)
        tasks.extend(GoldTask.from_query(q) for q in queries)
    return tasks, warnings


def _read(path: Path, key: str) -> Any:
    """The payload stored at ``path`` under ``key``, or ``None`` (missing, or unreadable: logged)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.warning("gold cache %s cannot be read (%s); rebuilding it", path, exc)
        return None
    try:
        stored_key, payload = marshal.loads(data)
        if stored_key != key:
            raise ValueError("the key stored inside is another one")
        tasks, warnings, blob = payload
        if type(blob) is not bytes:
            raise ValueError("the blob of untouched parts is not bytes")
        cold = ColdParts(blob)
        # each t holds the 11 positional fields _write stored, never ``cold`` (mypy cannot count a starred tuple)
        return ([GoldTask(*t, cold=(cold, i)) for i, t in enumerate(tasks)],  # type: ignore[misc]
                [(int(p), int(n), str(w)) for p, n, w in warnings])
    except Exception as exc:  # noqa: BLE001 - any malformed file is rebuilt
        logger.warning("gold cache %s is unreadable (%s); rebuilding it", path, exc)
        return None


def _write(path: Path, key: str, tasks: list[GoldTask], warnings: list[tuple[int, int, str]]) -> None:
    """Store the payload atomically; a failure is logged at debug level (the cache is optional)."""
    try:
        shared: dict[Any, Any] = {}
        plain = [t.to_plain(shared) for t in tasks]  # the untouched parts and changed fields go in one blob
        hot = [(*p[:7], None, None, None, p[10]) for p in plain]
        data = marshal.dumps((key, (hot, warnings, ColdParts.pack([(p[7], p[8]) for p in plain]))))
    except ValueError as exc:  # a gold value marshal cannot store: no cache for this selection
        logger.debug("gold of %s not cached: %s", path, exc)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        logger.debug("could not write gold cache %s: %s", path, exc)
        return
    _prune(path.parent)


def _prune(folder: Path) -> None:
    """Delete all but the :data:`MAX_FILES` most recently written cache files (other selections, older code)."""
    try:
        found = sorted(folder.glob("gold-*.marshal"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in found[MAX_FILES:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # another process pruning at the same time: nothing lost but disk
        logger.debug("could not prune gold cache %s: %s", folder, exc)


def load_gold_tasks(
    spec: str | os.PathLike[str] = "default", files: Iterable[int] | None = None, *, use_cache: bool = True
) -> list[GoldTask]:
    """The gold side of every task of a scenario set, from its QA files only, cached on disk.

    Same tasks, in the same order, as :func:`vmb_gym.data.load_gold`, with the same gold parser
    warnings logged (replayed from the cache when it is used).

    Args:
        spec: ``"default"``, ``"official:DIR"`` or a folder with ``history/`` and ``qa_data/``.
        files: scenario numbers (all when ``None``).
        use_cache: read and write the on-disk cache (``False``: build from the QA files only).

    Raises:
        ConfigError: ``spec`` is empty or malformed.
        DataError: the folder, a requested scenario or its QA file is missing, or a QA file is malformed.
    """
    root = Path(data_folder(spec)).expanduser().resolve()
    if not use_cache:
        return _build(gold_files(root, files))[0]
    ids = select_scenarios(root, files)
    qa_paths = [os.path.join(root, "qa_data", f"qa_{n}.json") for n in ids]  # gold_files' paths, as text
    try:
        path, key = cache_path([(n, _read_bytes(qa)) for n, qa in zip(ids, qa_paths, strict=True)])
    except OSError:  # a missing QA file (gold_files says so), an unreadable one (the build says why), no source
        return _build(gold_files(root, files))[0]
    cached = _read(path, key)
    if cached is not None:
        tasks, warnings = cached
        for position, number, text in warnings:
            log_gold_warnings(Path(qa_paths[position]), [(number, text)])
        return tasks
    tasks, warnings = _build([(n, Path(qa)) for n, qa in zip(ids, qa_paths, strict=True)])
    _write(path, key, tasks, warnings)
    return tasks


def _read_bytes(path: str) -> bytes:
    """The bytes of the file ``path`` (an ``OSError`` when it is missing or not a file)."""
    with open(path, "rb") as handle:
        return handle.read()
