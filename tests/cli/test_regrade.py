"""``vmb regrade``: the saved trajectories reproduce metric.json; tampered metrics are repaired."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tests.conftest import write_dataset
from vmb_gym.cli import main
from vmb_gym.evaluation.records import read_results, scored_calls

HISTORY = [
    "[2025-03-10 08:00] Gary Allen: I really love this green instrument panel, it calms me.",
    "[2025-03-12 09:00] Gary Allen: Put my seat heating on level 2, that is how I like it.",
    "[2025-03-15 19:30] Patricia Garcia: White panel is the default and I keep it.",
]
QA = [
    (
        "[March 10, 2025] At 8:00 AM, Gary said he loves the green instrument panel.",
        "preference_conflict",
        "At 10:00 AM, Gary got in: 'My usual panel colour.'",
        ['carcontrol_instrumentPanel_set_color(color="green")'],
    ),
    (
        "[March 12, 2025] At 9:00 AM, Gary asked for seat heating level 2.",
        "conditional_constraint",
        "At 7:00 AM, Gary got in: 'Warm my seat.'",
        [
            'carcontrol_seat_set_heating_level(seat="driver", level=2)',
            'carcontrol_instrumentPanel_set_color(color="green")',
        ],
    ),
    (
        "[March 15, 2025] At 7:30 PM, Patricia keeps the default white panel.",
        "state_shift",
        "At 8:00 PM, Patricia got in: 'Keep the panel.'",
        ['carcontrol_instrumentPanel_set_color(color="white")'],
    ),
]


@pytest.fixture()
def tiny(tmp_path: Path) -> str:
    return f"official:{write_dataset(tmp_path / 'data', HISTORY, QA)}"


def _metric(run: Path) -> dict[str, object]:
    return json.loads((run / "metric.json").read_text())


@pytest.mark.parametrize("policy", ["oracle", "noop", "random"])
def test_regrade_reproduces_metric_json(tiny: str, tmp_path: Path, policy: str) -> None:
    run = tmp_path / policy
    options = '{"calls_per_episode": 3, "seed": 1}' if policy == "random" else "{}"  # oracle/noop take none
    assert main(["eval", "--no-progress", "--no-plots", "--policy", policy, "--data", tiny, "--trials", "3",
                 "--policy-kwargs", options, "--out", str(run)]) == 0
    before = _metric(run)
    report_before = (run / "report.md").read_text()
    results_before = (run / "results.jsonl").read_bytes()
    assert main(["regrade", str(run / "results.jsonl"), "--check", "--no-plots"]) == 0
    assert _metric(run) == before
    assert (run / "report.md").read_text() == report_before
    assert (run / "results.jsonl").read_bytes() == results_before  # nothing changed, nothing rewritten
    if policy == "random":  # non-trivial scores: some calls, some extra changes
        records = read_results(run / "results.jsonl")
        assert any(len(scored_calls(r)) == 3 for r in records)
        assert before["exact_match_rate"] < 1


def test_regrade_repairs_tampered_metrics_into_new_dir(
    tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["eval", "--no-progress", "--no-plots", "--policy", "oracle", "--data", tiny, "--out", str(run)]) == 0
    before = _metric(run)
    rows = [orjson.loads(x) for x in (run / "results.jsonl").read_bytes().splitlines()]
    rows[1]["metrics"]["exact_match"] = False
    rows[1]["metrics"]["f1_change"] = 0.0
    (run / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    out = tmp_path / "regraded"
    assert main(["regrade", str(run / "results.jsonl"), "--out", str(out), "--check", "--no-plots"]) == 1
    printed = capsys.readouterr().out
    assert "1 changed" in printed and "1_1#0" in printed
    after = _metric(out)
    assert after["exact_match_rate"] == before["exact_match_rate"] == 1
    assert {k: v for k, v in after.items() if k != "memory_score_gold_run"} == \
        {k: v for k, v in before.items() if k != "memory_score_gold_run"}
    regraded = read_results(out / "results.jsonl")
    assert regraded[1]["metrics"]["exact_match"] is True and (out / "config.json").exists()


@pytest.mark.needs_shared
def test_regrade_reproduces_official_run(official: Path, tmp_path: Path) -> None:
    run = tmp_path / "random"
    assert main(["eval", "--no-progress", "--no-plots", "--policy", "random", "--data", f"official:{official}",
                 "--files", "1-2", "--out", str(run), "--policy-kwargs", '{"calls_per_episode": 2}']) == 0
    before = _metric(run)
    assert main(["regrade", str(run / "results.jsonl"), "--check", "--no-plots"]) == 0
    assert _metric(run) == before


def test_regrade_missing_config_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "results.jsonl").write_text("")
    assert main(["regrade", str(tmp_path / "results.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "config.json" in err and "expected" in err
