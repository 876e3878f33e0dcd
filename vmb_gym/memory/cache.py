"""Caches of the memory modules: on disk for ingestion products, in process for search results.

On disk (:func:`load_array`, :func:`save_array`): expensive ingestion products (e.g. dense
embeddings), keyed by content hash. The folder is ``$VMB_CACHE_DIR`` or ``~/.cache/vmb_gym``. A
file that cannot be read back (torn write, wrong shape, garbage) is treated as missing and
rebuilt; writes go through a temporary file and an atomic rename.

In process (:class:`LRUCache`): the bounded cache of ranked search results that
:class:`~vmb_gym.memory.base.BaseMemory` keeps for the modules that declare their ranking a
function of the ingested history alone (``search_cache_size``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np

from vmb_gym.cache_root import cache_dir  # noqa: F401  (re-exported: the memory modules read the root here)

log = logging.getLogger(__name__)


def content_hash(*parts: str) -> str:
    """A short sha256 of the joined parts."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:40]


def load_array(path: Path, rows: int | None = None, cols: int | None = None) -> np.ndarray | None:
    """The array stored at ``path``, or ``None`` when it is missing or unreadable or misshapen."""
    if not path.is_file():
        return None
    try:
        arr = np.load(path, allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is rebuilt
        log.warning("cache file %s is unreadable (%s); rebuilding", path, exc)
        return None
    if arr.ndim != 2 or (rows is not None and arr.shape[0] != rows) or (cols is not None and arr.shape[1] != cols):
        log.warning("cache file %s has shape %s; rebuilding", path, arr.shape)
        return None
    return arr


def save_array(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` atomically to ``path`` (errors are logged, never raised: the cache is optional)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.npy")
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, arr, allow_pickle=False)
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("could not write cache file %s: %s", path, exc)


class LRUCache:
    """A bounded mapping that forgets its least recently used key when full.

    Args:
        size: the most keys kept (>= 1).

    Attributes:
        hits: lookups answered; misses: lookups not answered (for tests and profiles).
    """

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> Any:
        """The value kept for ``key`` (now the most recently used), or None."""
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self._data.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` (not None) for ``key``, forgetting the oldest key when full."""
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def clear(self) -> None:
        """Forget every key (the counters stay)."""
        self._data.clear()
