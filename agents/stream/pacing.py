"""A keep threshold that adapts to the history's length: the learned writer spends its budget at a pace.

A fixed keep threshold (a logit shift calibrated on the training timelines) keeps a fixed share of
the lines, so it fills its budget early on a history twice as long as the training ones and then
stores nothing (the official histories are 55-68k tokens, the generated training ones ~27k).
:class:`KeepPacer` instead gives every *expected* line its share of the budget:

* at each chunk it estimates the tokens still to stream (this chunk, plus the chunks left times
  the mean tokens per chunk so far, started from the training mean) and the share ``rho`` of them
  the budget left (``fill x budget - used``) can pay for;
* the threshold is the token-weighted ``1 - rho`` quantile of the keep margins seen so far in this
  timeline, pooled with the training margins (:class:`PacingPrior`, a few hundred lines' weight,
  so the first chunks are not decided on a handful of lines);
* a line is kept when its margin is above the threshold (and it fits).

Keeping too much early raises the threshold, keeping too little lowers it, so the writer ends a
timeline of any length with about ``fill`` of its budget used, the lines it kept being those its
model ranks highest at each point of the timeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from vmb_gym.errors import ConfigError

__all__ = ["KeepPacer", "PacingPrior", "weighted_quantile"]

#: Token-weighted quantiles of the training margins kept in a checkpoint's sidecar.
PRIOR_POINTS = 101


@dataclass(frozen=True)
class PacingPrior:
    """What the pacer knows from training before a timeline starts.

    Attributes:
        margins: token-weighted quantiles of the keep margin on the training lines (each point
            carries the same token mass), ascending.
        tokens_per_chunk: mean tokens of a training chunk.
        tokens_per_line: mean tokens of a training line.
        fill: share of the budget to spend over a timeline (above 1 with overflow ``fifo``: the writer
            keeps ``fill`` budgets' worth of lines and its store holds the most recent of them).
        prior_lines: weight of ``margins`` in the pooled sample, in lines.
    """

    margins: tuple[float, ...]
    tokens_per_chunk: float
    tokens_per_line: float
    fill: float = 0.9
    prior_lines: float = 400.0

    def __post_init__(self) -> None:
        if not self.margins or self.tokens_per_chunk <= 0 or self.tokens_per_line <= 0:
            raise ConfigError(f"a pacing prior needs margins and positive token means, got {self}")
        if not 0 < self.fill <= 4:
            raise ConfigError(f"fill must be in (0, 4], got {self.fill} (above 1 only with overflow fifo: the "
                              "writer then keeps fill x budget tokens over the timeline, the store holding the latest)")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the sidecar's ``pacing`` entry)."""
        return {**asdict(self), "margins": [round(float(m), 5) for m in self.margins]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PacingPrior:
        """The prior of a sidecar's ``pacing`` entry."""
        return cls(margins=tuple(float(m) for m in data["margins"]), tokens_per_chunk=float(data["tokens_per_chunk"]),
                   tokens_per_line=float(data["tokens_per_line"]), fill=float(data.get("fill", 0.9)),
                   prior_lines=float(data.get("prior_lines", 400.0)))

    @classmethod
    def fit(cls, margins: np.ndarray, tokens: np.ndarray, chunk: np.ndarray, *, fill: float = 0.9,
            prior_lines: float = 400.0) -> PacingPrior:
        """The prior of training lines: their margins, tokens and chunk ids (any ids unique per chunk)."""
        margins, tokens = np.asarray(margins, dtype=float), np.asarray(tokens, dtype=float)
        if len(margins) == 0:
            raise ConfigError("cannot fit a pacing prior on no lines")
        qs = [weighted_quantile(margins, tokens, q) for q in np.linspace(0.0, 1.0, PRIOR_POINTS)]
        n_chunks = max(len(np.unique(chunk)), 1)
        return cls(margins=tuple(qs), tokens_per_chunk=float(tokens.sum() / n_chunks),
                   tokens_per_line=float(tokens.mean()), fill=fill, prior_lines=prior_lines)


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The smallest value at which the weight of the values at or below it reaches ``q`` of the total."""
    values, weights = np.asarray(values, dtype=float), np.asarray(weights, dtype=float)
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    if len(cum) == 0 or cum[-1] <= 0:
        return float("nan")
    k = int(np.searchsorted(cum, q * cum[-1], side="left"))
    return float(values[order[min(k, len(order) - 1)]])


class KeepPacer:
    """The per-chunk keep threshold of one timeline (see the module docstring).

    Args:
        prior: the training prior.
        budget_tokens: the writer's budget.
    """

    def __init__(self, prior: PacingPrior, budget_tokens: int) -> None:
        self.prior = prior
        self.budget_tokens = int(budget_tokens)
        self.reset(0)

    def reset(self, chunks_total: int) -> None:
        """Start a timeline of ``chunks_total`` chunks."""
        self.chunks_total = int(chunks_total)
        self.chunks_seen = 0
        self._margins: list[np.ndarray] = []
        self._tokens: list[np.ndarray] = []
        self.tokens_seen = 0.0

    def expected_tokens_left(self, chunk_tokens: float) -> float:
        """Tokens still to stream, this chunk's included: the chunks left at the running mean per chunk."""
        p = self.prior
        prior_chunks = p.prior_lines * p.tokens_per_line / p.tokens_per_chunk  # the prior's weight, in chunks
        seen = self.chunks_seen + 1
        per_chunk = (self.tokens_seen + chunk_tokens + prior_chunks * p.tokens_per_chunk) / (seen + prior_chunks)
        later = max(self.chunks_total - seen, 0)
        return chunk_tokens + later * per_chunk

    def threshold(self, margins: Sequence[float], tokens: Sequence[int], used: int) -> float:
        """The margin a line of this chunk must beat; records the chunk (call once per chunk, in order).

        Args:
            margins: the keep margins of the chunk's lines.
            tokens: their tokens.
            used: tokens spent against ``fill x budget`` so far: those the writer holds (overflow ``stop``),
                or all it kept, evicted ones included (overflow ``fifo``).
        """
        m, t = np.asarray(margins, dtype=float), np.asarray(tokens, dtype=float)
        allowance = max(self.prior.fill * self.budget_tokens - used, 0.0)
        left = self.expected_tokens_left(float(t.sum()))
        self._margins.append(m)
        self._tokens.append(t)
        self.tokens_seen += float(t.sum())
        self.chunks_seen += 1
        rho = allowance / left if left > 0 else 1.0
        if rho <= 0:
            return float("inf")
        if rho >= 1:
            return float("-inf")
        p = self.prior
        prior_m = np.asarray(p.margins, dtype=float)
        prior_w = np.full(len(prior_m), p.prior_lines * p.tokens_per_line / len(prior_m))
        values = np.concatenate([prior_m, *self._margins])
        weights = np.concatenate([prior_w, *self._tokens])
        return weighted_quantile(values, weights, 1.0 - rho)
