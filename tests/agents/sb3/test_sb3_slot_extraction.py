"""Candidate extraction of the SB3 slot design: the right value / seat / companion appears among the slots."""

from __future__ import annotations

import numpy as np
import pytest

from vmb_agents.reader import extract_value, read_request, request_destination
from vmb_agents.sb3.slots import N_SLOT_ACTIONS, SlotCatalogue, SlotEpisodeText, SlotFeaturizer, search_rounds
from vmb_agents.sb3.slots.analysis import analyse
from vmb_agents.sb3.slots.features import BLOCK_API, BLOCK_GLOBAL, BLOCK_KIND
from vmb_agents.sb3.slots.layout import N_LINE_HASH
from vmb_agents.sb3.slots.reading import reason_words, relation_words, relative_names
from tests.agents.sb3.hit_records import hit_records
from vmb_gym.vehicle import API_SPECS

SPEAKERS = ("Julian Abbott", "Hugo Yamada", "Aaron Patel")


def _hits(*lines: str) -> list[dict]:
    return hit_records(*lines)


def _read(request: str, hits: list[dict]):
    """The slot analysis of a request over one search's hits (no learned priors)."""
    cat = SlotCatalogue()
    return analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)


def _by_value(analysis, api: str) -> dict:
    return {v.value: v for v in next(a for a in analysis.apis if a.api == api).values}


def _values(analysis, api: str) -> list:
    slot = next(a for a in analysis.apis if a.api == api)
    return [v.value for v in slot.values]


def test_free_text_and_two_parameter_values() -> None:
    radio = API_SPECS["carcontrol_radio_play_station"]
    assert extract_value(radio, "For _, the station on the radio at Classic Rock 101. She made that very clear.") \
        == "Classic Rock 101"
    assert extract_value(radio, "Classic Rock 101 for the radio station. Trust me, that's the sweet spot.") \
        == "Classic Rock 101"
    song = API_SPECS["carcontrol_music_play_song"]
    assert extract_value(song, "I like the song at 'City of Lanterns' by Echo Park Choir. Anything else bugs me.") \
        == {"song_name": "City of Lanterns", "artist": "Echo Park Choir"}
    video = API_SPECS["carcontrol_video_play_video"]
    assert extract_value(video, "I'm changing the show: I got bored, so 'The Lost Map' from now on.") == "The Lost Map"
    mileage = API_SPECS["carcontrol_instrumentPanel_set_total_mileage"]
    assert extract_value(mileage, "Note this down somewhere: the mileage record, 56100, every time.") == 56100
    nav = API_SPECS["carcontrol_navigation_navigate_to"]
    assert extract_value(nav, "Update on the route type: toll-free from today.") == {"route_preference": "no_toll"}
    shade = API_SPECS["carcontrol_sunshade_set_open_degree"]
    assert extract_value(shade, "I like the sunshades position at maximum.") == "max"
    req = read_request("At 5:45 PM, Ines was driving to Oakwood Stadium. Ines said: 'Put the route type back.'",
                       ["Ines Ruiz"])
    assert request_destination(req) == "Oakwood Stadium"


