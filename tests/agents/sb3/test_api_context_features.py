"""The API block compares each API slot with the episode's others: what the request names most, what the hits
score best, whose values the target states cleanly, which one the target's line with the request's reason names,
and where the target's mentions and the learned priors point."""

from __future__ import annotations

import pytest

from vmb_agents.sb3.slots.features import API_CALLED, BLOCK_API, api_block
from vmb_agents.sb3.slots.records import ApiSlot, ValueSlot


def _slot(api: str, request: float, best: float, values: list[ValueSlot], reason: bool = False) -> ApiSlot:
    return ApiSlot(api=api, request_score=request, best_score=best, passes=True, rules_choice=False, values=values,
                   targets=[None], reason=reason)


@pytest.fixture()
def apis() -> list[ApiSlot]:
    # "My back is stiff again, give me a massage.": the rules rank the leg support first on a strong hit, but the
    # request names the massage, and the target's clean line with the request's reason states its level
    leg = _slot("carcontrol_seat_set_leg_support_height", 0.0, 5.4, [ValueSlot(value=24, score=5.4, target_mentions=1)])
    massage = _slot("carcontrol_seat_set_massage_level", 2.6, 3.7,
                    [ValueSlot(value=1, score=3.7, target_mentions=3, clean_target_mentions=2, prior_target=0.9,
                               setting_prob=0.8)], reason=True)
    return [leg, massage]


def test_the_request_and_the_target_speak_for_the_named_setting(apis: list[ApiSlot]) -> None:
    leg, massage = (api_block(a, slot, apis) for a, slot in enumerate(apis))
    assert leg.shape == massage.shape == (BLOCK_API,)
    # request names it most (and by 2.6 / 5), hits score it best, a clean target mention, the reason line
    assert massage[15:21].tolist() == pytest.approx([1.0, 0.52, 0.0, -0.17, 1.0, 1.0])
    assert leg[15:21].tolist() == pytest.approx([0.0, -0.52, 1.0, 0.17, 0.0, 0.0])
    # the target's mentions (a fifth each), the line prior and the setting prior point to the massage
    assert massage[21:27].tolist() == pytest.approx([1.0, 0.4, 1.0, 0.9, 1.0, 0.8])
    assert leg[21:27].tolist() == pytest.approx([0.0, -0.4, 0.0, -0.9, 0.0, -0.8])
    assert massage[API_CALLED] == leg[API_CALLED] == 0.0  # set per step, not here


def test_positions_do_not_collide_with_the_request_score() -> None:
    slot = _slot("carcontrol_seat_set_massage_level", 10.0, 0.0, [])
    fifth = api_block(4, slot, [slot])
    assert fifth[4] == 1.0 and fifth[14] == 1.0 and not fifth[:4].any()  # the fifth slot's own position column
    assert api_block(0, slot, [slot])[0] == 1.0 and api_block(0, slot, [slot])[14] == 0.0


def test_a_clean_mention_shared_with_another_slot_counts_half(apis: list[ApiSlot]) -> None:
    apis[0].values[0].clean_target_mentions = 1
    leg, massage = (api_block(a, slot, apis) for a, slot in enumerate(apis))
    assert leg[19] == massage[19] == 0.5
    alone = api_block(0, apis[0])  # no other slots: nothing to compare with
    assert alone[15] == 0.0 and alone[17] == 1.0 and alone[19] == 1.0


def test_the_reason_slot_comes_from_the_targets_line() -> None:
    """Only the target's own line that gives the request's reason marks its setting; another person's does not."""
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_agents.sb3.slots.analysis import analyse
    from tests.agents.sb3.hit_records import hit_records

    speakers = ("Julian Abbott", "Hugo Yamada")
    request = "At 8:00 AM, Julian was driving alone. He told the car: 'My new work boots are on again.'"
    hits = hit_records("[2025-03-01 08:00] Julian Abbott: These work boots make my back ache, so the seat massage at "
                       "level 2 for me.",
                       "[2025-03-02 08:00] Hugo Yamada: My work boots hurt, I keep the HUD brightness at 4.")
    cat = SlotCatalogue()
    an = analyse(request, hits, speakers, True, cat.api_scores(request, speakers), cat.classify)
    reason = {a.api for a in an.apis if a.reason}
    flags = {a.api: api_block(i, a, an.apis)[20] for i, a in enumerate(an.apis)}
    assert "carcontrol_seat_set_massage_level" in reason and flags["carcontrol_seat_set_massage_level"] == 1.0
    assert flags["carcontrol_HUD_set_brightness_level"] == 0.0  # Hugo's line gives the reason, but he is not the target
