"""The learned memory writer: the SB3 bridge for the write phase of ``VehicleMemStream-v0``: learn *what to keep*, line
by line.

:class:`StreamWriteEnv` turns a stream timeline into a fixed-size RL problem:

* **one step = one streamed line**: ``Discrete(2)`` (0 = skip, 1 = keep). When a chunk's last
  line is decided, the kept lines are written to the inner env as one ``store`` per line (batched,
  then ``skip``), exactly like the store-everything writer does for every line;
* **observation** (``Box`` in [-1, 1]): the line's row of
  :class:`~vmb_agents.stream.features.LineFeaturizer` (hashed words and bigrams, numeric features);
* **the query phase is not learned**: every request is served by the fixed
  :class:`vmb_agents.stream.reader.StreamReader` (the rule reader all baseline writers use), run inside
  :meth:`StreamWriteEnv.step`;
* **reward** = the inner env's reward: per request its metric (``f1_change`` by default) minus
  ``memory_cost`` x tokens written. A kept line's token cost is charged at the step that keeps
  it; a request's metric arrives at the step that ends the chunk before it (the rewards of
  requests before the first chunk are added to the first step), so the episode return equals the
  inner env's return;
* **action masks** (:meth:`StreamWriteEnv.action_masks`, for ``MaskablePPO``): ``keep`` is
  masked when there is no line left to keep (the episode is over, or a timeline without lines),
  with a memory budget when the line does not fit in what is left of it, and with ``mask_cues``
  when the line shows one of those lexicon cues (:func:`~vmb_agents.stream.features.masked_lines`: a
  hypothetical, another vehicle, a question);
* **memory budget** (``memory_budget_tokens``): a cap on the tokens the writer keeps in one
  episode (a line costs the env's count of ``"speaker: text"``). A ``keep`` that would overflow
  is masked, and taken as ``skip`` if sent anyway, so the store never exceeds the budget. The
  featuriser's budget block (:data:`~vmb_agents.stream.features.BUDGET_NAMES`) shows the share of the budget left, the
  line's length and the share of the timeline's chunks already streamed.

Warm start and calibration (training data only) live in :mod:`vmb_agents.stream.imitation`.

:class:`SB3StreamWriter` runs a trained model as a :class:`~vmb_agents.stream.writers.Writer` (``vmb
eval-stream --writer sb3:CHECKPOINT``, with the budget it was trained with unless the spec gives
one: ``sb3:CHECKPOINT@2000``); :func:`save_stream_checkpoint` / :func:`load_stream_writer` store
the model in the one SB3 checkpoint format (:mod:`vmb_agents.sb3.checkpoint`, design
``"stream_writer"``; the sidecar describes the features, the budget and the pacing prior).
When the sidecar has a pacing prior, the writer keeps a line when its keep margin beats the
length-adaptive threshold of :class:`vmb_agents.stream.pacing.KeepPacer` (a budget share per
expected line) instead of the argmax. When the sidecar has ``mask_cues``, ``keep`` is masked for
the lines that show those lexicon cues (:func:`~vmb_agents.stream.features.masked_lines`).
``sb3:stream`` names the writer shipped in ``agents/stream/shipped/`` (:data:`NAMED_WRITERS`): it
masks hypotheticals, other vehicles and questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_agents.reader import READER_TOP_K
from vmb_agents.sb3.checkpoint import load_checkpoint, save_checkpoint, weights_path
from vmb_agents.stream.features import LineFeaturizer, cue_pattern, line_tokens, masked_lines
from vmb_agents.stream.imitation import keep_margin
from vmb_agents.stream.pacing import KeepPacer, PacingPrior
from vmb_agents.stream.reader import BATCH, FINISH, SKIP, StreamReader
from vmb_agents.stream.writers import Writer, store_line
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError

__all__ = ["NAMED_WRITERS", "SHIPPED_DIR", "SB3StreamWriter", "StreamWriteEnv", "load_stream_writer",
           "save_stream_checkpoint"]

#: Trained writers shipped with the package (``agents/stream/shipped/``).
SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
#: Writer names that need no path: ``sb3:NAME`` -> checkpoint (``PATH.safetensors`` + ``PATH.vmb.json``).
NAMED_WRITERS: dict[str, Path] = {"stream": SHIPPED_DIR / "stream_writer"}


def _unwrap_stream(env: gym.Env[Any, Any]) -> VehicleMemStreamEnv:
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
        mask_cues: line cues whose lines ``keep`` is masked for (:func:`~vmb_agents.stream.features.masked_lines`).
        **stream_kwargs: ``VehicleMemStream-v0`` arguments (data, files, window_days, memory_cost, ...).

    ``info`` of the last step carries ``episode_stats`` (the inner env's figures) and
    ``query_metrics`` (the scorer's record of every request of the episode).
    """

    metadata = {"render_modes": []}

    def __init__(self, env: gym.Env[Any, Any] | None = None, *, featurizer: LineFeaturizer | None = None,
                 reader_top_k: int = READER_TOP_K, max_query_steps: int = 8, memory_budget_tokens: int | None = None,
                 cache_features: bool = False, mask_cues: Sequence[str] = (), **stream_kwargs: Any) -> None:
        if env is None:
            stream_kwargs.setdefault("max_chunk_steps", 16)
            env = VehicleMemStreamEnv(**stream_kwargs)
        elif stream_kwargs:
            raise ConfigError(f"give either env or stream arguments, not both (got {sorted(stream_kwargs)})")
        if memory_budget_tokens is not None and (isinstance(memory_budget_tokens, bool) or memory_budget_tokens < 0):
            raise ConfigError(
                f"memory_budget_tokens must be a non-negative integer or None, got {memory_budget_tokens!r}"
            )
        self.inner = _unwrap_stream(env)
        self._mask = cue_pattern(tuple(mask_cues))
        self.memory_budget_tokens = None if memory_budget_tokens is None else int(memory_budget_tokens)
        self._cache: dict[tuple[int, ...], tuple[np.ndarray, list[int], list[bool]]] | None = \
            {} if cache_features else None
        self.featurizer = featurizer or LineFeaturizer()
        self.reader_top_k = reader_top_k
        self.max_query_steps = max_query_steps
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self._done = True
        self._lines: list[dict[str, Any]] = []
        self._feats = np.zeros((0, self.featurizer.dim), dtype=np.float32)
        self._tokens: list[int] = []
        self._masked: list[bool] = []
        self._pos = 0
        self._used = 0

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
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
        """``[skip, keep]`` allowed: keep only for a line that is there, fits in the budget and shows no masked cue."""
        return np.array([True, not self._done and self._pos < len(self._lines) and self._fits()], dtype=bool)

    @property
    def used_tokens(self) -> int:
        """Tokens of the lines kept this episode."""
        return self._used

    def _fits(self) -> bool:
        if self._done or self._pos >= len(self._lines) or self._masked[self._pos]:
            return False
        return self.memory_budget_tokens is None or self._used + self._tokens[self._pos] <= self.memory_budget_tokens

    # ------------------------------------------------------------------ internals
    def _start(self, info: dict[str, Any]) -> None:
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
            action = self._reader.act(info) if self._query_steps < self.max_query_steps else [FINISH]
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
                cached = (self.featurizer.chunk(self._lines, self._speakers), [line_tokens(ln) for ln in self._lines],
                          masked_lines(self._mask, self._lines))
                if self._cache is not None:
                    self._cache[key] = cached
            self._feats, self._tokens, self._masked = cached
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


