"""``vmb eval-stream``'s progress bar shows running means that end at the final summary's figures."""

from __future__ import annotations

import re

from vmb_agents.stream.factory import make_writer
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.evaluation import stream
from vmb_gym.evaluation.stream import run_stream_evaluation, summarise


def _rec(reward: float, esm: list[int]) -> dict:
    return {"reward": reward, "mean_esm": sum(esm) / len(esm),
            "queries": [{"exact_match": e, "reasoning_type": "preference_conflict"} for e in esm]}


def test_running_means_are_the_summary_means() -> None:
    # per-timeline ESM means 0.75 and 0.0 (0.375 averaged); the request-level rate is 3/6 = 0.5
    records = [_rec(2.0, [1, 1, 1, 0]), _rec(5.0, [0, 0])]
    bar = stream.running_means(records)
    metric = summarise(records)
    assert bar == {"mean_ret": "3.50", "mean_esm": "0.500"}
    assert bar["mean_esm"] == f"{metric['exact_match_rate']:.3f}"
    assert bar["mean_ret"] == f"{metric['stream']['mean_reward']:.2f}"


def test_progress_bar_ends_at_the_summary(tmp_path, capsys) -> None:
    env = VehicleMemStreamEnv("default", files=[1, 2], store="bm25", max_chunk_steps=64)
    records = run_stream_evaluation(env, make_writer("rules"), tmp_path / "run", {"writer": "rules"}, progress=True)
    err = capsys.readouterr().err
    shown = re.findall(r"mean_ret=([\d.]+), mean_esm=([\d.]+)", err)
    assert shown, err[-500:]
    metric = summarise(records)
    assert shown[-1] == (f"{metric['stream']['mean_reward']:.2f}", f"{metric['exact_match_rate']:.3f}")
    # the last timeline's own figures are not what the bar ends on
    assert records[-1]["mean_esm"] != metric["exact_match_rate"]
    assert "esm=" not in err.replace("mean_esm=", "")
