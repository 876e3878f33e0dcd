"""``make_policy`` options: each is checked against the policy's constructor, none is dropped."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_agents.baselines import RandomPolicy
from vmb_agents.factory import make_policy
from vmb_agents.reader import RulesPolicy
from vmb_gym.data import embedded_benchmark_dir
from vmb_gym.errors import ConfigError


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make("VehicleMem-v0", data=str(Path(embedded_benchmark_dir())), memory="bm25")


@pytest.mark.parametrize(("spec", "accepted"), [
    ("oracle", "none"), ("noop", "none"), ("random", "calls_per_episode, seed, schema"),
    ("rules", "memory, top_k, memory_kwargs"),
])
def test_unknown_option_names_the_accepted_ones(env: gym.Env, spec: str, accepted: str) -> None:
    with pytest.raises(ConfigError) as error:
        make_policy(spec, env, temperature=0.2, seed=1) if spec != "random" else make_policy(spec, env, temprature=0.2)
    message = str(error.value)
    assert f"policy {spec!r} takes no option" in message and "--policy-kwargs" in message
    assert message.endswith(f"it accepts {accepted}; fix: drop or rename them in --policy-kwargs")


def test_known_options_reach_the_constructor(env: gym.Env) -> None:
    policy = make_policy("random", env, seed=5, calls_per_episode=3)
    assert isinstance(policy, RandomPolicy) and policy.calls_per_episode == 3
    rules = make_policy("rules", env, top_k=4)
    assert isinstance(rules, RulesPolicy) and rules.top_k == 4
    assert rules.memory.name == "bm25"  # the env's memory when none is given


def test_internal_parameters_are_not_options(env: gym.Env) -> None:
    with pytest.raises(ConfigError, match="takes no option.*'source'"):
        make_policy("rules", env, source=None)
    with pytest.raises(ConfigError, match="takes no option.*'tasks'"):
        make_policy("oracle", env, tasks=None)
