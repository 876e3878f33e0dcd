"""What building a memory shows: one line and a progress bar for the first embedding of a history, no loading noise.

The first use of ``dense``, ``hybrid`` or ``layered`` memory on a history embeds every line with
MiniLM (tens of seconds for a few thousand lines on a CPU); the result is cached on disk, so it
happens once per history and model. :func:`embed_history` says so ("embedding N history lines
once (cached in DIR)") through ``tqdm.write`` and shows its own bar, which takes the next free
row under a running ``vmb eval`` bar and is removed when done (``leave=False``), so the two
never garble each other. :func:`quiet_weight_loading` hides the ``Loading weights`` bar that
transformers draws for every model load (a fraction of a second for MiniLM: noise).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["embed_history", "embedding_message", "quiet_weight_loading"]


def embedding_message(n_lines: int, cached_in: Path | None) -> str:
    """``embedding N history lines once (cached in DIR)`` (or ``(not cached)`` without a disk cache)."""
    where = f"once (cached in {cached_in})" if cached_in is not None else "(not cached: use_disk_cache=False)"
    return f"embedding {n_lines} history lines {where}"


def embed_history(embedder: Any, texts: Sequence[str], cached_in: Path | None, *,
                  progress: bool | None = None) -> np.ndarray:
    """Embed a whole history with ``embedder``, saying so and showing a progress bar on stderr.

    An embedder whose ``encode`` takes ``on_batch`` (e.g. :class:`~vmb_gym.memory.retrieval.MiniLMEmbedder`)
    moves the bar batch by batch; any other is called once and the bar jumps to the end. Either
    way the embeddings are exactly those of ``embedder.encode(texts)``.

    Args:
        embedder: the sentence embedder.
        texts: the history lines.
        cached_in: the folder the result is cached in (named in the message), or None.
        progress: show the bar (None: only when stderr is a terminal).

    Returns:
        The ``(len(texts), dim)`` float32 embeddings.
    """
    from tqdm import tqdm

    tqdm.write(embedding_message(len(texts), cached_in), file=sys.stderr)
    disable = None if progress is None else not progress
    with tqdm(total=len(texts), desc="embedding", unit="line", leave=False, disable=disable, file=sys.stderr) as bar:
        if "on_batch" in inspect.signature(embedder.encode).parameters:
            arr = embedder.encode(list(texts), on_batch=bar.update)
        else:
            arr = embedder.encode(list(texts))
            bar.update(len(texts))
    return np.asarray(arr, dtype=np.float32)


@contextmanager
def quiet_weight_loading() -> Iterator[None]:
    """Hide transformers' ``Loading weights`` progress bar while a model loads (restored afterwards)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # no transformers: nothing draws that bar
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
