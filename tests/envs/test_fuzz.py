"""Property-based tests: the action parser and step() never raise, whatever a policy sends.

The seeded bombardment of every registered env (``vmb_gym.testing.bombard``) runs in
``tests/test_contracts.py``; ``scripts/fuzz.py`` runs it for millions of actions.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vmb_gym  # noqa: F401
from vmb_gym.envs.actions import parse_action
from vmb_gym.errors import ActionError
from vmb_gym.vehicle import API_SPECS

NAMES = sorted(API_SPECS) + ["list_module_tools", "search_memory", "finish", "unknown_tool", ""]
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=50))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                           st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
arguments = st.dictionaries(st.sampled_from(["level", "seat", "zone", "color", "switch", "value", "x", "enabled",
                                              "module_name", "query", "top_k", "destination"]), json_values, max_size=4)
calls = st.builds(lambda n, a: {"name": n, "arguments": a}, st.sampled_from(NAMES), arguments)
actions = st.one_of(calls, st.lists(calls, max_size=4), st.text(max_size=300), json_values,
                    st.binary(max_size=64), calls.map(str))


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> gym.Env:
    from tests.conftest import write_tiny_dataset

    root = write_tiny_dataset(tmp_path_factory.mktemp("fuzz"))
    return gym.make("VehicleMem-v0", data=f"official:{root}", max_steps=10**6).unwrapped


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=actions)
def test_step_never_raises(env: gym.Env, action: object) -> None:
    env.reset(options={"task_id": "1_0"})
    before = env.runtime.sim.flatten()
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs, str) and env.observation_space.contains(obs)
    assert isinstance(reward, float)
    if info["action_error"] and not info["calls"][0]["name"]:
        # a rejected action leaves the car exactly as it was
        assert env.runtime.sim.flatten() == before


@settings(max_examples=400, deadline=None)
@given(action=actions)
def test_parser_raises_only_action_error(action: object) -> None:
    try:
        calls = parse_action(action)
    except ActionError as exc:
        assert str(exc)
    else:
        assert calls and all(isinstance(c.name, str) and isinstance(c.arguments, dict) for c in calls)
