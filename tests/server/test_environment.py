"""``VehicleMemEnvironment`` without the network: pooled envs start clean, reset arguments checked, expiry,
stream env."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401
from vmb_gym.errors import ConfigError, VmbError
from vmb_gym.server.environment import EnvPool, SessionExpired, VehicleMemEnvironment
from vmb_gym.server.models import VmbAction


@pytest.fixture(scope="module")
def pool() -> EnvPool:
    return EnvPool("VehicleMem-v0", ["default"], ["none", "gold"])


def test_a_pooled_env_starts_each_session_clean(pool: EnvPool) -> None:
    fresh = gym.make("VehicleMem-v0", data="default", memory="none").unwrapped
    expected = [fresh.reset(seed=0)[1]["task_id"]] + [fresh.reset()[1]["task_id"] for _ in range(2)]
    first = VehicleMemEnvironment(pool)
    first.reset(task_id="2_3")
    first.step(VmbAction(name="carcontrol_seat_set_heating_level", arguments={"seat": "driver", "level": 3}))
    first.reset()  # moves the task cycle, then the session ends mid-episode
    first.close()
    second = VehicleMemEnvironment(pool)  # draws the env the first session gave back
    assert [second.reset().task_id for _ in range(3)] == expected
    second.reset(task_id="2_3")
    local = gym.make("VehicleMem-v0", data="default", memory="none").unwrapped
    local.reset(options={"task_id": "2_3"})
    assert second.step(VmbAction(name="finish")).reward == local.step({"name": "finish", "arguments": {}})[1]
    second.close()


def test_reset_arguments_are_checked(pool: EnvPool) -> None:
    env = VehicleMemEnvironment(pool)
    with pytest.raises(VmbError, match="send reset before step"):
        env.step(VmbAction(name="finish"))
    with pytest.raises(ConfigError, match="unknown reset arguments"):
        env.reset(options={"task_id": "1_0"})
    with pytest.raises(ConfigError, match="scenario_id is a VehicleMemStream-v0"):
        env.reset(scenario_id=1)
    with pytest.raises(ConfigError, match="not served here"):
        env.reset(memory="bm25")
    assert env.reset(task_id="1_0", memory="gold", episode_id="e1").info["memory"] == "gold"
    assert env.state.episode_id == "e1" and env.state.memory == "gold"
    env.close()


def test_an_idle_session_expires() -> None:
    now = [0.0]
    env = VehicleMemEnvironment(EnvPool("VehicleMem-v0", ["default"], ["none"]), session_timeout=5.0,
                                clock=lambda: now[0])
    env.reset(task_id="1_0")
    now[0] = 4.0
    env.step(VmbAction(name="list_module_tools", arguments={"module_name": "seat"}))
    now[0] = 9.5
    for _ in range(2):  # stays expired
        with pytest.raises(SessionExpired, match="open a new session"):
            env.reset(task_id="1_0")


def test_stream_env_session_equals_in_process() -> None:
    env = VehicleMemEnvironment(EnvPool("VehicleMemStream-v0", ["default"], ["bm25"]))
    local = gym.make("VehicleMemStream-v0", data="default", store="bm25").unwrapped
    first = env.reset(scenario_id=1)
    assert first.text == local.reset(seed=0, options={"scenario_id": 1})[0]
    for action in ({"name": "noop", "arguments": {}}, {"name": "finish", "arguments": {}}):
        remote = env.step(VmbAction(**action))
        text, reward, terminated, truncated, _ = local.step(action)
        assert (remote.text, remote.reward, remote.done) == (text, reward, terminated or truncated)
    env.close()
