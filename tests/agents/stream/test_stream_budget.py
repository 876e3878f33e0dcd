"""Memory budget of the stream writers and the evidence warm start of the learned keep/skip writer."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from vmb_agents.stream.factory import make_writer, parse_writer_spec
from vmb_agents.stream.features import BUDGET_NAMES, NUMERIC_NAMES, LineFeaturizer, line_tokens
from vmb_agents.stream.imitation import (
    behaviour_clone_writer,
    calibrate_keep,
    evidence_dataset,
    keep_margin,
    keep_scores,
)
from vmb_agents.stream.learned import StreamWriteEnv, load_stream_writer, save_stream_checkpoint
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError
from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario, ToolCall

_SETTINGS = [
    "Please keep the seat heating at level {n} when I drive.",
    "I like the cabin at {t} degrees in the morning.",
    "Set the fan speed to level {n} for me, that's how I like it.",
    "My reading light should be at {p} percent brightness.",
]
_CHATTER = [
    "Did anyone feed the cat this morning?",
    "The bakery on the corner closes early on Sundays.",
    "Traffic was awful on the bridge today.",
    "We should call grandma this weekend.",
    "That movie last night was far too long.",
    "I left my umbrella at the office again.",
    "The garden needs watering before the heat.",
    "Remember to pick up milk on the way home.",
]


def _scenario(sid: int, rng: np.random.Generator, n_lines: int = 24) -> Scenario:
    """``n_lines`` lines over a day: a few setting statements (the evidence) among chatter (our own text)."""
    start = datetime(2025, 4, 2, 7, 0)
    people = ("Mara Quinn", "Leo Brandt")
    evidence_pos = set(rng.choice(n_lines, size=4, replace=False).tolist())
    lines = []
    for i in range(n_lines):
        if i in evidence_pos:
            text = str(rng.choice(_SETTINGS)).format(n=int(rng.integers(1, 4)), t=int(rng.integers(18, 25)),
                                                     p=int(rng.integers(2, 9)) * 10)
        else:
            text = str(rng.choice(_CHATTER))
        lines.append(HistoryLine(sid * 1000 + i, start + timedelta(minutes=25 * i), people[i % 2], text))
    call = ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})
    ids = tuple(sorted(sid * 1000 + i for i in evidence_pos))
    as_of = start + timedelta(days=1, hours=3)
    queries = tuple(
        Query(task_id=f"{sid}_{k}", scenario_id=sid, index=k, text="Mara, driver's seat: 'Warm my seat as usual.'",
              reasoning_type="preference_conflict", gold_calls=(call,), gold_call_strings=(call.to_python(),),
              gold_memory="(test)", evidence=(EvidenceEvent("(test)", None, ids[2 * k:2 * k + 2]),),
              as_of=as_of + timedelta(minutes=k))
        for k in range(2))
    return Scenario(sid, people, tuple(lines), queries, source="test")


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    rng = np.random.default_rng(7)
    return [_scenario(sid, rng) for sid in range(1, 7)]


def _peak_store(env: VehicleMemStreamEnv, writer, scenario_id: int) -> tuple[int, dict]:
    obs, info = env.reset(seed=0, options={"scenario_id": scenario_id})
    writer.reset(obs, info)
    view, peak = dict(info), 0
    while True:
        obs, _, term, trunc, info = env.step(writer.act(obs, view))
        peak = max(peak, env.store_size()[1])
        if not writer._queue:
            assert env.store_size()[1] == writer.used_tokens
        view = info
        if term or trunc:
            return peak, info["episode_stats"]


@pytest.mark.parametrize("spec", ["everything@60", "everything@60/stop", "rules@40", "rules@40/stop", "everything@0"])
def test_budgeted_writers_never_exceed_the_budget(scenarios, spec: str) -> None:
    budget = parse_writer_spec(spec)[1]
    env = VehicleMemStreamEnv(scenarios, max_chunk_steps=64)
    for sid in env.scenario_ids[:3]:
        peak, stats = _peak_store(env, make_writer(spec), sid)
        assert peak <= budget and stats["store_tokens"] <= budget
        if budget and spec.startswith("everything"):
            assert stats["store_tokens"] > budget - 20  # the budget is used, not left empty


def test_fifo_keeps_the_most_recent_lines_and_stop_the_first(scenarios) -> None:
    scenario = scenarios[0]
    env = VehicleMemStreamEnv([scenario], max_chunk_steps=64)
    budget = 70
    tokens = [line_tokens({"speaker": ln.speaker, "text": ln.text}) for ln in scenario.lines]
    newest, room = [], budget
    for ln, t in zip(reversed(scenario.lines), reversed(tokens), strict=True):
        if t > room:
            break
        newest.append(ln.line_id)
        room -= t
    _, stats = _peak_store(env, make_writer(f"everything@{budget}"), scenario.scenario_id)
    active = sorted(i for e in env.store.entries if e.status == "active" for i in e.line_ids)
    assert active == sorted(newest)
    assert stats["tokens_written"] == sum(tokens)  # every line was written once; the old ones were deleted
    _peak_store(env, make_writer(f"everything@{budget}/stop"), scenario.scenario_id)
    active = sorted(i for e in env.store.entries if e.status == "active" for i in e.line_ids)
    assert active[0] == scenario.lines[0].line_id and max(active) < newest[-1]


def test_writer_spec_parsing() -> None:
    assert parse_writer_spec("everything") == ("everything", None, None)
    assert parse_writer_spec("rules@2000/stop") == ("rules", 2000, "stop")
    assert parse_writer_spec("sb3:runs/a@b/model.zip@300") == ("sb3:runs/a@b/model.zip", 300, None)
    w = make_writer("everything@2000")
    assert (w.budget_tokens, w.overflow, w.name) == (2000, "fifo", "store_everything@2000")
    for bad in ("everything@", "everything@-3", "everything@20/lifo", "@20"):
        with pytest.raises(ConfigError):
            make_writer(bad)


def test_stream_write_env_masks_keeps_that_would_overflow(scenarios) -> None:
    budget = 50
    env = StreamWriteEnv(data=scenarios[:1], memory_budget_tokens=budget)
    obs, _ = env.reset(seed=0)
    left_col = env.featurizer.hash_dim + len(NUMERIC_NAMES) + BUDGET_NAMES.index("budget_left")
    assert obs[left_col] == 1.0
    done, masked_seen, info = False, 0, {}
    while not done:
        mask = env.action_masks()
        line_cost = env._tokens[env._pos]
        assert mask[1] == (env.used_tokens + line_cost <= budget)  # keep allowed exactly when the line fits
        masked_seen += int(not mask[1])
        before = env.used_tokens
        obs, _, done, _, info = env.step(1)  # always try to keep: a masked keep is taken as skip
        assert env.used_tokens <= budget
        assert env.used_tokens == before + (line_cost if mask[1] else 0)
        assert env.inner.store_size()[1] <= budget
    assert masked_seen > 0
    assert 0 < info["episode_stats"]["tokens_written"] <= budget
    with pytest.raises(ConfigError):
        StreamWriteEnv(data=scenarios[:1], memory_budget_tokens=-1)


def test_bc_warm_start_matches_the_labels_and_the_writer_keeps_evidence(scenarios, tmp_path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    featurizer = LineFeaturizer(hash_dim=64)
    train, held_out = scenarios[:5], scenarios[5:]
    data = evidence_dataset(train, None, featurizer)
    labels = data["labels"]
    assert data["obs"].shape == (5 * 24, featurizer.dim) and labels.sum() == 5 * 4
    env = StreamWriteEnv(data=train, featurizer=featurizer, memory_budget_tokens=120)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    before = keep_scores(model, data)
    scores = behaviour_clone_writer(model, data, epochs=15, seed=0, batch_size=32)
    # chance: balanced accuracy 0.5; the untrained policy is near it, the clone far above
    assert scores["balanced_accuracy"] >= 0.9 > before["balanced_accuracy"] + 0.2
    assert scores["recall"] >= 0.9 and scores["precision"] > 3 * labels.mean()
    test = evidence_dataset(held_out, None, featurizer)
    assert keep_scores(model, test)["balanced_accuracy"] >= 0.8  # unseen households

    # calibration: the lines above the shifted threshold fill about fill x budget per timeline
    budget = 100
    calibrate_keep(model, data, budget, fill=0.9)
    kept = keep_margin(model, data["obs"]) > 0
    per_timeline = np.bincount(data["group"], weights=data["tokens"] * kept)
    assert abs(per_timeline.mean() - 0.9 * budget) <= 20

    # the checkpoint as a writer keeps to its budget and stores evidence, not chatter
    path = save_stream_checkpoint(model, tmp_path / "w", algo="maskable_ppo", featurizer=featurizer,
                                  budget_tokens=budget)
    writer = load_stream_writer(path)
    assert writer.budget_tokens == budget and writer.overflow == "stop"
    inner = VehicleMemStreamEnv(held_out, max_chunk_steps=64)
    peak, stats = _peak_store(inner, writer, held_out[0].scenario_id)
    assert peak <= budget
    assert stats["write_recall"] >= 0.5 and stats["write_precision"] >= 0.5
    assert make_writer(f"sb3:{path}@30").budget_tokens == 30
    peak, _ = _peak_store(inner, make_writer(f"sb3:{path}@30"), held_out[0].scenario_id)
    assert peak <= 30


def test_old_checkpoints_without_the_budget_block_still_load(scenarios, tmp_path) -> None:
    import json

    from sb3_contrib import MaskablePPO

    featurizer = LineFeaturizer(hash_dim=32, budget_features=False)
    env = StreamWriteEnv(data=scenarios[:1], featurizer=featurizer)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=8, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    path = save_stream_checkpoint(model, tmp_path / "old", algo="maskable_ppo", featurizer=featurizer)
    meta = json.loads((tmp_path / "old.vmb.json").read_text())
    (tmp_path / "old.vmb.json").unlink()  # the sidecar as written before the budget block and the one format:
    del meta["featurizer"]["budget_features"], meta["budget_tokens"], meta["design"], meta["format_version"]
    (tmp_path / "old.json").write_text(json.dumps({"kind": "stream_writer", **meta}))
    writer = load_stream_writer(path)
    assert writer.featurizer.dim == 32 + len(NUMERIC_NAMES) and writer.budget_tokens is None
    _, stats = _peak_store(VehicleMemStreamEnv(scenarios[:1], max_chunk_steps=64), writer, scenarios[0].scenario_id)
    assert stats["queries"] == 2


def test_paced_checkpoint_keeps_to_its_budget_and_keeps_evidence(scenarios, tmp_path) -> None:
    """A sidecar with a pacing prior gives the writer its length-adaptive threshold."""
    import json

    import torch
    from sb3_contrib import MaskablePPO

    from vmb_agents.stream.imitation import pacing_prior

    torch.set_num_threads(1)
    featurizer = LineFeaturizer(hash_dim=64)
    train, held_out = scenarios[:5], scenarios[5:]
    data = evidence_dataset(train, None, featurizer)
    assert len(np.unique(data["chunk"])) >= len(train)
    env = StreamWriteEnv(data=train, featurizer=featurizer, memory_budget_tokens=100)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    behaviour_clone_writer(model, data, epochs=15, seed=0, batch_size=32)
    calibrate_keep(model, data, 100, fill=0.9)
    prior = pacing_prior(model, data, fill=0.9)
    path = save_stream_checkpoint(model, tmp_path / "paced", algo="maskable_ppo", featurizer=featurizer,
                                  budget_tokens=100, extra={"pacing": prior.to_json()})
    assert json.loads((tmp_path / "paced.vmb.json").read_text())["pacing"]["fill"] == 0.9
    writer = load_stream_writer(path)
    assert writer.pacing is not None
    inner = VehicleMemStreamEnv(held_out, max_chunk_steps=64)
    peak, stats = _peak_store(inner, writer, held_out[0].scenario_id)
    assert writer.pacer is not None and writer.pacer.chunks_seen > 0  # the pacer decided
    assert 0 < peak <= 100
    assert stats["write_recall"] >= 0.5 and stats["write_precision"] >= 0.5
    fifo = load_stream_writer(path).set_budget(40, "fifo")  # a paced writer may evict its oldest entries
    assert fifo.overflow == "fifo"
    peak, stats = _peak_store(inner, fifo, held_out[0].scenario_id)
    assert 0 < peak <= 40 and stats["write_recall"] > 0
    assert load_stream_writer(path).set_budget(40).overflow == "stop"
    unpaced = load_stream_writer(path)
    unpaced.pacing = None
    assert unpaced.set_budget(100, "fifo").overflow == "stop"  # without pacing a learned writer never evicts
    _peak_store(inner, unpaced, held_out[0].scenario_id)
    assert unpaced.pacer is None
