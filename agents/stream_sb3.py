"""SB3 bridge for the write phase of ``VehicleMemStream-v0``: learn *what to keep*, line by line.

:class:`StreamWriteEnv` turns a stream timeline into a fixed-size RL problem:

* **one step = one streamed line**: ``Discrete(2)`` (0 = skip, 1 = keep). When a chunk's last
  line is decided, the kept lines are written to the inner env as one ``store`` per line (batched,
  then ``skip``), exactly like the store-everything writer does for every line;
* **observation** (``Box`` in [-1, 1]): a hashed bag of words and bigrams of the line (the
  ``VehicleMem-v0`` :class:`~vmb_gym.wrappers.features.HashingFeaturizer` encoding) plus small
  numeric features (:data:`NUMERIC_NAMES`): simulator-vocabulary hits, a value found for a named
  setting, whether the rule writer would keep the line, relation / other-vehicle / value words,
  condition words, length, position in the chunk and the speaker;
* **the query phase is not learned**: every request is served by the fixed
  :class:`agents.writers.StreamReader` (the rule reader all baseline writers use), run inside
  :meth:`StreamWriteEnv.step`;
* **reward** = the inner env's reward: per request its metric (``f1_change`` by default) minus
  ``memory_cost`` x tokens written. A kept line's token cost is charged at the step that keeps
  it; a request's metric arrives at the step that ends the chunk before it (the rewards of
  requests before the first chunk are added to the first step), so the episode return equals the
  inner env's return;
* **action masks** (:meth:`StreamWriteEnv.action_masks`, for ``MaskablePPO``): ``keep`` is
  masked when there is no line left to keep (the episode is over, or a timeline without lines).

:func:`load_stream_writer` runs a trained model as a :class:`agents.writers.Writer` (``vmb
eval-stream --writer sb3:CHECKPOINT``); :func:`save_stream_checkpoint` /
:func:`load_stream_writer` store the model with a JSON sidecar describing the features.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.wrappers.features import HashingFeaturizer

#: Names of the numeric features that follow the hashed text block.
NUMERIC_NAMES: tuple[str, ...] = (
    "vocab_score", "value_found", "rule_keep", "relation", "elsewhere", "value_words", "conditions",
    "length", "position", "chunk_size", "speaker_0", "speaker_1", "speaker_2", "speaker_3", "speaker_other",
)
_MAX_SPEAKERS = 4
_WORDS = re.compile(r"\S+")


class LineFeaturizer:
    """Features of each line of a chunk: hashed text then :data:`NUMERIC_NAMES` (all in [-1, 1]).

    Args:
        hash_dim: slots of the hashed bag of words and bigrams.
        min_score: least :func:`agents.rules.score_apis` score for a line to name a setting
            (as :class:`agents.writers.RuleWriter`).
        follow_up: lines after a setting line whose bare value still counts (as the rule writer).
    """

    def __init__(self, hash_dim: int = 256, min_score: float = 1.0, follow_up: int = 2) -> None:
        if hash_dim < 8:
            raise ConfigError(f"hash_dim must be >= 8, got {hash_dim}")
        from agents import writers
        from agents.rules import conditions_in, score_apis

        self.hash_dim = int(hash_dim)
        self.min_score = float(min_score)
        self.follow_up = int(follow_up)
        self.dim = self.hash_dim + len(NUMERIC_NAMES)
        self._hasher = HashingFeaturizer()
        self._rule = writers.RuleWriter(min_score=min_score, follow_up=follow_up)
        self._score = score_apis
        self._conditions = conditions_in
        self._relation = writers._RELATION  # noqa: SLF001 - the rule writer's own patterns
        self._elsewhere = writers._ELSEWHERE  # noqa: SLF001
        self._value = writers._VALUE  # noqa: SLF001

    def config(self) -> dict[str, Any]:
        """Arguments that rebuild this featuriser."""
        return {"hash_dim": self.hash_dim, "min_score": self.min_score, "follow_up": self.follow_up}

    def chunk(self, lines: Sequence[Mapping[str, Any]], speakers: Sequence[str]) -> np.ndarray:
        """``(len(lines), dim)`` float32 features of one chunk (the rule-keep flag needs the chunk)."""
        n = len(lines)
        out = np.zeros((n, self.dim), dtype=np.float32)
        last_kept = -10**9
        for pos, ln in enumerate(lines):
            text = str(ln["text"])
            scores = self._score(text)
            best = max(scores.values(), default=0.0)
            api = self._rule.setting_of(text) if best >= self.min_score else None
            relation = bool(self._relation.search(text))
            elsewhere = bool(self._elsewhere.search(text))
            value_words = bool(self._value.search(text))
            # the rule writer's decision, recomputed from the same parts
            if relation:
                keep = True
            elif elsewhere:
                keep = False
            elif api is None:
                keep = pos - last_kept <= self.follow_up and value_words
            else:
                keep = True
                last_kept = pos
            speaker = [0.0] * (_MAX_SPEAKERS + 1)
            who = str(ln.get("speaker", ""))
            idx = list(speakers).index(who) if who in speakers else -1
            speaker[idx if 0 <= idx < _MAX_SPEAKERS else _MAX_SPEAKERS] = 1.0
            numeric = [min(best, 3.0) / 3.0, float(api is not None), float(keep), float(relation), float(elsewhere),
                       float(value_words), float(bool(self._conditions(text))),
                       min(len(_WORDS.findall(text)), 50) / 50.0, pos / max(n - 1, 1), min(n, 100) / 100.0, *speaker]
            out[pos, : self.hash_dim] = self._hasher.encode(text, self.hash_dim)
            out[pos, self.hash_dim:] = numeric
        return out


def _unwrap_stream(env: gym.Env[Any, Any]) -> Any:
    from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv

    inner = env.unwrapped
    if not isinstance(inner, VehicleMemStreamEnv):
        raise ConfigError(f"StreamWriteEnv needs a VehicleMemStream-v0 env, got {type(inner).__name__}")
    return inner


class StreamWriteEnv(gym.Env[np.ndarray, np.int64]):
    """Keep/skip decisions over the streamed lines of ``VehicleMemStream-v0`` (see the module doc).

    Args:
        env: a ``VehicleMemStream-v0`` env (built from ``stream_kwargs`` when None; then
            ``max_chunk_steps`` defaults to 16).
        featurizer: the line featuriser (default :class:`LineFeaturizer`).
        reader_top_k: hits per search of the fixed reader.
        max_query_steps: reader steps per request before it gives up (the inner env's
            ``max_query_steps`` also bounds it).
        **stream_kwargs: ``VehicleMemStream-v0`` arguments (data, files, window_days, memory_cost, ...).

    ``info`` of the last step carries ``episode_stats`` (the inner env's figures) and
    ``query_metrics`` (the scorer's record of every request of the episode).
    """

    metadata = {"render_modes": []}

    def __init__(self, env: gym.Env[Any, Any] | None = None, *, featurizer: LineFeaturizer | None = None,
                 reader_top_k: int = 10, max_query_steps: int = 8, **stream_kwargs: Any) -> None:
        if env is None:
            from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv

            stream_kwargs.setdefault("max_chunk_steps", 16)
            env = VehicleMemStreamEnv(**stream_kwargs)
        elif stream_kwargs:
            raise ConfigError(f"give either env or stream arguments, not both (got {sorted(stream_kwargs)})")
        self.inner = _unwrap_stream(env)
        self.featurizer = featurizer or LineFeaturizer()
        self.reader_top_k = reader_top_k
        self.max_query_steps = max_query_steps
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self._done = True
        self._lines: list[dict[str, Any]] = []
        self._feats = np.zeros((0, self.featurizer.dim), dtype=np.float32)
        self._pos = 0

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a timeline; runs any requests before its first chunk with the fixed reader."""
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        for attempt in range(8):
            _, info = self.inner.reset(seed=seed if attempt == 0 else None, options=options)
            self._start(info)
            if not self._done or options:  # a pinned timeline is taken as it is
                break
        return self._obs(), {"scenario_id": self._scenario_id, "chunk_lines": len(self._lines)}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Decide the current line (1 keep, 0 skip); at a chunk's end write it and serve the requests after it."""
        if self._done:
            return self._obs(), 0.0, True, False, self._final_info()
        keep = int(np.asarray(action).reshape(-1)[0]) == 1
        reward = self._pending
        self._pending = 0.0
        line = self._lines[self._pos]
        if keep:
            self._kept.append(line)
            cost = self.inner.memory_cost * count_tokens(f"{line['speaker']}: {line['text']}")
            self._charged += cost
            reward -= cost
        self._pos += 1
        info: dict[str, Any] = {"line_id": line["line_id"], "kept": keep}
        if self._pos >= len(self._lines):
            reward += self._flush()
        terminated = self._done
        if terminated:
            info.update(self._final_info())
        return self._obs(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """``[skip, keep]`` allowed: keep only while a line is there to keep."""
        return np.array([True, not self._done and self._pos < len(self._lines)], dtype=bool)

    # ------------------------------------------------------------------ internals
    def _start(self, info: dict[str, Any]) -> None:
        from agents.writers import StreamReader

        self._reader = StreamReader(self.reader_top_k)
        self._scenario_id = int(info["scenario_id"])
        self._speakers = tuple(info.get("speakers", ()))
        self._pending = 0.0
        self._charged = 0.0
        self._kept: list[dict[str, Any]] = []
        self._queries: list[dict[str, Any]] = []
        self._stats: dict[str, Any] = {}
        self._done = False
        self._total_lines = 0
        self._pending += self._settle(info)

    def _settle(self, info: dict[str, Any]) -> float:
        """Serve requests until a chunk is shown or the timeline ends; the rewards they earned."""
        total = 0.0
        while info.get("phase") == "query":
            if "request" in info:
                self._reader.start(info, self._scenario_id, self._speakers)
                self._query_steps = 0
            self._query_steps += 1
            action = self._reader.act(info) if self._query_steps < self.max_query_steps else [{"name": "finish", "arguments": {}}]
            _, r, terminated, _, info = self.inner.step(action)
            total += float(r)
            if "query_metrics" in info:
                self._queries.append(dict(info["query_metrics"]))
            if terminated:
                self._finish(info)
                return total
        if info.get("phase") == "write" and "lines" in info:
            self._lines = list(info["lines"])
            self._feats = self.featurizer.chunk(self._lines, self._speakers)
            self._pos = 0
            self._kept = []
            self._total_lines += len(self._lines)
            if not self._lines:  # pragma: no cover - chunks are never empty
                return total + self._flush()
        elif not self._done:  # pragma: no cover - defensive: unexpected phase
            self._finish(info)
        return total

    def _flush(self) -> float:
        """Write the chunk's kept lines (one store each), skip to the next item, serve requests."""
        from agents.writers import BATCH, SKIP

        ids = [[ln["line_id"]] for ln in self._kept]
        limit = BATCH * (self.inner.max_chunk_steps - 1)
        if len(ids) > limit:  # too many single stores for the chunk's step budget: cite several lines per store
            per = -(-len(ids) // limit)
            ids = [sum(ids[i:i + per], []) for i in range(0, len(ids), per)]
        calls = [{"name": "store", "arguments": {"line_ids": group}} for group in ids]
        reward = self._charged  # refund the per-line charges; the env's own write cost replaces them
        self._charged = 0.0
        info: dict[str, Any] = {}
        while True:
            batch, calls = calls[:BATCH], calls[BATCH:]
            action = batch if calls else [*batch, SKIP]
            _, r, terminated, _, info = self.inner.step(action)
            reward += float(r)
            if terminated:
                self._finish(info)
                return reward
            if not calls:
                break
        self._lines = []
        self._kept = []
        return reward + self._settle(info)

    def _finish(self, info: dict[str, Any]) -> None:
        self._done = True
        self._lines = []
        self._pos = 0
        self._stats = dict(info.get("episode_stats", {}))

    def _final_info(self) -> dict[str, Any]:
        return {"episode_stats": self._stats, "query_metrics": list(self._queries)}

    def _obs(self) -> np.ndarray:
        if self._done or self._pos >= len(self._lines):
            return np.zeros(self.featurizer.dim, dtype=np.float32)
        return self._feats[self._pos].copy()


def make_stream_write_env(**kwargs: Any) -> StreamWriteEnv:
    """A :class:`StreamWriteEnv` over a new ``VehicleMemStream-v0`` env built from ``kwargs``."""
    return StreamWriteEnv(**kwargs)


# ---------------------------------------------------------------------- checkpoints and the writer
def _paths(path: str | Path) -> tuple[Path, Path]:
    p = Path(path)
    base = p.with_suffix("") if p.suffix == ".zip" else p
    return base.with_suffix(".zip"), base.with_suffix(".json")


def save_stream_checkpoint(model: Any, path: str | Path, *, algo: str, featurizer: LineFeaturizer,
                           extra: Mapping[str, Any] | None = None) -> Path:
    """Save ``model`` to ``path.zip`` with a ``path.json`` sidecar (algorithm, features); returns the zip."""
    zip_path, meta_path = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    meta = {"kind": "stream_writer", "algo": algo, "featurizer": featurizer.config(), **dict(extra or {})}
    meta_path.write_text(json.dumps(meta, indent=2))
    return zip_path


def _writer_class() -> Any:
    """``SB3StreamWriter``: a trained keep/skip model as a :class:`agents.writers.Writer` (same reader)."""
    from agents.writers import Writer

    class SB3StreamWriter(Writer):
        def __init__(self, model: Any, featurizer: LineFeaturizer, *, masked: bool, top_k: int = 10,
                     deterministic: bool = True) -> None:
            Writer.__init__(self, top_k=top_k, name="sb3")
            self.model = model
            self.featurizer = featurizer
            self.masked = masked
            self.deterministic = deterministic

        def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
            """One store per line the model keeps."""
            if not lines:
                return []
            obs = self.featurizer.chunk(lines, self._speakers)
            kwargs: dict[str, Any] = {"deterministic": self.deterministic}
            if self.masked:
                kwargs["action_masks"] = np.ones((len(lines), 2), dtype=bool)
            actions, _ = self.model.predict(obs, **kwargs)
            keep = np.asarray(actions).reshape(-1)
            return [{"name": "store", "arguments": {"line_ids": [ln["line_id"]], "people": [ln["speaker"]]}}
                    for ln, k in zip(lines, keep, strict=True) if int(k) == 1]

    return SB3StreamWriter


def load_stream_writer(path: str | Path, *, top_k: int = 10, deterministic: bool = True) -> Any:
    """The writer (``SB3StreamWriter``, an :class:`agents.writers.Writer`) of a checkpoint saved by :func:`save_stream_checkpoint`."""
    zip_path, meta_path = _paths(path)
    if not zip_path.exists():
        raise ConfigError(f"no stream-writer checkpoint at {zip_path}")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"algo": "maskable_ppo", "featurizer": {}}
    algo = str(meta.get("algo", "maskable_ppo"))
    if algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO as algo_cls
    elif algo == "ppo":
        from stable_baselines3 import PPO as algo_cls
    else:
        raise ConfigError(f"unknown algo {algo!r} in {meta_path}")
    model = algo_cls.load(str(zip_path), device="cpu")
    featurizer = LineFeaturizer(**meta.get("featurizer", {}))
    return _writer_class()(model, featurizer, masked=algo == "maskable_ppo", top_k=top_k, deterministic=deterministic)
