"""VehicleMemStream-v0: timeline, writes, as_of by construction, write recall, memory cost, Gym contract."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import vmb_gym  # noqa: F401  (registers the ids)
from vmb_agents.stream.writers import RuleWriter, StoreEverythingWriter, StoreNothingWriter
from vmb_gym.envs.vehicle_mem_stream import Chunk, VehicleMemStreamEnv, build_timeline
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.policy import run_stream_episode
from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario, ToolCall

SKIP = {"name": "skip", "arguments": {}}
FINISH = {"name": "finish", "arguments": {}}

_LINES = [
    (1, "2025-03-01 08:00", "Gary Allen", "Morning! Set my seat heating to level 3, my back loves it."),
    (2, "2025-03-01 08:05", "Nina Park", "Nice weather for a walk today."),
    (3, "2025-03-01 09:10", "Nina Park", "I prefer the cabin temperature at 22 degrees when I drive."),
    (4, "2025-03-02 19:30", "Gary Allen", "Did you see the game last night?"),
    # the first request comes at 2025-03-02 20:00; everything below streams after it
    (5, "2025-03-03 07:45", "Nina Park", "Please remember the ambient light in purple glowlamp style."),
    (6, "2025-03-03 07:50", "Gary Allen", "Actually make my seat heating level 2 from now on."),
]


def _t(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M")


def _query(index: int, text: str, call: ToolCall, as_of: str, evidence: tuple[int, ...]) -> Query:
    return Query(
        task_id=f"7_{index}", scenario_id=7, index=index, text=text, reasoning_type="preference_conflict",
        gold_calls=(call,), gold_call_strings=(call.to_python(),), gold_memory="(test)",
        evidence=(EvidenceEvent("(test)", None, evidence),), as_of=_t(as_of))


def tiny_scenario() -> Scenario:
    """Six lines, two requests: one in the middle of the history, one after it (built here, our own text)."""
    lines = tuple(HistoryLine(i, _t(ts), who, text) for i, ts, who, text in _LINES)
    queries = (
        _query(
            0,
            "At 8:00 PM, Gary got into the driver's seat: 'Warm my seat the way I like it.'",
            ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3}),
            "2025-03-02 20:00",
            (1,),
        ),
        _query(
            1,
            "At 8:00 AM, Gary got into the driver's seat: 'Seat heating as I said last.'",
            ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 2}),
            "2025-03-03 08:00",
            (1, 6),
        ),
    )
    return Scenario(7, ("Gary Allen", "Nina Park"), lines, queries, source="test")


def make(**kw: object) -> gym.Env:
    return gym.make("VehicleMemStream-v0", data=[tiny_scenario()], **kw)


def _drive(env: gym.Env, write, read=None):
    """Run a timeline: ``write(info)`` at chunks, ``read(info)`` (default finish) at requests."""
    obs, info = env.reset(seed=0)
    steps: list[tuple[str, float, dict]] = []
    while True:
        action = write(info) if info["phase"] == "write" else (read(info) if read else FINISH)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        steps.append((obs, reward, info))
        assert not truncated
        if terminated:
            return steps, info["episode_stats"]


def store_all(info: dict) -> list:
    return [{"name": "store", "arguments": {"line_ids": [ln["line_id"] for ln in info["lines"]]}}, SKIP]


def test_timeline_interleaves_requests_and_cuts_chunks() -> None:
    sc = tiny_scenario()
    items = build_timeline(sc.lines, sc.queries, chunk_minutes=60)
    shape = [tuple(ln.line_id for ln in it.lines) if isinstance(it, Chunk) else it.task_id for it in items]
    assert shape == [(1, 2), (3,), (4,), "7_0", (5, 6), "7_1"]
    assert [len(it.lines) for it in build_timeline(sc.lines, sc.queries, 24 * 60) if isinstance(it, Chunk)] == [3, 1, 2]
    # a request inside a bucket cuts it: line 1 before the 08:02 request, line 2 after it; history after the
    # last request is dropped
    early = replace(sc.queries[0], as_of=_t("2025-03-01 08:02"))
    shape = [tuple(ln.line_id for ln in it.lines) if isinstance(it, Chunk) else it.task_id
             for it in build_timeline(sc.lines, [early], 60)]
    assert shape == [(1,), "7_0"]
    shape = [tuple(ln.line_id for ln in it.lines) if isinstance(it, Chunk) else it.task_id
             for it in build_timeline(sc.lines, [early, sc.queries[1]], 60)]
    assert shape == [(1,), "7_0", (2,), (3,), (4,), (5, 6), "7_1"]


def test_check_env_and_seeded_resets() -> None:
    env = make()
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert info["phase"] == "write" and [ln["line_id"] for ln in info["lines"]] == [1, 2]
    assert "#1 [2025-03-01 08:00] Gary Allen:" in obs and info["queries"] == 2 and info["chunks"] == 4


def test_write_recall_store_everything_is_one_and_store_nothing_zero() -> None:
    _, everything = _drive(make(), store_all)
    assert everything["write_recall"] == 1.0
    assert (everything["evidence_streamed"], everything["evidence_stored"]) == (3, 3)
    assert everything["store_entries"] == 4 and everything["lines_stored"] == 6
    assert everything["write_precision"] == pytest.approx(2 / 6)  # lines 1 and 6 are evidence
    _, nothing = _drive(make(), lambda info: SKIP)
    assert nothing["write_recall"] == 0.0 and nothing["store_entries"] == 0 and nothing["write_precision"] is None


def test_recall_counts_only_what_was_stored_before_each_request() -> None:
    def only_late(info: dict) -> list:  # stores line 1 only after the first request
        ids = [ln["line_id"] for ln in info["lines"]]
        if 5 in ids:
            return [{"name": "store", "arguments": {"text": "Gary: seat heating 3 (said on March 1)", "line_ids": [1]}},
                    {"name": "store", "arguments": {"line_ids": [6]}}, SKIP]
        return SKIP

    _, ep = _drive(make(), only_late)
    per = {r["task_id"]: (r["evidence_streamed"], r["evidence_stored"]) for r in ep["per_query"]}
    assert per == {"7_0": (1, 0), "7_1": (2, 2)}
    assert ep["write_recall"] == pytest.approx(2 / 3)


def test_search_never_returns_a_line_streamed_after_the_request() -> None:
    seen: dict[str, list] = {}

    def read(info: dict) -> list:
        if "request" in info:
            return [
                {
                    "name": "search_memory",
                    "arguments": {"query": "seat heating level purple ambient light", "top_k": 20},
                }
            ]
        seen.setdefault("hits", []).append(info["memory_hits"])
        return FINISH

    _, ep = _drive(make(), store_all, read)
    first, second = seen["hits"]
    first_lines = {i for h in first[0]["hits"] for i in h["line_ids"]}
    assert first_lines and first_lines <= {1, 2, 3, 4}
    assert all(datetime.fromisoformat(h["timestamp"]) <= _t("2025-03-02 20:00") for h in first[0]["hits"])
    assert {5, 6} <= {i for h in second[0]["hits"] for i in h["line_ids"]}  # written later: found later
    assert ep["store_violations"] == 0


def test_store_everything_with_a_reader_answers_and_nothing_does_worse() -> None:
    env = make()
    ep_all = run_stream_episode(env, StoreEverythingWriter(), seed=0)
    ep_none = run_stream_episode(env, StoreNothingWriter(), seed=0)
    assert ep_all.episode["esm"] == [1.0, 1.0]  # level 3 before the correction, level 2 after it
    assert ep_none.episode["esm"] == [0.0, 0.0]
    rule = run_stream_episode(env, RuleWriter(), seed=0).episode
    stored = sorted(i for e in env.unwrapped.store.entries for i in e.line_ids)
    assert stored == [1, 3, 5, 6]  # the lines stating a setting's value; chit-chat (2, 4) is dropped
    assert rule["write_recall"] == 1.0 and rule["write_precision"] == pytest.approx(2 / 4)


def test_memory_cost_is_proportional_to_stored_tokens() -> None:
    returns = {}
    for cost in (0.0, 0.01):
        steps, ep = _drive(make(memory_cost=cost), store_all)
        returns[cost] = sum(r for _, r, _ in steps)
        tokens = ep["tokens_written"]
    texts = (
        ["Gary Allen: " + _LINES[0][3] + "\nNina Park: " + _LINES[1][3]]
        + [f"{who}: {text}" for _, _, who, text in _LINES[2:4]]
        + ["Nina Park: " + _LINES[4][3] + "\nGary Allen: " + _LINES[5][3]]
    )
    assert tokens == sum(count_tokens(t) for t in texts) > 0
    assert returns[0.0] - returns[0.01] == pytest.approx(0.01 * tokens)


@pytest.mark.parametrize("bad", [
    None, 42, "", "{not json", [], [[SKIP]], {"name": "store"},
    {"name": "store", "arguments": {"line_ids": [99]}},          # not streamed yet
    {"name": "store", "arguments": {"line_ids": [5]}},           # streams after this chunk
    {"name": "store", "arguments": {"line_ids": "1"}},
    {"name": "store", "arguments": {"line_ids": [True]}},
    {"name": "store", "arguments": {"text": 3}},
    {"name": "store", "arguments": {"people": [1]}},
    {"name": "store", "arguments": {"setting": ["x"]}},
    {"name": "store", "arguments": {"bogus": 1}},
    {"name": "update", "arguments": {"entry_id": "P99", "text": "x"}},
    {"name": "update", "arguments": {"entry_id": ["P1"], "text": "x"}},
    {"name": "delete", "arguments": {"entry_id": None}},
    {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
    {"name": "finish", "arguments": {}},
])
def test_malformed_write_actions_do_not_raise(bad: object) -> None:
    env = make()
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(bad)
    assert info["action_error"] and env.observation_space.contains(obs)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["phase"] == "write" and env.unwrapped.store_size() == (0, 0)


def test_update_supersedes_and_delete_hides() -> None:
    env = make()
    env.reset(seed=0)
    _, _, _, _, info = env.step([{"name": "store", "arguments": {"line_ids": [1]}},
                                 {"name": "store", "arguments": {"text": "Nina likes walks", "people": ["Nina Park"]}}])
    assert info["entry_ids"] == ["P1", "P2"] and info["action_error"] is None
    _, _, _, _, info = env.step([{"name": "update", "arguments": {"entry_id": "P1", "text": "Gary: seat heating 3"}},
                                 {"name": "delete", "arguments": {"entry_id": "P2"}},
                                 {"name": "update", "arguments": {"entry_id": "P1", "text": "again"}}])
    assert info["entry_ids"] == ["P3"] and "superseded" in info["action_error"]
    store = env.unwrapped.store
    assert store.get("P3").line_ids == (1,) and store.get("P3").supersedes == "P1"
    assert env.unwrapped.store_size() == (1, count_tokens("Gary: seat heating 3"))
    hits = store.search("walks seat heating", as_of=_t("2025-03-01 09:00"), top_k=5)
    assert [h.entry_id for h in hits] == ["P3"]


def test_chunk_closes_after_max_chunk_steps() -> None:
    env = make(max_chunk_steps=2)
    env.reset(seed=0)
    _, _, _, _, info = env.step({"name": "store", "arguments": {"line_ids": [2]}})
    assert "lines" not in info
    obs, _, _, _, info = env.step({"name": "store", "arguments": {"line_ids": [1]}})
    assert [ln["line_id"] for ln in info["lines"]] == [3] and "#3 " in obs


def test_query_step_limit_scores_and_moves_on() -> None:
    env = make(max_query_steps=2)
    env.reset(seed=0)
    for _ in range(3):
        env.step(SKIP)
    rewards = []
    for _ in range(2):
        _, r, _, _, info = env.step(
            {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}
        )
        rewards.append(r)
    assert rewards == [0.0, 1.0] and info["query_truncated"] and info["phase"] == "write"


def test_window_days_limits_the_timeline() -> None:
    env = make(window_days=0.5)
    _, info = env.reset(seed=0, options={"anchor_task_id": "7_1"})
    assert info["queries"] == 1 and [ln["line_id"] for ln in info["lines"]] == [5, 6]
    _, ep = _drive_from(env, info, store_all)
    assert ep["per_query"][0]["evidence_streamed"] == 1 and ep["write_recall"] == 1.0  # line 1 is outside the window


def _drive_from(env: gym.Env, info: dict, write):
    while True:
        action = write(info) if info["phase"] == "write" else FINISH
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            return obs, info["episode_stats"]


def test_step_after_the_end_and_bad_options() -> None:
    env = make()
    _drive(env, lambda info: SKIP)
    obs, r, term, _, info = env.step(SKIP)
    assert term and "reset" in info["action_error"]
    with pytest.raises(Exception, match="scenario_id"):
        env.reset(options={"scenario_id": 99})
    with pytest.raises(Exception, match="window_days"):
        VehicleMemStreamEnv([tiny_scenario()], window_days=0)
    with pytest.raises(Exception, match="searchable"):
        VehicleMemStreamEnv([tiny_scenario()], store="none")


def test_sync_vector_env_runs_and_is_deterministic() -> None:
    def run() -> list:
        envs = gym.vector.SyncVectorEnv([lambda: make() for _ in range(2)])
        _, infos = envs.reset(seed=3)
        out = []
        for i in range(12):
            action = SKIP if i % 2 == 0 else FINISH  # finish is invalid while writing; skip is invalid at requests
            _, rew, term, trunc, infos = envs.step((action, SKIP))
            out.append((tuple(float(x) for x in rew), tuple(bool(t) for t in term)))
        envs.close()
        return out

    first = run()
    assert first == run()
    assert any(any(t) for _, t in first)


def test_default_benchmark_episode_runs() -> None:
    env = gym.make("VehicleMemStream-v0", files=[1], window_days=3)
    ep = run_stream_episode(env, RuleWriter(), seed=0).episode
    assert ep["queries"] >= 1 and ep["store_violations"] == 0 and ep["write_invalid_actions"] == 0
