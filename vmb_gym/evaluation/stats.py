"""Paired statistics of two runs on the same tasks: bootstrap interval and exact sign test.

What a reviewer asks before believing an ablation: is the difference between two runs larger
than what resampling the tasks would give, and do the tasks where they disagree lean one way?

* :func:`bootstrap_ci`: the percentile interval of the mean of paired differences, resampling
  tasks with replacement (seeded, 10,000 resamples by default);
* :func:`sign_test`: the exact two-sided binomial test on the tasks where the two runs differ
  (ties left out); on 0/1 outcomes such as ESM it is the exact McNemar test;
* :func:`paired_difference`: both, for one metric of two runs, as a :class:`PairedDifference`.

Example:
    >>> sign_test([1.0, 1.0, 1.0, 0.0, -1.0])
    (3, 1, 1, 0.625)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["PairedDifference", "bootstrap_ci", "paired_difference", "sign_test"]


def bootstrap_ci(diffs: Sequence[float], *, resamples: int = 10_000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of ``mean(diffs)``.

    Args:
        diffs: one paired difference per task.
        resamples: bootstrap resamples (tasks drawn with replacement, as many as there are).
        seed: the generator seed (``numpy.random.default_rng``): the same inputs give the same interval.
        level: the coverage (0.95: the 2.5th and 97.5th percentiles).

    Returns:
        ``(low, high)``; ``(0.0, 0.0)`` for no tasks.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.size == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    chunk = max(1, 2_000_000 // d.size)  # bound the index matrix to ~16 MB
    for start in range(0, resamples, chunk):
        n = min(chunk, resamples - start)
        means[start:start + n] = d[rng.integers(0, d.size, size=(n, d.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def sign_test(diffs: Sequence[float]) -> tuple[int, int, int, float]:
    """The exact two-sided sign test of paired differences.

    Returns:
        ``(wins, losses, ties, p)``: tasks with a positive, negative and zero difference, and
        ``p = min(1, 2 * P(X <= min(wins, losses)))`` for ``X ~ Binomial(wins + losses, 1/2)``
        (1.0 when every task ties).
    """
    wins = sum(1 for x in diffs if x > 0)
    losses = sum(1 for x in diffs if x < 0)
    ties = len(diffs) - wins - losses
    n = wins + losses
    if n == 0:
        return wins, losses, ties, 1.0
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1))
    return wins, losses, ties, min(1.0, 2.0 * tail / 2**n)


@dataclass(frozen=True)
class PairedDifference:
    """One metric of ``run`` minus the same metric of ``reference`` over their common tasks.

    Attributes:
        metric: the per-task metric (``exact_match``, ``f1_change``, ...).
        tasks: the number of paired tasks.
        mean: the mean difference (run - reference).
        ci_low: the bootstrap interval's low end.
        ci_high: its high end.
        wins: tasks where the run is higher.
        losses: tasks where the reference is higher.
        ties: tasks where they are equal.
        p_sign: the exact sign test's two-sided p-value.
    """

    metric: str
    tasks: int
    mean: float
    ci_low: float
    ci_high: float
    wins: int
    losses: int
    ties: int
    p_sign: float

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return asdict(self)


def paired_difference(run: Sequence[float], reference: Sequence[float], *, metric: str = "exact_match",
                      resamples: int = 10_000, seed: int = 0) -> PairedDifference:
    """The paired difference ``run - reference`` (same task order) with its interval and sign test.

    Raises:
        ValueError: the two sequences differ in length.
    """
    if len(run) != len(reference):
        raise ValueError(f"paired values must align: {len(run)} run values, {len(reference)} reference values")
    diffs = [float(a) - float(b) for a, b in zip(run, reference, strict=True)]
    low, high = bootstrap_ci(diffs, resamples=resamples, seed=seed)
    wins, losses, ties, p = sign_test(diffs)
    mean = sum(diffs) / len(diffs) if diffs else 0.0
    return PairedDifference(metric, len(diffs), mean, low, high, wins, losses, ties, p)