def test_a_correction_without_the_setting_name_continues_the_line_before() -> None:
    # the correction one minute later names neither the setting nor the API; its companion clause is a 2nd call
    hits = _hits(
        "[2025-08-21 14:42] Julian Abbott: I'll go with the leg support height at 95 percent today.",
        "[2025-08-21 14:43] Julian Abbott: Actually, dial it back to 30 percent. 95 percent was too much. "
        "Plus heating on the left mirror switched on, always.",
        "[2025-08-21 22:21] Julian Abbott: Is 15 percent even a normal setting for the leg rest height?",
        "[2025-08-20 10:00] Hugo Yamada: My colleague has the leg support height at 85 percent in her car.",
    )
    request = "At 11:00 AM, Julian was driving, alone. Julian said: 'Put the leg rest height back to my usual, please.'"
    cat = SlotCatalogue()
    an = analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
    api = "carcontrol_seat_set_leg_support_height"
    assert an.apis[0].api == api
    assert 30 in _values(an, api)
    corrected = next(v for v in an.apis[0].values if v.value == 30)
    assert corrected.follows and corrected.rep_target and corrected.line_hash.shape == (N_LINE_HASH,)
    tentative = next(v for v in an.apis[0].values if v.value == 95)
    assert not tentative.follows
    # the companion of the correction line is a slot of its own, on the left mirror
    comp = next(a for a in an.apis if a.api == "carcontrol_rearviewMirror_set_heating_enabled")
    assert comp.companion and comp.values[0].value is True and comp.targets[0] == "left"
    # the resolved calls are allowed actions; features stay inside the box
    ep = SlotEpisodeText(request=request, searched=True, search_rounds=2)
    mask = cat.mask(an, ep)
    calls = [cat.resolve(i, an) for i in np.flatnonzero(mask) if i >= 2]
    assert {"name": api, "arguments": {"seat": "driver", "value": 30}} in calls
    assert {"name": "carcontrol_rearviewMirror_set_heating_enabled", "arguments": {"side": "left", "enabled": True}} \
        in calls
    feats = SlotFeaturizer().features(an, ep)
    assert feats.shape == (SlotFeaturizer().dim,) and np.all(np.abs(feats) <= 1.0)


