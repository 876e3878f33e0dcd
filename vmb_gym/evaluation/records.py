"""The files of an evaluation run directory and crash-safe ``results.jsonl`` I/O.

A run directory holds ``config.json`` (how the run was made), ``results.jsonl`` (one JSON
object per finished episode, appended and fsynced as episodes finish), ``metric.json``,
``report.md`` and PNG plots. One ``results.jsonl`` line looks like::

    {"task_id": "1_0", "trial": 0, "seed": 123, "scenario_id": 1, "reasoning_type": "...",
     "request": "...", "gold_calls": [{"name": ..., "arguments": {...}}], "gold_modules": [...],
     "trajectory": {"actions": [...], "calls": [{"name", "arguments", "result"}, ...]},
     "terminated": true, "truncated": false, "reward": 1.0,
     "metrics": {... the scorer's per-task record, "differences": [...] ...},
     "differences": [...], "episode": {"steps", "tool_executions", "memory_searches", ...},
     "memory": {"name", "provides_context", "provides_search", "evidence_lines", "hit_lines",
                "audit", "tokens", "searches"},
     "attribution": null | {"label", "labels", "evidence", "detail"},
     "error_kind": null | "infrastructure", "error": null | "...", "attempts": 1, "seconds": 0.01}

Reading tolerates a run killed mid-write: a last line without its newline (or one that does
not parse) is ignored, and :func:`read_results` with ``repair=True`` cuts it off the file so
that appending continues on a clean line. When a (task_id, trial) pair appears more than once
(an infrastructure failure redone by ``--resume``), the last line wins.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import orjson

from vmb_gym.errors import DataError
from vmb_gym.types import ToolCall

__all__ = [
    "CONFIG_FILE",
    "METRIC_FILE",
    "REPORT_FILE",
    "RESULTS_FILE",
    "ResultsWriter",
    "dumps",
    "latest_by_key",
    "read_json",
    "read_results",
    "scored_calls",
    "write_json",
]

log = logging.getLogger(__name__)

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"
METRIC_FILE = "metric.json"
REPORT_FILE = "report.md"

#: Call names the env never scores (tool mode): discovery, the end marker, unparsable actions.
_UNSCORED = frozenset({"list_module_tools", "finish"})


def _default(obj: Any) -> Any:
    if isinstance(obj, ToolCall):
        return obj.to_json()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return repr(obj)


def dumps(obj: Any, *, indent: bool = False) -> bytes:
    """JSON bytes of ``obj``; numpy values, tool calls and unknown objects are made JSON-safe."""
    option = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
    if indent:
        option |= orjson.OPT_INDENT_2
    return orjson.dumps(obj, default=_default, option=option)


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented JSON atomically (temporary file, fsync, rename; on a full disk the old file stays)."""
    from vmb_gym.outdir import write_atomic

    write_atomic(path, dumps(obj, indent=True) + b"\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read one JSON file.

    Raises:
        DataError: the file is missing or is not JSON.
    """
    path = Path(path)
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise DataError(path, "expected a JSON file here, found nothing; check the run directory") from None
    except orjson.JSONDecodeError as exc:
        raise DataError(path, f"expected JSON, found invalid content ({exc}); rewrite or remove the file") from None


class ResultsWriter:
    """Appends records to ``results.jsonl``: one line each, flushed to the OS at once.

    Each line is written whole and flushed immediately, so a killed process loses nothing it
    finished. A write that fails part way (a full disk: ``ENOSPC``) is cut off the file again
    before the error is raised, so the file ends with the last whole line and ``--resume``
    appends after it. ``fsync`` (durability against an OS crash or power loss) runs after a line when
    ``fsync_interval`` seconds have passed since the last one, and on close; ``0`` fsyncs every
    line (slower on some file systems: several ms per call).

    Args:
        path: the ``results.jsonl`` file (created when missing).
        fsync_interval: the most seconds between two fsyncs.
    """

    def __init__(self, path: str | os.PathLike[str], fsync_interval: float = 0.25) -> None:
        self.path = Path(path)
        self.fsync_interval = fsync_interval
        self._file: IO[bytes] = open(self.path, "ab", buffering=0)  # unbuffered: nothing left to flush after an error
        self._last_sync = time.monotonic()

    def _raw_write(self, data: memoryview) -> int:
        """One ``write`` of the file (bytes written; may be fewer than given)."""
        return self._file.write(data) or 0

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record (written at once, whole or not at all; fsynced per ``fsync_interval``).

        Raises:
            OSError: the write failed (e.g. ``ENOSPC``); the bytes of this record already written
                are cut off, so the file ends with the previous whole line.
        """
        view = memoryview(dumps(record) + b"\n")
        start = os.lseek(self._file.fileno(), 0, os.SEEK_END)
        try:
            while view:
                n = self._raw_write(view)
                if n <= 0:
                    raise OSError(f"{self.path}: a write made no progress")
                view = view[n:]
        except BaseException:
            try:
                os.ftruncate(self._file.fileno(), start)
            except OSError:
                log.warning("%s: could not cut a partly written line off the file; reading skips it", self.path)
            raise
        now = time.monotonic()
        if now - self._last_sync >= self.fsync_interval:
            os.fsync(self._file.fileno())
            self._last_sync = now

    def close(self) -> None:
        """Fsync and close the file."""
        if not self._file.closed:
            try:
                os.fsync(self._file.fileno())
            finally:
                self._file.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_results(path: str | os.PathLike[str], *, repair: bool = False) -> list[dict[str, Any]]:
    """Read ``results.jsonl``, ignoring a truncated or unreadable tail.

    Args:
        path: the file.
        repair: cut the unreadable tail off the file (so appends start on a fresh line).

    Returns:
        The records in file order (every readable line).

    Raises:
        DataError: the file does not exist.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(path, "expected a results.jsonl written by `vmb eval`, found nothing; check the path") from None
    records: list[dict[str, Any]] = []
    good_end = 0  # byte offset just after the last line that parsed
    pos = 0
    line_no = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            log.warning(
                "%s: ignoring a truncated last line (%d bytes) left by an interrupted run", path, len(data) - pos
            )
            break
        line_no += 1
        line = data[pos:nl].strip()
        if line:
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                log.warning("%s:%d: ignoring a line that is not JSON", path, line_no)
                obj = None
            if isinstance(obj, dict):
                records.append(obj)
                good_end = nl + 1
        else:
            good_end = nl + 1
        pos = nl + 1
    if repair and good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
            f.flush()
            os.fsync(f.fileno())
    return records


def latest_by_key(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """Map ``(task_id, trial)`` to its last record (later lines supersede earlier ones)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:
        out[(str(r.get("task_id")), int(r.get("trial", 0)))] = dict(r)
    return out


def scored_calls(record: Mapping[str, Any]) -> list[ToolCall]:
    """The calls the env scored in a saved episode, in order (what the scorer must re-execute).

    As the env does in tool mode: every call except ``list_module_tools``, ``finish``,
    unparsable actions (no name) and, when the memory module provides search,
    ``search_memory``.
    """
    memory = record.get("memory") or {}
    skip = set(_UNSCORED)
    if memory.get("provides_search"):
        skip.add("search_memory")
    out: list[ToolCall] = []
    for call in (record.get("trajectory") or {}).get("calls", []):
        name = call.get("name")
        if not isinstance(name, str) or name in skip:
            continue
        args = call.get("arguments")
        out.append(ToolCall(name, dict(args) if isinstance(args, Mapping) else {}))
    return out