class SB3StreamWriter(Writer):
    """A trained keep/skip model as a :class:`~vmb_agents.stream.writers.Writer` (the same reader as the baselines).

    It decides the lines of a chunk one by one, as :class:`StreamWriteEnv` shows them to the
    model. With a budget, ``keep`` is masked for a line that does not fit in what is left
    (overflow ``stop``: a learned writer never evicts). With a budget and a ``pacing`` prior, a
    line is kept when its keep margin beats the chunk's :class:`~vmb_agents.stream.pacing.KeepPacer`
    threshold (the budget spent at a pace set by the history's expected length) instead of
    when the model's argmax says keep. A paced writer with overflow ``fifo`` (``sb3:CKPT@TOKENS/fifo``)
    paces :attr:`kept_tokens`, every line it kept, the evicted ones included, to the prior's
    ``fill`` x budget, and its store holds the most recent of them (pacing what it still holds
    would never reach the allowance, and it would keep nearly every line at the timeline's end).

    Args:
        model: the SB3 model (``predict``).
        featurizer: the features it was trained on.
        masked: pass action masks to ``predict`` (a ``MaskablePPO`` model).
        top_k: hits per search of the reader.
        deterministic: argmax actions.
        budget_tokens: cap on the tokens kept (None: no cap).
        pacing: the training prior of the adaptive threshold (None: the argmax decides).
        mask_cues: :data:`~vmb_gym.vehicle.lexicon.LINE_CUES` names whose lines are never kept
            (:func:`~vmb_agents.stream.features.masked_lines`).
    """

    def __init__(self, model: Any, featurizer: LineFeaturizer, *, masked: bool, top_k: int = READER_TOP_K,
                 deterministic: bool = True, budget_tokens: int | None = None,
                 pacing: PacingPrior | None = None, mask_cues: Sequence[str] = ()) -> None:
        self.pacing = pacing
        super().__init__(top_k=top_k, name="sb3", budget_tokens=budget_tokens, overflow="stop")
        self.model = model
        self.featurizer = featurizer
        self.masked = masked
        self.deterministic = deterministic
        self.pacer: KeepPacer | None = None
        self._kept_tokens = 0
        self.mask_cues = tuple(mask_cues)
        self._mask = cue_pattern(self.mask_cues)

    @property
    def kept_tokens(self) -> int:
        """Tokens of every line the writer kept this timeline, the ones it evicted since included."""
        return self._kept_tokens

    def set_budget(self, budget_tokens: int | None, overflow: str | None = None) -> Writer:
        """The budget the keep mask enforces: overflow ``stop``, or ``fifo`` for a paced writer (it then evicts
        its oldest entries for the lines it keeps above the threshold, as the baseline writers do)."""
        return super().set_budget(budget_tokens, "fifo" if overflow == "fifo" and self.pacing is not None else "stop")

    def begin(self, info: dict[str, Any]) -> None:
        """A new timeline: a fresh pacer for its number of chunks (when pacing with a budget)."""
        paced = self.pacing is not None and self.budget_tokens is not None
        self.pacer = KeepPacer(self.pacing, self.budget_tokens) if paced else None  # type: ignore[arg-type]
        if self.pacer is not None:
            self.pacer.reset(self._chunks_total)
        self._kept_tokens = 0

    def writes(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One store per line the model keeps (decided in order: the budget left depends on the earlier ones)."""
        if not lines:
            return []
        feats = self.featurizer.chunk(lines, self._speakers)
        if self.pacer is not None:
            return self._paced_writes(lines, feats)
        budget = self.budget_tokens
        used = self.used_tokens
        progress = self._chunks_seen / max(self._chunks_total, 1)
        out = []
        for row, ln, masked in zip(feats, lines, masked_lines(self._mask, lines), strict=True):
            tokens = line_tokens(ln)
            left = 1.0 if budget is None else (budget - used) / budget if budget else 0.0
            fits = not masked and (budget is None or used + tokens <= budget)
            obs = self.featurizer.set_budget(row, budget_left=left, line_tokens=tokens, progress=progress)
            kwargs: dict[str, Any] = {"deterministic": self.deterministic}
            if self.masked:
                kwargs["action_masks"] = np.array([True, fits], dtype=bool)
            action, _ = self.model.predict(obs, **kwargs)
            if int(np.asarray(action).reshape(-1)[0]) == 1 and fits:
                used += tokens
                self._kept_tokens += tokens
                out.append(store_line(ln))
        return out

    def _paced_writes(self, lines: list[dict[str, Any]], feats: np.ndarray) -> list[dict[str, Any]]:
        """The chunk's margins in one pass (budget block as at the chunk's start), kept above the pacer's threshold."""
        assert self.pacer is not None and self.budget_tokens is not None
        budget, used = self.budget_tokens, self.used_tokens
        progress = self._chunks_seen / max(self._chunks_total, 1)
        tokens = [line_tokens(ln) for ln in lines]
        left = (budget - used) / budget if budget else 0.0
        for row, t in zip(feats, tokens, strict=True):
            self.featurizer.set_budget(row, budget_left=left, line_tokens=t, progress=progress)
        margins = np.where(masked_lines(self._mask, lines), -np.inf, keep_margin(self.model, feats))
        fifo = self.overflow == "fifo"  # Writer._fit evicts the oldest entries to make room
        # the pacer spends fill x budget over the timeline: with fifo that is every token kept so far (evicted
        # entries included), with stop the tokens held
        threshold = self.pacer.threshold(margins, tokens, self._kept_tokens if fifo else used)
        out = []
        for ln, t, m in zip(lines, tokens, margins, strict=True):
            if m > threshold and (fifo or used + t <= budget):
                used += t
                self._kept_tokens += t
                out.append(store_line(ln))
        return out