def test_relatives_are_resolved_and_followed_up() -> None:
    request = ("At 3:20 PM, Julian was driving to Union Square. Julian's grandmother came along. "
               "Julian said: 'Please set the radio station the way my grandmother likes it.'")
    assert relation_words(request) == ["grandmother"]
    # every relative the generator gives a household is a relation ("my goddaughter", "Kenji's godson")
    from vmb_gym.generator.banks import RELATIVES
    for word, _ in RELATIVES:
        assert relation_words(f"Kenji said: 'My {word} is here, so set it her way.'") == [word], word
    first = _hits(
        "[2025-07-17 12:06] Julian Abbott: Joanna, my grandmother, is visiting again next month.",
        "[2025-07-22 14:45] Julian Abbott: Imagine someone choosing City Jazz for the radio station on purpose.",
    )
    assert relative_names(["grandmother"], [h["text"] for h in first], SPEAKERS) == ["Joanna"]
    cat = SlotCatalogue()
    an = analyse(request, first, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify, followups=True)
    assert an.relatives == ["Joanna"] and an.followups[0].startswith("Joanna ")
    # the speaker's corrections are asked for too ("Too low. Make it 35 percent instead.")
    assert an.followups[1].startswith("Julian Abbott ") and "instead" in an.followups[1]
    second = _hits("[2025-08-23 20:46] Julian Abbott: For Joanna, the station on the radio at Classic Rock 101.")
    an2 = analyse(request, first + second, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
    station = next(v for v in an2.apis[0].values if v.value == "Classic Rock 101")
    assert an2.apis[0].api == "carcontrol_radio_play_station" and station.relative
    other = next(v for v in an2.apis[0].values if v.value == "City Jazz")
    assert not other.relative and other.cues["hypothetical"]


def test_navigation_route_type_takes_the_destination_from_the_request() -> None:
    request = ("At 5:45 PM, Ines was driving to Oakwood Stadium. Lena sat in the front passenger seat. "
               "Ines said: 'Put the route type back to my usual, please.'")
    speakers = ("Ines Ruiz", "Lena Park")
    hits = _hits("[2025-08-01 09:00] Ines Ruiz: Update on the route type: fastest from today, because of work.")
    # the learned API prior (request wording -> function name of training tasks) names the function
    cat = SlotCatalogue(api_examples=[("put the route type back to my usual", "carcontrol_navigation_navigate_to"),
                                      ("set the route type for me", "carcontrol_navigation_navigate_to"),
                                      ("warm my seat the way I like it", "carcontrol_seat_set_heating_level"),
                                      ("set the seat heating for me", "carcontrol_seat_set_heating_level")])
    an = analyse(request, hits, speakers, True, cat.api_scores(request, speakers), cat.classify)
    a = next(i for i, s in enumerate(an.apis) if s.api == "carcontrol_navigation_navigate_to")
    call = cat.resolve(cat.index(a, 0, 0), an)
    assert call == {"name": "carcontrol_navigation_navigate_to",
                    "arguments": {"route_preference": "fastest", "destination": "Oakwood Stadium"}}


def test_search_rounds_are_counted() -> None:
    ep = SlotEpisodeText()
    ep.on_reset("obs", {"request": "r"})
    assert search_rounds(ep) == 0
    ep.on_step("x", {"calls": [{"name": "search_memory", "arguments": {"query": "q"},
                                "result": {"success": True, "memory_text": "1. [2025-01-01 10:00] A: b"}}]})
    ep.on_step("x", {"calls": [{"name": "search_memory", "arguments": {"query": "q2"}, "result": {"success": True}}]})
    assert search_rounds(ep) == 2 and ep.searched


def test_a_routine_clause_is_marked_once_the_value_of_its_line_is_set() -> None:
    hits = _hits(
        "[2025-08-21 14:42] Julian Abbott: I'll go with the leg support height at 95 percent today. "
        "Plus the fog lights switched on, always.",
        "[2025-08-21 14:43] Julian Abbott: Actually, dial it back to 30 percent. 95 percent was too much. "
        "Plus heating on the left mirror switched on, always.",
    )
    request = "At 11:00 AM, Julian was driving, alone. Julian said: 'Put the leg rest height back to my usual, please.'"
    cat = SlotCatalogue()
    an = analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
    feat = SlotFeaturizer()
    column = feat.same_line_column
    mirror = next(a for a, s in enumerate(an.apis) if s.api == "carcontrol_rearviewMirror_set_heating_enabled")
    fog = next(a for a, s in enumerate(an.apis) if s.api == "carcontrol_light_set_fog_light")
    ep = SlotEpisodeText(request=request, searched=True, search_rounds=2)

    def marked(episode: SlotEpisodeText) -> tuple[float, float]:
        rows = feat.features(an, episode).reshape(N_SLOT_ACTIONS, -1)
        return rows[SlotCatalogue.index(mirror, 0, 0), column], rows[SlotCatalogue.index(fog, 0, 0), column]

    assert marked(ep) == (0.0, 0.0)  # nothing set yet
    ep.made = {'carcontrol_seat_set_leg_support_height{"seat":"driver","value":30}'}
    ep.made_names = ["carcontrol_seat_set_leg_support_height"]
    assert marked(ep) == (1.0, 0.0)  # the corrected value was set: its line's routine is the mirror
    ep.made = {'carcontrol_seat_set_leg_support_height{"seat":"driver","value":95}'}
    assert marked(ep) == (0.0, 1.0)
    # and the other way round: once the mirror routine is set, the value of its line is marked
    ep.made = {'carcontrol_rearviewMirror_set_heating_enabled{"enabled":true,"side":"left"}'}
    ep.made_names = ["carcontrol_rearviewMirror_set_heating_enabled"]
    rows = feat.features(an, ep).reshape(N_SLOT_ACTIONS, -1)
    leg = next(a for a, s in enumerate(an.apis) if s.api == "carcontrol_seat_set_leg_support_height")
    by_value = {v.value: rows[SlotCatalogue.index(leg, k, 0), column] for k, v in enumerate(an.apis[leg].values)}
    assert by_value[30] == 1.0 and by_value[95] == 0.0


def test_search_calls_ask_for_the_lines_around_each_hit() -> None:
    ep = SlotEpisodeText()
    ep.on_reset("obs", {"request": "At 11:00 AM, Julian was driving, alone. Julian said: 'Set the music volume.'"})
    plain = SlotCatalogue().search_action(ep, SPEAKERS)
    assert plain and all(set(c["arguments"]) == {"query", "top_k"} for c in plain)
    cat = SlotCatalogue(context=2)
    calls = cat.search_action(ep, SPEAKERS)
    assert [c["arguments"]["query"] for c in calls] == [c["arguments"]["query"] for c in plain]
    assert all(c["arguments"]["context"] == 2 for c in calls)
    assert SlotCatalogue.from_json(cat.to_json()).context == 2
    old = {k: v for k, v in cat.to_json().items() if k != "context"}  # a checkpoint from before the option
    assert SlotCatalogue.from_json(old).context == 0


@pytest.mark.parametrize("usual, rule, quote, holds, misses, values", [
    # the situation ("It was raining heavily", outside the quote) matches the rain rule, not the everyday line
    ("On an ordinary drive I go with 90 percent for the backrest angle.",
     "Keep in mind that in the rain the seat back recline has to be 70 percent.",
     "I'd like the backrest angle set up for me.", "It was raining heavily.", "The roads were dry and it was sunny.",
     ("carcontrol_seat_set_backrest_angle", 70, 90)),
    # "When Hugo rides with me" matches "Hugo sat in the front passenger seat": the overlap reads the line with its
    # names (they were blanked once, and every passenger rule missed)
    ("Most of the time the ambient light colour should be orange for me.",
     "When Hugo rides with me, though, I want the ambient light colour at cyan.",
     "Let's get the ambient light colour right for me.", "Hugo sat in the front passenger seat.", "Nobody else came.",
     ("carcontrol_light_set_ambient_color", "cyan", "orange")),
], ids=["rain", "passenger"])
def test_a_conditional_rule_is_matched_against_the_request_situation(usual, rule, quote, holds, misses,
                                                                      values) -> None:
    api, ruled, everyday = values
    hits = _hits(f"[2025-07-28 17:42] Aaron Patel: {usual}", f"[2025-07-28 17:43] Aaron Patel: {rule}")
    request = f"At 5:25 PM, Aaron was driving to Riverside Hospital. {holds} Aaron said: '{quote}'"
    slots = _by_value(_read(request, hits), api)
    assert slots[ruled].conditional and slots[ruled].cond_match and not slots[ruled].cond_miss
    assert slots[ruled].context_overlap >= 1
    assert slots[everyday].default_line and not slots[everyday].cond_match and slots[everyday].other_cond_match
    # the rule's condition is not in the situation
    other = request.replace(holds, misses)
    an = _read(other, hits)
    slots = _by_value(an, api)
    assert slots[ruled].conditional and slots[ruled].cond_miss and not slots[ruled].cond_match
    assert not slots[everyday].other_cond_match
    # the features carry the reading (inside the observation box)
    feats = SlotFeaturizer().features(an, SlotEpisodeText(request=other, searched=True, search_rounds=2))
    assert feats.min() >= -1.0 and feats.max() <= 1.0


def test_a_back_then_request_is_matched_to_the_line_that_gives_the_same_reason() -> None:
    # the setting's own words and its synonyms ("boot", "trunk opening") are no reason; "my back" is one
    assert reason_words("Let's get how far the boot opens right for me.") == set()
    assert reason_words("Put the backrest angle back to my usual, please.") == set()
    assert reason_words("I've caught the flu again. Go back to my old setting for the AC mode from then.") \
        == {"caug", "flu"}
    hits = _hits(
        "[2025-03-01 18:22] Julian Abbott: I'm changing the seat ventilation speed: my back has been bothering me, "
        "so level 5 from now on.",
        "[2025-03-12 19:26] Julian Abbott: Since I'm recovering from the flu, let's make the seat cooling fan level 1 "
        "going forward.",
    )
    request = ("At 2:45 PM, a friend was driving Julian to Hillcrest Church. Julian sat in the front passenger seat. "
               "Julian said: 'My back is acting up again. Set the seat ventilation speed the way I had it back then.'")
    by_value = _by_value(_read(request, hits), "carcontrol_seat_set_ventilation_speed")
    assert by_value[5].reason_overlap >= 1 and by_value[1].reason_overlap == 0
    flu = request.replace("My back is acting up again.", "I've caught the flu again.")
    by_value = _by_value(_read(flu, hits), "carcontrol_seat_set_ventilation_speed")
    assert by_value[1].reason_overlap >= 1 and by_value[5].reason_overlap == 0


def test_who_the_request_is_for_and_how_it_asks_are_no_reasons() -> None:
    assert reason_words("Could you fix the cushion tilt? You know how I like it.") == set()
    assert reason_words("My nephew is here, so let's do the leg support height his way.") == set()
    assert reason_words("Sort out how far the boot opens for me before we go.") == set()
    assert reason_words("The baby seat is back in. Set the HUD brightness the way I had it back then.") \
        == {"baby"}  # "seat" names a setting, "back in" is how it asks


def test_the_api_prior_read_on_a_line_tells_which_setting_it_is_about() -> None:
    # retrieval brings the target's latest genuine line about *another* setting ("head restraint height")
    # to a request for the foot support height: the setting features keep to lines about the request's
    hits = _hits(
        "[2025-06-08 11:25] Julian Abbott: I tried a few settings and 55 percent is the one for the foot support "
        "height.",
        "[2025-06-11 16:24] Julian Abbott: Since I've been commuting on the highway, let's make the head restraint "
        "height 40 percent going forward.",
    )
    request = ("At 7:05 AM, Hugo was driving to Central Station. Julian sat in the front passenger seat. "
               "Julian said: 'Can you set the foot support height the way I like it?'")
    foot, head = "carcontrol_seat_set_foot_support_height", "carcontrol_seat_set_headrest_height"
    examples = [(t, foot) for t in ("set the foot support height", "the foot rest height for me", "footrest height")]
    examples += [(t, head) for t in ("set the head restraint height", "the headrest height for me", "head rest height")]
    cat = SlotCatalogue(api_examples=examples)
    an = analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify,
                  setting_prior=cat._prior)
    values = _by_value(an, foot)
    assert set(values) >= {55, 40}
    assert values[55].setting_prob > 0.5 > values[40].setting_prob
    assert values[55].setting_latest_target and not values[40].setting_latest_target
    assert values[40].latest_target  # the plain "latest mention" reading picks the other setting's line
    # both reach the observation
    feat = SlotFeaturizer()
    text = SlotEpisodeText(request=request, searched=True, search_rounds=2)
    rows = feat.features(an, text).reshape(feat.n_actions, -1)
    a = next(i for i, s in enumerate(an.apis) if s.api == foot)
    k55, k40 = (next(k for k, v in enumerate(an.apis[a].values) if v.value == x) for x in (55, 40))
    col = feat.same_line_column - 1  # setting_latest_target sits just before the per-step column
    assert rows[SlotCatalogue.index(a, k55, 0), col] == 1.0 and rows[SlotCatalogue.index(a, k40, 0), col] == 0.0


