"""A static sentence encoder shipped with the package: fast dense memories.

A line's vector is the mean of its tokens' vectors (MiniLM's WordPiece tokenizer, no special tokens),
normalised to unit length: embedding a whole history is one tokenisation and a table look-up, a
fraction of a second for a few thousand lines, instead of a transformer pass per line.

The token vectors were distilled from the bundled MiniLM with model2vec and then trained for this
retrieval task with sentence-transformers (``StaticEmbedding`` and ``MultipleNegativesRankingLoss``
on request / gold evidence line pairs of the generator's train split): ``vmb train static-encoder``
(``agents/train/static_encoder.py``) writes the folder this module reads. The shipped folder,
:data:`SHIPPED_DIR`, holds three files:

* ``tokenizer.json.gz``: the tokenizer (``tokenizers``' format, gzipped);
* ``vectors.safetensors``: ``vectors`` (int8, one row per token id) and ``scales`` (float32, one per
  row): a token's vector is ``vectors[i] * scales[i]``;
* ``config.json``: ``model_id`` (names the embedding cache), ``dim``, ``vocab_size`` and the
  ``sha256`` of ``vectors.safetensors``, checked on load.

Nothing is downloaded, ever.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from vmb_gym.errors import ConfigError, DataError

#: The trained model shipped with the package.
SHIPPED_DIR = Path(__file__).with_name("static_model")
#: The files of a model folder.
CONFIG, VECTORS, TOKENIZER = "config.json", "vectors.safetensors", "tokenizer.json.gz"
#: What to do when a model folder cannot be read.
_FIX = ("reinstall vmb_gym (pip install --force-reinstall vmb_gym), retrain it with `vmb train static-encoder`, "
        "or choose the MiniLM encoder: encoder='minilm'")


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(int8 rows, float32 scales)`` with ``rows * scales[:, None]`` close to ``vectors`` (per-row absmax)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    scales = np.abs(vectors).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    rows = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return rows, scales.astype(np.float32)


def write_static_model(out: Path, vectors: np.ndarray, tokenizer_json: str, model_id: str,
                       extra: dict[str, Any] | None = None) -> Path:
    """Write a model folder that :class:`StaticEmbedder` reads: token ``vectors`` (one row per token id of
    the tokenizer), stored as int8 with one scale per row. Returns ``out``."""
    from safetensors.numpy import save_file

    out.mkdir(parents=True, exist_ok=True)
    rows, scales = quantize(vectors)
    save_file({"vectors": rows, "scales": scales}, str(out / VECTORS))
    (out / TOKENIZER).write_bytes(gzip.compress(tokenizer_json.encode("utf-8"), mtime=0))
    config = {"model_id": model_id, "dim": int(rows.shape[1]), "vocab_size": int(rows.shape[0]),
              "sha256": hashlib.sha256((out / VECTORS).read_bytes()).hexdigest(), **(extra or {})}
    (out / CONFIG).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    return out


def read_config(path: Path) -> dict[str, Any]:
    """The ``config.json`` of the model folder ``path``.

    Raises:
        DataError: the file is missing or is not the JSON object a model folder holds.
    """
    file = path / CONFIG
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
        dim, model_id = int(config["dim"]), str(config["model_id"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(file, f"the static encoder's settings cannot be read ({type(exc).__name__}: {exc}); "
                              f"fix: {_FIX}") from exc
    if dim <= 0 or not model_id:
        raise DataError(file, f"the static encoder's settings name dim={dim} and model_id={model_id!r}; fix: {_FIX}")
    return config


def load_table(path: Path, config: dict[str, Any]) -> tuple[np.ndarray, Any]:
    """``(float32 token vectors, tokenizer)`` of the model folder ``path``.

    Raises:
        DataError: a file is missing, damaged (its checksum differs from ``config.json``'s) or of the wrong shape.
        ConfigError: ``safetensors`` or ``tokenizers`` is not installed.
    """
    try:
        from safetensors.numpy import load
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigError(f"the static encoder needs safetensors and tokenizers ({exc}); install them with: "
                          "pip install 'vmb_gym[dense]'") from exc
    file = path / VECTORS
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise DataError(file, f"the static encoder's vectors cannot be read ({exc}); fix: {_FIX}") from exc
    if hashlib.sha256(data).hexdigest() != config.get("sha256"):
        raise DataError(file, f"the static encoder's vectors are damaged (their sha256 differs from the one in "
                              f"{CONFIG}); fix: {_FIX}")
    tensors = load(data)
    rows, scales = tensors.get("vectors"), tensors.get("scales")
    if rows is None or scales is None or rows.ndim != 2 or rows.shape != (len(scales), config["dim"]):
        raise DataError(file, f"expected 'vectors' (vocabulary, {config['dim']}) and 'scales' (vocabulary,); "
                              f"fix: {_FIX}")
    try:
        tokenizer = Tokenizer.from_str(gzip.decompress((path / TOKENIZER).read_bytes()).decode("utf-8"))
    except Exception as exc:  # tokenizers raises its own Exception type for a bad file
        raise DataError(path / TOKENIZER, f"the static encoder's tokenizer cannot be read ({exc}); "
                                          f"fix: {_FIX}") from exc
    if tokenizer.get_vocab_size() != len(rows):
        raise DataError(path / TOKENIZER, f"the tokenizer has {tokenizer.get_vocab_size()} tokens and the vectors "
                                          f"{len(rows)} rows; fix: {_FIX}")
    tokenizer.no_padding()
    return rows.astype(np.float32) * scales[:, None].astype(np.float32), tokenizer


class StaticEmbedder:
    """Sentence embeddings from a static model folder (unit float32 rows; zero rows for texts with no token).

    Args:
        path: the model folder (default: :data:`SHIPPED_DIR`). Its ``config.json`` is read here, the
            vectors on the first :meth:`encode`.

    Raises:
        DataError: the folder's ``config.json`` is missing or unreadable.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = SHIPPED_DIR if path is None else Path(path)
        config = read_config(self.path)
        self.config = config
        self.model_id: str = config["model_id"]
        self.dim: int = int(config["dim"])
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def _load(self) -> tuple[np.ndarray, Any]:
        if self._table is None:
            self._table, self._tokenizer = load_table(self.path, self.config)
        return self._table, self._tokenizer

    def encode(self, texts: Sequence[str], on_batch: Callable[[int], Any] | None = None) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array with unit rows. Single texts are memoised;
        ``on_batch(n)`` is called once at the end."""
        if len(texts) == 1 and texts[0] in self._query_cache:
            return self._query_cache[texts[0]][None, :]
        table, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        ids = np.fromiter(itertools.chain.from_iterable(e.ids for e in encodings), dtype=np.int64,
                          count=int(lengths.sum()))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        filled = lengths > 0
        if filled.any():  # one sum per text: the segments of its tokens (empty texts have none)
            starts = (np.cumsum(lengths) - lengths)[filled]
            out[filled] = np.add.reduceat(table[ids], starts, axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
        if on_batch is not None:
            on_batch(len(texts))
        if len(texts) == 1:
            self._query_cache[texts[0]] = out[0]
            if len(self._query_cache) > 4096:
                self._query_cache.popitem(last=False)
        return out


@lru_cache(maxsize=1)
def shared_static() -> StaticEmbedder:
    """One static encoder per process (shared by every dense/hybrid/layered module)."""
    return StaticEmbedder()
