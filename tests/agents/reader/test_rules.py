"""The rule-based reading baseline: right call from memory, minimal action without it, above no-op."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_gym.policy import run_episode
from vmb_agents.baselines import NoopPolicy
from vmb_agents.reader import Candidate, RulesPolicy, enable_api, extract_value, numbers_in, read_request, score_apis
from vmb_agents.reader.request import api_text
from vmb_gym.memory import MemoryHit
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle import lexicon

HISTORY = """\
[2025-03-01 08:00] Gary Allen: Morning, Nina. Set my seat heating to level 3, my back loves it.
[2025-03-01 08:01] Nina Park: Good for you. I keep the cabin at 22 degrees when I drive.
[2025-03-01 08:02] Gary Allen: Noted. The panel colour green feels calm to me.
[2025-03-02 19:30] Nina Park: At night I want the ambient light in blue, please remember.
[2025-03-02 19:31] Gary Allen: Sure, blue ambient at night for you then.
[2025-03-03 07:45] Nina Park: Take me to Riverside Library tomorrow, that's my study spot.
[2025-03-04 08:00] Nina Park: My seat heating is on level 1 today, I'm not that cold.
[2025-03-05 09:00] Gary Allen: The headrest is too low for me. Raise my headrest height to 40.
[2025-03-05 09:01] Nina Park: Fine, but I'll put mine back at 25 when I drive.
"""

QA = {
    "related_to_vehicle_preference": [
        {
            "gold_memory": "[March 1, 2025] At 8:00 AM, Gary set the seat heating to level 3.",
            "reasoning_type": "preference_conflict",
            "query": "At 8:10 AM, Gary got into the driver's seat with Nina. "
                     "He told the car: 'Warm my seat the way I like it.'",
            "new_answer": ['carcontrol_seat_set_heating_level(seat="driver", level=3)'],
        },
        {
            "gold_memory": "[March 5, 2025] At 9:00 AM, Gary raised his headrest to 40.",
            "reasoning_type": "preference_conflict",
            "query": "At 7:30 AM, Gary got into the driver's seat. He said: 'Put my headrest where I had it.'",
            "new_answer": ['carcontrol_seat_set_headrest_height(seat="driver", value=40)'],
        },
        {
            "gold_memory": "[March 2, 2025] At 7:30 PM, Nina asked for blue ambient light at night.",
            "reasoning_type": "conditional_constraint",
            "query": "At 9:00 PM, Nina was driving home. She told the car: 'Set the ambient light for the night.'",
            "new_answer": ['carcontrol_light_set_ambient_color(color="blue")'],
        },
    ]
}


@pytest.fixture()
def small_data(tmp_path: Path) -> str:
    """A two-person scenario in the official layout, written by the test."""
    root = tmp_path / "rules"
    (root / "history").mkdir(parents=True)
    (root / "qa_data").mkdir(parents=True)
    (root / "history" / "history_1.txt").write_text(HISTORY, encoding="utf-8")
    (root / "qa_data" / "qa_1.json").write_text(json.dumps(QA), encoding="utf-8")
    return f"official:{root}"


def _run(env: gym.Env, policy: object, task_id: str):
    return run_episode(env, policy, task_id=task_id)  # type: ignore[arg-type]


def test_reads_the_persons_value_from_memory(small_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=small_data, reward="esm")
    policy = RulesPolicy("bm25", source=env)
    ep = _run(env, policy, "1_0")
    vehicle = [c for c in ep.calls if c["name"].startswith("carcontrol_")]
    # Gary's level 3, not Nina's later level 1
    assert vehicle == [{"name": "carcontrol_seat_set_heating_level", "arguments": {"level": 3, "seat": "driver"},
                        "result": vehicle[0]["result"]}]
    assert ep.terminated and ep.reward == 1.0
    assert ep.metrics["exact_match"] == 1


def test_headrest_and_night_condition(small_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=small_data, reward="esm")
    policy = RulesPolicy("bm25", top_k=5, source=env.unwrapped.tasks)
    ep = _run(env, policy, "1_1")
    assert policy.last["calls"] == [{"name": "carcontrol_seat_set_headrest_height",
                                     "arguments": {"value": 40, "seat": "driver"}}]
    assert ep.reward == 1.0
    ep = _run(env, policy, "1_2")
    assert policy.last["calls"] == [{"name": "carcontrol_light_set_ambient_color", "arguments": {"color": "blue"}}]
    assert ep.reward == 1.0


def test_without_memory_takes_the_minimal_action(small_data: str) -> None:
    env = gym.make("VehicleMem-v0", data=small_data, reward="esm")
    policy = RulesPolicy("none", source=env)
    ep = _run(env, policy, "1_0")
    assert policy.last["calls"] == [{"name": "carcontrol_seat_set_heating_mode",
                                     "arguments": {"enabled": True, "seat": "driver"}}]
    assert ep.terminated and ep.reward == 0.0  # switched on, but not at level 3
    assert ep.metrics["state"]["f1_change"] > 0 if "state" in ep.metrics else True


def test_request_reading() -> None:
    speakers = ("Gary Allen", "Patricia Garcia", "Justin Martinez")
    req = read_request("At 4:00 PM, Patricia got in the passenger seat with Gary driving. She said: "
                       "'I can't read my notes, make it one level brighter than usual.'", speakers)
    assert req.target == "Patricia Garcia" and req.seat == "passenger" and req.driver == "Gary Allen"
    assert req.delta == 1
    # the driver's seat named before the passenger: the speaker is at the wheel (official scenario wording)
    req = read_request("At 7:00 AM, Gary got into the driver's seat with Patricia as passenger. Gary told the car: "
                       "'Restore my leg support settings.'", speakers)
    assert req.target == "Gary Allen" and req.seat == "driver"
    req = read_request("At 7:00 AM, Gary drove. Patricia sat in the passenger seat and said: 'Warm my seat.'", speakers)
    assert req.target == "Patricia Garcia" and req.seat == "passenger"
    req = read_request("At 1:00 PM, Jonathan told the car: 'Adjust the screen for Justin's daylight preference, "
                       "2 degrees cooler.'", ("Jonathan Lee", "Justin Martinez"))
    assert req.target == "Justin Martinez" and req.delta == -2 and "day" in req.conditions


def test_value_extraction_uses_the_vocabulary() -> None:
    hud = API_SPECS["carcontrol_HUD_set_brightness_level"]
    assert extract_value(hud, "For the HUD I want the brightness maxed out during the day.") == 10
    assert extract_value(hud, "At 8:00 PM I set the HUD brightness to four.") == 4
    assert extract_value(hud, "HUD brightness at 40") is None  # out of range 1-10
    voice = API_SPECS["carcontrol_navigation_set_voice_mode"]
    assert extract_value(voice, "The voice is too chatty. Set it to simple.") == "simple"
    panel = API_SPECS["carcontrol_instrumentPanel_set_color"]
    assert extract_value(panel, "Green is too dark for me at night. I prefer white.") == "white"
    nav = API_SPECS["carcontrol_navigation_navigate_to"]
    # "tomorrow" says when, not where
    assert extract_value(nav, "Take me to Riverside Library tomorrow.") == "Riverside Library"
    assert [n.value for n in numbers_in("At 8:30 AM set it to forty-four, then 5 percent more")] == [44, 5]
    assert enable_api("carcontrol_seat_set_massage_level") == ("carcontrol_seat_set_massage_mode", {"enabled": True})
    # a correction that names both numbers: the rejected one loses, wherever it stands
    temp = API_SPECS["carcontrol_airConditioner_set_temperature"]
    assert extract_value(temp, "Ugh, 20 degrees is overkill. 17 degrees is better.") == 17
    heat = API_SPECS["carcontrol_seat_set_heating_level"]
    assert extract_value(heat, "Level 1 does nothing for me. Level 2 is better.") == 2
    trunk = API_SPECS["carcontrol_trunk_set_open_degree"]
    assert extract_value(trunk, "Actually, dial it back to 25 percent. 65 percent was too much.") == 25
    assert extract_value(trunk, "Scratch that, 45 percent is a mistake. 30 percent is the one I want.") == 30
    assert enable_api("carcontrol_navigation_set_voice_mode") == ("carcontrol_navigation_switch", {"switch": True})


def test_public_search_and_candidates_plan_like_the_policy() -> None:
    # the slot design calls these directly: the policy's own plan must come from the same pieces
    policy = RulesPolicy("none")
    policy.names = ("Gary Allen", "Nina Park")
    req = read_request("At 8:10 AM, Gary got into the driver's seat. He said: 'Warm my seat the way I like it.'",
                       policy.names)
    scores = score_apis(api_text(req))
    hit = MemoryHit(entry_id="1", text="Gary Allen: Set my seat heating to level 3, my back loves it.", score=1.0,
                    timestamp=None, people=("Gary Allen",))
    cands = policy.candidates(req, scores, [hit])
    assert isinstance(cands[0], Candidate)
    assert (cands[0].api, cands[0].value) == ("carcontrol_seat_set_heating_level", 3)
    assert policy._candidates(req, scores, [hit]) == cands  # the old spelling still works
    assert policy.search(req, scores, None, None) == []  # type: ignore[arg-type]  # "none" memory: no search
    policy.clear_memory_figures()
    assert policy.memory_session.figures() == {"memory_searches": 0, "memory_tokens": 0, "memory_hits": []}


def test_rules_read_the_lexicon_tables() -> None:
    # one table, not a copy: vmb_agents.reader re-exports the lexicon's objects
    import vmb_agents.reader as rules

    for name in ("MODULE_WORDS", "API_WORDS", "MODULE_DEFAULT", "VALUE_SYNONYMS", "CONDITIONS", "OPPOSITE",
                 "STOP_WORDS"):
        assert getattr(rules, name) is getattr(lexicon, name), name


def test_official_rules_beat_noop(official: Path) -> None:
    env = gym.make("VehicleMem-v0", data=f"official:{official}", files=[1, 2, 3], reward="esm")
    tasks = env.unwrapped.tasks
    rules = RulesPolicy("bm25", source=env)
    noop = NoopPolicy()
    ids = [q.task_id for q in tasks.queries]
    rules_esm = sum(_run(env, rules, t).reward for t in ids) / len(ids)
    noop_esm = sum(_run(env, noop, t).reward for t in ids) / len(ids)
    assert rules_esm > noop_esm
    assert rules_esm >= 0.1
