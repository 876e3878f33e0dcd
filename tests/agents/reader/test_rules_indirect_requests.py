"""Indirect requests the rules reader plans from memory: a device without its setting, a place said in passing,
a change given after its direction, a person named by what they like, another setting of the named device."""

from __future__ import annotations

from datetime import datetime

from vmb_agents.reader import RulesPolicy, named_candidates, read_request, score_apis
from vmb_agents.reader.request import api_text
from vmb_agents.reader.values import destination_in
from vmb_agents.reader.words import unnamed_setting_modules
from vmb_gym.memory import MemoryHit

PEOPLE = ("Anna Jackson", "Charles King")


def _hit(text: str, person: str, day: int) -> MemoryHit:
    return MemoryHit(entry_id=str(day), text=f"{person}: {text}", score=1.0, timestamp=datetime(2025, 4, day, 9),
                     people=(person,))


def _plan(request: str, hits: list[MemoryHit]) -> list[tuple[str, dict]]:
    """The rules' calls for ``request`` read against ``hits`` (the plan without a memory search)."""
    policy = RulesPolicy("none")
    policy.names = PEOPLE
    req = read_request(request, PEOPLE)
    scores = score_apis(api_text(req))
    cands = policy.candidates(req, scores, hits)
    best = max(scores.values(), default=0.0)
    if best >= 2.0:
        cands = named_candidates(cands, scores, req)
    return [(c.api, c.value) for c in cands[:1]]


def test_a_device_without_its_setting_asks_for_each_of_its_settings_alike() -> None:
    assert unnamed_setting_modules("Restore my HUD settings.") == {"HUD": 1.0}
    assert "HUD" not in unnamed_setting_modules("Lower the HUD height to 5.")  # the height is named
    assert unnamed_setting_modules("Nice weather today.") == {}
    # before, the HUD's default function (brightness) took the height line's value
    plan = _plan("At 8:00 AM, Anna got into the driver's seat. She told the car: 'Restore my HUD settings.'",
                 [_hit("Okay, HUD height to 8, much better for visibility.", "Anna Jackson", 20)])
    assert plan == [("carcontrol_HUD_set_height_level", 8)]
    # the reading the shipped slot checkpoint was trained on (vmb_agents.sb3.slots.analysis.rules_candidates)
    from vmb_agents.sb3.slots.analysis import rules_candidates

    req = read_request("At 8:00 AM, Anna told the car: 'Restore my HUD settings.'", PEOPLE)
    hits = [_hit("HUD height to 8.", "Anna Jackson", 20)]
    cands = rules_candidates(req, score_apis(api_text(req)), hits, PEOPLE)
    assert (cands[0].api, cands[0].value) == ("carcontrol_HUD_set_brightness_level", 8)
    # a catalogue trained with device_alike reads them the rules' way, and keeps the setting in its sidecar
    cands = rules_candidates(req, score_apis(api_text(req)), hits, PEOPLE, device_alike=True)
    assert (cands[0].api, cands[0].value) == ("carcontrol_HUD_set_height_level", 8)
    from vmb_agents.sb3.slots import SlotCatalogue

    assert SlotCatalogue.from_json(SlotCatalogue(device_alike=True).to_json()).device_alike is True
    assert "device_alike" not in SlotCatalogue().to_json()  # older sidecars lack it: off
    assert SlotCatalogue.from_json(SlotCatalogue().to_json()).device_alike is False


def test_a_named_place_is_read_from_a_line_that_does_not_name_the_navigation() -> None:
    assert destination_in("I need to go to the Central Lab today.") == "Central Lab"
    assert destination_in("The meeting moved to the Westside Medical Center.") == "Westside Medical Center"
    assert destination_in("I'm visiting the Harbor Museum on 4th Street next week.") == "Harbor Museum on 4th Street"
    assert destination_in("a dinner at the Grand Hotel downtown on June 10th") == "Grand Hotel"
    assert destination_in("I'm going to the High Court in the suburbs instead of the District Court.") == \
        "High Court in the suburbs"
    assert destination_in("Navigate to the gym please") == "gym"
    assert destination_in("I'll see you at lunch.") is None  # no capitalised place
    plan = _plan("At 8:30 AM, Anna got in the car alone. She told the car: 'Navigate to the meeting location "
                 "I told Charles about.'",
                 [_hit("Good news, the meeting location changed to the Westside Medical Center.", "Anna Jackson", 10),
                  _hit("I keep the cabin at 22 degrees.", "Anna Jackson", 11)])
    # the request's own words ("the meeting location I told Charles about") are not a destination
    assert plan == [("carcontrol_navigation_navigate_to", "Westside Medical Center")]


