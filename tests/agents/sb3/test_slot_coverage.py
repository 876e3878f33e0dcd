"""Catalogue coverage of the slot design: values and APIs that lines state without naming the setting."""

from __future__ import annotations

from types import SimpleNamespace

from vmb_agents.sb3.slots import SlotCatalogue
from vmb_agents.sb3.slots.analysis import analyse
from vmb_agents.sb3.slots.coverage import GoldMiss, TaskCoverage, miss_kind, summarise
from vmb_agents.sb3.slots.values import trim_free_text
from tests.agents.sb3.hit_records import hit_records

SPEAKERS = ("Julian Abbott", "Hugo Yamada", "Aaron Patel")


def _read(request: str, *lines: str):
    """The slot analysis of a request over one search's hits (no learned priors)."""
    cat = SlotCatalogue()
    return analyse(request, hit_records(*lines), SPEAKERS, True, cat.api_scores(request, SPEAKERS), cat.classify)


def _values(analysis, api: str) -> list:
    return [v.value for v in next(a for a in analysis.apis if a.api == api).values]


def test_a_line_that_names_no_setting_gives_the_requested_api_its_value() -> None:
    # the revision names neither the massage nor any other setting; the next line is by someone else
    an = _read("At 9:00 AM, Julian was driving. Julian said: 'My neck is sore, give me a seat massage.'",
               "[2025-03-01 09:00] Julian Abbott: Massage on the seat, level 3 please.",
               "[2025-03-02 10:00] Julian Abbott: Turn on the seat massage.",
               "[2025-03-02 10:01] Julian Abbott: Ow, way too hard. Level 1 suits me better.",
               "[2025-03-02 10:05] Hugo Yamada: We passed 4 exits already.")
    api = "carcontrol_seat_set_massage_level"
    values = _values(an, api)
    assert an.apis[0].api == api and values == [3, 1]  # the named value first, the bare one after it
    # a line that names another setting is that setting's, not the massage's
    an = _read("At 9:00 AM, Julian was driving. Julian said: 'My neck is sore, give me a seat massage.'",
               "[2025-03-02 10:00] Julian Abbott: Massage on the seat, level 3 please.",
               "[2025-03-04 18:00] Julian Abbott: Fan speed at 2 is enough.")
    assert 2 not in _values(an, api)


def test_the_requested_api_keeps_a_slot_when_hits_name_other_settings() -> None:
    # a weak request score lets every API pass the rules filter: the hit-named APIs used to fill every slot
    request = "At 9:00 AM, Julian was driving. Julian said: 'I keep missing turns. Restore my volume setting.'"
    # a learned API prior that is fairly sure of the navigation volume (the vocabulary gives 0.6 to every volume)
    scores = {f"carcontrol_{m}_set_volume": 0.6 for m in ("music", "radio", "video")}
    scores["carcontrol_navigation_set_volume"] = 1.2
    lines = [f"[2025-03-0{d} 10:00] Hugo Yamada: {text}" for d, text in enumerate((
        "The seat heating at level 2, please.", "Set the fan speed to 3.", "Cabin temperature at 21 degrees.",
        "Music volume at 40.", "Radio volume to 12.", "Open the sunroof to 50 percent."), start=1)]
    cat = SlotCatalogue()
    an = analyse(request, hit_records(*lines), SPEAKERS, True, scores, cat.classify)
    assert "carcontrol_navigation_set_volume" in [a.api for a in an.apis][:2]
    # with a line that states its value and names no setting, the slot offers that value
    lines.append("[2025-03-08 10:00] Julian Abbott: I missed three exits today. 80 works for me from now on.")
    an = analyse(request, hit_records(*lines), SPEAKERS, True, scores, cat.classify)
    assert 80 in _values(an, "carcontrol_navigation_set_volume")


