"""The slot catalogue's target slots: a seat, a climate zone and a reading light are personal, so "all" is offered
for them only when the rules chose it or the request asks for every seat."""

from __future__ import annotations

from vmb_agents.sb3.slots.analysis import selector_choices
from vmb_gym.vehicle import API_SPECS

MASSAGE = API_SPECS["carcontrol_seat_set_massage_level"]
FAN = API_SPECS["carcontrol_airConditioner_set_fan_speed"]


def test_a_seat_request_that_names_no_seat_is_not_offered_all() -> None:
    targets = selector_choices(MASSAGE, "driver",
                               "At 2 PM, Matthew told the car: 'My back is stiff, give me a massage.'", "driver")
    assert targets[0] == "driver" and "all" not in targets
    assert len(targets) == 3  # the freed slot goes to the next seat


def test_a_seat_request_for_every_seat_keeps_all() -> None:
    assert "all" in selector_choices(MASSAGE, "driver", "Warm all the seats, please.", "driver")
    assert "all" in selector_choices(MASSAGE, "driver", "Massage for everyone.", "driver")


def test_the_rules_choice_of_all_stays_first() -> None:
    assert selector_choices(MASSAGE, "all", "Give me a massage.", "driver")[0] == "all"


def test_cabin_wide_settings_keep_all() -> None:
    # the rules read the climate's shared functions for the whole car: "all" first, the person's seat next
    assert selector_choices(FAN, "all", "Turn up the fan.", "driver")[:2] == ["all", "driver"]


def test_a_personal_zone_or_light_is_offered_all_only_when_asked() -> None:
    direction = API_SPECS["carcontrol_airConditioner_set_air_direction"]
    reading = API_SPECS["carcontrol_light_set_reading_light_brightness"]
    for spec in (direction, reading):
        assert "all" not in selector_choices(spec, "driver", "Give me my usual setting.", "driver")
        assert "all" in selector_choices(spec, "driver", "Set it the same for the whole car.", "driver")
        assert "all" in selector_choices(spec, "driver", "Everywhere in the car, please.", "driver")
    # a window is not a person's place: all windows stay a choice
    window = API_SPECS["carcontrol_window_set_open_degree"]
    assert "all" in selector_choices(window, "driver", "Open it my usual way.", "driver")
