"""A two-stage dense encoder: a fast first stage ranks every line, a stronger one re-ranks its best.

``encoder="cascade"`` of ``dense``, ``hybrid`` and ``layered``. Building the index of a new history
embeds every line with the first stage only (the shipped static model: a fraction of a second for
thousands of lines). A search ranks the visible lines by the first stage, embeds with the second
stage (MiniLM) only those of the ``depth`` best that it has not embedded before, and orders them
by the second stage's cosine; the other lines follow in the first stage's order, below them.

So the index builds in the static model's time, the ranking at the top is MiniLM's wherever
MiniLM's best lines are among the first stage's ``depth`` best, and a household's total MiniLM
work grows with the lines its searches touch, never past embedding the whole history once. When
the whole history's MiniLM embeddings are already in the disk cache they are used as they are.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.cache import load_array
from vmb_gym.memory.dense_index import DenseIndex, Embedder, embedding_cache_path, top_indices

#: How many of the first stage's best visible lines the second stage re-ranks (set by cost: about half a
#: second of MiniLM on two cores; see docs/memory-encoders.md).
DEFAULT_DEPTH = 100


class CascadeEncoder:
    """Names the two stages of a cascade and how deep the second one re-ranks.

    Args:
        first: the embedder of every line (e.g. the static model).
        second: the embedder of the query and of the first stage's best lines (e.g. MiniLM).
        depth: how many of the first stage's best visible lines the second stage re-ranks.

    ``encode`` is the second stage's (a cascade embeds a text as its stronger model does).
    """

    def __init__(self, first: Embedder, second: Embedder, depth: int = DEFAULT_DEPTH) -> None:
        if int(depth) < 1:
            raise ConfigError(f"a cascade's depth must be at least 1, got {depth!r}; fix: e.g. depth={DEFAULT_DEPTH}")
        self.first = first
        self.second = second
        self.depth = int(depth)
        self.model_id = f"cascade:{first.model_id}>{second.model_id}@{self.depth}"
        self.dim = second.dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The second stage's embeddings of ``texts``."""
        return self.second.encode(texts)


class CascadeIndex:
    """The index of :class:`CascadeEncoder`: first-stage rows for every text, second-stage rows on demand.

    Args:
        encoder: the cascade.
        use_disk_cache: keep/load the first stage's whole-history embeddings on disk (and read the
            second stage's when a whole history of them is there).
    """

    def __init__(self, encoder: CascadeEncoder, use_disk_cache: bool = True) -> None:
        self.encoder = encoder
        self.first = DenseIndex(encoder.first, use_disk_cache)
        self.texts: list[str] = []
        self.second = np.zeros((0, encoder.second.dim), dtype=np.float32)
        self.have = np.zeros(0, dtype=bool)
        self.query_seconds: list[float] = []
        #: Lines the second stage has embedded in this index (not counting rows read from the disk cache).
        self.second_stage_lines = 0

    @property
    def cache_hit(self) -> bool | None:
        """Whether the first stage's whole-history embeddings came from the disk cache."""
        return self.first.cache_hit

    @property
    def matrix(self) -> np.ndarray:
        """The first stage's rows (one per indexed text)."""
        return self.first.matrix

    def extend(self, texts: Sequence[str], cache: bool = False) -> None:
        """Embed ``texts`` with the first stage and append them; the second stage waits for a search."""
        if not texts:
            return
        self.first.extend(texts, cache=cache)
        rows = np.zeros((len(texts), self.encoder.second.dim), dtype=np.float32)
        have = np.zeros(len(texts), dtype=bool)
        if cache and self.first.use_disk_cache:
            known = load_array(embedding_cache_path(self.encoder.second, texts), rows=len(texts),
                               cols=self.encoder.second.dim)
            if known is not None:
                rows, have = known.astype(np.float32), np.ones(len(texts), dtype=bool)
        self.texts.extend(texts)
        self.second = np.vstack([self.second, rows])
        self.have = np.concatenate([self.have, have])

    def scores(self, text: str, allowed: np.ndarray | None = None) -> np.ndarray:
        """One score per indexed text: the second stage's cosine for the first stage's ``depth`` best
        of ``allowed`` (default: all), the first stage's order below the lowest of them for the rest."""
        t0 = time.perf_counter()
        first = self.first.scores(text)
        pool = np.arange(len(first)) if allowed is None else np.asarray(allowed, dtype=np.int64)
        top = top_indices(first, pool, self.encoder.depth, positive_only=False)
        if len(top) == 0:
            return first
        missing = top[~self.have[top]]
        if len(missing):
            self.second[missing] = self.encoder.second.encode([self.texts[i] for i in missing])
            self.have[missing] = True
            self.second_stage_lines += len(missing)
        q = np.asarray(self.encoder.second.encode([text])[0], dtype=np.float32)
        near = np.einsum("ij,j->i", self.second[top], q)
        # the rest keep the first stage's order, strictly below the re-ranked lines
        out = first - first[top].min() + near.min() - 1e-3
        out[top] = near
        self.query_seconds.append(time.perf_counter() - t0)
        return out

    def payload(self) -> dict[str, Any]:
        """What :meth:`load_payload` restores (the memory's saved state carries it)."""
        return {"matrix": self.first.matrix, "texts": list(self.texts), "second": self.second, "have": self.have}

    def load_payload(self, payload: dict[str, Any]) -> None:
        """Restore :meth:`payload`."""
        self.first.matrix = payload["matrix"]
        self.texts = list(payload["texts"])
        self.second = payload["second"]
        self.have = payload["have"]
