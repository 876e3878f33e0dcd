"""The learned stream writer's transfer: its length-adaptive keep threshold (``vmb_agents.stream.pacing``),
the style-free features and the shipped checkpoint."""

from __future__ import annotations

import numpy as np
import pytest

from vmb_agents.stream.pacing import KeepPacer, PacingPrior, weighted_quantile
from vmb_gym.errors import ConfigError

BUDGET = 2000
TOKENS_PER_LINE = 20
LINES_PER_CHUNK = 10


def _prior(rng: np.random.Generator, fill: float = 0.9) -> PacingPrior:
    """Training: 140 chunks of 10 lines (28k tokens), margins standard normal."""
    n = 140 * LINES_PER_CHUNK
    return PacingPrior.fit(rng.normal(size=n), np.full(n, TOKENS_PER_LINE), np.repeat(np.arange(140), LINES_PER_CHUNK),
                           fill=fill)


def _stream(decide, chunks: int, rng: np.random.Generator, shift: float = 0.0) -> tuple[int, int]:
    """Run a keep rule over ``chunks`` chunks; (tokens kept in all, tokens kept in the second half)."""
    used = late = 0
    for c in range(chunks):
        margins = rng.normal(loc=shift, size=LINES_PER_CHUNK)
        threshold = decide(margins, used)
        for m in margins:
            if m > threshold and used + TOKENS_PER_LINE <= BUDGET:
                used += TOKENS_PER_LINE
                late += TOKENS_PER_LINE if c >= chunks // 2 else 0
    return used, late


@pytest.mark.parametrize("chunks", [140, 350])  # a training-length history and one 2.5x longer
def test_pacer_spends_about_fill_of_the_budget_whatever_the_length(chunks: int) -> None:
    rng = np.random.default_rng(0)
    prior = _prior(rng)
    pacer = KeepPacer(prior, BUDGET)
    pacer.reset(chunks)
    used, late = _stream(lambda m, used: pacer.threshold(m, [TOKENS_PER_LINE] * len(m), used), chunks, rng)
    assert 0.8 * BUDGET <= used <= BUDGET
    assert late >= 0.3 * used  # spread over the timeline, not spent at its start


def test_a_fixed_threshold_fills_a_long_history_early_and_the_pacer_does_not() -> None:
    """The fixed (calibrated) threshold of the old writer: right for 140 chunks, full by mid-timeline at 350."""
    rng = np.random.default_rng(1)
    prior = _prior(rng)
    fixed = weighted_quantile(np.asarray(prior.margins), np.ones(len(prior.margins)), 1 - 0.9 * BUDGET / 28_000)
    _, late_fixed = _stream(lambda m, used: fixed, 350, rng)
    pacer = KeepPacer(prior, BUDGET)
    pacer.reset(350)
    _, late_paced = _stream(lambda m, used: pacer.threshold(m, [TOKENS_PER_LINE] * len(m), used), 350, rng)
    assert late_fixed <= 0.05 * BUDGET < 0.25 * BUDGET <= late_paced


def test_pacer_follows_a_shifted_margin_distribution() -> None:
    """Official lines may all score higher than training lines: the pooled sample adapts the threshold."""
    rng = np.random.default_rng(2)
    pacer = KeepPacer(_prior(rng), BUDGET)
    pacer.reset(300)
    used, late = _stream(lambda m, used: pacer.threshold(m, [TOKENS_PER_LINE] * len(m), used), 300, rng, shift=1.5)
    assert 0.8 * BUDGET <= used <= BUDGET and late >= 0.3 * used


def test_pacer_stops_when_the_allowance_is_spent_and_keeps_all_near_the_end() -> None:
    prior = _prior(np.random.default_rng(3))
    pacer = KeepPacer(prior, BUDGET)
    pacer.reset(10)
    assert pacer.threshold([0.0] * 10, [TOKENS_PER_LINE] * 10, used=BUDGET) == float("inf")
    pacer.reset(1)  # one chunk of 200 tokens left and 1,800 to spend: keep everything
    assert pacer.threshold([0.0] * 10, [TOKENS_PER_LINE] * 10, used=0) == float("-inf")