def test_the_target_the_request_names_is_marked_in_the_features() -> None:
    hits = _hits("[2025-07-25 20:03] Aaron Patel: When it rains it's different for me: "
                 "the right mirror height at 15 percent.")
    request = ("At 7:10 AM, Aaron was driving to Sunset Golf Club, alone. "
               "Aaron said: 'Adjust the right mirror height to my preference.'")
    an = _read(request, hits)
    a = next(i for i, s in enumerate(an.apis) if s.api == "carcontrol_rearviewMirror_set_height_position")
    feat = SlotFeaturizer()
    text = SlotEpisodeText(request=request, searched=True, search_rounds=2)
    rows = feat.features(an, text).reshape(feat.n_actions, -1)
    t0 = BLOCK_KIND + BLOCK_GLOBAL + BLOCK_API + feat.value_width
    named = {an.apis[a].targets[t]: rows[SlotCatalogue.index(a, 0, t), t0 + 14] for t in range(len(an.apis[a].targets))}
    assert named == {"right": 1.0}  # a side the request names is the slot's only target, and marked so


def test_learned_companion_classifier_names_routine_clauses_the_vocabulary_misses() -> None:
    rules_only = SlotCatalogue()
    assert rules_only.classify("the left indicator switched on") != "carcontrol_light_set_left_turn"
    examples = [("the left indicator switched on", "carcontrol_light_set_left_turn"),
                ("the right indicator switched on", "carcontrol_light_set_right_turn"),
                ("the instrument panel language set to Chinese", "carcontrol_instrumentPanel_set_language"),
                ("the instrument panel language set to English", "carcontrol_instrumentPanel_set_language"),
                ("the seat heater switched on", "carcontrol_seat_set_heating_mode")] * 3
    cat = SlotCatalogue(companion_examples=examples)
    assert cat.classify("the left indicator switched on") == "carcontrol_light_set_left_turn"
    assert cat.classify("the instrument panel language set to German") == "carcontrol_instrumentPanel_set_language"
    # an unfamiliar clause falls back to the vocabulary of the switches
    assert cat.classify("the sunroof lock locked") == "carcontrol_sunroof_set_locked"
    again = SlotCatalogue.from_json(cat.to_json())
    assert again.companion_examples == cat.companion_examples
    assert again.classify("the seat heater switched on") == "carcontrol_seat_set_heating_mode"
    # the companion call is read from the routine clause of the chosen value's line
    hits = _hits("[2025-03-21 15:01] Julian Abbott: Ugh, level 6 is overkill. Level 4 is better for the AC fan. "
                 "Same routine: the left indicator switched on.")
    request = ("At 7:40 PM, Julian was driving to Harbor Airport, alone. "
               "Julian said: 'Set the AC fan for me. Do my whole routine.'")
    an = analyse(request, hits, SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)
    companion = next(a for a in an.apis if a.companion)
    assert companion.api == "carcontrol_light_set_left_turn" and companion.values[0].value is True


