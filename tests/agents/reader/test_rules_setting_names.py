"""The rules' vocabulary reads every setting name the generator writes as its function.

A request that names a setting ("Adjust how high the seat sits to my preference") must not read as one that
names only the device ("Adjust the seat"): the device-alike reading then scores every seat function alike and
the memory picks one. Before the lexicon knew the generator's names, 31 of these 118 read as the device alone or
as another function, and the rules reader scored 0.168 on the embedded default benchmark (0.204 after).
"""

from __future__ import annotations

import pytest

from vmb_agents.reader import score_apis, value_param
from vmb_agents.reader.words import unnamed_setting_modules
from vmb_gym.generator.catalog import FIXED_LABELS, NOUNS
from vmb_gym.vehicle import API_SPECS

#: The module whose fixed part (a mirror's side, a sunshade, a wiper) fills a noun's ``{t}``.
_FIXED_PARAM = {"rearviewMirror": "side", "sunshade": "sunshade", "wiper": "wiper"}
#: Functions whose value is a name the request gives (a video's title): their nouns name the screen.
_NAMED_VALUES = {"carcontrol_video_play_video"}


def _setting_names() -> list[tuple[str, str]]:
    """(function, spoken name) of every generator noun of a function that sets a value, not a switch."""
    out = []
    for api, nouns in NOUNS.items():
        spec = API_SPECS[api]
        value = value_param(spec)
        if api in _NAMED_VALUES or value is None or value.py_type is bool:
            continue
        labels = list(FIXED_LABELS.get(_FIXED_PARAM.get(spec.module, ""), {}).values()) or [""]
        for noun in nouns:
            out += [(api, noun.replace("{t}", label)) for label in (labels if "{t}" in noun else [""])]
    return out


SETTING_NAMES = _setting_names()


def test_the_generator_names_many_settings():
    assert len(SETTING_NAMES) > 100
    assert ("carcontrol_seat_set_vertical_position", "how high the seat sits") in SETTING_NAMES


@pytest.mark.parametrize(("api", "name"), SETTING_NAMES, ids=[n for _, n in SETTING_NAMES])
def test_a_setting_name_reads_as_its_function(api, name):
    scores = score_apis(f"Adjust {name} to my preference.")
    best = max(scores.values(), default=0.0)
    assert scores.get(api) == best, (name, sorted(scores.items(), key=lambda kv: -kv[1])[:3])
    assert [a for a, s in scores.items() if s == best] == [api]
    assert API_SPECS[api].module not in unnamed_setting_modules(f"Adjust {name} to my preference.")


def test_a_device_named_alone_still_reads_as_the_device():
    # the names added for the generator's settings leave "the seat" and "my HUD settings" to the memory
    assert "seat" in unnamed_setting_modules("Adjust the seat to my comfort settings.")
    assert "HUD" in unnamed_setting_modules("Restore my HUD settings.")
