"""The Python API a newcomer meets: ``agents``' surface, distinct tasks, the env's memory in a
policy, the same memory figures as ``vmb eval``, ``files=`` in the CLI syntax, one metric vocabulary."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import vmb_agents
import vmb_gym  # noqa: F401  (registers the ids)
from vmb_agents.factory import make_policy
from vmb_agents.reader import RulesPolicy
from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.report import summarize
from vmb_gym.evaluation.run import run_evaluation
from vmb_gym.evaluation.runner import EvalConfig
from vmb_gym.metrics import METRICS, metric, metrics_table
from vmb_gym.policy import list_tasks, run_episode, run_episodes
from vmb_gym.scoring.aggregate import METRIC_KEYS, TOOL_KEYS
from vmb_gym.wrappers import EvaluationWrapper

REPO = Path(__file__).resolve().parents[1]
LAYERED = {"semantic": False}  # the layered module without MiniLM: same binding, no model to load


# ------------------------------------------------------------------ agents' surface
def test_import_vmb_agents_is_cheap_and_names_resolve() -> None:
    code = ("import sys, vmb_agents; "
            "print(sorted(m for m in sys.modules if m.startswith(('vmb_agents.', 'gymnasium', 'torch'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
    assert vmb_agents.RulesPolicy is RulesPolicy
    assert vmb_agents.make_policy is make_policy
    assert vmb_agents.run_episodes is run_episodes
    from vmb_agents.baselines import NoopPolicy, OraclePolicy, RandomPolicy

    assert (vmb_agents.OraclePolicy, vmb_agents.NoopPolicy, vmb_agents.RandomPolicy) == \
        (OraclePolicy, NoopPolicy, RandomPolicy)
    names = set(vmb_agents.__all__)
    assert {"HFPolicy", "OpenAIPolicy", "load_sb3_policy", "list_tasks"} <= names <= set(dir(vmb_agents))
    cheap = set(vmb_agents.__all__) - {"HFPolicy", "load_sb3_policy", "make_writer"}  # these load torch or SB3
    assert all(getattr(vmb_agents, name) is not None for name in cheap)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        vmb_agents.Nope  # noqa: B018


# ------------------------------------------------------------------ walking tasks
def test_run_episodes_walks_distinct_tasks_of_the_cycle() -> None:
    env = gym.make("VehicleMem-v0", files="1-2")
    ids = [t.task_id for t in list_tasks(env)]
    assert len(ids) == 20 and ids[0] == "1_0"
    noop = vmb_agents.NoopPolicy()
    walked = [e.task_id for e in run_episodes(env, noop)]
    assert sorted(walked) == sorted(ids)  # every task once
    again = [e.task_id for e in run_episodes(env, noop, n=5, seed=0)]
    assert again == walked[:5]  # the same seed, the same cycle
    # a loop of run_episode(seed=i) re-seeds the cycle every time: its first tasks may repeat
    firsts = [run_episode(env, noop, seed=i).task_id for i in range(20)]
    assert len(set(firsts)) < 20
    picked = [e.task_id for e in run_episodes(env, noop, task_ids=["2_3", "1_1"])]
    assert picked == ["2_3", "1_1"]
    with pytest.raises(ConfigError, match="n or task_ids"):
        run_episodes(env, noop, n=2, task_ids=["1_1"])
    with pytest.raises(ConfigError, match="between 1 and 20"):
        run_episodes(env, noop, n=21)


def test_list_tasks_refuses_another_env() -> None:
    with pytest.raises(ConfigError, match="VehicleMem-v0"):
        list_tasks(gym.make("CartPole-v1"))


# ------------------------------------------------------------------ files=
def test_files_takes_the_cli_syntax() -> None:
    by_text = gym.make("VehicleMem-v0", files="1-3").unwrapped.tasks
    by_list = gym.make("VehicleMem-v0", files=[3, 1, 2]).unwrapped.tasks
    assert sorted(by_text.scenarios) == [1, 2, 3]
    assert [q.task_id for q in by_text.queries] == [q.task_id for q in by_list.queries]
    assert sorted(gym.make("VehicleMem-v0", files=2).unwrapped.tasks.scenarios) == [2]


@pytest.mark.parametrize("bad", ["1-", "x", "3-1", [0], [1.5], 2.5, True, []])
def test_files_anything_else_says_what_is_expected(bad: object) -> None:
    with pytest.raises(ConfigError, match="expected") as err:
        gym.make("VehicleMem-v0", files=bad)
    assert "files" in str(err.value) or "range" in str(err.value)


# ------------------------------------------------------------------ the env's memory in a policy
def _ablation(data: str, memory: str, **kwargs: object) -> tuple[list[vmb_agents.Episode], dict]:
    env = EvaluationWrapper(gym.make("VehicleMem-v0", data=data, memory=memory, **kwargs))
    episodes = run_episodes(env, RulesPolicy(source=env))
    return episodes, env.summary()


def test_bm25_and_layered_ablation_from_python_differ_and_name_their_memory(tiny_data: str) -> None:
    bm25, bm25_summary = _ablation(tiny_data, "bm25")
    layered, layered_summary = _ablation(tiny_data, "layered", memory_kwargs=LAYERED)
    assert {e.memory for e in bm25} == {"bm25"} and bm25_summary["memory_type"] == "bm25"
    assert {e.memory for e in layered} == {"layered"} and layered_summary["memory_type"] == "layered"
    by_id = {e.task_id: e for e in layered}
    hit_lines = "memory_hit_line_ids"
    assert any(e.episode.get(hit_lines) != by_id[e.task_id].episode.get(hit_lines) for e in bm25)
    assert bm25_summary["avg_memory_tokens"] != layered_summary["avg_memory_tokens"]
    # the env's module is read, with its options: the same figures as a policy given that module
    env = gym.make("VehicleMem-v0", data=tiny_data, memory="layered", memory_kwargs=LAYERED)
    own = RulesPolicy("layered", source=env, memory_kwargs=LAYERED)
    assert own.memory is not env.unwrapped.memory
    for e in layered:
        mine = run_episode(env, own, task_id=e.task_id)
        assert (mine.metrics, mine.episode["memory_searches"], mine.episode.get("memory_hit_line_ids")) == (
            e.metrics, e.episode["memory_searches"], e.episode.get("memory_hit_line_ids"))


def test_a_policy_given_its_own_memory_says_so(tiny_data: str, caplog: pytest.LogCaptureFixture) -> None:
    env = gym.make("VehicleMem-v0", data=tiny_data, memory="bm25")
    assert RulesPolicy(source=env).memory is env.unwrapped.memory
    assert RulesPolicy("bm25", source=env).memory is env.unwrapped.memory
    with caplog.at_level(logging.WARNING, logger="vmb_agents.reader.policy"):
        policy = RulesPolicy("layered", source=env, memory_kwargs=LAYERED)
    assert policy.memory.name == "layered"
    assert "reads its own memory 'layered', not the env's 'bm25'" in caplog.text
    assert run_episode(env, policy).memory == "layered"


# ------------------------------------------------------------------ the same figures as vmb eval
def test_run_episode_and_wrapper_report_the_figures_of_vmb_eval(tiny_data: str, tmp_path: Path) -> None:
    config = EvalConfig(policy="rules", memory="bm25", data=tiny_data)
    records = run_evaluation(config, tmp_path / "run", make_policy, progress=False)
    saved = summarize(records, {"policy": "rules", "memory": "bm25", "trials": 1})  # vmb eval's metric.json
    env = EvaluationWrapper(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25"))
    policy = make_policy("rules", env)
    figures = ("memory_searches", "memory_tokens", "memory_hit_line_ids", "memory_audit")
    for rec in records:
        ep = run_episode(env, policy, task_id=rec["task_id"], seed=rec["seed"])
        assert ep.metrics == rec["metrics"]
        assert rec["episode"]["memory_searches"] > 0
        assert {k: ep.episode.get(k) for k in figures} == {k: rec["episode"].get(k) for k in figures}
        assert {k: env.episodes[-1].get(k) for k in figures} == {k: rec["episode"].get(k) for k in figures}
    summary = env.summary()
    for key in ("exact_match_rate", "state_f1_change", "tool_f1", "avg_memory_searches", "avg_memory_tokens",
                "memory_type"):
        want = pytest.approx(saved[key]) if isinstance(saved[key], float) else saved[key]
        assert summary[key] == want
    audit = summary["memory_audit"]
    assert audit == {k: saved["memory_audit"][k] for k in audit}


def test_wrapper_counts_a_policy_passed_to_it_in_a_loop_of_ones_own(tiny_data: str) -> None:
    env = EvaluationWrapper(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25"))
    policy = RulesPolicy(source=env)
    env.policy = None
    obs, info = env.reset(seed=0)
    policy.reset(obs, info)
    env.step(policy.act(obs, info))
    assert env.episodes[-1]["memory_searches"] == 0  # not told: the env saw no search
    own = EvaluationWrapper(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25"), policy=policy)
    obs, info = own.reset(seed=0)
    policy.reset(obs, info)
    own.step(policy.act(obs, info))
    assert own.episodes[-1]["memory_searches"] == policy.memory_session.searches > 0


# ------------------------------------------------------------------ one metric vocabulary
def test_metric_table_agrees_with_the_scorer_and_the_episode() -> None:
    official = {m.aggregate: m.name for m in METRICS if m.official}
    ours = {m.aggregate: m.name for m in METRICS if not m.official and m.aggregate}
    assert official == METRIC_KEYS | {k: v for k, v in TOOL_KEYS.items() if k != "tool_f1_corrected"}
    assert ours == {"tool_f1_corrected": "tool_f1_corrected"}
    assert list(official)[:len(METRIC_KEYS)] == list(METRIC_KEYS)  # official order
    env = EvaluationWrapper(gym.make("VehicleMem-v0", files="1"))
    episode = run_episode(env, vmb_agents.NoopPolicy(), seed=0)
    numeric = {k for k, v in episode.metrics.items() if isinstance(v, (int, float)) and not k.isupper()}
    counts = {"negative_TP", "negative_FP", "correctly_changed", "should_change", "should_not_change",
              "num_gold_calls", "num_pred_calls", "reward"}
    assert numeric - counts == {m.name for m in METRICS}
    summary = env.summary()
    assert {m.aggregate for m in METRICS if m.aggregate} <= set(summary)
    assert metric("exact_match") is metric("exact_match_rate") is metric("ESM") is metric("exact_state_match")
    with pytest.raises(ConfigError, match="did you mean 'f1_change'"):
        metric("f1_chnage")


def test_env_page_shows_the_metric_table() -> None:
    assert metrics_table() in (REPO / "docs" / "env.md").read_text(encoding="utf-8")

