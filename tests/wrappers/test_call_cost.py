"""VehicleCallCost: each vehicle call is charged at its step; discovery, search and finish are free."""

from __future__ import annotations

import math

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401 - registers VehicleMem-v0
from vmb_gym.errors import ConfigError
from vmb_gym.wrappers import VehicleCallCost


def _env(tiny_data: str) -> gym.Env:
    return gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=8, gated=False)


def _gold(env: gym.Env) -> list[dict]:
    return [c.to_json() for c in env.unwrapped._query.gold_calls]


def test_each_vehicle_call_costs_and_the_final_reward_is_kept(tiny_data: str) -> None:
    plain, costly = _env(tiny_data), VehicleCallCost(_env(tiny_data), cost=0.25)
    plain.reset(seed=0)
    costly.reset(seed=0)
    gold = _gold(plain)
    assert gold == _gold(costly) and gold
    wrong = {"name": gold[0]["name"], "arguments": {"no_such_argument": 1}}  # a failed call is charged too
    search, finish = {"name": "search_memory", "arguments": {"query": "seat"}}, {"name": "finish", "arguments": {}}
    steps = [search, wrong, gold, finish]
    for action in steps:
        _, r_plain, done_plain, _, _ = plain.step(action)
        _, r_cost, done_cost, _, info = costly.step(action)
        calls = len(action) if isinstance(action, list) else int(action["name"] not in ("search_memory", "finish"))
        assert info["call_cost"] == pytest.approx(0.25 * calls)
        assert r_cost == pytest.approx(float(r_plain) - 0.25 * calls)
        assert done_plain == done_cost
    assert done_cost and r_plain > 0  # the gold calls still earn the final reward


@pytest.mark.parametrize("cost", [-0.1, math.nan, math.inf, "0.1", True])
def test_a_bad_cost_is_refused(tiny_data: str, cost: object) -> None:
    with pytest.raises(ConfigError, match="cost must be a finite number >= 0"):
        VehicleCallCost(_env(tiny_data), cost=cost)  # type: ignore[arg-type]
