"""The one cache root of vmb_gym: ``$VMB_CACHE_DIR``, else ``~/.cache/vmb_gym``.

Kept free of heavy imports so every user (memory embeddings, the scorer's gold cache) can read
it cheaply.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """The cache root (folders below it are created on demand by their users)."""
    root = os.environ.get("VMB_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "vmb_gym")
    return Path(root)
