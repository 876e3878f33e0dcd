"""The learned stream writer's line-cue features and its ``fifo`` pacing (issue #17)."""

from __future__ import annotations

import dataclasses

import numpy as np

from vmb_agents.stream.features import BUDGET_NAMES, CUE_NAMES, NUMERIC_NAMES, LineFeaturizer

SPEAKERS = ("Mara Quinn", "Leo Brandt")
LINES = [
    {"line_id": 1, "speaker": "Mara Quinn", "text": "From now on keep the seat heating at level 2 for me."},
    {"line_id": 2, "speaker": "Mara Quinn", "text": "I wonder what the seat heating at level 3 would feel like?"},
    {"line_id": 3, "speaker": "Leo Brandt", "text": "When Mara rides with me, the fan speed goes to level 4."},
    {"line_id": 4, "speaker": "Leo Brandt", "text": "The bakery on the corner closes early on Sundays."},
]


def _cues(row: np.ndarray, hash_dim: int) -> dict[str, float]:
    start = hash_dim + len(NUMERIC_NAMES)
    return dict(zip(CUE_NAMES, row[start:start + len(CUE_NAMES)].tolist(), strict=True))


def test_cue_block_reads_the_lexicon_cues_between_the_numeric_and_the_budget_blocks() -> None:
    plain = LineFeaturizer(hash_dim=8, style_features=False)
    cued = LineFeaturizer(hash_dim=8, style_features=False, cue_features=True)
    assert cued.dim == plain.dim + len(CUE_NAMES) == 8 + len(NUMERIC_NAMES) + len(CUE_NAMES) + len(BUDGET_NAMES)
    a, b = plain.chunk(LINES, SPEAKERS), cued.chunk(LINES, SPEAKERS)
    n = 8 + len(NUMERIC_NAMES)
    assert np.array_equal(a[:, :n], b[:, :n])  # the blocks before the cues are unchanged
    revision, wonder, other, chatter = (_cues(r, 8) for r in b)
    assert revision["cue_revision"] == 1.0 and revision["cue_hypothetical"] == 0.0 and revision["cue_self"] == 1.0
    assert wonder["cue_hypothetical"] == 1.0 and wonder["cue_question"] == 1.0 and wonder["cue_revision"] == 0.0
    assert other["cue_condition_clause"] == 1.0 and other["cue_other_person"] == 1.0
    assert revision["cue_other_person"] == 0.0 and revision["cue_condition_clause"] == 0.0
    assert not any(chatter.values())
    row = cued.set_budget(b[0].copy(), budget_left=0.25, line_tokens=30, progress=0.5)
    assert list(row[n + len(CUE_NAMES):]) == [0.25, 0.0, 0.5]  # the budget block comes after the cues
    assert _cues(row, 8) == revision
    assert LineFeaturizer(**cued.config()).dim == cued.dim and "cue_features" in cued.config()
    old = {k: v for k, v in cued.config().items() if k != "cue_features"}  # a sidecar from before the cues
    assert LineFeaturizer(**old).dim == plain.dim


def test_the_shipped_writer_reads_the_cues() -> None:
    """The shipped ``sb3:stream`` reads the lexicon's line cues (``--cue-features``, recorded in its sidecar) and its
    featuriser fits its model; a sidecar from before the cues (no key) reads with the block off (the test above)."""
    from vmb_agents.sb3.checkpoint import read_sidecar
    from vmb_agents.stream.factory import make_writer
    from vmb_agents.stream.learned import NAMED_WRITERS

    writer = make_writer("sb3:stream")
    assert writer.featurizer.cue_features and writer.featurizer.dim == writer.model.observation_space.shape[0]
    assert read_sidecar(NAMED_WRITERS["stream"])["featurizer"]["cue_features"] is True
    assert writer.featurizer.dim == LineFeaturizer(hash_dim=8, style_features=False).dim + len(CUE_NAMES)


def test_a_fifo_paced_writer_paces_every_token_it_kept_and_holds_the_latest() -> None:
    """With ``fifo`` the pacer spends ``fill`` x budget over the lines kept, evicted ones included (not over what
    the store still holds, which never reaches the allowance), and the store never exceeds the budget."""
    from vmb_agents.stream.factory import make_writer
    from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv

    budget, fill = 300, 1.5
    env = VehicleMemStreamEnv("default", files=[1], max_chunk_steps=64)
    runs = {}
    for overflow in ("fifo", "stop"):
        writer = make_writer(f"sb3:stream@{budget}/{overflow}")
        writer.pacing = dataclasses.replace(writer.pacing, fill=fill if overflow == "fifo" else 0.9)
        obs, info = env.reset(seed=0, options={"scenario_id": env.scenario_ids[0]})
        writer.reset(obs, info)
        view, peak = dict(info), 0
        while True:
            obs, _, term, trunc, info = env.step(writer.act(obs, view))
            peak = max(peak, env.store_size()[1])
            view = info
            if term or trunc:
                break
        runs[overflow] = (writer.kept_tokens, peak, info["episode_stats"])
    kept, peak, stats = runs["fifo"]
    assert peak <= budget
    assert budget < kept <= fill * budget + 100  # it evicted, and kept about fill budgets' worth (a chunk's slack)
    assert stats["tokens_written"] == kept
    kept_stop, peak_stop, stats_stop = runs["stop"]
    assert kept_stop == stats_stop["tokens_written"] == stats_stop["store_tokens"] <= budget
    assert 0.8 * 0.9 * budget <= kept_stop
