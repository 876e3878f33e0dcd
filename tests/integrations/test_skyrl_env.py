"""The SkyRL adapter through skyrl-gym's own registry and ``make``: text replies in, the env's reward out."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

skyrl_gym = pytest.importorskip("skyrl_gym")

from vmb_gym.envs.rewards import REWARD_COMPONENTS
from vmb_gym.errors import ConfigError
from vmb_gym.integrations.skyrl_env import VehicleMemTextEnv, dataset_rows, register_env
from vmb_gym.integrations.text_actions import FINISH, reply_action

CONFIG = {"files": [1], "memory": "gold"}


def _block(name: str, arguments: dict) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def _gold(task_id: str) -> list:
    env = gym.make("VehicleMem-v0", **CONFIG)
    tasks = env.unwrapped.tasks
    return list(tasks.queries[tasks.index_of(task_id)].gold_calls)


def test_make_init_step_scores_like_the_env() -> None:
    assert register_env("vmb") == "vmb" and register_env("vmb") == "vmb"  # idempotent
    row = dataset_rows(["1_0"])[0]
    env = skyrl_gym.make(row["env_class"], env_config=CONFIG, extras=row)
    assert isinstance(env, VehicleMemTextEnv) and env.task_id == "1_0"
    conversation, meta = env.init(row["prompt"])
    assert [m["role"] for m in conversation] == ["system", "user"] and "<tool_call>" in conversation[0]["content"]
    assert meta["task_id"] == "1_0"
    gold = _gold("1_0")
    reply = "I'll set it.\n" + "\n".join(_block(c.name, dict(c.arguments)) for c in gold)
    out = env.step(reply)
    assert not out["done"] and out["reward"] == 0.0 and out["observations"][0]["role"] == "user"
    assert '"success":true' in out["observations"][0]["content"]
    out = env.step("All set, enjoy the drive.")  # plain text ends the episode, as in the official loop
    assert out["done"] and out["reward"] == 1.0 and out["observations"] == []
    assert list(out["metadata"]["reward_components"]) == list(REWARD_COMPONENTS)
    assert env.get_metrics()["exact_state_match"] == 1.0
    env.close()
    # the same actions in the in-process env give the same reward
    ref = gym.make("VehicleMem-v0", **CONFIG)
    ref.reset(options={"task_id": "1_0"})
    ref.step([{"name": c.name, "arguments": dict(c.arguments)} for c in gold])
    assert ref.step(FINISH)[1] == out["reward"]


def test_errors_weighted_reward_and_turn_limit() -> None:
    register_env("vmb")
    weights = {"state_f1_change": 1.0, "invalid_action_rate": -0.5}
    env = skyrl_gym.make("vmb", env_config={**CONFIG, "reward": weights},
                         extras={"reward_spec": {"method": "rule", "ground_truth": "1_1"}, "max_turns": 2})
    env.init([])
    out = env.step("<tool_call>{not json}</tool_call>")
    assert not out["done"] and out["metadata"]["action_error"] and "error" in out["observations"][0]["content"]
    out = env.step(_block("list_module_tools", {"module_name": "seat"}))
    assert out["done"]  # max_turns=2: finished after the second reply
    comps = out["metadata"]["reward_components"]
    assert comps["invalid_action_rate"] == pytest.approx(1 / 3)  # 3 env steps: bad block, listing, finish
    assert out["reward"] == pytest.approx(comps["state_f1_change"] - 0.5 * comps["invalid_action_rate"])
    assert env.step("again")["done"]
    # defaults given at registration; the trainer's env_config overrides them key by key
    register_env("vmb_defaults", files=[1], memory="gold", max_steps=3)
    env = skyrl_gym.make("vmb_defaults", env_config={"max_steps": 4}, extras={"task_id": "1_0"})
    assert (env.env.unwrapped.max_steps, env.env.unwrapped.memory_name, env.max_turns) == (4, "gold", 4)
    with pytest.raises(ConfigError, match="unknown key.*'memroy'"):
        skyrl_gym.make("vmb", env_config={"memroy": "gold"}, extras={"task_id": "1_0"})
    with pytest.raises(ConfigError, match="extras name no task"):
        skyrl_gym.make("vmb", env_config=CONFIG, extras={"prompt": []})
    with pytest.raises(ConfigError, match="unknown task"):
        skyrl_gym.make("vmb", env_config=CONFIG, extras={"task_id": "99_9"})


def test_omegaconf_config_and_reply_forms() -> None:
    omegaconf = pytest.importorskip("omegaconf")
    register_env("vmb")
    config = omegaconf.OmegaConf.create({"env_class": "vmb", "files": [1], "memory": "gold", "max_steps": 5})
    env = skyrl_gym.make("vmb", env_config=config, extras={"extra_info": {"task_id": "1_0"}})
    env.init(None)
    assert env.max_turns == 5
    assert reply_action('carcontrol_seat_set_heating_level(seat="driver", level=2)').startswith("carcontrol_")
    assert reply_action('{"name": "finish", "arguments": {}}') == '{"name": "finish", "arguments": {}}'
    assert reply_action("```json\n{\"name\": \"finish\"}\n```") == '{"name": "finish"}'
    assert reply_action("thanks!") == FINISH
