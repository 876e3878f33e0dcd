"""The TRL environment adapter: tool discovery as TRL does it, direct calls, rewards, a GRPO step."""

from __future__ import annotations

import inspect

import pytest

from vmb_agents.llm.trl_env import (
    DEFAULT_VEHICLE_TOOLS,
    ComponentReward,
    VehicleMemToolEnv,
    component_rewards,
    make_tool_env_class,
    observation_json,
)
from vmb_gym.envs.rewards import REWARD_COMPONENTS
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


def test_reward_components_as_reward_functions() -> None:
    import pickle

    gold = VehicleMemToolEnv(files=[1], memory="gold")
    query = gold.env.unwrapped.tasks.queries[0]
    gold.reset(task_id=query.task_id)
    for call in query.gold_calls:
        gold.call_vehicle(call.name, dict(call.arguments))
    messy = VehicleMemToolEnv(files=[1], memory="gold", reward={"state_f1_change": 1.0, "tool_error_rate": -0.5})
    messy.reset(task_id=query.task_id)
    messy.call_vehicle("carcontrol_does_not_exist", {})
    messy.list_module_tools("seat")
    assert messy.reward_components == {}  # still running: nothing yet
    funcs = component_rewards()
    assert [f.__name__ for f in funcs] == list(REWARD_COMPONENTS)  # TRL's column names
    columns = {f.__name__: f(prompts=["p"] * 3, completions=["c"] * 3, environments=[gold, messy, object()])
               for f in funcs}
    # both episodes were finished by the reward functions (the model never called finish)
    assert columns["state_f1_change"] == [1.0, 0.0, None] and columns["exact_state_match"] == [1.0, 0.0, None]
    assert columns["tool_error_rate"] == [0.0, 0.5, None]  # 1 of 2 calls failed
    assert columns["invalid_action_rate"] == [0.0, pytest.approx(1 / 3), None]  # 3 steps (finish included)
    assert columns["format_share"] == [1.0, 1.0, None]
    assert gold.get_reward() == 1.0 and messy.get_reward() == pytest.approx(0.0 - 0.5 * 0.5)
    assert messy.last_info["reward_components"] == messy.reward_components
    assert pickle.loads(pickle.dumps(funcs[0])).__name__ == "state_f1_change"
    with pytest.raises(ConfigError, match="unknown reward component 'f1'.*state_f1_change"):
        ComponentReward("f1")
    with pytest.raises(ConfigError, match="environment_factory"):
        funcs[0](prompts=["p"], completions=["c"])


@pytest.mark.slow
def test_grpo_trainer_logs_component_columns(tmp_path) -> None:
    """One GRPOTrainer step whose reward columns are the env's reward plus the six components (weight 0)."""
    pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    import os
    from functools import partial

    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen2_5_chat_template

    from vmb_agents.train.lm import load_model

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tok, _ = load_model("tiny")
    tok.chat_template = qwen2_5_chat_template
    tok.padding_side = "left"
    rows = [{"prompt": [{"role": "user", "content": ""}], "task_id": "1_0"}]
    config = GRPOConfig(output_dir=str(tmp_path / "trl"), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=8, beta=0.0, logging_steps=1, save_strategy="no", report_to=[],
                        use_cpu=True, max_tool_calling_iterations=2, reward_weights=[0.0] * len(REWARD_COMPONENTS))
    trainer = GRPOTrainer(model=model, processing_class=tok, args=config,
                          train_dataset=datasets.Dataset.from_list(rows),
                          reward_funcs=component_rewards(),
                          environment_factory=partial(VehicleMemToolEnv, files=[1], memory="gold", max_steps=2))
    trainer.train()
    logged = next(e for e in trainer.state.log_history if "step" in e and any(k.startswith("rewards/") for k in e))
    for name in (*REWARD_COMPONENTS, "VehicleMemToolEnv"):
        assert f"rewards/{name}/mean" in logged
    assert 0.0 <= logged["rewards/format_share/mean"] <= 1.0
    assert logged["rewards/state_f1_change/mean"] == pytest.approx(logged["rewards/VehicleMemToolEnv/mean"])
