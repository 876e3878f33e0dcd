"""VehicleMem-v0: the Gymnasium contract, actions, rewards, and parity with the scorer."""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import vmb_gym  # noqa: F401  (registers the ids)
from vmb_gym.policy import run_episode
from vmb_agents.baselines import NoopPolicy, OraclePolicy, RandomPolicy
from vmb_gym.scoring.aggregate import aggregate
from vmb_gym.scoring.scorer import score_task
from vmb_gym.types import ToolCall
from vmb_gym.wrappers import EvaluationWrapper

FINISH = {"name": "finish", "arguments": {}}


def make(data: str, **kw: object) -> gym.Env:
    return gym.make("VehicleMem-v0", data=data, **kw)


def test_both_ids_and_check_env(tiny_data: str) -> None:
    env = gym.make("vmb_gym:VehicleMem-v0", data=tiny_data)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["task_id"] in {"1_0", "1_1", "1_2"}
    assert [t["function"]["name"] for t in info["tools"]] == ["list_module_tools", "finish"]


def test_pinned_task_and_seeded_cycle(tiny_data: str) -> None:
    env = make(tiny_data)
    _, info = env.reset(options={"task_id": "1_2"})
    assert info["task_id"] == "1_2"
    assert "Riverside" not in info["messages"][0]["content"]  # memory "none" gives no context
    seq1 = [env.reset(seed=5)[1]["task_id"]] + [env.reset()[1]["task_id"] for _ in range(5)]
    seq2 = [env.reset(seed=5)[1]["task_id"]] + [env.reset()[1]["task_id"] for _ in range(5)]
    assert seq1 == seq2
    assert sorted(seq1[:3]) == ["1_0", "1_1", "1_2"]  # a permutation covers every task


def test_oracle_scores_one_and_noop_zero(tiny_data: str) -> None:
    env = make(tiny_data)
    oracle = OraclePolicy(env.unwrapped.tasks)
    for tid in ("1_0", "1_1", "1_2"):
        ep = run_episode(env, oracle, task_id=tid)
        assert ep.reward == 1.0 and ep.metrics["exact_match"] is True
        ep = run_episode(env, NoopPolicy(), task_id=tid)
        assert ep.reward == 0.0 and ep.metrics["exact_match"] is False


def test_action_forms_are_equivalent(tiny_data: str) -> None:
    forms = [
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}},
        '{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}',
        'carcontrol_seat_set_heating_level(seat="driver", level=3)',
        {"type": "function", "function": {"name": "carcontrol_seat_set_heating_level",
                                          "arguments": '{"seat": "driver", "level": 3}'}},
    ]
    for form in forms:
        env = make(tiny_data)
        env.reset(options={"task_id": "1_0"})
        obs, reward, term, trunc, info = env.step(form)
        assert info["action_error"] is None, form
        assert info["calls"][0]["result"]["success"] is True
        assert '"heating_level":3' in obs
        obs, reward, term, trunc, info = env.step(FINISH)
        assert term and reward == 1.0


def test_list_of_calls_runs_in_order_and_stops_at_finish(tiny_data: str) -> None:
    env = make(tiny_data)
    env.reset(options={"task_id": "1_2"})
    action = [
        {"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", "temperature": 22}},
        {"name": "carcontrol_navigation_navigate_to", "arguments": {"destination": "Riverside Library"}},
        FINISH,
        {"name": "carcontrol_HUD_switch", "arguments": {"switch": True}},
    ]
    _, reward, term, _, info = env.step(action)
    assert term and reward == 1.0
    assert [c["name"] for c in info["calls"]] == [a["name"] for a in action[:3]]


@pytest.mark.parametrize("bad", [
    None, 42, math.nan, b"\xff\xfe", "", "   ", "{not json", "[1, 2]", {"arguments": {}},
    {"name": 5}, {"name": "x", "arguments": [1]}, {"name": "x", "arguments": "{bad"},
    {"name": "carcontrol_HUD_switch", "arguments": {"switch": True}, "extra": 1},
    "carcontrol_HUD_switch(True)", "x" * 200_000, [[{"name": "finish"}]], {"name": "", "arguments": {}},
    "carcontrol_seat_set_heating_level(seat=driver, level=2)", {"\u00e9": "\U0001F600"},
])
def test_step_never_raises_on_malformed_actions(tiny_data: str, bad: object) -> None:
    env = make(tiny_data)
    env.reset(options={"task_id": "1_0"})
    obs, reward, term, trunc, info = env.step(bad)
    assert info["action_error"]
    assert reward == 0.0 and not term
    assert env.observation_space.contains(obs)
    assert env.unwrapped.runtime.invalid == 1
    # the state is untouched and the episode goes on
    _, reward, term, _, _ = env.step(
        [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}, FINISH]
    )
    assert term and reward == 1.0