# ---------------------------------------------------------------------- checkpoints
def save_stream_checkpoint(model: Any, path: str | Path, *, algo: str, featurizer: LineFeaturizer,
                           extra: Mapping[str, Any] | None = None, budget_tokens: int | None = None) -> Path:
    """Save ``model`` as ``PATH.safetensors`` + ``PATH.vmb.json`` (design ``stream_writer``: features, budget); returns
    the weights path."""
    meta = {"featurizer": featurizer.config(), "budget_tokens": budget_tokens, **dict(extra or {})}
    return save_checkpoint(model, path, design="stream_writer", algo=algo, meta=meta)


def load_stream_writer(path: str | Path, *, top_k: int = READER_TOP_K, deterministic: bool = True,
                       trust_checkpoint: bool = False) -> SB3StreamWriter:
    """The :class:`SB3StreamWriter` of a checkpoint saved by :func:`save_stream_checkpoint`, or of a name.

    ``path`` is a checkpoint path or a name of :data:`NAMED_WRITERS` (``"stream"``: the shipped
    writer). It keeps to the budget recorded in the sidecar (``budget_tokens``); ``set_budget``
    changes it. A sidecar with a ``pacing`` entry gives the writer its adaptive threshold; its
    ``mask_cues`` (a list of :data:`~vmb_gym.vehicle.lexicon.LINE_CUES` names) are the line cues whose
    lines the writer never keeps.
    Checkpoints with the old ``PATH.json`` sidecar load too (:func:`vmb_agents.sb3.checkpoint.read_sidecar`).
    An SB3 zip is a pickle, which can run code: it loads only with ``trust_checkpoint``.

    Raises:
        ConfigError: no checkpoint or sidecar there, another design, features that do not match the model, or
            an SB3 zip without ``trust_checkpoint``.
    """
    path = NAMED_WRITERS.get(str(path), path)
    model, meta = load_checkpoint(path, design="stream_writer", trust_checkpoint=trust_checkpoint,
                                  shipped=NAMED_WRITERS)
    config = {"budget_features": False, **meta.get("featurizer", {})}  # sidecars from before the budget block
    featurizer = LineFeaturizer(**config)
    if model.observation_space.shape != (featurizer.dim,):
        raise ConfigError(f"{weights_path(path)} observes {model.observation_space.shape}, "
                          f"its sidecar features {featurizer.dim}")
    budget = meta.get("budget_tokens")
    pacing = PacingPrior.from_json(meta["pacing"]) if meta.get("pacing") else None
    writer = SB3StreamWriter(model, featurizer, masked=meta.get("algo") == "maskable_ppo", top_k=top_k,
                             deterministic=deterministic, budget_tokens=None if budget is None else int(budget),
                             pacing=pacing, mask_cues=meta.get("mask_cues", ()))
    writer.set_budget(writer.budget_tokens, meta.get("overflow"))
    return writer
