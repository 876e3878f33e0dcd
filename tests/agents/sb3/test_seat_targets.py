"""The slot catalogue's target slots: a seat is personal, so "all" is offered for a seat only when asked."""

from __future__ import annotations

from agents.sb3.slots.analysis import selector_choices
from vmb_gym.vehicle import API_SPECS

MASSAGE = API_SPECS["carcontrol_seat_set_massage_level"]
FAN = API_SPECS["carcontrol_airConditioner_set_fan_speed"]


def test_a_seat_request_that_names_no_seat_is_not_offered_all() -> None:
    targets = selector_choices(MASSAGE, "driver", "At 2 PM, Matthew told the car: 'My back is stiff, give me a massage.'",
                               "driver")
    assert targets[0] == "driver" and "all" not in targets
    assert len(targets) == 3  # the freed slot goes to the next seat


def test_a_seat_request_for_every_seat_keeps_all() -> None:
    assert "all" in selector_choices(MASSAGE, "driver", "Warm all the seats, please.", "driver")
    assert "all" in selector_choices(MASSAGE, "driver", "Massage for everyone.", "driver")


def test_the_rules_choice_of_all_stays_first() -> None:
    assert selector_choices(MASSAGE, "all", "Give me a massage.", "driver")[0] == "all"


def test_cabin_wide_settings_keep_all() -> None:
    assert "all" in selector_choices(FAN, "driver", "Turn up the fan.", "driver")