def test_weighted_quantile_and_prior_round_trip() -> None:
    values, weights = np.array([3.0, 1.0, 2.0, 4.0]), np.array([1.0, 1.0, 1.0, 5.0])
    assert weighted_quantile(values, weights, 0.0) == 1.0
    assert weighted_quantile(values, weights, 0.25) == 2.0  # weight 2 of 8 at or below 2
    assert weighted_quantile(values, weights, 0.3) == 3.0  # 2.4 of 8 is reached at 3
    assert weighted_quantile(values, weights, 0.5) == 4.0
    prior = _prior(np.random.default_rng(4))
    assert len(prior.margins) == 101 and list(prior.margins) == sorted(prior.margins)
    assert (prior.tokens_per_chunk, prior.tokens_per_line) == (200.0, 20.0)
    again = PacingPrior.from_json(prior.to_json())
    assert again.tokens_per_chunk == prior.tokens_per_chunk and np.allclose(again.margins, prior.margins, atol=1e-5)
    with pytest.raises(ConfigError):
        PacingPrior(margins=(), tokens_per_chunk=1.0, tokens_per_line=1.0)
    with pytest.raises(ConfigError):
        PacingPrior(margins=(0.0,), tokens_per_chunk=1.0, tokens_per_line=1.0, fill=4.5)


def test_the_shipped_writer_loads_by_name_with_its_budget_and_pacing() -> None:
    from pathlib import Path

    from vmb_agents.stream.factory import make_writer
    from vmb_agents.stream.learned import NAMED_WRITERS, SB3StreamWriter

    writer = make_writer("sb3:stream")
    assert isinstance(writer, SB3StreamWriter) and writer.budget_tokens == 2000 and writer.pacing is not None
    assert make_writer("sb3:stream@500").budget_tokens == 500
    base = NAMED_WRITERS["stream"]
    files = [base.with_suffix(".safetensors"), base.with_suffix(".vmb.json")]
    assert all(f.is_file() for f in files) and sum(f.stat().st_size for f in files) < 1_000_000
    root = Path(__file__).resolve().parents[3]
    assert '"stream/shipped/*"' in (root / "pyproject.toml").read_text(encoding="utf-8")  # shipped as package data


def test_style_free_features_read_only_the_vehicle_vocabulary() -> None:
    """Without style features the hashed words, line shape and line length are 0; the vocabulary features stay."""
    from vmb_agents.stream.features import BUDGET_NAMES, NUMERIC_NAMES, STYLE_NAMES, LineFeaturizer

    lines = [{"line_id": 1, "speaker": "Mara Quinn", "text": "Please keep the seat heating at level 2 when I drive."},
             {"line_id": 2, "speaker": "Leo Brandt", "text": "The bakery on the corner closes early on Sundays."}]
    full, free = LineFeaturizer(hash_dim=16), LineFeaturizer(hash_dim=16, style_features=False)
    a, b = full.chunk(lines, ("Mara Quinn", "Leo Brandt")), free.chunk(lines, ("Mara Quinn", "Leo Brandt"))
    assert a[:, :16].any() and not b[:, :16].any()
    for i, name in enumerate(NUMERIC_NAMES):
        col = 16 + i
        if name in STYLE_NAMES:
            assert not b[:, col].any()
        else:
            assert np.array_equal(a[:, col], b[:, col])
    assert b[0, 16 + NUMERIC_NAMES.index("rule_keep")] == 1.0 and b[1, 16 + NUMERIC_NAMES.index("rule_keep")] == 0.0
    row = free.set_budget(b[0].copy(), budget_left=0.5, line_tokens=30, progress=0.25)
    start = 16 + len(NUMERIC_NAMES)
    assert list(row[start:start + len(BUDGET_NAMES)]) == [0.5, 0.0, 0.25]
    assert LineFeaturizer(**free.config()).style_features is False
