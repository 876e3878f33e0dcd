"""The training pairs of ``vmb train static-encoder``: requests, their evidence lines and hard negatives."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("bm25s")

from vmb_agents.train.static_encoder import line_text, mine_pairs


def test_pairs_are_request_evidence_line_and_a_visible_non_evidence_negative(scenario):
    rows = mine_pairs([scenario], negatives=1, pool=5, rng=np.random.default_rng(0))
    texts = {line_text(scenario, ln.line_id): ln for ln in scenario.lines}
    by_request = {q.text: q for q in scenario.queries}
    want = sorted((q.text, line_text(scenario, i)) for q in scenario.queries for i in q.evidence_line_ids)
    assert sorted((r["anchor"], r["positive"]) for r in rows) == want  # one pair per evidence line
    for r in rows:
        q = by_request[r["anchor"]]
        negative = texts[r["negative_0"]]
        assert negative.line_id not in q.evidence_line_ids
        assert negative.timestamp <= q.as_of
        assert r["positive"].startswith(texts[r["positive"]].speaker + ": ")


def test_pairs_are_reproducible_and_negatives_come_from_the_pool(scenario):
    first = mine_pairs([scenario], negatives=2, pool=3, rng=np.random.default_rng(7))
    assert first == mine_pairs([scenario], negatives=2, pool=3, rng=np.random.default_rng(7))
    assert all(r["negative_0"] != r["negative_1"] for r in first)
    assert mine_pairs([scenario], negatives=len(scenario.lines), pool=3, rng=np.random.default_rng(0)) == []


def test_vmb_train_static_encoder_is_registered_with_the_out_rule():
    from vmb_gym.cli.train import TRAINERS, trainer_parser

    assert "static-encoder" in TRAINERS
    text = " ".join(trainer_parser("static-encoder").format_help().split())
    for option in ("--out", "--overwrite", "--train-scenarios", "--val-scenarios", "--negatives", "--epochs", "--ship"):
        assert option in text
    assert "not even with --overwrite" in text
