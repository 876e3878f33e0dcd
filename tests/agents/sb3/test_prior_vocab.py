"""The ``"vocab"`` line prior (the simulator vocabulary masked) and the transfer table that measures it."""

from __future__ import annotations

import pytest

from vmb_agents.sb3.slots.line_prior import N_FEATURES, LinePrior, fit_line_prior
from vmb_agents.sb3.slots.prior_table import auc_table, fit_kind, format_table, main, parse_eval, training_scenarios
from vmb_agents.sb3.slots.prior_text import SETTING_TOKEN, VALUE_TOKEN, vocab_text
from tests.agents.sb3.test_line_prior import CHATTER, REAL
from vmb_gym.errors import ConfigError


def _examples() -> list[tuple[str, bool]]:
    return [(t.format(v=v), True) for v in range(10, 60, 5) for t in REAL] + \
           [(t.format(v=v), False) for v in range(10, 60, 5) for t in CHATTER]


def test_vocab_text_masks_numbers_in_words_enum_values_and_setting_phrases() -> None:
    assert vocab_text("Navigation voice at fifty, that's a good standard volume.").split() == \
        [SETTING_TOKEN, SETTING_TOKEN, "at", "0,", "that's", "a", "good", "standard", SETTING_TOKEN, "."]
    assert vocab_text("Seat leg support at seventy-five.").split()[-1] == "0."  # one number, not two
    assert VALUE_TOKEN in vocab_text("I love the green panel").split()
    assert VALUE_TOKEN in vocab_text("Shuffle play. There we go.").lower().split()
    assert vocab_text("Let's talk about it tonight.") == "let's talk about it tonight."


def test_a_vocab_prior_reads_how_a_line_is_said_not_which_setting_or_value() -> None:
    vocab = LinePrior.fit(_examples(), kind="vocab")
    words = LinePrior.fit(_examples())
    same = ["Set the seat heating to level three for me.", "Set the fan speed to level 7 for me."]
    assert vocab(same[0]) == vocab(same[1])
    assert words(same[0]) != words(same[1])
    # the wording the training lines share ranks as before, whatever the setting named
    assert vocab("Update on the fan speed: four from today, because I've been getting headaches.") > \
        vocab("In my work van the fan speed is always stuck at four, nobody knows why.")


def test_vocab_prior_has_the_word_width_round_trips_and_reads_every_line() -> None:
    from vmb_gym.envs.task_set import TaskSet

    prior = LinePrior.fit(_examples(), kind="vocab")
    assert prior.coef.shape == (N_FEATURES,) and prior.width() == N_FEATURES
    again = LinePrior.from_json(prior.to_json())
    assert again.kind == "vocab" and again(CHATTER[1].format(v=3)) == pytest.approx(prior(CHATTER[1].format(v=3)))
    scenarios = [TaskSet.load("default", files=[1]).scenarios[1]]
    lines: list[str] = []
    fitted = fit_line_prior(scenarios, "vocab", log=lines.append)
    assert lines[0].startswith("line prior (vocab): 2000 lines of 1 training households")
    assert fitted.coef.shape == (N_FEATURES,)


def test_transfer_table_fits_on_generated_data_only_and_formats_its_rows() -> None:
    with pytest.raises(ConfigError, match="official"):
        training_scenarios(["official:/somewhere"])
    assert parse_eval("official=official:/data/vmb:1-40") == ("official", "official:/data/vmb", "1-40")
    with pytest.raises(ConfigError, match="NAME=SPEC:FILES"):
        parse_eval("default")
    bodies = [t.format(v=33) for t in (*REAL, *CHATTER)]
    labels = [True] * len(REAL) + [False] * len(CHATTER)
    rows = auc_table({"vocab": LinePrior.fit(_examples(), kind="vocab")}, {"toy": (bodies, labels)})
    assert rows[0]["prior"] == "vocab" and rows[0]["toy"] == 1.0
    table = format_table(rows, {"toy": (len(labels), sum(labels))})
    assert table.splitlines()[0] == "| prior | toy (9 lines, 4 gold) |" and table.splitlines()[2] == "| vocab | 1.000 |"


def test_transfer_table_main_on_one_generated_household(capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = training_scenarios(["default"], "2")
    assert [s.scenario_id for s in scenarios] == [2]
    assert fit_kind(scenarios, "vocab").kind == "vocab"
    table = main(["--train", "default", "--train-files", "2", "--kind", "vocab", "--eval", "held_out=default:1"])
    row = table.splitlines()[2].split("|")
    assert row[1].strip() == "vocab" and 0.5 < float(row[2]) <= 1.0
    assert "fitted on 1 generated households (default)" in capsys.readouterr().out
