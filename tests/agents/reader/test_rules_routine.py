"""The rules reader on the layered memory: a routine request gets the routine, a fact is read revision by revision."""

from __future__ import annotations

from datetime import datetime, timedelta

from vmb_agents.reader import RulesPolicy
from vmb_agents.reader.hits import revision_hits
from vmb_agents.reader.request import read_request
from vmb_agents.reader.routine import companion_call, line_companions, quote_clauses, routine_plan
from vmb_gym.memory import MemoryHit
from vmb_gym.memory.layered import LayeredMemory
from vmb_gym.types import HistoryLine, Scenario

GARY, PAT = "Gary Allen", "Patricia Garcia"
T0 = datetime(2025, 3, 1, 14, 0)
SCRIPT = [
    (0, GARY, "I'll go with the leg support height at 95 percent today."),
    (1, PAT, "Fair enough."),
    (2, GARY, ("Actually, dial it back to 30 percent. 95 percent was too much. Plus heating on the left mirror "
               "switched on, always.")),
    (3, GARY, "Much better. 30 percent is what I want for the leg rest height."),
    (60 * 24, PAT, "Set the fan speed to 3."),
]
ROUTINE = "At 11:00 AM, Gary was driving to the park, alone. Gary said: 'Put the leg rest height back to my usual, " \
          "please. And the rest of my usual routine with it.'"
PLAIN = "At 11:00 AM, Gary was driving to the park, alone. Gary said: 'Set the leg rest height for me, please.'"


def _scenario() -> Scenario:
    lines = tuple(HistoryLine(i + 1, T0 + timedelta(minutes=m), sp, tx) for i, (m, sp, tx) in enumerate(SCRIPT))
    return Scenario(1, (GARY, PAT), lines, (), "synthetic")


def _plan(request: str, layers=("facts", "experiences", "changes")) -> tuple[list[dict], RulesPolicy]:
    sc = _scenario()
    policy = RulesPolicy(LayeredMemory(semantic=False, layers=layers), source=[sc])
    policy.clear_memory_figures()
    calls = policy.plan(request, sc, sc.lines[-1].timestamp + timedelta(days=1))
    return calls, policy


def test_quote_clauses_marks_the_clause_after_a_routine_break():
    clauses = quote_clauses("Level 4 is better. Same routine: the high beams switched on.")
    assert clauses == [("Level 4 is better.", False), ("the high beams switched on.", True)]


def test_companion_call_reads_switch_wording_and_the_side():
    req = read_request(ROUTINE, (GARY, PAT))
    assert companion_call("heating on the left mirror switched on, always.", set(), req) == {
        "name": "carcontrol_rearviewMirror_set_heating_enabled", "arguments": {"enabled": True, "side": "left"}}
    assert companion_call("the seat heater switched on too.", set(), req) == {
        "name": "carcontrol_seat_set_heating_mode", "arguments": {"enabled": True, "seat": "driver"}}
    assert companion_call("the sunshades open.", set(), req)["arguments"]["sunshade"] == "all"


def test_routine_plan_needs_a_hit_that_names_the_planned_function():
    req = read_request(ROUTINE, (GARY, PAT))
    text = ("Gary Allen's routine [day]: seat.position = 30\n  \"I'll go with the leg support height at 95 percent.\"\n"
            "  \"Actually, dial it back to 30 percent. Plus the high beams switched on.\"")
    hit = MemoryHit(entry_id="E1", text=text, score=5.0, timestamp=T0, people=(GARY,), layer="experience")
    plan = routine_plan([hit], ["carcontrol_seat_set_leg_support_height"], req)
    assert plan.value == 30 and plan.value_from == "E1"
    assert plan.calls == [{"name": "carcontrol_light_set_high_beam", "arguments": {"enabled": True}}]
    other = routine_plan([hit], ["carcontrol_music_set_volume"], req)  # another setting's routine: nothing
    assert other.value is None and other.calls == []