def test_companion_examples_come_from_training_evidence_lines() -> None:
    from vmb_gym.data import load_scenarios

    pairs = SlotCatalogue.companion_examples_from_scenarios(load_scenarios("default")[:5])
    assert pairs and all(api.startswith("carcontrol_") and clause for clause, api in pairs)


def test_a_free_text_value_that_names_another_setting_is_no_value() -> None:
    """"Heading out now, going to bump the video quality down to 480p" reads as the destination "bump the video
    quality down to 480p"; it names the video's setting, so it is no destination (an official task set one such).
    Choices and plain places stay."""
    from vmb_agents.sb3.slots.values import names_another_setting

    go = "carcontrol_navigation_navigate_to"
    assert names_another_setting("bump the video quality down to 480p", go)
    assert not names_another_setting("Westside Medical Center", go)
    assert not names_another_setting("that boutique downtown", go)
    assert not names_another_setting("Jazz FM", "carcontrol_radio_play_station")  # its own function's words
    assert not names_another_setting("cyan", "carcontrol_instrumentPanel_set_color")  # a choice, not free text
    assert not names_another_setting(480, go)
    hits = _hits("[2025-07-28 17:42] Aaron Patel: Take me to Westside Medical Center on Fridays.",
                 "[2025-07-28 17:43] Aaron Patel: Heading out now, going to bump the video quality down to 480p")
    an = _read("At 8:00 AM, Aaron was driving. Aaron said: 'Navigate to my Friday place.'", hits)
    values = [v.value for a in an.apis if a.api == go for v in a.values]
    assert "bump the video quality down to 480p" not in values
