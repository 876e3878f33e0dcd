"""The rules reader reads memory given as context (gold, full_history) and the env's own module."""

from __future__ import annotations

import logging

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_agents.reader import RulesPolicy
from tests.agents.reader.test_rules import small_data  # noqa: F401  (fixture)
from vmb_gym.errors import ConfigError
from vmb_gym.memory import make_memory
from vmb_gym.policy import run_episode


def test_gold_context_is_read_as_lines(small_data: str) -> None:  # noqa: F811
    env = gym.make("VehicleMem-v0", data=small_data, memory="gold", reward="esm")
    policy = RulesPolicy(source=env)
    assert policy.memory is env.unwrapped.memory  # the env's module, not a bm25 of its own
    ep = run_episode(env, policy, task_id="1_1")
    assert policy.last["calls"] == [{"name": "carcontrol_seat_set_headrest_height",
                                     "arguments": {"value": 40, "seat": "driver"}}]
    assert ep.reward == 1.0
    hit = policy.last["hits"][0]
    assert (hit.entry_id, hit.text, hit.layer) == ("G0", "At 9:00 AM, Gary raised his headrest to 40.", "context")
    assert hit.people == ("Gary Allen",)  # the first speaker the event names
    assert hit.timestamp is not None and (hit.timestamp.month, hit.timestamp.day, hit.timestamp.hour) == (3, 5, 9)
    # no search; the context tokens are the env's (counted once), the gold lines are recorded
    assert ep.episode["memory_searches"] == 0
    assert ep.episode["memory_tokens"] > 0
    assert ep.episode["memory_hit_line_ids"] == list(hit.line_ids) == [8]


def test_gold_beats_none_on_the_small_scenario(small_data: str) -> None:  # noqa: F811
    scores = {}
    for memory in ("none", "gold", "full_history"):
        env = gym.make("VehicleMem-v0", data=small_data, memory=memory, reward="esm")
        policy = RulesPolicy(source=env)
        scores[memory] = [run_episode(env, policy, task_id=t).reward for t in ("1_0", "1_1", "1_2")]
    assert scores == {"none": [0.0, 0.0, 0.0], "gold": [1.0, 1.0, 1.0], "full_history": [1.0, 1.0, 1.0]}


def test_full_history_context_lines_are_the_history(small_data: str) -> None:  # noqa: F811
    env = gym.make("VehicleMem-v0", data=small_data, memory="full_history")
    policy = RulesPolicy(source=env)
    run_episode(env, policy, task_id="1_0")
    hits = policy.last["hits"]
    assert [h.entry_id for h in hits] == [f"L{i}" for i in range(1, 10)]
    assert hits[0].people == ("Gary Allen",) and hits[0].line_ids == (1,)


def test_own_module_is_logged_and_counts_its_context(small_data: str, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    env = gym.make("VehicleMem-v0", data=small_data, memory="none")
    with caplog.at_level(logging.WARNING, logger="vmb_agents.reader.policy"):
        policy = RulesPolicy("gold", source=env)
    assert "reads its own memory 'gold', not the env's 'none'" in caplog.text
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.reward > 0 and ep.episode["memory_tokens"] > 0  # counted by the policy's session


def test_same_name_reads_the_env_module(small_data: str) -> None:  # noqa: F811
    env = gym.make("VehicleMem-v0", data=small_data, memory="bm25")
    assert RulesPolicy("bm25", source=env).memory is env.unwrapped.memory
    assert RulesPolicy(source=env.unwrapped.tasks).memory.name == "bm25"  # no env: bm25


def test_context_needs_the_query() -> None:
    from vmb_agents.reader.policy import RulesPolicy as P
    from vmb_gym.types import Scenario

    policy = P(make_memory("gold"))
    with pytest.raises(ConfigError, match="needs the task's query"):
        policy.context_lines(Scenario(1, ("A B",), (), ()), None)


def test_slot_design_refuses_context_memory(small_data: str) -> None:  # noqa: F811
    pytest.importorskip("sb3_contrib")
    from vmb_agents.sb3.slots.env import refuse_context_memory

    with pytest.raises(ConfigError, match="comes as context"):
        refuse_context_memory(gym.make("VehicleMem-v0", data=small_data, memory="gold"))
    refuse_context_memory(gym.make("VehicleMem-v0", data=small_data, memory="bm25"))
