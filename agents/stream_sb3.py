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
  masked when there is no line left to keep (the episode is over, or a timeline without lines)
  and, with a memory budget, when the line does not fit in what is left of it;
* **memory budget** (``memory_budget_tokens``): a cap on the tokens the writer keeps in one
  episode (a line costs the env's count of ``"speaker: text"``). A ``keep`` that would overflow
  is masked, and taken as ``skip`` if sent anyway, so the store never exceeds the budget. The
  featuriser's budget block (:data:`BUDGET_NAMES`) shows the share of the budget left, the
  line's length and the share of the timeline's chunks already streamed.

Warm start: :func:`evidence_dataset` features every line of whole timelines with the label
"this line is gold evidence of a request" (only for training data), :func:`behaviour_clone_writer`
fits the policy to them (positives oversampled to balance the classes) and
:func:`calibrate_keep` shifts the ``keep`` logit so that the writer fills about the budget.

:func:`load_stream_writer` runs a trained model as a :class:`agents.writers.Writer` (``vmb
eval-stream --writer sb3:CHECKPOINT``, with the budget it was trained with unless the spec
gives one: ``sb3:CHECKPOINT@2000``); :func:`save_stream_checkpoint` / :func:`load_stream_writer`
store the model with a JSON sidecar describing the features and the budget.
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
#: Names of the budget features that follow the numeric block (``LineFeaturizer(budget_features=True)``).
BUDGET_NAMES: tuple[str, ...] = ("budget_left", "line_tokens", "progress")
_MAX_SPEAKERS = 4
_LINE_TOKEN_SCALE = 64.0
_WORDS = re.compile(r"\S+")


class LineFeaturizer:
    """Features of each line of a chunk: hashed text, :data:`NUMERIC_NAMES`, then :data:`BUDGET_NAMES` (all in [-1, 1]).

    :meth:`chunk` fills the text and numeric blocks; the budget block depends on the decisions
    taken so far and is written per line with :meth:`set_budget`.

    Args:
        hash_dim: slots of the hashed bag of words and bigrams.
        min_score: least :func:`agents.rules.score_apis` score for a line to name a setting
            (as :class:`agents.writers.RuleWriter`).
        follow_up: lines after a setting line whose bare value still counts (as the rule writer).
        budget_features: append the :data:`BUDGET_NAMES` block (checkpoints from before it have none).
    """

    def __init__(self, hash_dim: int = 256, min_score: float = 1.0, follow_up: int = 2,
                 budget_features: bool = True) -> None:
        if hash_dim < 8:
            raise ConfigError(f"hash_dim must be >= 8, got {hash_dim}")
        from agents import writers
        from agents.rules import conditions_in, score_apis

        self.hash_dim = int(hash_dim)
        self.min_score = float(min_score)
        self.follow_up = int(follow_up)
        self.budget_features = bool(budget_features)
        self.dim = self.hash_dim + len(NUMERIC_NAMES) + (len(BUDGET_NAMES) if self.budget_features else 0)
        self._hasher = HashingFeaturizer()
        self._rule = writers.RuleWriter(min_score=min_score, follow_up=follow_up)
        self._score = score_apis
        self._conditions = conditions_in
        self._relation = writers._RELATION
        self._elsewhere = writers._ELSEWHERE
        self._value = writers._VALUE

    def config(self) -> dict[str, Any]:
        """Arguments that rebuild this featuriser."""
        return {"hash_dim": self.hash_dim, "min_score": self.min_score, "follow_up": self.follow_up,
                "budget_features": self.budget_features}

    def set_budget(self, row: np.ndarray, *, budget_left: float, line_tokens: int, progress: float) -> np.ndarray:
        """Write the budget block of one line's features in place (a no-op without it); returns ``row``.

        ``budget_left``: share of the budget still free (1 without a budget); ``line_tokens``: the
        line's tokens (scaled by 64, capped at 1); ``progress``: share of the timeline's chunks
        streamed before this one.
        """
        if self.budget_features:
            start = self.hash_dim + len(NUMERIC_NAMES)
            row[start:start + len(BUDGET_NAMES)] = (float(np.clip(budget_left, 0.0, 1.0)),
                                                    min(line_tokens / _LINE_TOKEN_SCALE, 1.0),
                                                    float(np.clip(progress, 0.0, 1.0)))
        return row

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
            out[pos, self.hash_dim:self.hash_dim + len(NUMERIC_NAMES)] = numeric
        return out


def line_tokens(line: Mapping[str, Any]) -> int:
    """Tokens the env counts when the line is stored on its own (``"speaker: text"``)."""
    from vmb_gym.envs.vehicle_mem_stream import stored_lines_text

    return count_tokens(stored_lines_text([(line["speaker"], line["text"])]))


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
        memory_budget_tokens: cap on the tokens kept per episode (None: no cap); ``keep`` is masked
            for a line that does not fit.
        cache_features: remember each chunk's features (training runs over the same timelines
            again and again; the rule features cost a few ms a line).
        **stream_kwargs: ``VehicleMemStream-v0`` arguments (data, files, window_days, memory_cost, ...).

    ``info`` of the last step carries ``episode_stats`` (the inner env's figures) and
    ``query_metrics`` (the scorer's record of every request of the episode).
    """

    metadata = {"render_modes": []}

    def __init__(self, env: gym.Env[Any, Any] | None = None, *, featurizer: LineFeaturizer | None = None,
                 reader_top_k: int = 10, max_query_steps: int = 8, memory_budget_tokens: int | None = None,
                 cache_features: bool = False, **stream_kwargs: Any) -> None:
        if env is None:
            from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv

            stream_kwargs.setdefault("max_chunk_steps", 16)
            env = VehicleMemStreamEnv(**stream_kwargs)
        elif stream_kwargs:
            raise ConfigError(f"give either env or stream arguments, not both (got {sorted(stream_kwargs)})")
        if memory_budget_tokens is not None and (isinstance(memory_budget_tokens, bool) or memory_budget_tokens < 0):
            raise ConfigError(f"memory_budget_tokens must be a non-negative integer or None, got {memory_budget_tokens!r}")
        self.inner = _unwrap_stream(env)
        self.memory_budget_tokens = None if memory_budget_tokens is None else int(memory_budget_tokens)
        self._cache: dict[tuple[int, ...], tuple[np.ndarray, list[int]]] | None = {} if cache_features else None
        self.featurizer = featurizer or LineFeaturizer()
        self.reader_top_k = reader_top_k
        self.max_query_steps = max_query_steps
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self._done = True
        self._lines: list[dict[str, Any]] = []
        self._feats = np.zeros((0, self.featurizer.dim), dtype=np.float32)
        self._tokens: list[int] = []
        self._pos = 0
        self._used = 0

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
        keep = int(np.asarray(action).reshape(-1)[0]) == 1 and self._fits()  # an overflowing keep is a skip
        reward = self._pending
        self._pending = 0.0
        line = self._lines[self._pos]
        if keep:
            self._kept.append(line)
            self._used += self._tokens[self._pos]
            cost = self.inner.memory_cost * self._tokens[self._pos]
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
        """``[skip, keep]`` allowed: keep only while a line is there to keep and fits in the budget."""
        return np.array([True, not self._done and self._pos < len(self._lines) and self._fits()], dtype=bool)

    @property
    def used_tokens(self) -> int:
        """Tokens of the lines kept this episode."""
        return self._used

    def _fits(self) -> bool:
        if self._done or self._pos >= len(self._lines):
            return False
        return self.memory_budget_tokens is None or self._used + self._tokens[self._pos] <= self.memory_budget_tokens

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
        self._used = 0
        self._chunk_index = -1
        self._chunks_total = int(info.get("chunks", 0) or 0)
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
            key = (self._scenario_id, *(int(ln["line_id"]) for ln in self._lines))
            cached = self._cache.get(key) if self._cache is not None else None
            if cached is None:
                cached = (self.featurizer.chunk(self._lines, self._speakers), [line_tokens(ln) for ln in self._lines])
                if self._cache is not None:
                    self._cache[key] = cached
            self._feats, self._tokens = cached
            self._chunk_index += 1
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
        budget = self.memory_budget_tokens
        left = 1.0 if budget is None else (budget - self._used) / budget if budget else 0.0
        return self.featurizer.set_budget(self._feats[self._pos].copy(), budget_left=left,
                                          line_tokens=self._tokens[self._pos],
                                          progress=self._chunk_index / max(self._chunks_total, 1))


def make_stream_write_env(**kwargs: Any) -> StreamWriteEnv:
    """A :class:`StreamWriteEnv` over a new ``VehicleMemStream-v0`` env built from ``kwargs``."""
    return StreamWriteEnv(**kwargs)


# ---------------------------------------------------------------------- checkpoints and the writer
def _paths(path: str | Path) -> tuple[Path, Path]:
    p = Path(path)
    base = p.with_suffix("") if p.suffix == ".zip" else p
    return base.with_suffix(".zip"), base.with_suffix(".json")


def save_stream_checkpoint(model: Any, path: str | Path, *, algo: str, featurizer: LineFeaturizer,
                           extra: Mapping[str, Any] | None = None, budget_tokens: int | None = None) -> Path:
    """Save ``model`` to ``path.zip`` with a ``path.json`` sidecar (algorithm, features, budget); returns the zip."""
    zip_path, meta_path = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    meta = {"kind": "stream_writer", "algo": algo, "featurizer": featurizer.config(), "budget_tokens": budget_tokens,
            **dict(extra or {})}
    meta_path.write_text(json.dumps(meta, indent=2))
    return zip_path


def _writer_class() -> Any:
    """``SB3StreamWriter``: a trained keep/skip model as a :class:`agents.writers.Writer` (same reader)."""
    from agents.writers import Writer

    class SB3StreamWriter(Writer):
        """Decides the lines of a chunk one by one, as :class:`StreamWriteEnv` shows them to the model.

        With a budget, ``keep`` is masked for a line that does not fit in what is left (overflow
        ``stop``: a learned writer never evicts).
        """

        def __init__(self, model: Any, featurizer: LineFeaturizer, *, masked: bool, top_k: int = 10,
                     deterministic: bool = True, budget_tokens: int | None = None) -> None:
            Writer.__init__(self, top_k=top_k, name="sb3", budget_tokens=budget_tokens, overflow="stop")
            self.model = model
            self.featurizer = featurizer
            self.masked = masked
            self.deterministic = deterministic

        def set_budget(self, budget_tokens: int | None, overflow: str | None = None) -> Writer:
            """The budget the keep mask enforces (the overflow is always ``stop``)."""
            return Writer.set_budget(self, budget_tokens, "stop")

        def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
            """One store per line the model keeps (decided in order: the budget left depends on the earlier ones)."""
            if not lines:
                return []
            feats = self.featurizer.chunk(lines, self._speakers)
            budget = self.budget_tokens
            used = self.used_tokens
            progress = self._chunks_seen / max(self._chunks_total, 1)
            out = []
            for row, ln in zip(feats, lines, strict=True):
                tokens = line_tokens(ln)
                left = 1.0 if budget is None else (budget - used) / budget if budget else 0.0
                fits = budget is None or used + tokens <= budget
                obs = self.featurizer.set_budget(row, budget_left=left, line_tokens=tokens, progress=progress)
                kwargs: dict[str, Any] = {"deterministic": self.deterministic}
                if self.masked:
                    kwargs["action_masks"] = np.array([True, fits], dtype=bool)
                action, _ = self.model.predict(obs, **kwargs)
                if int(np.asarray(action).reshape(-1)[0]) == 1 and fits:
                    used += tokens
                    out.append({"name": "store", "arguments": {"line_ids": [ln["line_id"]], "people": [ln["speaker"]]}})
            return out

    return SB3StreamWriter


def load_stream_writer(path: str | Path, *, top_k: int = 10, deterministic: bool = True) -> Any:
    """The writer (``SB3StreamWriter``, an :class:`agents.writers.Writer`) of a checkpoint saved by :func:`save_stream_checkpoint`.

    It keeps to the budget recorded in the sidecar (``budget_tokens``); ``set_budget`` changes it.
    """
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
    config = {"budget_features": False, **meta.get("featurizer", {})}  # sidecars from before the budget block
    featurizer = LineFeaturizer(**config)
    if model.observation_space.shape != (featurizer.dim,):
        raise ConfigError(f"{zip_path} observes {model.observation_space.shape}, its sidecar features {featurizer.dim}")
    budget = meta.get("budget_tokens")
    return _writer_class()(model, featurizer, masked=algo == "maskable_ppo", top_k=top_k, deterministic=deterministic,
                           budget_tokens=None if budget is None else int(budget))


# ---------------------------------------------------------------------- warm start from evidence labels
def evidence_dataset(data: Any, files: Sequence[int] | None, featurizer: LineFeaturizer, *,
                     seed: int = 0, chunk_minutes: int = 60) -> dict[str, np.ndarray]:
    """Features and evidence labels of every line of whole timelines (for **training** data only).

    Each line is featurised as :class:`StreamWriteEnv` shows it (text and numeric blocks of its
    chunk, its tokens, the share of chunks streamed before it); the ``budget_left`` feature is
    drawn uniformly at random (the labels do not depend on it, so the warm start learns to ignore
    it and leaves its use to RL). The label is 1 when the line is a gold evidence line of a
    request of its timeline (every request comes after the lines it cites).

    Returns:
        ``{"obs": (n, dim) float32, "labels": (n,) int64, "tokens": (n,) int64, "group": (n,) scenario index}``.
    """
    from vmb_gym.envs.vehicle_mem_stream import Chunk, VehicleMemStreamEnv

    env = VehicleMemStreamEnv(data, files=files, chunk_minutes=chunk_minutes)
    rng = np.random.default_rng(seed)
    obs_l, lab_l, tok_l, grp_l = [], [], [], []
    for g, sid in enumerate(env.scenario_ids):
        _, info = env.reset(options={"scenario_id": sid})
        speakers = tuple(info.get("speakers", ()))
        chunks = [item for item in env.timeline if isinstance(item, Chunk)]
        evidence = {i for item in env.timeline if not isinstance(item, Chunk) for i in item.evidence_line_ids}
        for k, chunk in enumerate(chunks):
            lines = [{"line_id": ln.line_id, "speaker": ln.speaker, "text": ln.text} for ln in chunk.lines]
            feats = featurizer.chunk(lines, speakers)
            for row, ln in zip(feats, lines, strict=True):
                t = line_tokens(ln)
                featurizer.set_budget(row, budget_left=float(rng.uniform()), line_tokens=t, progress=k / max(len(chunks), 1))
                tok_l.append(t)
                lab_l.append(int(ln["line_id"] in evidence))
                grp_l.append(g)
            obs_l.append(feats)
    dim = featurizer.dim
    return {"obs": np.concatenate(obs_l) if obs_l else np.zeros((0, dim), np.float32),
            "labels": np.asarray(lab_l, dtype=np.int64), "tokens": np.asarray(tok_l, dtype=np.int64),
            "group": np.asarray(grp_l, dtype=np.int64)}


def behaviour_clone_writer(model: Any, dataset: Mapping[str, np.ndarray], *, epochs: int = 5, seed: int = 0,
                           balance: bool = True, batch_size: int = 256, lr: float = 1e-3) -> dict[str, float]:
    """Fit the policy's keep/skip to the evidence labels (:func:`agents.train_sb3.behaviour_clone`).

    With ``balance`` the positive lines are repeated until both classes weigh the same (evidence
    is about 1% of the lines). Returns the balanced accuracy of the argmax on ``dataset``.
    """
    from agents.train_sb3 import behaviour_clone

    obs, labels = dataset["obs"], dataset["labels"]
    idx = np.arange(len(labels))
    pos, neg = idx[labels == 1], idx[labels == 0]
    if balance and len(pos) and len(neg):
        reps = max(1, len(neg) // len(pos))
        idx = np.concatenate([neg, np.tile(pos, reps)])
    masks = np.ones((len(idx), 2), dtype=bool)
    behaviour_clone(model, (obs[idx], masks, labels[idx], int(labels.sum()), len(labels)), epochs=epochs, seed=seed,
                    batch_size=batch_size, lr=lr)
    return keep_scores(model, dataset)


def keep_margin(model: Any, obs: np.ndarray, batch: int = 8192) -> np.ndarray:
    """``logit(keep) - logit(skip)`` of the policy for each row of ``obs``."""
    import torch

    policy = model.policy
    out = []
    with torch.no_grad():
        for start in range(0, len(obs), batch):
            dist = policy.get_distribution(torch.as_tensor(obs[start:start + batch]))
            logits = dist.distribution.logits
            out.append((logits[:, 1] - logits[:, 0]).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def keep_scores(model: Any, dataset: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Keep decisions of the policy's argmax against the labels: accuracy, balanced accuracy, recall, precision, keep rate."""
    labels = dataset["labels"]
    keep = keep_margin(model, dataset["obs"]) > 0
    pos = labels == 1
    recall = float(keep[pos].mean()) if pos.any() else float("nan")
    specificity = float((~keep[~pos]).mean()) if (~pos).any() else float("nan")
    return {"accuracy": float((keep == pos).mean()), "balanced_accuracy": (recall + specificity) / 2,
            "recall": recall, "precision": float(pos[keep].mean()) if keep.any() else 0.0,
            "keep_rate": float(keep.mean())}


def calibrate_keep(model: Any, dataset: Mapping[str, np.ndarray], budget_tokens: int, *, fill: float = 0.9) -> float:
    """Shift the ``keep`` logit so that the lines kept fill about ``fill`` x the budget per timeline.

    Finds the margin threshold at which the mean (over the dataset's timelines) of the tokens of
    the lines scoring above it is ``fill * budget_tokens``, and subtracts it from the bias of the
    policy's ``keep`` output. Returns the shift.
    """
    import torch

    margin = keep_margin(model, dataset["obs"])
    tokens, groups = dataset["tokens"].astype(float), dataset["group"]
    n_groups = max(len(np.unique(groups)), 1)
    order = np.argsort(-margin)
    cum = np.cumsum(tokens[order]) / n_groups
    target = fill * budget_tokens
    k = int(np.searchsorted(cum, target, side="right"))
    if k >= len(order):
        threshold = float(margin[order[-1]]) - 1e-3 if len(order) else 0.0
    else:
        threshold = float(margin[order[k]]) if k == 0 else float((margin[order[k - 1]] + margin[order[k]]) / 2)
    with torch.no_grad():
        model.policy.action_net.bias[1] -= threshold
    return threshold
