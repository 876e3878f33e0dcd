"""Slot-catalogue rules that carry to natural conversations: which lines continue a setting, and no finish
before the first call."""

from __future__ import annotations

import numpy as np

from vmb_agents.sb3.slots import SLOT_FINISH, SlotCatalogue, SlotEpisodeText
from vmb_agents.sb3.slots.analysis import analyse
from vmb_agents.sb3.slots.hits import continues_a_setting
from vmb_gym.wrappers.catalogue import call_key
from tests.agents.sb3.hit_records import hit_records

SPEAKERS = ("Julian Abbott", "Hugo Yamada", "Aaron Patel")
REQUEST = "At 11:00 AM, Julian was driving, alone. Julian said: 'Put the leg rest height back to my usual, please.'"
API = "carcontrol_seat_set_leg_support_height"


def _analysis(*lines: str):
    cat = SlotCatalogue()
    an = analyse(REQUEST, hit_records(*lines), SPEAKERS, True, cat.api_scores(REQUEST, SPEAKERS), cat.classify)
    return cat, an


def test_lines_that_carry_on_a_setting() -> None:
    for line in ("Too low. Make it 35 percent instead.", "Okay, I'll bump it up to 22.", "Hmm, make it green.",
                 "Ouch, that's too rough! Level 1 is what I need.", "Actually, switch it off.",
                 "Wait, not blue. I meant green.", "Sorry, I misspoke: green, not blue."):
        assert continues_a_setting(line), line
    for line in ("You're telling me. I've got at least four allergy consults on the schedule.",
                 "Do you travel with a full set of tools at 30?", "Yeah, the traffic was awful on Fifth.",
                 "You two might end up talking gear instead of equations.", "Okay, that's actually a nice spot."):
        assert not continues_a_setting(line), line


def test_chat_a_minute_later_is_no_correction() -> None:
    _, an = _analysis(
        "[2025-08-21 14:42] Julian Abbott: I'll go with the leg support height at 95 percent today.",
        "[2025-08-21 14:43] Julian Abbott: You're telling me, four consults before noon and two after lunch.",
    )
    slot = next(a for a in an.apis if a.api == API)
    assert not any(v.follows for v in slot.values)
    assert slot.values[0].value == 95


def test_a_correction_a_minute_later_still_continues() -> None:
    _, an = _analysis(
        "[2025-08-21 14:42] Julian Abbott: I'll go with the leg support height at 95 percent today.",
        "[2025-08-21 14:43] Julian Abbott: Actually, dial it back to 30 percent.",
    )
    slot = next(a for a in an.apis if a.api == API)
    assert next(v for v in slot.values if v.value == 30).follows


def test_finish_is_allowed_only_after_a_call() -> None:
    cat, an = _analysis("[2025-08-21 14:42] Julian Abbott: I'll go with the leg support height at 95 percent today.")
    ep = SlotEpisodeText(request=REQUEST, searched=True, search_rounds=2)
    mask = cat.mask(an, ep)
    assert not mask[SLOT_FINISH] and mask[2:].any()
    ep.made_names.append(API)
    ep.made.add(f'{API}{{"seat": "driver", "value": 95}}')
    assert cat.mask(an, ep)[SLOT_FINISH]


def test_finish_stays_allowed_when_no_call_is_left() -> None:
    cat, an = _analysis("[2025-08-21 14:42] Hugo Yamada: Nice weather today.")
    ep = SlotEpisodeText(request="At 9 AM, Julian said: 'Hello there.'", searched=True, search_rounds=2)
    an.calls, an.distinct_calls = None, []
    mask = cat.mask(an, ep)
    assert mask[SLOT_FINISH] and not np.flatnonzero(mask[2:]).size


def test_the_requests_relative_change_goes_to_one_call() -> None:
    from vmb_agents.sb3.slots.layout import N_MEMORY_VALUES, unpack_slot

    request = "At 8:00 PM, Julian was driving, alone. Julian said: 'Set the HUD like last time, but one level lower.'"
    cat = SlotCatalogue()
    lines = hit_records("[2025-08-21 14:42] Julian Abbott: I keep the HUD brightness at level 5 and the HUD height "
                        "at level 7.")
    an = analyse(request, lines, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
    assert an.delta == -1
    ep = SlotEpisodeText(request=request, searched=True, search_rounds=2)

    def delta_calls(mask: np.ndarray) -> dict[str, dict]:
        out = {}
        for i in np.flatnonzero(mask[2:]) + 2:
            if N_MEMORY_VALUES <= unpack_slot(int(i))[1] < 2 * N_MEMORY_VALUES:
                call = cat.resolve(int(i), an)
                out.setdefault(call["name"], call["arguments"])
        return out

    first = delta_calls(cat.mask(an, ep))
    assert {"carcontrol_HUD_set_brightness_level", "carcontrol_HUD_set_height_level"} <= set(first)
    assert first["carcontrol_HUD_set_brightness_level"] == {"level": 4}
    # a call with a memory value leaves the change for the next one
    ep.made_names.append("carcontrol_HUD_set_brightness_level")
    ep.made.add(call_key("carcontrol_HUD_set_brightness_level", {"level": 5}))
    assert "carcontrol_HUD_set_height_level" in delta_calls(cat.mask(an, ep))
    # once a call took the change, no other function gets it, and memory values stay allowed
    ep.made.clear()
    ep.made.add(call_key("carcontrol_HUD_set_brightness_level", {"level": 4}))
    mask = cat.mask(an, ep)
    assert delta_calls(mask) == {}
    assert any(cat.resolve(int(i), an)["name"] == "carcontrol_HUD_set_height_level"
               for i in np.flatnonzero(mask[2:]) + 2)


def test_a_switch_takes_the_state_the_request_says() -> None:
    api = "carcontrol_music_set_lyrics_display"
    lines = hit_records("[2025-08-21 14:42] Julian Abbott: Turn the lyrics display off, it distracts me.")
    cat = SlotCatalogue()

    def allowed(request: str) -> list[dict]:
        an = analyse(request, lines, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
        slot = next(a for a in an.apis if a.api == api)
        assert any(v.value is False for v in slot.values)  # the remembered state is offered
        mask = cat.mask(an, SlotEpisodeText(request=request, searched=True, search_rounds=2))
        return [c["arguments"] for i in np.flatnonzero(mask[2:]) + 2
                if (c := cat.resolve(int(i), an)) is not None and c["name"] == api]

    # the request asks for the lyrics (on): the remembered "off" is not offered
    on = allowed("At 9:00 AM, Julian was driving, alone. "
                 "Julian said: 'I want to sing along to the lyrics display again.'")
    assert {"enabled": True} in on and {"enabled": False} not in on
    # the request says off: the remembered "off" is
    off = allowed("At 9:00 AM, Julian was driving, alone. Julian said: 'Switch the lyrics display off like I had it.'")
    assert {"enabled": False} in off
