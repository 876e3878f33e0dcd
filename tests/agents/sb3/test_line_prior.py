"""The learned line prior of the slot design: fitted on evidence labels, it separates real preferences from chatter."""

from __future__ import annotations

import numpy as np
import pytest

from vmb_agents.sb3.slots.line_prior import N_FEATURES, LinePrior, line_text
from vmb_agents.sb3.slots import SlotCatalogue
from vmb_agents.sb3.slots.analysis import analyse
from tests.agents.sb3.hit_records import hit_records
from vmb_gym.errors import ConfigError

SPEAKERS = ("Julian Abbott", "Hugo Yamada")

REAL = [
    "Update on the trunk opening: {v} percent from today, because I've been getting headaches.",
    "I've switched my preference for the seat height to {v} percent; my back has been bothering me.",
    "Note this down somewhere: the cushion extension, {v} percent, every time.",
    "I'm changing the HUD brightness: I've been driving at dawn a lot, so level {v} from now on.",
]
CHATTER = [
    "In my work van the trunk opening is always stuck at {v} percent, nobody knows why.",
    "My brother-in-law thinks I should put the seat height on {v} percent. He's not driving though.",
    "Funny, the taxi this morning had the cushion extension at {v} percent.",
    "I wonder what the HUD brightness at level {v} would feel like. Probably awful.",
    "Let's talk about it tonight.",
]


def _examples(values: range) -> list[tuple[str, bool]]:
    return [(t.format(v=v), True) for v in values for t in REAL] + \
           [(t.format(v=v), False) for v in values for t in CHATTER]


def test_fitted_prior_ranks_real_statements_above_chatter_on_unseen_values() -> None:
    prior = LinePrior.fit(_examples(range(10, 60, 5)))
    real = prior.many([t.format(v=77) for t in REAL])
    chatter = prior.many([t.format(v=77) for t in CHATTER])
    assert min(real) > 0.5 > max(chatter)
    # numbers are masked: the value itself carries no weight
    assert prior("Update on the trunk opening: 3 percent from today.") == \
        pytest.approx(prior("Update on the trunk opening: 99 percent from today."))
    assert line_text("Level 12, at 3.5 degrees") == "level 0, at 0 degrees"


def test_json_round_trip_and_bad_input() -> None:
    prior = LinePrior.fit(_examples(range(10, 40, 10)))
    again = LinePrior.from_json(prior.to_json())
    text = CHATTER[0].format(v=42)
    assert again(text) == pytest.approx(prior(text), abs=1e-6)
    with pytest.raises(ConfigError, match="line prior"):
        LinePrior.from_json({"intercept": 0.0})
    with pytest.raises(ConfigError, match=str(N_FEATURES)):
        LinePrior(np.zeros(7), 0.0)
    with pytest.raises(ConfigError, match="evidence and other lines"):
        LinePrior.fit([("a", False), ("b", False)])


def test_prior_features_pick_the_latest_real_statement_of_the_target() -> None:
    prior = LinePrior.fit(_examples(range(10, 60, 5)))
    hits = hit_records(*[
        "[2025-08-09 14:44] Julian Abbott: In my work van the trunk opening is always stuck at 10 percent, "
        "nobody knows why.",
        "[2025-08-14 12:46] Julian Abbott: Update on the trunk opening: 25 percent from today, "
        "because I've been getting headaches.",
        "[2025-08-22 08:41] Julian Abbott: Update on the trunk opening: 40 percent from today, "
        "because I've been getting headaches.",
        "[2025-08-23 09:00] Hugo Yamada: Funny, the taxi this morning had the trunk opening at 70 percent.",
    ])
    request = "At 7:45 PM, Julian was driving to Old Town Hall, alone. Julian said: 'Set the trunk opening for me.'"
    cat = SlotCatalogue(line_prior=prior)
    an = analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify, line_prior=prior)
    slot = next(a for a in an.apis if a.api == "carcontrol_trunk_set_open_degree")
    by_value = {v.value: v for v in slot.values}
    assert by_value[40].prior_latest_target and by_value[40].prior_latest_any
    assert not by_value[25].prior_latest_target and by_value[25].prior_target > 0.5
    assert by_value[10].prior_target < 0.5 and by_value[70].prior_other < 0.5 and by_value[70].prior_target == 0
    assert by_value[40].prior_margin == pytest.approx(0.0, abs=0.05)  # 25 and 40 are stated the same way
    assert by_value[10].prior_margin < -0.3
    # the catalogue keeps its prior through the checkpoint sidecar
    again = SlotCatalogue.from_json(cat.to_json())
    assert again.line_prior is not None and again.line_prior(CHATTER[0].format(v=1)) == \
        pytest.approx(prior(CHATTER[0].format(v=1)), abs=1e-6)
    assert SlotCatalogue.from_json(SlotCatalogue().to_json()).line_prior is None
