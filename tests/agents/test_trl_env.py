"""The TRL environment adapter: tool discovery as TRL does it, direct calls, rewards, a GRPO step."""

from __future__ import annotations

import inspect

import pytest

from agents.llm.trl_env import DEFAULT_VEHICLE_TOOLS, VehicleMemToolEnv, make_tool_env_class, observation_json
from vmb_gym.errors import ConfigError


def _trl_tool_names(cls: type) -> list[str]:
    """The tools TRL's GRPOTrainer would expose (its discovery rule)."""
    return [n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
            if n not in ("reset", "get_reward") and not n.startswith("_")]


@pytest.fixture(scope="module")
def env() -> VehicleMemToolEnv:
    return VehicleMemToolEnv(files=[1], memory="gold")


def test_tools_discovered_and_schemas_render() -> None:
    from transformers.utils import get_json_schema

    names = _trl_tool_names(VehicleMemToolEnv)
    assert {"list_module_tools", "search_memory", "call_vehicle", "finish", *DEFAULT_VEHICLE_TOOLS} == set(names)
    probe = VehicleMemToolEnv(files=[1])
    schemas = {n: get_json_schema(getattr(probe, n))["function"] for n in names}
    assert schemas["call_vehicle"]["parameters"]["properties"]["arguments"]["type"] == "object"
    heat = schemas["carcontrol_seat_set_heating_level"]["parameters"]
    assert heat["required"] == ["seat", "level"] and heat["properties"]["level"]["type"] == "integer"


def test_all_vehicle_functions_class() -> None:
    from transformers.utils import get_json_schema

    cls = make_tool_env_class("all")
    vehicle = [n for n in _trl_tool_names(cls) if n.startswith("carcontrol_")]
    assert len(vehicle) == 111
    probe = cls(files=[1])
    for n in vehicle:
        get_json_schema(getattr(probe, n))
    with pytest.raises(ConfigError, match="unknown vehicle functions"):
        make_tool_env_class(["carcontrol_nope"])


def test_gold_calls_through_tools_score_one(env: VehicleMemToolEnv) -> None:
    tasks = env.env.unwrapped.tasks
    query = tasks.queries[0]
    first = env.reset(task_id=query.task_id, prompt=[{"role": "user", "content": ""}])
    assert query.text in first
    listed = observation_json(env.list_module_tools("seat"))
    assert listed["success"] and listed["tools"]
    for call in query.gold_calls:
        assert observation_json(env.call_vehicle(call.name, dict(call.arguments)))["success"]
    assert env.get_reward() == pytest.approx(1.0)  # finished by get_reward
    assert "episode is over" in env.finish()


def test_typed_method_and_finish(env: VehicleMemToolEnv) -> None:
    env.reset(task_id="1_0")
    result = observation_json(env.carcontrol_seat_set_heating_level(seat="driver", level=2))
    assert result["success"]
    assert "finished" in env.finish()
    reward = env.get_reward()
    assert 0.0 <= reward <= 1.0
    assert env.last_info["metrics"]["reward"] == reward


def test_errors_never_raise(env: VehicleMemToolEnv) -> None:
    fresh = VehicleMemToolEnv(files=[1])
    assert "reset() was not called" in fresh.finish() and fresh.get_reward() == 0.0
    env.reset(task_id="1_0")
    assert "not found" in env.call_vehicle("carcontrol_does_not_exist", {})
    assert "error" in env.search_memory("seat heating")  # the gold memory has no search
    assert "error" in env.list_module_tools("engine")
    assert env.get_reward() == 0.0


def test_reset_without_task_cycles_tasks() -> None:
    env = VehicleMemToolEnv(files=[1], seed=3)
    ids = [None] * 3
    for k in range(3):
        env.reset()
        ids[k] = env.task_id
    assert len(set(ids)) == 3


@pytest.mark.slow
def test_grpo_trainer_step_with_environment_factory(tmp_path) -> None:
    """One GRPOTrainer step on CPU with a tiny model (about 15 s)."""
    pytest.importorskip("trl")
    pytest.importorskip("datasets")
    import gymnasium as gym

    from agents.train.lm import Args, load_model
    from agents.train.lm_trl import train_trl

    args = Args(out=str(tmp_path), train_files="1", grpo_steps=1, prompts_per_step=1, group_size=2,
                max_new_tokens=8, max_steps=2, backend="trl", kl_beta=0.0, threads=1)
    env = gym.make("VehicleMem-v0", files=[1], memory="gold")
    model, tok = load_model(args, env)
    rows = train_trl(model, tok, [q.task_id for q in env.unwrapped.tasks.queries], args)
    assert [r["step"] for r in rows] == [1]
    assert 0.0 <= rows[0]["mean_reward"] <= 1.0
