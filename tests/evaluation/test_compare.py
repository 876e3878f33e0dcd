"""vmb compare: the run table, groups, paired statistics and their refusal, on hand-made run dirs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.evaluation.run_dirs import write_eval_run, write_stream_run
from vmb_gym.cli import main
from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.compare import check_same_tasks, compare_runs, render_markdown, run_row
from vmb_gym.evaluation.runs import load_run
from vmb_gym.evaluation.stats import bootstrap_ci, paired_difference, sign_test

TYPES = ["state_shift", "error_correction"]


def _rows(wins: set[int], *, tokens: int = 100, n: int = 10, label: str | None = "wrong_value"):
    """Tasks 1_0..1_{n-1}; exact match on ``wins``; alternating reasoning types."""
    return [(f"1_{i}", TYPES[i % 2], i in wins, 1.0 if i in wins else 0.25, tokens, None if i in wins else label)
            for i in range(n)]


@pytest.fixture()
def ablation(tmp_path: Path) -> dict[str, Path]:
    # gold wins on 0-7; bm25 on 0, 8, 9 and 1 (ties on 0 and 1): vs gold bm25 wins 2 (8, 9), loses 6
    return {"bm25": write_eval_run(tmp_path / "bm25", "rules", "bm25", _rows({0, 1, 8, 9}, tokens=300)),
            "gold": write_eval_run(tmp_path / "gold", "rules", "gold", _rows(set(range(8)), tokens=50)),
            "none": write_eval_run(tmp_path / "none", "rules", "none", _rows({0}, tokens=0, label="no_action"))}


def test_sign_test_exact_values() -> None:
    assert sign_test([1] * 7 + [-1] + [0, 0]) == (7, 1, 2, 2 * (1 + 8) / 2**8)  # 0.0703125
    assert sign_test([0, 0]) == (0, 0, 2, 1.0)
    assert sign_test([1] * 10)[3] == 2 / 2**10


def test_bootstrap_is_seeded_and_bounded() -> None:
    diffs = [1, 0, 0, -1, 1, 1, 0, 1, 0, 1]
    assert bootstrap_ci(diffs, seed=3) == bootstrap_ci(diffs, seed=3)
    low, high = bootstrap_ci(diffs, resamples=2000)
    assert low < 0.4 < high and -1 <= low and high <= 1
    assert bootstrap_ci([0.5] * 7) == (0.5, 0.5)
    d = paired_difference([1, 1, 0], [0, 1, 0])
    assert (d.tasks, d.mean, d.wins, d.losses, d.ties, d.p_sign) == (3, 1 / 3, 1, 0, 2, 1.0)


def test_run_rows(ablation: dict[str, Path]) -> None:
    bm25, gold = load_run(ablation["bm25"]), load_run(ablation["gold"])
    row = run_row(bm25, [bm25, gold])
    assert {k: row[k] for k in ("policy", "memory", "data", "tasks", "episodes", "k")} == {
        "policy": "rules", "memory": "bm25", "data": "default", "tasks": 10, "episodes": 10, "k": 1}
    assert row["esm"] == pytest.approx(0.4) and row["pass_k"] == pytest.approx(0.4)
    assert row["value_f1"] == pytest.approx(0.4 * 1.0 + 0.6 * 0.25)
    assert row["field_f1"] == pytest.approx(row["value_f1"] / 2)
    assert (row["memory_tokens"], row["searches"], row["seconds_per_episode"]) == (300.0, 2.0, 0.5)
    assert row["memory_score"] == pytest.approx(0.4 / 0.8)  # ESM over the gold run's
    assert run_row(bm25)["memory_score"] is None


def test_compare_groups_pairs_and_failures(ablation: dict[str, Path]) -> None:
    runs = [load_run(ablation[m]) for m in ("none", "bm25", "gold")]
    cmp = compare_runs(runs, against=["gold"], resamples=2000)
    assert cmp.names == ["rules/none", "rules/bm25", "rules/gold"]
    # state_shift = even tasks 0,2,4,6,8; bm25 wins 0 and 8
    assert cmp.by_reasoning_type["state_shift"] == [{"n": 5, "esm": 0.2}, {"n": 5, "esm": 0.4}, {"n": 5, "esm": 0.8}]
    assert cmp.by_module["seat"][2] == {"n": 10, "esm": 0.8} and cmp.by_module["light"][0] == {"n": 9, "esm": 0.0}
    pairs = {(p["run"], p["reference"]): p for p in cmp.paired}
    assert set(pairs) == {("rules/none", "rules/gold"), ("rules/bm25", "rules/gold")}
    esm = pairs[("rules/bm25", "rules/gold")]["exact_match"]
    assert (esm["tasks"], esm["wins"], esm["losses"], esm["ties"]) == (10, 2, 6, 2)
    assert esm["mean"] == pytest.approx(-0.4)
    assert esm["p_sign"] == pytest.approx(2 * (1 + 8 + 28) / 2**8)  # 0.2890625
    assert esm["ci_low"] <= -0.4 <= esm["ci_high"]
    none = pairs[("rules/none", "rules/gold")]["exact_match"]
    assert (none["wins"], none["losses"], none["p_sign"]) == (0, 7, 2 / 2**7)
    assert cmp.failures["wrong_value"] == [0, 6, 2] and cmp.failures["no_action"] == [9, 0, 0]
    assert cmp.failures["success"] == [1, 4, 8]
    assert [r["run"] for r in cmp.recall] == cmp.names and cmp.recall[0]["recall"] == 1.0
    text = render_markdown(cmp)
    assert "| rules/bm25 | rules/gold | 10 | -0.400 [" in text and "| 2/6/2 | 0.289 |" in text
    two = compare_runs(runs, against=["gold", "bm25"], resamples=200)  # gold - bm25 mirrors bm25 - gold: once
    assert [(p["run"], p["reference"]) for p in two.paired] == [
        ("rules/none", "rules/gold"), ("rules/bm25", "rules/gold"), ("rules/none", "rules/bm25")]


def test_different_task_sets_are_refused(tmp_path: Path, ablation: dict[str, Path]) -> None:
    small = load_run(write_eval_run(tmp_path / "small", "rules", "dense", _rows({0}, n=6)))
    gold = load_run(ablation["gold"])
    with pytest.raises(ConfigError, match=r"a has 6 scored tasks, b has 10, 6 in common \('1_6' is in b only\)"):
        check_same_tasks(small, gold, ("a", "b"))
    cmp = compare_runs([small, gold], against=["gold"])
    assert cmp.paired == [] and "6 scored tasks" in cmp.refused[0]["reason"]
    assert "Not paired: paired statistics need the same tasks" in render_markdown(cmp)
    with pytest.raises(ConfigError, match="names none of the runs"):
        compare_runs([small, gold], against=["layered"])


def test_stream_runs_compare(tmp_path: Path) -> None:
    scen = {1: [("1_0", "state_shift", True), ("1_1", "state_shift", False)], 2: [("2_0", "error_correction", True)]}
    a = load_run(write_stream_run(tmp_path / "a", "rules", scen))
    scen[1] = [("1_0", "state_shift", False), ("1_1", "state_shift", False)]
    b = load_run(write_stream_run(tmp_path / "b", "noop", scen))
    cmp = compare_runs([a, b])
    assert cmp.names == ["rules/bm25", "noop/bm25"] and cmp.by_module == {}
    assert cmp.rows[0]["esm"] == pytest.approx(2 / 3) and cmp.rows[0]["searches"] is None
    assert cmp.paired[0]["exact_match"]["losses"] == 1 and cmp.paired[0]["exact_match"]["mean"] == pytest.approx(-1 / 3)


def test_cli_writes_json_and_plots(
    tmp_path: Path, ablation: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    rc = main(["compare", str(ablation["gold"]), str(ablation["bm25"]), "--out", str(out), "--resamples", "500"])
    assert rc == 0
    assert "# Comparison of 2 run(s)" in capsys.readouterr().out
    saved = json.loads((out / "comparison.json").read_text())
    assert saved["paired"][0]["reference"] == "rules/gold" and saved["settings"]["resamples"] == 500
    assert sorted(saved["plots"]) == [
        "compare_esm_by_type.png",
        "compare_recall_vs_esm.png",
        "compare_tokens_vs_esm.png",
    ]
    assert all((out / p).stat().st_size > 1000 for p in saved["plots"])
    assert math.isclose(saved["runs"][1]["esm"], 0.4)


def test_cli_refuses_unpaired_and_non_runs(tmp_path: Path, ablation: dict[str, Path],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    small = write_eval_run(tmp_path / "small", "rules", "dense", _rows({0}, n=6))
    assert main(["compare", str(ablation["gold"]), str(small)]) == 2
    assert "paired statistics need the same tasks" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "nowhere")]) == 2
    assert "expected a run directory" in capsys.readouterr().err
