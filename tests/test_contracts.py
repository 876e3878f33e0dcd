"""The shipped contract checkers (vmb_gym.testing) over every registered env, memory module and offline policy."""

from __future__ import annotations

import importlib.util
from typing import Any

import gymnasium as gym
import pytest

import vmb_gym
from vmb_gym.memory import list_memories
from vmb_gym.memory.retrieval import HashingEmbedder
from vmb_gym.testing import (
    MemoryContractError,
    PolicyContractError,
    bombard,
    check_memory_module,
    check_policy,
    check_vmb_env,
)


class SilentLLM:
    """A chat backend that never calls a tool: the LLM-built memories stay empty, deterministically."""

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"content": "nothing to note", "tool_calls": []}


#: Options that let each built-in module run offline and fast (no model weights, no network).
MEMORY_KWARGS: dict[str, dict[str, Any]] = {
    "dense": {"embedder": HashingEmbedder()},
    "hybrid": {"embedder": HashingEmbedder()},
    "layered": {"semantic": False},
    "summary": {"llm": SilentLLM()},
    "key_value": {"llm": SilentLLM()},
}
#: Third-party adapters: the package their extra installs, and slow (they load an embedding model).
THIRD_PARTY = {"mem0": "mem0", "hymemory": "hy_memory"}


def _memory_param(name: str) -> Any:
    if name in THIRD_PARTY:
        return pytest.param(name, marks=[pytest.mark.slow, pytest.mark.skipif(
            importlib.util.find_spec(THIRD_PARTY[name]) is None, reason=f"the {name} extra is not installed")])
    return name


@pytest.mark.parametrize("env_id", sorted(vmb_gym.ENVS))
def test_every_registered_env_meets_the_contract(env_id: str, tiny_data: str) -> None:
    check_vmb_env(env_id, data=tiny_data, steps=10, bombard_actions=150, mid_episode_pickle=False)


@pytest.mark.parametrize("env_id", sorted(vmb_gym.ENVS))
def test_every_registered_env_pickles_mid_episode(env_id: str, tiny_data: str) -> None:
    check_vmb_env(env_id, data=tiny_data, steps=6, bombard_actions=0)


def test_env_checker_catches_a_step_that_raises(tiny_data: str) -> None:
    class Fragile:
        """An env whose step() raises on bytes (the real env answers them with an action error)."""

        def __init__(self, env: Any) -> None:
            self.env, self.observation_space, self.runtime = env, env.observation_space, env.runtime

        @property
        def unwrapped(self) -> Fragile:
            return self

        def reset(self, **kwargs: Any) -> Any:
            return self.env.reset(**kwargs)

        def step(self, action: Any) -> Any:
            if isinstance(action, bytes):
                raise ValueError("bytes are not handled")
            return self.env.step(action)

    env = gym.make("VehicleMem-v0", data=tiny_data).unwrapped
    assert bombard(env, 60, seed=0).ok
    report = bombard(Fragile(env), 60, seed=0)  # type: ignore[arg-type]
    assert not report.ok and report.failures
    assert all("ValueError: bytes are not handled" in f for f in report.failures)


@pytest.mark.parametrize("name", [_memory_param(n) for n in list_memories()])
def test_every_registered_memory_module_meets_the_contract(name: str) -> None:
    check_memory_module(name, **MEMORY_KWARGS.get(name, {}))


def test_memory_checker_catches_a_module_that_ignores_as_of() -> None:
    from vmb_gym.memory.base import BaseMemory

    class Leaky(BaseMemory):
        name = "leaky"
        provides_search = True

        def search(self, text, as_of, top_k=5, person=None):
            return [e.to_hit(1.0) for e in self.entries][:top_k]  # every entry, whatever as_of says

    with pytest.raises(MemoryContractError, match="expected no hit later than as_of"):
        check_memory_module(Leaky)


POLICIES: dict[str, dict[str, Any]] = {"oracle": {}, "noop": {}, "random": {"seed": 0}, "rules": {}}


@pytest.mark.parametrize("spec", sorted(POLICIES))
def test_every_offline_policy_meets_the_contract(spec: str, tiny_data: str) -> None:
    from vmb_agents.factory import make_policy

    env = gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=8)
    check_policy(lambda e: make_policy(spec, e, **POLICIES[spec]), env, task_ids=("1_0", "1_2"))


def test_policy_checker_catches_an_unseeded_policy(tiny_data: str) -> None:
    import random

    class Coin:
        def reset(self, observation: str, info: dict[str, Any]) -> None:
            pass

        def act(self, observation: str, info: dict[str, Any]) -> Any:
            return (
                {"name": "finish", "arguments": {}}
                if random.random() < 0.3
                else {
                    "name": "carcontrol_seat_set_heating_level",
                    "arguments": {"seat": "driver", "level": random.randint(0, 3)},
                }
            )

    env = gym.make("VehicleMem-v0", data=tiny_data, max_steps=30)
    random.seed(1)
    with pytest.raises(PolicyContractError, match="expected the same actions"):
        check_policy(lambda e: Coin(), env, task_ids=("1_0", "1_1", "1_2"))