def test_routine_request_gets_the_routine_from_experiences():
    calls, policy = _plan(ROUTINE)
    assert calls == [
        {"name": "carcontrol_seat_set_leg_support_height", "arguments": {"value": 30, "seat": "driver"}},
        {"name": "carcontrol_rearviewMirror_set_heating_enabled", "arguments": {"enabled": True, "side": "left"}},
    ]
    assert policy.last["routine"].value_from.startswith("E")
    # without the experience layer: no experience search; the companion comes from the value's own line
    bare, bare_policy = _plan(ROUTINE, layers=("facts", "changes"))
    assert bare == calls and "routine" not in bare_policy.last
    assert bare_policy.memory_session.searches == policy.memory_session.searches - 1


def test_line_companions_reads_the_clauses_after_a_routine_break():
    req = read_request(PLAIN, (GARY, PAT))
    line = "[2025-03-01 14:02] Gary Allen: " + SCRIPT[2][2]
    assert line_companions(line, ["carcontrol_seat_set_leg_support_height"], req) == [
        {"name": "carcontrol_rearviewMirror_set_heating_enabled", "arguments": {"enabled": True, "side": "left"}}]
    planned = line_companions(line, ["carcontrol_rearviewMirror_set_heating_enabled"], req)  # never a planned one
    assert "carcontrol_rearviewMirror_set_heating_enabled" not in [c["name"] for c in planned]
    assert line_companions("Gary Allen: 30 percent is what I want for the leg rest height.", [], req) == []


def test_rules_reader_adds_the_companion_its_value_line_states():
    """Default task 3_0 (bm25): the window opening's line ends "Plus the sunroof lock locked, always."; the gold
    calls are both, and without the line's companion the reader made only the first."""
    import gymnasium as gym

    env = gym.make("VehicleMem-v0", data="default", memory="bm25")
    policy = RulesPolicy(None, source=env)
    obs, info = env.reset(options={"task_id": "3_0"})
    policy.reset(obs, info)
    assert policy.last["calls"] == [
        {"name": "carcontrol_window_set_open_degree", "arguments": {"degree": 30, "window": "driver"}},
        {"name": "carcontrol_sunroof_set_locked", "arguments": {"locked": True}}]


def test_request_without_a_routine_cue_reads_no_experience():
    calls, policy = _plan(PLAIN)
    bare, bare_policy = _plan(PLAIN, layers=("facts", "changes"))
    assert calls == bare and "routine" not in policy.last
    assert policy.memory_session.searches == bare_policy.memory_session.searches


def test_fact_hit_is_read_revision_by_revision():
    text = ("Gary Allen / steeringWheel (when hugo rides with me: the steering wheel heating at level 6):\n"
            "    [2025-03-01 14:00] Patricia Garcia: Cosy. (context)\n"
            "  [2025-03-01 14:01] Gary Allen: Set the steering wheel heating to level 8.\n"
            "  [2025-02-01 09:00] Gary Allen: The steering wheel heating at level 2. [superseded]")
    hit = MemoryHit(entry_id="F1", text=text, score=1.0, timestamp=T0, line_ids=(1, 2, 3), people=(GARY,), layer="fact")
    active, old = revision_hits(hit)
    assert active.text == "Patricia Garcia: Cosy.\nGary Allen: Set the steering wheel heating to level 8."
    assert (active.timestamp, active.status) == (datetime(2025, 3, 1, 14, 1), "active")
    assert (old.text, old.timestamp, old.status) == (
        "Gary Allen: The steering wheel heating at level 2.", datetime(2025, 2, 1, 9, 0), "superseded")
    assert all(h.entry_id == "F1" and h.people == (GARY,) for h in (active, old))  # the head's level 6 is gone
    line = MemoryHit(entry_id="L1", text="Gary Allen: hi", score=1.0, timestamp=T0, people=(GARY,))
    assert revision_hits(line) == [line]
