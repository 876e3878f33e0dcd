"""On-disk cache for expensive ingestion products (e.g. dense embeddings), keyed by content hash.

The folder is ``$VMB_CACHE_DIR`` or ``~/.cache/vmb_gym``. A file that cannot be read back (torn
write, wrong shape, garbage) is treated as missing and rebuilt; writes go through a temporary
file and an atomic rename.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

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
