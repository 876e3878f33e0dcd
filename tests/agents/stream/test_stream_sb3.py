"""StreamWriteEnv (keep/skip SB3 bridge of VehicleMemStream-v0), its writer checkpoint and ``vmb eval-stream``."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
import pytest

from vmb_agents.stream.factory import make_writer
from vmb_agents.stream.features import NUMERIC_NAMES
from vmb_agents.stream.learned import StreamWriteEnv, load_stream_writer, save_stream_checkpoint
from vmb_agents.stream.writers import StoreEverythingWriter
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.policy import run_stream_episode
from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario, ToolCall

_LINES = [
    (1, "2025-04-02 07:10", "Mara Quinn", "For my drives, keep the seat heating at level 2 please."),
    (2, "2025-04-02 07:12", "Leo Brandt", "Did anyone feed the cat this morning?"),
    (3, "2025-04-02 08:30", "Leo Brandt", "I like the cabin at 21 degrees when I drive."),
    (4, "2025-04-02 18:05", "Mara Quinn", "The bakery on the corner closes early on Sundays."),
    (5, "2025-04-03 07:40", "Leo Brandt", "Traffic was awful on the bridge today."),
]


def _t(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M")


def tiny_scenario() -> Scenario:
    """Five lines over two days, two requests after them (our own text)."""
    lines = tuple(HistoryLine(i, _t(ts), who, text) for i, ts, who, text in _LINES)
    call = ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})
    queries = (
        Query(task_id="9_0", scenario_id=9, index=0, text="Mara got into the driver's seat: 'Warm my seat as usual.'",
              reasoning_type="preference_conflict", gold_calls=(call,), gold_call_strings=(call.to_python(),),
              gold_memory="(test)", evidence=(EvidenceEvent("(test)", None, (1,)),), as_of=_t("2025-04-03 09:00")),
        Query(task_id="9_1", scenario_id=9, index=1, text="Mara, driver's seat: 'Seat warmer the way I like it.'",
              reasoning_type="preference_conflict", gold_calls=(call,), gold_call_strings=(call.to_python(),),
              gold_memory="(test)", evidence=(EvidenceEvent("(test)", None, (1,)),), as_of=_t("2025-04-03 10:00")),
    )
    return Scenario(9, ("Mara Quinn", "Leo Brandt"), lines, queries, source="test")


def make(**kw: object) -> StreamWriteEnv:
    return StreamWriteEnv(data=[tiny_scenario()], **kw)


def _run(env: StreamWriteEnv, choose) -> tuple[float, dict, int]:
    obs, _ = env.reset(seed=0)
    total, done, steps, info = 0.0, False, 0, {}
    while not done:
        assert env.action_masks().tolist() == [True, True]
        obs, r, done, _, info = env.step(choose(obs))
        total += r
        steps += 1
    return total, info, steps


def test_sb3_check_env_passes() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(make(), warn=True)


def test_spaces_features_and_masks() -> None:
    env = make(memory_cost=0.01)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs.shape == (env.featurizer.dim,)
    assert info["chunk_lines"] == 2  # lines 1-2 share the 07:00 chunk
    rule = env.featurizer.hash_dim + NUMERIC_NAMES.index("rule_keep")
    assert obs[rule] == 1.0  # line 1 names a setting and its value
    total, final, steps = _run(env, lambda o: 1)
    assert steps == 5  # one decision per streamed line
    assert env.action_masks().tolist() == [True, False]  # nothing left to keep
    obs, r, done, _, _ = env.step(1)
    assert done and r == 0.0 and not obs.any()
    stats = final["episode_stats"]
    assert stats["lines_stored"] == 5 and stats["write_recall"] == 1.0
    assert len(final["query_metrics"]) == 2


def test_return_matches_inner_env_and_baseline_writer() -> None:
    cost = 0.01
    env = make(memory_cost=cost)
    total, final, _ = _run(env, lambda o: 1)
    tokens = sum(count_tokens(f"{who}: {text}") for _, _, who, text in _LINES)
    stats = final["episode_stats"]
    assert stats["tokens_written"] == tokens
    assert total == pytest.approx(sum(stats["f1_change"]) - cost * tokens)
    inner = VehicleMemStreamEnv([tiny_scenario()], memory_cost=cost)
    ep = run_stream_episode(inner, StoreEverythingWriter(), seed=0)
    assert total == pytest.approx(ep.episode_return)

    nothing, final0, _ = _run(env, lambda o: 0)
    assert final0["episode_stats"]["tokens_written"] == 0
    assert nothing == pytest.approx(sum(final0["episode_stats"]["f1_change"]))


def test_smoke_training_checkpoint_and_writer(tmp_path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = make(memory_cost=0.001)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=8, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(32)
    assert model.num_timesteps >= 32
    path = save_stream_checkpoint(model, tmp_path / "w", algo="maskable_ppo", featurizer=env.featurizer)
    assert path.exists() and json.loads((tmp_path / "w.vmb.json").read_text())["algo"] == "maskable_ppo"
    writer = load_stream_writer(tmp_path / "w.zip")
    assert make_writer(f"sb3:{path}").name == "sb3"
    ep = run_stream_episode(VehicleMemStreamEnv([tiny_scenario()], memory_cost=0.001), writer, seed=0)
    assert ep.episode["queries"] == 2
    assert np.isfinite(ep.episode_return)


def test_make_writer_names() -> None:
    assert make_writer("everything").name == "store_everything"
    assert make_writer("nothing").name == "store_nothing"
    assert make_writer("rules").name == "rule"
    from vmb_gym.errors import ConfigError

    with pytest.raises(ConfigError):
        make_writer("bogus")


def test_eval_stream_outputs() -> None:
    from vmb_gym.evaluation.stream import format_stream, summarise
    from vmb_gym.evaluation.stream import run_scenario as run_episode

    env = VehicleMemStreamEnv([tiny_scenario()], max_chunk_steps=64)
    rec = run_episode(env, make_writer("rules"), seed=0, scenario_id=9)
    assert rec["scenario_id"] == 9 and len(rec["queries"]) == 2 and len(rec["esm"]) == 2
    assert rec["lines_streamed"] == 5 and rec["write_recall"] is not None
    metric = summarise([rec])
    assert metric["completed_tasks"] == 2 and "exact_match_rate" in metric and "by_reasoning_type" in metric
    assert metric["stream"]["scenarios"] == 1
    assert "write recall" in format_stream(metric, "rules")


def test_eval_stream_cli(tmp_path) -> None:
    from vmb_gym.cli import main

    out = tmp_path / "run"
    assert main(["eval-stream", "--writer", "nothing", "--files", "1", "--window-days", "0.5", "--out", str(out),
                 "--no-progress"]) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["tokens_written"] == 0
    metric = json.loads((out / "metric.json").read_text())
    assert metric["stream"]["mean_store_tokens"] == 0