def test_unknown_tool_bad_kwargs_and_out_of_range(tiny_data: str) -> None:
    env = make(tiny_data)
    env.reset(options={"task_id": "1_0"})
    _, _, _, _, info = env.step({"name": "carcontrol_teleport", "arguments": {}})
    assert "not found" in info["action_error"]
    _, _, _, _, info = env.step(
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "lvl": 2}}
    )
    assert "lvl" in info["action_error"]
    _, _, _, _, info = env.step(
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 9}}
    )
    assert info["action_error"] is None and info["calls"][0]["result"]["success"] is False
    assert env.unwrapped.runtime.invalid == 2


def test_unicode_arguments_are_escaped_into_the_charset(tiny_data: str) -> None:
    env = make(tiny_data)
    env.reset(options={"task_id": "1_2"})
    obs, *_ = env.step({"name": "carcontrol_navigation_navigate_to", "arguments": {"destination": "東京 \U0001F697"}})
    assert env.observation_space.contains(obs)
    assert "\\u" in obs


def test_list_module_tools_and_gating(tiny_data: str) -> None:
    env = make(tiny_data, gated=True, schema="rich")
    env.reset(options={"task_id": "1_0"})
    _, _, _, _, info = env.step(
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}
    )
    assert "list_module_tools" in info["action_error"]
    _, _, _, _, info = env.step({"name": "list_module_tools", "arguments": {"module_name": "seat"}})
    tools = info["calls"][0]["result"]["tools"]
    assert len(tools) == 15
    level = next(t for t in tools if t["function"]["name"] == "carcontrol_seat_set_heating_level")
    assert level["function"]["parameters"]["properties"]["level"]["maximum"] == 3
    _, _, _, _, info = env.step({"name": "list_module_tools", "arguments": {"module_name": "Seat"}})
    assert "not found" in info["action_error"]
    _, reward, term, _, _ = env.step(
        [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}, FINISH]
    )
    assert term and reward == 1.0


def test_truncation_scores_reached_state(tiny_data: str) -> None:
    env = make(tiny_data, max_steps=2, reward="esm")
    env.reset(options={"task_id": "1_0"})
    _, r, term, trunc, _ = env.step(
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}
    )
    assert (r, term, trunc) == (0.0, False, False)
    _, r, term, trunc, info = env.step({"name": "list_module_tools", "arguments": {"module_name": "seat"}})
    assert (r, term, trunc) == (1.0, False, True)
    assert info["episode_stats"]["steps"] == 2
    obs, r, term, _, info = env.step(FINISH)  # stepping a finished episode does not raise
    assert "reset" in info["action_error"]


def test_vector_envs_sync_and_async_are_deterministic(tiny_data: str) -> None:
    def run(vec_cls: type) -> list:
        envs = vec_cls([lambda: make(tiny_data) for _ in range(2)])
        obs, infos = envs.reset(seed=3)
        ids = list(infos["task_id"])
        for _ in range(3):
            obs, rew, term, trunc, infos = envs.step((FINISH, FINISH))
            ids += list(infos["task_id"]) if "task_id" in infos else []
            ids.append(tuple(float(x) for x in rew))
        envs.close()
        return ids

    sync = run(gym.vector.SyncVectorEnv)
    assert sync == run(gym.vector.SyncVectorEnv)
    assert sync == run(gym.vector.AsyncVectorEnv)


def test_random_policy_runs_and_action_space_samples_are_valid(tiny_data: str) -> None:
    env = make(tiny_data)
    env.reset(seed=0)
    for _ in range(20):
        a = env.action_space.sample()
        assert env.action_space.contains(a)
        _, _, _, _, info = env.step(a)
        assert info["action_error"] is None or "must" in str(info["calls"][0]["result"])
    ep = run_episode(env, RandomPolicy(calls_per_episode=3, seed=1))
    assert ep.terminated and 0.0 <= ep.reward <= 1.0


def test_evaluation_wrapper_matches_scorer(tiny_data: str) -> None:
    env = EvaluationWrapper(make(tiny_data))
    plans = {
        "1_0": [ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2})],
        "1_1": [ToolCall("carcontrol_light_set_ambient_color", {"color": "Blue"})],
        "1_2": [ToolCall("carcontrol_airConditioner_set_temperature", {"zone": "driver", "temperature": 22})],
    }
    records = []
    for tid, calls in plans.items():
        env.reset(options={"task_id": tid})
        env.step([c.to_json() for c in calls] + [FINISH])
        query = env.unwrapped.tasks.queries[env.unwrapped.tasks.index_of(tid)]
        records.append(score_task(query, calls).to_record())
    summary = env.summary()
    expected = aggregate(records)
    for key in ("exact_match_rate", "state_f1_change", "state_f1_positive", "state_f1_negative", "tool_f1"):
        assert summary[key] == pytest.approx(expected[key])
    assert summary["by_reasoning_type"] == expected["by_reasoning_type"]
    assert 0 < summary["state_f1_change"] < 1


@pytest.mark.needs_shared
def test_oracle_and_noop_over_every_official_task(official: Path) -> None:
    env = make(f"official:{official}")
    tasks = env.unwrapped.tasks
    oracle, noop = OraclePolicy(tasks), NoopPolicy()
    noop_hits = []
    for q in tasks.queries:
        ep = run_episode(env, oracle, task_id=q.task_id)
        assert ep.reward == 1.0 and ep.metrics["exact_match"], q.task_id
        if run_episode(env, noop, task_id=q.task_id).reward != 0.0:
            noop_hits.append(q.task_id)
    assert len(tasks) == 400
    assert noop_hits == ["19_4", "31_9"]


