"""The lexicon of everyday vehicle words: its keys are the simulator's, its cues say what they mean."""

from __future__ import annotations

import pytest

from vmb_gym.memory import extraction
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS
from vmb_gym.vehicle import lexicon as lx


def test_module_and_function_tables_name_simulator_keys():
    # every module has everyday words, and no table names a module or API the simulator lacks
    assert set(lx.MODULE_WORDS) == set(MODULE_KEYS)
    assert set(lx.API_WORDS) <= set(API_SPECS)
    assert set(lx.MODULE_DEFAULT) <= set(MODULE_KEYS)
    for module, api in lx.MODULE_DEFAULT.items():
        assert API_SPECS[api].module == module, (module, api)


def test_value_synonyms_are_keyed_by_real_parameters():
    params = {p.name for s in API_SPECS.values() for p in s.params}
    for key in lx.VALUE_SYNONYMS:
        name, _, api = key.partition("@")
        if api:
            assert name in {p.name for p in API_SPECS[api].params}, key
        else:
            assert name in params, key


def test_setting_keys_are_modules_or_shared_attributes():
    for key in (*lx.SETTING_SYNONYMS, *lx.QUERY_HINTS):
        assert key.split(".")[0] in MODULE_KEYS or key in lx.SETTING_ATTRIBUTES or key in lx.SPECIAL_SETTINGS, key


def test_phrases_are_lower_case():
    tables = (lx.MODULE_WORDS, lx.API_WORDS, lx.SETTING_SYNONYMS, lx.QUERY_HINTS, lx.CONDITIONS)
    upper = [w for table in tables for words in table.values() for w in words if w != w.lower()]
    assert upper == []


@pytest.mark.parametrize(
    ("line", "rules", "slots", "memory"),
    [
        # a standing habit: all readers but the memory's first-person cue ("usually" alone is not "i usually")
        ("Usually the fan is on level 2.", True, True, False),
        ("I usually keep it at 22.", True, True, True),
        # satisfaction words count for the slot design's cue only, and "perfect" for the memory's too
        ("That feels just right.", False, True, False),
        ("Perfect, leave it there.", False, True, True),
        # a complaint is the memory extractor's preference wording only
        ("It is too bright in here.", False, False, True),
    ],
)
def test_the_three_preference_cues_stay_apart(line, rules, slots, memory):
    # kept as separate entries on purpose: each was tuned with its reader (see the lexicon's docstring)
    assert bool(lx.PREFERENCE_WORDS.search(line)) is rules
    assert bool(lx.LINE_CUES["preference"].search(line)) is slots
    assert bool(lx.PREFERENCE_WORDING.search(line.lower())) is memory


def test_line_cues_name_each_kind_of_line():
    assert list(lx.LINE_CUES) == ["preference", "revision", "correction", "hypothetical", "elsewhere", "negation",
                                  "self", "question"]
    assert lx.LINE_CUES["revision"].search("From now on keep it at 3")
    assert lx.LINE_CUES["correction"].search("Sorry, I meant level 4")
    assert lx.LINE_CUES["elsewhere"].search("In the rental it was blue")
    assert not lx.LINE_CUES["hypothetical"].search("Set it to blue")


def test_condition_groups_and_clauses():
    assert lx.OPPOSITE["night"] == "day" and lx.OPPOSITE["hot"] == "cold"
    assert set(lx.OPPOSITE) <= set(lx.CONDITIONS)
    m = lx.CONDITION_CLAUSE.search("Set it to 3 when it rains, thanks")
    assert m is not None and m.group(0) == "when it rains"


def test_memory_extraction_reads_the_lexicon_tables():
    # one table, not a copy: a synonym added to the lexicon reaches the extractor
    assert extraction.ATTRIBUTES is lx.SETTING_ATTRIBUTES
    assert extraction.SPECIAL_SETTINGS is lx.SPECIAL_SETTINGS
    v = extraction.Vocabulary()
    assert "instrumentPanel" in v.settings("the dashboard is too bright")
    assert "HUD" in v.hints("I can't see the projection")
    assert not set(v.values) & lx.GENERIC_VALUES
