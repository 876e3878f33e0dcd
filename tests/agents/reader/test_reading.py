"""One reading of a request per step (vmb_agents.reader.reading): built from the reader's own pieces and the env's
structured hits, and handed to the rules reader, the slot design and the guided language model."""

from __future__ import annotations

import gymnasium as gym

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_agents.reader import RulesPolicy, read_request, score_apis
from vmb_agents.reader.reading import Reading, ReadingTracker, hit_from_record
from vmb_agents.reader.request import api_text
from vmb_gym.envs.tool_runtime import hit_record

REQUEST = ("At 8:00 AM, Gary Allen was driving alone. Gary said: 'Set the seat heating for me one level higher, "
           "please.'")


def test_the_reading_is_the_readers_own_reading_of_the_request() -> None:
    reading = Reading.of(REQUEST, ["Gary Allen", "Nina Park"])
    assert reading.request == read_request(REQUEST, ["Gary Allen", "Nina Park"])
    assert (reading.speaker, reading.seat, reading.quotes) == ("Gary Allen", "driver", reading.request.quotes)
    assert reading.quotes == ["Set the seat heating for me one level higher, please."]
    assert reading.settings == score_apis(api_text(reading.request))
    assert max(reading.settings, key=reading.settings.__getitem__) == "carcontrol_seat_set_heating_level"
    assert reading.request.delta == 1 and reading.searches == () and reading.last_search is None


def _search_step(env: gym.Env, query: str) -> dict:
    _, _, _, _, info = env.step([{"name": "search_memory", "arguments": {"query": query, "top_k": 4}},
                                 {"name": "search_memory", "arguments": {"query": 7}}])  # the second one fails
    return info


def test_each_step_adds_its_searches_as_structured_hits_a_failed_one_empty() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25")
    obs, info = env.reset(options={"task_id": env.unwrapped.tasks.queries[0].task_id})
    tracker = ReadingTracker()
    first = tracker.update(obs, info)
    assert first is not None and first.text == info["request"] and first.searches == ()
    step = _search_step(env, "seat heating")
    reading = tracker.update("", step)
    assert reading is not None and [s.query for s in reading.searches] == ["seat heating", None]
    found = step["memory_hits"][0]["hits"]
    assert [hit_record(h) for h in reading.searches[0].hits] == found and len(found) == 4
    assert reading.last_search is not None and reading.last_search.hits == ()  # the failed search shows nothing
    assert reading.request is first.request  # the request is read once per episode
    lines = reading.search_lines(0)
    stamps = [line[1:17] for line, _ in lines]
    assert stamps == sorted(stamps) and {body for _, body in lines} == {h["text"] for h in found}
    best_two = reading.searches[0].in_time_order(2)  # the two best-ranked hits, oldest first
    assert {h.entry_id for h in best_two} == {h["entry_id"] for h in found[:2]}
    assert reading.memory_lines(first=2) == [h.render().split("] ", 1)[1] for h in best_two]
    # a new episode starts a new reading
    obs, info = env.reset(options={"task_id": env.unwrapped.tasks.queries[1].task_id})
    assert tracker.update(obs, info).searches == ()


def test_a_hit_record_reads_back_as_the_same_hit() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25")
    env.reset(options={"task_id": env.unwrapped.tasks.queries[0].task_id})
    records = _search_step(env, "seat heating")["memory_hits"][0]["hits"]
    assert records and [hit_record(hit_from_record(r)) for r in records] == records


def test_the_rules_reader_plans_from_its_reading() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25")
    policy = RulesPolicy(source=env)
    obs, info = env.reset(options={"task_id": env.unwrapped.tasks.queries[0].task_id})
    policy.reset(obs, info)
    assert policy.reading is not None and policy.reading.text == info["request"]
    assert policy.last["request"] is policy.reading.request