def test_a_request_that_only_gives_its_reason_finds_the_setting_of_the_line_with_that_reason() -> None:
    request = ("At 7:00 AM, Julian got in the car with Hugo. Julian said: 'Hiking boots on again today, "
               "make it like the last time.'")
    an = _read(request,
               "[2025-03-01 08:00] Julian Abbott: These hiking boots have thick soles. Lower the seat height to 30.",
               "[2025-03-02 08:00] Hugo Yamada: Set the fan speed to 3.",
               "[2025-03-03 08:00] Hugo Yamada: Cabin temperature at 21 degrees.",
               "[2025-03-04 08:00] Hugo Yamada: The ambient light in blue.",
               "[2025-03-05 08:00] Hugo Yamada: Music volume at 40.",
               "[2025-03-06 08:00] Hugo Yamada: Radio volume to 12.",
               "[2025-03-07 08:00] Hugo Yamada: Open the sunroof to 50 percent.")
    apis = [a.api for a in an.apis]
    assert "carcontrol_seat_set_vertical_position" in apis
    assert 30 in _values(an, "carcontrol_seat_set_vertical_position")


def test_coverage_names_what_is_missing_for_a_gold_call() -> None:
    slot = SimpleNamespace(api="carcontrol_seat_set_massage_level", values=[SimpleNamespace(value=3)])
    analysis = SimpleNamespace(apis=[slot])
    call = ({"name": slot.api, "arguments": {"seat": "passenger", "level": 1}}, "k1")
    gold = SimpleNamespace(name=slot.api, arguments={"seat": "driver", "level": 1})
    assert miss_kind(gold, analysis, [None, None, call]).kind == "target"
    gold = SimpleNamespace(name=slot.api, arguments={"seat": "driver", "level": 2})
    miss = miss_kind(gold, analysis, [None, None, call])
    assert miss.kind == "value" and miss.slot_values == [3]
    gold = SimpleNamespace(name="carcontrol_radio_set_volume", arguments={"volume": 2})
    assert miss_kind(gold, analysis, [None, None, call]).kind == "api"
    rows = [TaskCoverage("1_0", "r", True, [], []),
            TaskCoverage("1_1", "r", False, [GoldMiss("carcontrol_radio_set_volume", {}, "api")], [])]
    summary = summarise(rows)
    assert summary["covered"] == 1 and summary["share"] == 0.5 and summary["misses"] == {"api": 1}


def test_a_destination_said_as_a_swap_loses_the_place_it_replaces() -> None:
    assert trim_free_text("Harbour Court in the old town instead of the Civic Court") == "Harbour Court in the old town"
    assert trim_free_text("Maple Lake instead") == "Maple Lake"
    assert trim_free_text("instead") == "instead" and trim_free_text(4) == 4
    an = _read("At 8:00 AM, Julian got in the car. Julian said: 'Navigate to the hearing I told Hugo about.'",
               "[2025-03-01 08:00] Julian Abbott: Hugo, the hearing moved. Navigate to Harbour Court instead of "
               "the Civic Court.")
    assert "Harbour Court" in _values(an, "carcontrol_navigation_navigate_to")


def test_a_line_about_another_function_of_the_module_gives_the_requested_api_a_value_it_cannot_read() -> None:
    # "navigation voice" is the voice mode's wording, but 85 is no voice mode: the navigation volume reads it
    request = "At 9:00 AM, Julian was driving. Julian said: 'I keep missing turns. Restore my volume setting.'"
    scores = {f"carcontrol_{m}_set_volume": 0.6 for m in ("music", "radio", "video")}
    scores["carcontrol_navigation_set_volume"] = 1.2
    lines = hit_records("[2025-03-01 08:00] Julian Abbott: The navigation voice is far too quiet. Up to 85, that's it.",
                        "[2025-03-02 08:00] Julian Abbott: The cabin temperature is too low. Up to 23, please.")
    an = analyse(request, lines, SPEAKERS, True, scores, SlotCatalogue().classify)
    assert _values(an, "carcontrol_navigation_set_volume") == [85]  # not 23: a line of another module
