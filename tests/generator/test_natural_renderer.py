"""The natural renderer: same structured truth as the template renderer, other words, official line format."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, banks, build_scenario, generate, talk
from vmb_gym.generator.catalog import render_value
from vmb_gym.generator.records import Utt, fill

LINE = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] ([A-Z][\w'-]* [A-Z][\w'-]*): (\S.*)$")
SMALL = {"seed": 11, "scenarios": 2, "history_length": 400, "days": 14}


def _natural(k: int = 0, **kw: object):
    return build_scenario(GeneratorOptions(**{**SMALL, **kw, "renderer": "natural"}), k)


def _lines(history: str) -> list[tuple[str, str, str]]:
    out = []
    for raw in history.splitlines():
        m = LINE.match(raw)
        assert m, f"not an official history line: {raw!r}"
        out.append((m.group(1), m.group(2), m.group(3)))
    return out


def test_natural_is_deterministic() -> None:
    a, b = _natural(1), _natural(1)
    assert a.history == b.history
    assert a.qa == b.qa and a.meta == b.meta


def test_unknown_renderer_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="renderer"):
        GeneratorOptions(renderer="fancy")


def test_template_renderer_leaves_sidecars_as_before() -> None:
    assert "renderer" not in GeneratorOptions().to_json()
    assert GeneratorOptions(renderer="natural").to_json()["renderer"] == "natural"
    sc = build_scenario(GeneratorOptions(**SMALL), 0)
    assert "renderer" not in sc.meta["generator"]["options"]


def test_same_structured_truth_as_template() -> None:
    tpl = build_scenario(GeneratorOptions(**SMALL), 0)
    nat = _natural(0)
    assert nat.history != tpl.history

    def strip(events: list[dict]) -> list[str]:  # the same events, placed at other lines and times
        return sorted(json.dumps({k: v for k, v in e.items() if k not in ("when", "line_id")}, sort_keys=True)
                      for e in events)

    assert strip(nat.meta["events"]) == strip(tpl.meta["events"])
    assert nat.meta["people"] == tpl.meta["people"]
    for qn, qt in zip(nat.meta["queries"], tpl.meta["queries"], strict=True):
        assert qn["gold_calls"] == qt["gold_calls"]
        assert qn["qa"] == qt["qa"] and qn["as_of"] == qt["as_of"]
        assert len(qn["evidence"]) == len(qt["evidence"])
    assert [i["new_answer"] for i in nat.qa["related_to_vehicle_preference"]] == \
        [i["new_answer"] for i in tpl.qa["related_to_vehicle_preference"]]


def test_lines_are_official_format_in_time_order() -> None:
    sc = _natural(0)
    lines = _lines(sc.history)
    names = {p["name"] for p in sc.meta["people"]}
    assert {who for _, who, _ in lines} <= names
    times = [t for t, _, _ in lines]
    assert times == sorted(times)
    assert len(lines) == sc.meta["history_lines"] >= SMALL["history_length"]
    assert any("\u2019" in text for _, _, text in lines)  # typographic apostrophes, as in the official files


def test_evidence_lines_state_the_value_for_the_person() -> None:
    sc = _natural(1)
    lines = _lines(sc.history)
    checked = 0
    for ev in sc.meta["events"]:
        if "value" not in ev or ev.get("kind") == "near_miss":
            continue
        when, who, text = lines[ev["line_id"] - 1]
        assert who == ev["person"]
        assert when.replace(" ", "T") == ev["when"]
        assert render_value(ev["value"], ev["api"]).lower() in text.lower(), text
        if "for" in ev:
            assert ev["for"] in text
        checked += 1
    assert checked >= 10
    for q in sc.meta["queries"]:
        for evidence in q["evidence"]:
            (line_id,) = evidence["line_ids"]
            assert lines[line_id - 1][2] in evidence["text"]


def test_reword_keeps_the_value_or_falls_back() -> None:
    rng = random.Random(3)
    src = fill(banks.STATE[0], noun="the ambient light color", val="purple", listener="Ana")
    utt = Utt(0, src, keep=("purple",))
    said = {talk.reword(utt, rng) for _ in range(20)}
    assert len(said) > 5 and all("purple" in s for s in said)
    assert all(s not in banks.STATE for s in said)
    lost = Utt(0, src, keep=("a value no template says",))
    assert talk.reword(lost, rng) == src  # a natural text that lost what must be kept is not used


def test_chat_turns_alternate_and_vary() -> None:
    sc = build_scenario(GeneratorOptions(**SMALL), 0)  # only for its people
    from vmb_gym.generator.scenario import ScenarioBuilder

    b = ScenarioBuilder(GeneratorOptions(**SMALL), sc.scenario_id, 0)
    rng = random.Random(5)
    convo = talk.chat(rng, b.people, 0, 1, 12)
    assert len(convo) == 12
    assert {u.speaker for u in convo} == {0, 1}
    texts = [u.text for _ in range(30) for u in talk.chat(rng, b.people, 0, 1, 8)]
    assert len(set(texts)) / len(texts) > 0.8
    assert not any("[" in t or "{" in t for t in texts)  # every choice and placeholder was filled


def _official_dir() -> Path | None:
    for cand in (os.environ.get("VMB_OFFICIAL_DIR"), "../shared/vehiclemembench", "/work/shared/vehiclemembench"):
        if cand and (Path(cand) / "history").is_dir():
            return Path(cand).resolve()
    return None


@pytest.mark.skipif(_official_dir() is None, reason="official VehicleMemBench data not found")
def test_domain_gap_smaller_than_template(tmp_path: Path) -> None:
    from vmb_gym.generator.domain_gap import domain_gap

    opts = {"seed": 5, "scenarios": 2, "history_length": 600}
    generate(GeneratorOptions(**opts), tmp_path / "tpl")
    generate(GeneratorOptions(**opts, renderer="natural"), tmp_path / "nat")
    official = tmp_path / "official" / "history"  # three official files keep the test quick
    official.mkdir(parents=True)
    for n in (1, 2, 3):
        (official / f"history_{n}.txt").symlink_to(_official_dir() / "history" / f"history_{n}.txt")
    tpl = domain_gap(tmp_path / "tpl", official.parent, lines=800)
    nat = domain_gap(tmp_path / "nat", official.parent, lines=800)
    assert nat.auc < tpl.auc
    assert nat.copy_share < 0.005
    assert nat.words_per_line["generated"]["mean"] > tpl.words_per_line["generated"]["mean"]


@pytest.mark.parametrize("k", [0, 1])
def test_restyled_queries_read_the_same(k: int) -> None:
    from vmb_agents.reader.request import read_request, request_destination

    tpl = build_scenario(GeneratorOptions(**SMALL), k)
    nat = _natural(k)
    speakers = [p["name"] for p in tpl.meta["people"]]
    changed = 0
    for a, b in zip(tpl.qa["related_to_vehicle_preference"], nat.qa["related_to_vehicle_preference"], strict=True):
        ra, rb = read_request(a["query"], speakers), read_request(b["query"], speakers)
        assert (rb.target, rb.seat, rb.driver, rb.conditions) == (ra.target, ra.seat, ra.driver, ra.conditions)
        assert request_destination(ra) in (None, request_destination(rb))  # never lost (sometimes gained)
        assert b["query"][:9] == a["query"][:9]  # "At 7:05 AM," stays first
        changed += a["query"] != b["query"]
    assert changed >= len(tpl.qa["related_to_vehicle_preference"]) // 2
