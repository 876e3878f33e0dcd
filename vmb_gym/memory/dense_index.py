"""The dense index of the memories that embed: embeddings of a growing list of texts, and its ranking helper.

:class:`DenseIndex` holds one row per text of whatever :class:`Embedder` it is given and caches a
whole history's rows on disk; :func:`top_indices` picks the best of the allowed entries by a score.
:mod:`vmb_gym.memory.retrieval` (the modules) and :mod:`vmb_gym.memory.cascade` (the two-stage
index) both build on them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from vmb_gym.memory.cache import cache_dir, content_hash, load_array, save_array
from vmb_gym.memory.progress import embed_history


class Embedder(Protocol):
    """Sentence embedder: unit-norm float32 rows, one per text.

    ``encode`` may also take ``on_batch`` (called with each batch's size) to move the progress
    bar of a history's first embedding (:func:`vmb_gym.memory.progress.embed_history`).
    """

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array with unit rows."""


class DenseIndex:
    """Embeddings of a growing list of texts; whole-history batches are cached on disk.

    Args:
        embedder: the sentence embedder.
        use_disk_cache: keep/load whole batches under ``cache_dir()/emb/<model>/<sha>.npy``.
    """

    def __init__(self, embedder: Embedder, use_disk_cache: bool = True) -> None:
        self.embedder = embedder
        self.use_disk_cache = use_disk_cache
        self.matrix = np.zeros((0, embedder.dim), dtype=np.float32)
        self.cache_hit: bool | None = None
        self.query_seconds: list[float] = []

    def extend(self, texts: Sequence[str], cache: bool = False) -> None:
        """Embed ``texts`` and append them (``cache``: try/keep the on-disk copy of this batch)."""
        if not texts:
            return
        path = None
        arr = None
        if cache and self.use_disk_cache:
            path = embedding_cache_path(self.embedder, texts)
            arr = load_array(path, rows=len(texts), cols=self.embedder.dim)
            self.cache_hit = arr is not None
        if arr is None and cache:  # a whole history, embedded for the first time: say so, show a bar
            arr = embed_history(self.embedder, texts, path.parent if path is not None else None)
        elif arr is None:
            arr = self.embedder.encode(list(texts)).astype(np.float32)
        if path is not None and not self.cache_hit:
            save_array(path, arr)
        self.matrix = np.vstack([self.matrix, arr]) if len(self.matrix) else np.asarray(arr, dtype=np.float32)

    def scores(self, text: str, allowed: np.ndarray | None = None) -> np.ndarray:
        """Cosine similarity of every indexed text with ``text`` (``allowed``: unused here; a
        :class:`~vmb_gym.memory.cascade.CascadeIndex` re-ranks among those entries)."""
        t0 = time.perf_counter()
        q = self.embedder.encode([text])[0]
        self.query_seconds.append(time.perf_counter() - t0)
        # einsum is a single-threaded loop: for one (n, 384) x (384,) product it beats a threaded
        # BLAS gemv, which can take 100x longer when the cores are busy (measured 16 ms vs 0.2 ms).
        return np.einsum("ij,j->i", self.matrix, q)

    def payload(self) -> dict[str, Any]:
        """What :meth:`load_payload` restores (the memory's saved state carries it)."""
        return {"matrix": self.matrix}

    def load_payload(self, payload: dict[str, Any]) -> None:
        """Restore :meth:`payload`."""
        self.matrix = payload["matrix"]


def embedding_cache_path(embedder: Embedder, texts: Sequence[str]) -> Any:
    """Where the whole-history embeddings of ``texts`` by ``embedder`` are cached on disk."""
    sha = content_hash(embedder.model_id, *texts)
    return cache_dir() / "emb" / embedder.model_id.replace("/", "_") / f"{sha}.npy"


def top_indices(scores: np.ndarray, allowed: np.ndarray, k: int, positive_only: bool = True) -> np.ndarray:
    """The ``k`` best of ``allowed`` by ``scores`` (ties: earlier entry first)."""
    if len(allowed) == 0:
        return allowed
    sub = scores[allowed]
    if positive_only:
        keep = sub > 0
        allowed, sub = allowed[keep], sub[keep]
    if len(allowed) > k:
        part = np.argpartition(-sub, k - 1)[:k]
        allowed, sub = allowed[part], sub[part]
    order = np.lexsort((allowed, -sub))
    return allowed[order]
