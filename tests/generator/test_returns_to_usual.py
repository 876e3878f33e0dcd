"""State shifts that return to the everyday setting (``GeneratorOptions.returns_to_usual``): the last revision was
for a while only, the request says its reason is over, and the gold is the value before that revision."""

from __future__ import annotations

import dataclasses
import json

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, build_scenario, banks

OPTS = GeneratorOptions(seed=4, scenarios=3, history_length=600)


def _shifts(options: GeneratorOptions) -> list[tuple[dict, dict, list[dict]]]:
    """(query, its situation, the events of its evidence lines) of every state-shift query of the set."""
    out = []
    for k in range(options.scenarios):
        scenario = build_scenario(options, k)
        by_line = {e["line_id"]: e for e in scenario.meta["events"]}
        requests = scenario.qa["related_to_vehicle_preference"]
        for q, qa in zip(scenario.meta["queries"], requests, strict=True):
            if q["reasoning_type"] == "state_shift":
                evidence = json.loads(q["evidence"]) if isinstance(q["evidence"], str) else q["evidence"]
                out.append(({**q, "query": qa["query"]}, q["situation"],
                            [by_line[i] for ev in evidence for i in ev["line_ids"]]))
    return out


def test_the_option_is_validated_and_left_out_of_json_when_off() -> None:
    assert "returns_to_usual" not in OPTS.to_json()
    on = dataclasses.replace(OPTS, returns_to_usual=0.5)
    assert on.to_json()["returns_to_usual"] == 0.5
    assert GeneratorOptions.from_json(on.to_json()) == on
    with pytest.raises(ConfigError, match="returns_to_usual must be a share in \\[0, 1\\], got -0.1"):
        dataclasses.replace(OPTS, returns_to_usual=-0.1)


@pytest.mark.parametrize("renderer", ["template", "natural"])
def test_the_gold_is_the_value_before_the_temporary_revision(renderer: str) -> None:
    shifts = _shifts(dataclasses.replace(OPTS, renderer=renderer, returns_to_usual=1.0))
    assert len(shifts) >= 3
    for q, situation, events in shifts:
        assert situation["target_revision"] == situation["depth"] - 2
        before, temporary = events[0], events[1]
        assert temporary["kind"] == "revision" and temporary["reason"] == situation["reason_over"]
        assert before["when"] < temporary["when"] < q["as_of"]
        gold = q["gold_calls"][0]
        assert (gold["name"], gold["arguments"]) == (before["api"], {**gold["arguments"], **before["value"]})
        assert temporary["value"] != before["value"]
        over = next(r[3] for r in banks.REASONS if r[0] == situation["reason_over"])
        request = q["query"].split(": '", 1)[1]
        # the request says the reason is over, or only that the everyday setting is wanted back
        assert over in request or "standard setting" in request or "normal" in request, request


def test_off_the_requests_ask_for_a_revision_in_force() -> None:
    shifts = _shifts(OPTS)
    assert shifts
    for q, situation, events in shifts:
        assert "reason_over" not in situation and situation["target_revision"] >= 1
        gold = q["gold_calls"][0]["arguments"]
        assert any(e["kind"] == "revision" and gold == {**gold, **e["value"]} for e in events)
