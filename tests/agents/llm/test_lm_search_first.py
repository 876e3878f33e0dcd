"""Search-first teacher episodes (``vmb train lm --teacher-order search_first``): search the request, list the
module, search the setting, call; and the required vehicle call that lets this order through."""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("transformers")

from vmb_agents.llm.constrained import next_tools
from vmb_agents.train.lm import Args, add_lm_arguments, args_from_namespace
from vmb_agents.train.lm_data import request_query, supported, teacher_episode
from vmb_agents.train.lm_failures import transcript_hits

TOOLS = ["search_memory", "list_module_tools", "call_vehicle", "finish"]


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make("VehicleMem-v0", files=[1], memory="bm25")


def test_request_query_is_the_person_and_the_quote() -> None:
    request = "At 8:00 AM, Vera Lin was driving to Union Square. Vera Lin said: 'Warm my seat the usual way.'"
    assert request_query(request, ["Vera Lin", "Omar Diaz"]) == "Vera Warm my seat the usual way."


def test_search_first_episode_order_support_and_reward(env: gym.Env) -> None:
    task = env.unwrapped.tasks.queries[0]
    row = teacher_episode(env, task.task_id, order="search_first")
    turns = [[c["function"] for c in m["tool_calls"]] for m in row["messages"] if m["role"] == "assistant"]
    assert [t[0]["name"] for t in turns] == ["search_memory", "list_module_tools", "search_memory", "call_vehicle"]
    speakers = env.unwrapped.tasks.scenario_of(task).speakers
    assert turns[0] == [{"name": "search_memory", "arguments": {"query": request_query(task.text, speakers),
                                                                 "top_k": 8}}]
    assert turns[-1][-1]["name"] == "finish" and row["reward"] == pytest.approx(1.0)
    results = [m for m in row["messages"] if m["role"] == "tool"]
    setting_hits = transcript_hits([m for m in results[1:] if m["name"] == "search_memory"])
    assert row["supported"] == supported([c.to_json() for c in task.gold_calls], setting_hits)
    # the required vehicle call lets the order through: finish is withheld, call_vehicle forced only at the end
    messages = row["messages"]
    for k, m in enumerate(messages):
        if k >= 2 and m["role"] == "assistant":  # the conversation before each model turn
            allowed = next_tools(messages[:k], TOOLS)
            assert "finish" not in allowed and m["tool_calls"][0]["function"]["name"] in allowed
    assert next_tools(messages[:-1], TOOLS) == ("call_vehicle",)  # after the setting's search: the call
    assert teacher_episode(env, task.task_id)["messages"][2]["tool_calls"][0]["function"]["name"] == "list_module_tools"


def test_teacher_order_flag() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_lm_arguments(parser)
    assert args_from_namespace(parser.parse_args(["--teacher-order", "search_first"])).teacher_order == "search_first"
    assert Args().teacher_order == "list_first"
    with pytest.raises(SystemExit):
        parser.parse_args(["--teacher-order", "random"])