def test_a_change_said_after_its_direction_moves_the_value() -> None:
    def delta(quote: str) -> int | None:
        return read_request(f"At 9:00 AM, Anna said: '{quote}'", PEOPLE).delta

    assert delta("Restore my position, but increase the leg support by one level.") == 1
    assert delta("Restore the HUD brightness, but lower it by two levels.") == -2
    assert delta("Turn the panel up one notch.") == 1
    assert delta("It goes up to 3 levels.") is None  # "up to" is a limit, not a change
    assert delta("Set it to 22 degrees.") is None
    assert delta("Two levels higher, please.") == 2  # the amount-first wording still reads


def test_a_person_named_by_what_they_like_is_the_one_the_setting_is_for() -> None:
    req = read_request("At 9:05 PM, Anna told the car: 'Turn on the theme Charles likes.'", PEOPLE)
    assert req.target == "Charles King"
    req = read_request("At 9:05 PM, Anna told the car: 'Turn on the theme I like.'", PEOPLE)
    assert req.target == "Anna Jackson"


def test_the_persons_other_setting_of_the_named_device_when_the_named_one_has_no_value() -> None:
    request = "At 7:30 AM, Anna got into the driver's seat. She told the car: 'Restore my backrest angle position.'"
    hits = [_hit("Leg support at seventy-five, perfect for the long drive.", "Anna Jackson", 10),
            _hit("Leg support at thirty is better for me.", "Charles King", 12)]
    assert _plan(request, hits) == [("carcontrol_seat_set_leg_support_height", 75)]  # hers, not his
    # a value the request states wins: no fallback to another setting
    stated = "At 7:30 AM, Anna got into the driver's seat. She told the car: 'Set my backrest angle to 30.'"
    assert _plan(stated, hits) == []


def test_a_device_alike_catalogue_does_not_let_its_learned_prior_pick_the_devices_setting() -> None:
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_agents.sb3.slots.analysis import analyse
    from vmb_agents.sb3.slots.catalogue import device_alike_scores

    request = "At 8:00 AM, Anna Jackson got into the driver's seat. She told the car: 'Restore my HUD settings.'"
    # a prior fitted on wordings that asked for the brightness ranks it first for the bare device too
    examples = [("restore my hud brightness", "carcontrol_HUD_set_brightness_level")] * 3 + [
        ("put the hud height back", "carcontrol_HUD_set_height_level"),
        ("set the seat heating", "carcontrol_seat_set_heating_level")]
    learned, alike = SlotCatalogue(api_examples=examples), SlotCatalogue(api_examples=examples, device_alike=True)
    before = learned.api_scores(request, PEOPLE)
    assert before["carcontrol_HUD_set_brightness_level"] > before.get("carcontrol_HUD_set_height_level", 0.0) + 1.0
    after = alike.api_scores(request, PEOPLE)
    hud = {api: s for api, s in after.items() if "_HUD_" in api}
    assert set(hud) == {"carcontrol_HUD_switch", "carcontrol_HUD_set_brightness_level",
                        "carcontrol_HUD_set_height_level"}
    assert len(set(hud.values())) == 1  # every HUD function at the device's best score
    assert hud["carcontrol_HUD_set_height_level"] == before["carcontrol_HUD_set_brightness_level"]
    assert "carcontrol_seat_set_heating_level" not in hud  # other devices keep their scores
    # so the person's line about the height decides, where the prior's brightness passed the rules filter alone
    records = [{"entry_id": "1", "text": "Anna Jackson: Okay, HUD height to 8, much better for visibility.",
                "score": 1.0, "timestamp": "2025-04-20T09:00:00", "people": ["Anna Jackson"]}]
    for catalogue, first in ((learned, "carcontrol_HUD_set_brightness_level"),
                             (alike, "carcontrol_HUD_set_height_level")):
        slots = analyse(request, records, PEOPLE, True, catalogue.api_scores(request, PEOPLE),
                        device_alike=catalogue.device_alike)
        assert slots.apis[0].api == first
    assert device_alike_scores({"carcontrol_seat_set_heating_level": 2.0}, "Nice weather today.") == {
        "carcontrol_seat_set_heating_level": 2.0}


def test_the_slot_catalogue_puts_the_persons_other_setting_of_the_named_device_first() -> None:
    # the rules reader's fallback reaches the slot catalogue's first API slot (its "rules choice")
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_agents.sb3.slots.analysis import analyse

    request = "At 7:30 AM, Anna got into the driver's seat. She told the car: 'Restore my backrest angle position.'"
    records = [{"entry_id": str(i), "text": text, "score": 1.0, "timestamp": f"2025-04-{day}T09:00:00", "people": [who]}
               for i, (text, who, day) in enumerate([
                   ("Anna Jackson: Leg support at seventy-five, perfect for the long drive.", "Anna Jackson", 10),
                   ("Charles King: Leg support at thirty is better for me.", "Charles King", 12)])]
    catalogue = SlotCatalogue()
    slots = analyse(request, records, PEOPLE, True, catalogue.api_scores(request, PEOPLE))
    first = slots.apis[0]
    assert (first.api, first.rules_choice) == ("carcontrol_seat_set_leg_support_height", True)
    assert first.values[0].value == 75  # hers, not his
