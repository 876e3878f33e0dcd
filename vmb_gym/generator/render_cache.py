"""A content-addressed cache of LLM renderer replies, so a rerun is resumable.

One JSON file per request under ``cache_dir()/llm_render`` (``$VMB_CACHE_DIR``), named by the
sha256 of the model and the exact messages sent: a rerun with the same model and the same
generated conversation reads the stored reply and makes no request. Only replies are stored
(never a key or an endpoint's headers); failed requests (timeouts, errors) are not stored, so a
rerun tries them again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_gym.cache_root import cache_dir

__all__ = ["ReplyCache", "request_key"]


def request_key(model: str, messages: Sequence[Mapping[str, Any]]) -> str:
    """The sha256 hex of a request's model and messages."""
    blob = json.dumps({"model": model, "messages": list(messages)}, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    """Stored reply texts by :func:`request_key`.

    Args:
        root: folder of the cache (default ``cache_dir()/llm_render``).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir() / "llm_render"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The stored reply text, or None when there is none (or it is unreadable)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        content = data.get("content") if isinstance(data, dict) else None
        return content if isinstance(content, str) else None

    def put(self, key: str, content: str) -> None:
        """Store a reply text (written to a temporary file first, so a killed run leaves no torn file)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"content": content}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
