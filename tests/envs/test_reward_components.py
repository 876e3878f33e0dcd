"""Named reward components: the final info of both envs, the weighted ``reward=`` mapping, its errors."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the ids)
from tests.envs.test_stream import FINISH, SKIP, tiny_scenario
from vmb_gym.envs.rewards import QA_COMPONENTS, REWARD_COMPONENTS, RewardSpec
from vmb_gym.errors import ConfigError


def _gold_episode(env: gym.Env, task_id: str = "1_0") -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    query = env.unwrapped.tasks.queries[env.unwrapped.tasks.index_of(task_id)]
    env.step([{"name": c.name, "arguments": dict(c.arguments)} for c in query.gold_calls])
    _, reward, terminated, _, info = env.step(FINISH)
    assert terminated
    return reward, info


def _messy_episode(env: gym.Env) -> tuple[float, dict]:
    """Four steps: unreadable, an unknown function, a good listing, finish."""
    env.reset(options={"task_id": "1_0"})
    _, _, _, _, info = env.step("this is not a call((")
    assert info["action_error"]
    _, _, _, _, info = env.step({"name": "carcontrol_does_not_exist", "arguments": {}})
    assert "not found" in info["action_error"]
    _, _, _, _, info = env.step({"name": "list_module_tools", "arguments": {"module_name": "seat"}})
    assert info["action_error"] is None
    _, reward, _, _, info = env.step(FINISH)
    return reward, info


def test_gold_episode_components_and_unchanged_reward() -> None:
    for name, key in (("f1_change", "state_f1_change"), ("f1_positive", "state_f1_positive"),
                      ("esm", "exact_state_match")):
        reward, info = _gold_episode(gym.make("VehicleMem-v0", files=[1], reward=name))
        comps = info["reward_components"]
        assert list(comps) == list(REWARD_COMPONENTS)
        assert comps == {"state_f1_change": 1.0, "state_f1_positive": 1.0, "exact_state_match": 1.0,
                         "invalid_action_rate": 0.0, "tool_error_rate": 0.0, "format_share": 1.0}
        assert reward == 1.0 == comps[key] == info["metrics"]["reward"]


def test_process_rates_count_steps_and_calls() -> None:
    reward, info = _messy_episode(gym.make("VehicleMem-v0", files=[1]))
    comps = info["reward_components"]
    # 4 steps: 2 failed (unreadable, unknown function), 1 unreadable; 2 calls ran, 1 failed
    assert comps["invalid_action_rate"] == pytest.approx(2 / 4)
    assert comps["format_share"] == pytest.approx(3 / 4)
    assert comps["tool_error_rate"] == pytest.approx(1 / 2)
    assert reward == comps["state_f1_change"] == info["metrics"]["f1_change"]
    assert info["episode_stats"]["invalid_actions"] == 2  # the old counter is unchanged


def test_weighted_mapping_is_the_weighted_sum() -> None:
    weights = {"state_f1_change": 1.0, "exact_state_match": 0.5, "invalid_action_rate": -0.1, "format_share": 0.2}
    reward, info = _messy_episode(gym.make("VehicleMem-v0", files=[1], reward=weights))
    comps = info["reward_components"]
    assert reward == pytest.approx(sum(w * comps[k] for k, w in weights.items()))
    assert reward == info["metrics"]["reward"]
    gold, _ = _gold_episode(gym.make("VehicleMem-v0", files=[1], reward=weights))
    assert gold == pytest.approx(1.0 + 0.5 + 0.0 + 0.2)


def test_bad_reward_arguments_name_the_components() -> None:
    with pytest.raises(ConfigError, match="unknown component.*'state_f1'.*state_f1_change, state_f1_positive"):
        gym.make("VehicleMem-v0", files=[1], reward={"state_f1": 1.0})
    with pytest.raises(ConfigError, match="weight of 'format_share' must be a finite number"):
        gym.make("VehicleMem-v0", files=[1], reward={"format_share": float("nan")})
    with pytest.raises(ConfigError, match="non-empty mapping"):
        gym.make("VehicleMem-v0", files=[1], reward={})
    with pytest.raises(ConfigError, match="reward must be one of"):
        gym.make("VehicleMem-v0", files=[1], reward="f1")
    with pytest.raises(ConfigError, match="unknown component.*invalid_action_rate"):
        gym.make("VehicleMemStream-v0", data=[tiny_scenario()], reward={"invalid_rate": -1.0})
    with pytest.raises(ConfigError, match="qa track's components are answer_exact_match"):
        RewardSpec.parse({"state_f1_change": 1.0}, "qa")


def test_qa_track_components() -> None:
    env = gym.make("VehicleMem-v0", files=[1], task_mode="qa", reward={"answer_exact_match": 2.0})
    env.reset(options={"task_id": "1_0"})
    query = env.unwrapped.tasks.queries[env.unwrapped.tasks.index_of("1_0")]
    answer = {"name": query.qa.answer.name, "arguments": dict(query.qa.answer.arguments)}
    _, reward, terminated, _, info = env.step({"name": "answer", "arguments": answer})
    assert terminated and list(info["reward_components"]) == list(QA_COMPONENTS)
    assert info["reward_components"] == {"answer_exact_match": 1.0, "invalid_action_rate": 0.0,
                                         "tool_error_rate": 0.0, "format_share": 1.0}
    assert reward == 2.0 and info["metrics"]["exact_match"] is True


def test_stream_env_components_per_request() -> None:
    weights = {"state_f1_change": 1.0, "tool_error_rate": -1.0}
    env = gym.make("VehicleMemStream-v0", data=[tiny_scenario()], reward=weights)
    _, info = env.reset(seed=0)
    ended: list[tuple[float, dict]] = []
    query_steps = 0
    terminated = False
    while not terminated:
        if info["phase"] == "write":
            action = SKIP
        else:  # the first request: one unknown call, then finish; the second: finish at once
            query_steps += 1
            action = {"name": "carcontrol_nope", "arguments": {}} if query_steps == 1 else FINISH
        _, reward, terminated, _, info = env.step(action)
        if "reward_components" in info:
            ended.append((reward, info["reward_components"]))
    assert len(ended) == 2
    for reward, comps in ended:
        assert list(comps) == list(REWARD_COMPONENTS)
        assert reward == pytest.approx(comps["state_f1_change"] - comps["tool_error_rate"])
    assert (ended[0][1]["tool_error_rate"], ended[0][1]["invalid_action_rate"]) == (1.0, 0.5)
    assert (ended[1][1]["tool_error_rate"], ended[1][1]["invalid_action_rate"]) == (0.0, 0.0)