def test_default_data_is_the_embedded_benchmark() -> None:
    env = gym.make("VehicleMem-v0")
    obs, info = env.reset(seed=0)
    assert len(env.unwrapped.tasks) == 500
    assert info["request"] in obs
    oracle = OraclePolicy(env.unwrapped.tasks)
    assert run_episode(env, oracle, task_id=info["task_id"]).reward == 1.0


def test_qa_mode_scores_structured_answers() -> None:
    env = gym.make("VehicleMem-v0", task_mode="qa")
    obs, info = env.reset(seed=1)
    query = env.unwrapped.tasks.queries[env.unwrapped.tasks.index_of(info["task_id"])]
    assert query.qa is not None and query.qa.question in obs
    assert [t["function"]["name"] for t in info["tools"]] == ["answer"]
    _, reward, term, _, info = env.step({"name": "answer", "arguments": query.qa.answer.to_json()})
    assert term and reward == 1.0
    env.reset(options={"task_id": query.task_id})
    _, _, _, _, info = env.step({"name": "carcontrol_HUD_switch", "arguments": {"switch": True}})
    assert "only tool is answer" in info["action_error"]
    wrong = dict(query.qa.answer.arguments)
    _, reward, term, _, _ = env.step(
        {"name": "answer", "arguments": {"name": "carcontrol_HUD_switch", "arguments": wrong}}
    )
    assert term and reward == 0.0


def test_search_memory_respects_as_of_and_is_audited(tiny_data: str) -> None:
    env = make(tiny_data, memory="bm25")
    obs, info = env.reset(options={"task_id": "1_0"})
    assert [t["function"]["name"] for t in info["tools"]] == ["list_module_tools", "search_memory", "finish"]
    _, _, _, _, info = env.step(
        {"name": "search_memory", "arguments": {"query": "Gary seat heating level", "top_k": 3}}
    )
    result = info["calls"][0]["result"]
    assert result["success"] and result["count"] >= 1
    assert "seat heating to level 3" in result["memory_text"]
    _, _, _, _, info = env.step({"name": "search_memory", "arguments": {"query": "x", "top_k": "many"}})
    assert "top_k" in info["action_error"]
    _, _, term, _, info = env.step(FINISH)
    assert info["episode_stats"]["memory_searches"] == 1
    assert info["episode_stats"]["memory_tokens"] > 0
    assert info["episode_stats"]["memory_audit"]["recall@3"] == 1.0


def test_search_memory_context_shows_the_lines_around_a_hit(tiny_data: str) -> None:
    env = make(tiny_data, memory="bm25")
    _, reset_info = env.reset(options={"task_id": "1_1"})
    query = {"query": "ambient light blue at night", "top_k": 1}
    _, _, _, _, info = env.step({"name": "search_memory", "arguments": query})
    plain = info["calls"][0]["result"]
    assert plain["count"] == 1 and "ambient light in blue" in plain["memory_text"]
    _, _, _, _, info = env.step({"name": "search_memory", "arguments": {**query, "context": 1}})
    around = info["calls"][0]["result"]
    assert around["count"] == 2  # the reply said a minute later; the day before is never shown
    assert around["memory_text"].splitlines()[1].startswith("2. [2025-03-02 19:31] Gary Allen: Sure, blue ambient")
    for bad in (9, -1, "two", True, 1.5):
        _, _, term, _, info = env.step({"name": "search_memory", "arguments": {**query, "context": bad}})
        assert not term and "context must be an integer 0-3" in info["action_error"]
    assert "context" in next(t for t in reset_info["tools"] if t["function"]["name"] == "search_memory")[
        "function"]["parameters"]["properties"]


@pytest.mark.parametrize("action", [
    'carcontrol_video_play_video(video_name="\\ud83c\\udcca")',  # lone surrogates from a JSON escape
    {"name": "carcontrol_navigation_navigate_to", "arguments": {"destination": "a", "route_preference": 2**80}},
])
def test_unencodable_values_are_escaped_not_raised(tiny_data: str, action: object) -> None:
    env = make(tiny_data)
    env.reset(options={"task_id": "1_2"})
    obs, _, _, _, info = env.step(action)
    assert env.observation_space.contains(obs)
    assert info["calls"][0]["name"].startswith("carcontrol_")


def test_chat_view_reset_messages_then_per_step_messages(tiny_data: str) -> None:
    env = make(tiny_data)
    _, info = env.reset(options={"task_id": "1_0"})
    chat = list(info["messages"])
    assert [m["role"] for m in chat] == ["system", "user"]
    for action in ({"name": "list_module_tools", "arguments": {"module_name": "seat"}}, FINISH):
        _, _, _, _, info = env.step(action)
        chat += info["messages"]
    assert [m["role"] for m in chat] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert chat[2]["tool_calls"][0]["function"]["name"] == "list_module_tools"
    assert chat == env.unwrapped.messages
