"""vmb_gym.policy (one episode loop, the policy's memory merged) and vmb_gym.memory.session (one accounting)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the ids)
from vmb_gym.errors import ConfigError
from vmb_gym.memory import count_tokens, make_memory
from vmb_gym.memory.base import MemoryHit
from vmb_gym.memory.session import MemorySession, render_hits
from vmb_gym.policy import (
    Episode,
    MemoryPolicy,
    Policy,
    episode_query,
    merge_memory_figures,
    policy_memory_figures,
    run_episode,
)

FINISH = {"name": "finish", "arguments": {}}


class Finish:
    """Finishes at once."""

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.info = info

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        return FINISH


class SearchesItself(Finish):
    """Holds a module and searches it once per episode through a MemorySession."""

    def __init__(self, env: gym.Env) -> None:
        self.tasks = env.unwrapped.tasks
        self.memory_session: MemorySession | None = MemorySession(make_memory("bm25"))

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        assert self.memory_session is not None
        self.memory_session.reset()
        self.memory_session.memory.ingest(self.tasks.scenarios[info["scenario_id"]])
        self.result = self.memory_session.search("Gary seat heating level", as_of=datetime.fromisoformat(info["as_of"]),
                                                 top_k=3)


def test_run_episode_records_a_finished_episode(tiny_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=tiny_data)
    ep = run_episode(env, Finish(), task_id="1_1", seed=3)
    assert isinstance(ep, Episode)
    assert (ep.task_id, ep.terminated, ep.truncated, ep.actions) == ("1_1", True, False, [FINISH])
    assert ep.metrics["exact_match"] is False and ep.episode["steps"] == 1
    assert isinstance(Finish(), Policy) and not isinstance(Finish(), MemoryPolicy)


def test_options_and_task_id_are_combined(tiny_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=tiny_data)
    ep = run_episode(env, Finish(), task_id="1_2", options={"task_id": "1_0"})
    assert ep.task_id == "1_2"  # the keyword wins over the options
    assert run_episode(env, Finish(), options={"task_id": "1_0"}).task_id == "1_0"


def test_policy_memory_is_counted_like_the_env_tool(tiny_data: str) -> None:
    """The same search through the env's tool and through a policy-held session gives the same figures."""
    env = gym.make("VehicleMem-v0", data=tiny_data, memory="bm25")
    env.reset(options={"task_id": "1_0"})
    env.step({"name": "search_memory", "arguments": {"query": "Gary seat heating level", "top_k": 3}})
    tool = env.step(FINISH)[4]["episode_stats"]

    plain = gym.make("VehicleMem-v0", data=tiny_data)
    policy = SearchesItself(plain)
    assert isinstance(policy, MemoryPolicy)
    ep = run_episode(plain, policy, task_id="1_0")
    for key in ("memory_searches", "memory_tokens", "memory_hit_line_ids", "memory_audit"):
        assert ep.episode[key] == tool[key], key
    assert ep.episode["memory_searches"] == 1 and ep.episode["memory_audit"]["recall@3"] == 1.0
    assert ep.episode["memory_tokens"] == policy.result.tokens == count_tokens(policy.result.text)


def test_legacy_memory_figures_still_merge(tiny_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=tiny_data)
    hit = MemoryHit("L0", "x", 1.0, datetime(2025, 3, 1, 8, 0), line_ids=(0, 2))

    class Legacy(Finish):
        def memory_figures(self) -> dict[str, Any]:
            return {"memory_searches": 2, "memory_tokens": 7, "memory_hits": [hit]}

    ep = run_episode(env, Legacy(), task_id="1_0")
    assert (ep.episode["memory_searches"], ep.episode["memory_tokens"]) == (2, 7)
    assert ep.episode["memory_hit_line_ids"] == [0, 2]
    assert "memory_audit" in ep.episode  # computed against the task's evidence
    assert policy_memory_figures(Finish(), None) is None


def test_merge_adds_counts_and_keeps_the_env_audit() -> None:
    episode: dict[str, Any] = {"memory_searches": 1, "memory_tokens": 10, "memory_hit_line_ids": [3],
                               "memory_audit": {"mrr": 1.0}}
    merge_memory_figures(episode, {"memory_searches": 2, "memory_tokens": 5, "memory_hit_line_ids": [1, 3],
                                   "memory_audit": {"mrr": 0.5}})
    assert episode == {"memory_searches": 3, "memory_tokens": 15, "memory_hit_line_ids": [1, 3],
                       "memory_audit": {"mrr": 1.0}}
    before = dict(episode)
    merge_memory_figures(episode, {"memory_searches": 0, "memory_tokens": 99, "memory_hits": []})
    assert episode == before  # nothing searched, nothing merged


def test_episode_query_finds_the_task(tiny_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=tiny_data)
    assert episode_query(env, "1_2").task_id == "1_2"
    assert episode_query(env, "nope") is None


class FakeModule:
    """Returns fixed hits, one of them after any request time."""

    name = "fake"
    provides_search = True

    def __init__(self, now: datetime) -> None:
        self.hits = [MemoryHit("L1", "early", 2.0, now - timedelta(days=1), line_ids=(1,)),
                     MemoryHit("L2", "late", 1.0, now + timedelta(days=1), line_ids=(2,)),
                     MemoryHit("L3", "undated", 0.5, None, line_ids=(3,))]
        self.calls: list[str] = []

    def search(self, query: str, *, as_of: datetime | None, top_k: int) -> list[MemoryHit]:
        self.calls.append(query)
        return self.hits[:top_k]


def test_session_drops_future_hits_renders_once_and_counts() -> None:
    now = datetime(2025, 3, 2, 12, 0)
    session = MemorySession(FakeModule(now))
    result = session.search("q", as_of=now, top_k=5)
    assert [h.entry_id for h in result.hits] == ["L1", "L3"]  # the hit after as_of is dropped
    assert result.text == render_hits(result.hits) and result.text.startswith("1. [2025-03-01 12:00] early\n2. ")
    assert result.tokens == count_tokens(result.text)
    f = session.figures()
    assert (f["memory_searches"], f["memory_tokens"], f["memory_hit_line_ids"]) == (1, result.tokens, [1, 3])
    assert "memory_audit" not in f  # no query given
    session.reset()
    assert session.figures() == {"memory_searches": 0, "memory_tokens": 0, "memory_hits": []}


def test_session_pools_searches_and_refuses_context_without_neighbours() -> None:
    now = datetime(2025, 3, 2, 12, 0)
    module = FakeModule(now)
    session = MemorySession(module)
    pooled = session.search_pooled(["a", "b", "c"], as_of=now, top_k=5)
    assert module.calls == ["a", "b", "c"]
    assert [h.entry_id for h in pooled.hits] == ["L1", "L3"]  # each entry once
    assert pooled.text == "\n".join(h.render() for h in pooled.hits)
    assert session.searches == 3 and session.tokens == count_tokens(pooled.text)
    session.add_context(4)
    assert session.tokens == pooled.tokens + 4
    with pytest.raises(ConfigError, match="neighbouring lines"):
        session.search("q", as_of=now, top_k=5, context=1)
