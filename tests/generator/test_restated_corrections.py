"""Corrections that name the setting again (``GeneratorOptions.restated_corrections``): the correcting line
says the setting and both values, its own random stream leaves everything else byte for byte, and the rules
reader then reads the corrected value."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vmb_gym.cli import main
from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, build_scenario
from vmb_gym.generator.render_verify import mentions

OPTS = GeneratorOptions(seed=4, scenarios=3, history_length=600)


def _corrections(options: GeneratorOptions) -> list[tuple[dict, str]]:
    """(event, its history line) of every correction in the set (line ids count from 1)."""
    out = []
    for k in range(options.scenarios):
        scenario = build_scenario(options, k)
        lines = scenario.history.splitlines()
        out += [(e, lines[e["line_id"] - 1]) for e in scenario.meta["events"] if e["kind"] == "correction"]
    return out


def test_the_option_is_validated_and_left_out_of_json_when_off() -> None:
    assert "restated_corrections" not in OPTS.to_json()
    on = dataclasses.replace(OPTS, restated_corrections=0.5)
    assert on.to_json()["restated_corrections"] == 0.5
    assert GeneratorOptions.from_json(on.to_json()) == on
    with pytest.raises(ConfigError, match="restated_corrections must be a share in \\[0, 1\\], got 1.5"):
        dataclasses.replace(OPTS, restated_corrections=1.5)


@pytest.mark.parametrize("renderer", ["template", "natural"])
def test_every_restated_line_names_its_setting(renderer: str) -> None:
    named = _corrections(dataclasses.replace(OPTS, renderer=renderer, restated_corrections=1.0))
    assert named and all(mentions(e["api"], line) for e, line in named), named


def test_restated_corrections_name_the_setting_and_change_nothing_else() -> None:
    plain = _corrections(OPTS)
    named = _corrections(dataclasses.replace(OPTS, restated_corrections=1.0))
    assert len(plain) == len(named) >= 3
    # every restated line names its function; the plain bank leaves most without it
    unnamed = [line for e, line in named if not mentions(e["api"], line)]
    assert not unnamed, unnamed
    assert sum(mentions(e["api"], line) for e, line in plain) < len(plain)
    # the structured truth is the same; only the correcting lines' words changed
    assert [e for e, _ in plain] == [e for e, _ in named]
    for k in range(OPTS.scenarios):
        a = build_scenario(OPTS, k)
        b = build_scenario(dataclasses.replace(OPTS, restated_corrections=1.0), k)
        ids = {e["line_id"] - 1 for e in a.meta["events"] if e["kind"] == "correction"}
        diff = {i for i, (x, y) in enumerate(zip(a.history.splitlines(), b.history.splitlines(), strict=True))
                if x != y}
        assert diff and diff <= ids
        def truth(q: dict) -> tuple:
            return q["gold_calls"], q["as_of"], [ev["line_ids"] for ev in q["evidence"]]
        assert [truth(q) for q in a.meta["queries"]] == [truth(q) for q in b.meta["queries"]]


def test_a_reader_keyed_on_the_setting_finds_the_corrected_value_only_in_restated_lines() -> None:
    from vmb_agents.reader.values import extract_value
    from vmb_gym.vehicle import API_SPECS

    def read_right(event: dict, line: str) -> bool:
        """The rules reader's value of a line that names the function (what a search for the setting ranks)."""
        text = line.split(": ", 1)[1]
        if not mentions(event["api"], text):
            return False
        want = event["value"]
        return extract_value(API_SPECS[event["api"]], text) == (next(iter(want.values())) if len(want) == 1 else want)

    plain = _corrections(OPTS)
    named = _corrections(dataclasses.replace(OPTS, restated_corrections=1.0))
    assert all(read_right(e, line) for e, line in named), named
    assert sum(read_right(e, line) for e, line in plain) < len(plain)


def test_vmb_generate_takes_the_flag_and_refuses_it_for_the_embedded_benchmark(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rc"
    assert main(["generate", "--restated-corrections", "1", "--scenarios", "1", "--history-length", "200",
                 "--renderer", "template", "--out", str(out)]) == 0
    options = json.loads(next((out / "meta").iterdir()).read_text(encoding="utf-8"))["generator"]["options"]
    assert options["restated_corrections"] == 1.0
    assert main(["generate", "--benchmark", "--restated-corrections", "1", "--out", str(tmp_path / "b")]) == 2
    assert "--restated-corrections" in capsys.readouterr().err
