"""The rules reader discounts a value said aside: wondered about, or of another car.

(``vmb_agents.reader.hits.said_aside``.)
"""

from __future__ import annotations

import pytest

from vmb_agents.reader.hits import said_aside


@pytest.mark.parametrize(("body", "value", "aside"), [
    ("Hypothetically, would Sports Live for the radio station drain the battery? Just curious.", "Sports Live", True),
    ("Imagine someone choosing 45 percent for the window opening on purpose.", 45, True),
    ("In my work van the low beam level is always stuck at highest, nobody knows why.", "highest", True),
    ("My brother Jonah keeps the backrest angle at 10 percent in his own car.", 10, True),
    ("My brother-in-law thinks I should put the radio station on Coastal Country. He's not driving though.",
     "Coastal Country", True),
    ("When I test drove that SUV, the seat ventilation speed was set to level 1. I didn't buy it.", 1, True),
    # a sentence, not the line: the value's own sentence is a preference
    ("I imagine the paperwork alone is daunting. By the way, I really love this green instrument panel.", "green",
     False),
    ("For Joanna, the station on the radio at Classic Rock 101. She made that very clear.", "Classic Rock 101", False),
    ("Keep in mind that in the rain the seat back recline has to be 70 percent.", 70, False),
])
def test_said_aside_reads_the_sentence_that_states_the_value(body: str, value: object, aside: bool) -> None:
    assert said_aside(body, value) is aside


def test_rules_reader_passes_over_a_hypothetical_value() -> None:
    """Default task 1_2 (bm25): "Hypothetically, would Sports Live ..." outscored the grandmother's station before."""
    import gymnasium as gym

    from vmb_agents.reader import RulesPolicy

    env = gym.make("VehicleMem-v0", data="default", memory="bm25")
    policy = RulesPolicy(None, source=env)
    obs, info = env.reset(options={"task_id": "1_2"})
    policy.reset(obs, info)
    assert policy.last["calls"] == [
        {"name": "carcontrol_radio_play_station", "arguments": {"name": "Classic Rock 101"}}]
    sports = [c for c in policy.last["candidates"] if c.value == "Sports Live"]
    assert sports and all(c.score < policy.last["candidates"][0].score for c in sports)
