"""``vmb eval``: outputs, official numbers, resume after a kill, workers, errors, attribution, factory."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import write_dataset
from vmb_gym.cli import build_parser, main
from vmb_gym.errors import ConfigError
from vmb_gym.evaluation import FAILURE_LABELS, attribute
from vmb_gym.evaluation.report import summarize
from vmb_gym.evaluation.run import run_evaluation
from vmb_gym.evaluation.runner import EvalConfig
from vmb_gym.scoring.aggregate import METRIC_KEYS

HISTORY = [
    "[2025-03-10 08:00] Gary Allen: I really love this green instrument panel, it calms me.",
    "[2025-03-10 08:01] Patricia Garcia: Green is fine by me.",
    "[2025-03-12 09:00] Gary Allen: Put my seat heating on level 2, that is how I like it.",
    "[2025-03-12 09:01] Patricia Garcia: Noted.",
    "[2025-03-15 19:30] Patricia Garcia: White panel is the default and I keep it.",
]
QA = [
    ("[March 10, 2025] At 8:00 AM, Gary said he loves the green instrument panel.", "preference_conflict",
     "At 10:00 AM, Gary got into the driver's seat: 'Give me my usual panel colour.'",
     ['carcontrol_instrumentPanel_set_color(color="green")']),
    ("[March 12, 2025] At 9:00 AM, Gary asked for seat heating level 2.", "conditional_constraint",
     "At 7:00 AM, Gary got into the driver's seat on a cold morning: 'Warm my seat the way I like.'",
     ['carcontrol_seat_set_heating_level(seat="driver", level=2)']),
    # Gold sets the panel to its initial colour: a known no-op task (nothing should change).
    ("[March 15, 2025] At 7:30 PM, Patricia said she keeps the default white panel.", "state_shift",
     "At 8:00 PM, Patricia got into the driver's seat: 'Keep the panel as I like it.'",
     ['carcontrol_instrumentPanel_set_color(color="white")']),
]


def write_tiny_dataset(root: Path) -> str:
    """A one-scenario dataset in the official layout; returns its data spec."""
    return f"official:{write_dataset(root, HISTORY, QA)}"


@pytest.fixture()
def tiny(tmp_path: Path) -> str:
    return write_tiny_dataset(tmp_path / "data")


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def eval_cli(*args: str) -> int:
    return main(["eval", "--no-progress", *args])


# ---------------------------------------------------------------------------- help
def test_help_lists_every_option() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = sub.choices["eval"].format_help()  # type: ignore[union-attr]
    for option in ("--policy", "--memory", "--data", "--files", "--trials", "--workers", "--out", "--resume",
                   "--max-steps", "--schema", "--limit", "--seed", "--gold-run", "--compare", "--memory-kwargs",
                   "--policy-kwargs", "--no-plots", "--no-progress"):
        assert option in text, option
    for kind in ("oracle", "noop", "random", "rules", "hf:PATH", "openai:MODEL", "sb3:CHECKPOINT"):
        assert kind in text
    regrade = sub.choices["regrade"].format_help()  # type: ignore[union-attr]
    for option in ("results", "--out", "--data", "--check"):
        assert option in regrade


# ---------------------------------------------------------------------------- official numbers
def test_oracle_tiny_writes_every_output(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert eval_cli("--policy", "oracle", "--data", tiny, "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "preference_conflict" in printed and "overall" in printed and "ESM" in printed
    metric = json.loads((out / "metric.json").read_text())
    for key in ("completed_tasks", "valid_tasks", "skipped_tasks", *METRIC_KEYS, "skipped_queries", "by_reasoning_type",
                "model", "memory_type", "tool_f1", "memory_audit", "memory_score", "by_module", "avg_memory_tokens"):
        assert key in metric, key
    assert metric["exact_match_rate"] == 1 and metric["completed_tasks"] == 3 and metric["tool_f1"] == 1
    assert metric["model"] == "oracle" and metric["memory_type"] == "none"
    assert set(metric["by_module"]) == {"instrumentPanel", "seat"}
    assert metric["by_module"]["instrumentPanel"]["count"] == 2
    records = lines(out / "results.jsonl")
    assert [(r["task_id"], r["trial"]) for r in records] == [("1_0", 0), ("1_1", 0), ("1_2", 0)]
    first = records[0]
    assert first["trajectory"]["calls"][0]["name"] == "carcontrol_instrumentPanel_set_color"
    assert first["trajectory"]["calls"][0]["result"]["success"] is True
    assert first["metrics"]["exact_match"] is True and first["differences"] == [] and first["attribution"] is None
    assert first["error_kind"] is None and first["memory"]["evidence_lines"] == [1]
    config = json.loads((out / "config.json").read_text())
    assert config["policy"] == "oracle" and config["data"] == tiny and config["tasks"] == 3
    report = (out / "report.md").read_text()
    assert "## By reasoning type" in report and "## By module" in report and "## Failure attribution" in report
    for png in ("esm_by_reasoning_type.png", "memory_tokens_vs_esm.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_noop_scores_only_noop_tasks(tiny: str, tmp_path: Path) -> None:
    out = tmp_path / "noop"
    assert eval_cli("--policy", "noop", "--data", tiny, "--out", str(out)) == 0
    records = lines(out / "results.jsonl")
    for r in records:
        assert r["metrics"]["exact_match"] is (r["metrics"]["should_change"] == 0)
        if r["metrics"]["exact_match"]:
            assert r["attribution"] is None
        else:
            assert r["attribution"]["label"] == "no_action"
    assert [r["task_id"] for r in records if r["metrics"]["exact_match"]] == ["1_2"]
    metric = json.loads((out / "metric.json").read_text())
    assert metric["exact_match_rate"] == pytest.approx(1 / 3)
    assert metric["failure_attribution"] == {"no_action": 2}


@pytest.mark.needs_shared
def test_oracle_official_is_perfect(official: Path, tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    assert eval_cli("--policy", "oracle", "--data", f"official:{official}", "--files", "1-2", "--out", str(out)) == 0
    metric = json.loads((out / "metric.json").read_text())
    assert metric["exact_match_rate"] == 1 and metric["completed_tasks"] == 20
    assert all(b["exact_match_rate"] == 1 for b in metric["by_reasoning_type"].values())


@pytest.mark.needs_shared
def test_noop_official_only_noop_tasks(official: Path, tmp_path: Path) -> None:
    out = tmp_path / "noop"
    assert eval_cli("--policy", "noop", "--data", f"official:{official}", "--files", "1-2", "--out", str(out)) == 0
    records = lines(out / "results.jsonl")
    assert len(records) == 20
    for r in records:
        assert r["metrics"]["exact_match"] is (r["metrics"]["should_change"] == 0)


# ---------------------------------------------------------------------------- resume
def test_resume_after_kill_redoes_only_missing(tiny: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--out", str(out)) == 0
    full = (out / "results.jsonl").read_bytes()
    original = lines(out / "results.jsonl")
    assert len(original) == 6
    # Simulate a kill: keep 3 finished lines and half of the 4th, drop the derived files.
    kept = b"".join(full.splitlines(keepends=True)[:3])
    partial = full.splitlines(keepends=True)[3][:40]
    (out / "results.jsonl").write_bytes(kept + partial)
    (out / "metric.json").unlink()
    # Without --resume the directory is refused.
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--out", str(out)) == 2
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--out", str(out), "--resume") == 0
    data = (out / "results.jsonl").read_bytes()
    assert data.startswith(kept)  # finished episodes untouched, truncated line gone
    redone = lines(out / "results.jsonl")
    assert len(redone) == 6
    assert len({(r["task_id"], r["trial"]) for r in redone}) == 6
    # Per-episode seeds make the redone episodes identical to the uninterrupted run.
    key = lambda r: (r["task_id"], r["trial"])  # noqa: E731
    assert sorted((key(r), r["metrics"]) for r in redone) == sorted((key(r), r["metrics"]) for r in original)
    assert json.loads((out / "metric.json").read_text())["completed_tasks"] == 6
    # A second resume has nothing left to do.
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--out", str(out), "--resume") == 0
    assert (out / "results.jsonl").read_bytes() == data


def test_resume_refuses_other_options(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert eval_cli("--policy", "noop", "--data", tiny, "--out", str(out)) == 0
    assert eval_cli("--policy", "oracle", "--data", tiny, "--out", str(out), "--resume") == 2
    assert "policy differs" in capsys.readouterr().err


# ---------------------------------------------------------------------------- infrastructure errors
class _Flaky:
    """Raises on every episode of ``always`` and on the first try of each episode of ``once``."""

    def __init__(self, always: set[str], once: set[str]) -> None:
        self.always, self.once, self.task = always, once, ""
        self.failed: set[str] = set()

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.task = info["task_id"]

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        if self.task in self.always:
            raise ConnectionError("endpoint down; api_key=sk-secretsecret123 refused")
        if self.task in self.once and self.task not in self.failed:
            self.failed.add(self.task)
            raise TimeoutError("endpoint timed out")
        return {"name": "finish", "arguments": {}}


def test_infrastructure_errors_are_retried_and_recorded(tiny: str, tmp_path: Path) -> None:
    policy = _Flaky(always={"1_0"}, once={"1_1"})
    config = EvalConfig(policy="flaky", data=tiny, policy_kwargs={"api_key": "sk-secretsecret123"})
    records = run_evaluation(config, tmp_path / "run", lambda spec, env, **kw: policy, progress=False)
    by_id = {r["task_id"]: r for r in records}
    assert by_id["1_0"]["error_kind"] == "infrastructure" and by_id["1_0"]["attempts"] == 2
    assert "ConnectionError" in by_id["1_0"]["error"]
    assert by_id["1_1"]["error_kind"] is None and by_id["1_1"]["attempts"] == 2
    assert by_id["1_2"]["error_kind"] is None and by_id["1_2"]["attempts"] == 1
    raw = (tmp_path / "run" / "results.jsonl").read_text() + (tmp_path / "run" / "config.json").read_text()
    assert "sk-secretsecret123" not in raw
    metric = summarize(records, config.to_json())
    assert metric["infrastructure_errors"] == 1 and metric["completed_tasks"] == 2
    assert metric["infrastructure_error_episodes"] == ["1_0#0"]
    # --resume redoes the failed episode only.
    policy.always.clear()
    again = run_evaluation(config, tmp_path / "run", lambda spec, env, **kw: policy, resume=True, progress=False)
    assert all(r["error_kind"] is None for r in again)
    assert len(lines(tmp_path / "run" / "results.jsonl")) == 4


def test_workers_match_single_process(tiny: str, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--out", str(one), "--no-plots") == 0
    assert eval_cli("--policy", "random", "--data", tiny, "--trials", "2", "--workers", "2", "--out", str(two),
                    "--no-plots") == 0
    a = json.loads((one / "metric.json").read_text())
    b = json.loads((two / "metric.json").read_text())
    assert a["completed_tasks"] == b["completed_tasks"] == 6
    for key in (*METRIC_KEYS, "tool_f1", "by_reasoning_type", "pass^1", "pass^2"):
        assert a[key] == b[key], key


# ---------------------------------------------------------------------------- MemoryScore, pass^k, plots
def test_memory_score_from_sibling_and_explicit_gold_run(tiny: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    assert eval_cli("--policy", "oracle", "--memory", "gold", "--data", tiny, "--out", str(runs / "gold")) == 0
    gold = json.loads((runs / "gold" / "metric.json").read_text())
    assert gold["memory_score"] == 1.0
    assert eval_cli("--policy", "oracle", "--memory", "bm25", "--data", tiny, "--out", str(runs / "bm25"),
                    "--compare", str(runs / "gold")) == 0
    metric = json.loads((runs / "bm25" / "metric.json").read_text())
    assert metric["memory_score"] == 1.0 and metric["memory_score_gold_run"].endswith("gold")
    fake = tmp_path / "fake_gold"
    fake.mkdir()
    (fake / "metric.json").write_text(json.dumps({"exact_match_rate": 0.5}))
    assert eval_cli("--policy", "oracle", "--data", tiny, "--out", str(tmp_path / "x"), "--gold-run", str(fake)) == 0
    assert json.loads((tmp_path / "x" / "metric.json").read_text())["memory_score"] == pytest.approx(2.0)
    # No gold run: no MemoryScore.
    assert eval_cli("--policy", "noop", "--data", tiny, "--out", str(tmp_path / "alone" / "run")) == 0
    assert json.loads((tmp_path / "alone" / "run" / "metric.json").read_text())["memory_score"] is None


def test_pass_hat_k() -> None:
    def rec(task: str, trial: int, ok: bool) -> dict[str, Any]:
        return {"task_id": task, "trial": trial, "reasoning_type": "state_shift", "gold_modules": ["seat"],
                "metrics": {"exact_match": ok}, "episode": {}, "memory": {}, "error_kind": None}

    records = [rec("1_0", 0, True), rec("1_0", 1, False), rec("1_1", 0, True), rec("1_1", 1, True)]
    metric = summarize(records, {"policy": "p", "memory": "none", "trials": 2})
    assert metric["pass^1"] == pytest.approx(0.75)
    assert metric["pass^2"] == pytest.approx(0.5)
    assert metric["exact_match_rate"] == pytest.approx(0.75)


# ---------------------------------------------------------------------------- attribution
GOLD = [{"name": "carcontrol_instrumentPanel_set_color", "arguments": {"color": "green"}}]


def crafted(calls: list[dict[str, Any]], *, fp: int = 0, nfp: int = 1, exact: bool = False,
            memory: dict[str, Any] | None = None, error: str | None = None) -> dict[str, Any]:
    return {
        "task_id": "1_0", "trial": 0, "gold_calls": GOLD, "error_kind": error,
        "metrics": {"exact_match": exact, "FP": fp, "negative_FP": nfp, "TP": 0, "should_change": 1},
        "trajectory": {"calls": [{**c, "result": {"success": True}} for c in calls]},
        "memory": memory or {"provides_search": False, "provides_context": False, "evidence_lines": [1]},
    }


SEARCH = {"name": "search_memory", "arguments": {"query": "panel"}}
RIGHT = {"name": "carcontrol_instrumentPanel_set_color", "arguments": {"color": "green"}}


def _bm25(found: bool, searches: int = 1) -> dict[str, Any]:
    audit = {"mrr": 1.0 if found else 0.0, "first_hit_ranks": [1 if found else None]} if searches else None
    return {"provides_search": True, "provides_context": False, "evidence_lines": [1], "searches": searches,
            "hit_lines": [1] if found else [7], "audit": audit}


@pytest.mark.parametrize(
    ("record", "label", "labels", "detail"),
    [
        (crafted([]), "no_action", ["no_action"], "no vehicle call"),
        (crafted([SEARCH], memory=_bm25(found=False)), "evidence_not_retrieved",
         ["evidence_not_retrieved", "no_action"], "no gold evidence line retrieved"),
        (crafted([], memory=_bm25(found=False, searches=0)), "evidence_not_retrieved",
         ["evidence_not_retrieved", "no_action"], "no search made"),
        (crafted([SEARCH, {"name": "carcontrol_light_set_fog_light", "arguments": {"enabled": True}}], fp=1,
                 memory=_bm25(found=True)), "retrieved_but_unused",
         ["retrieved_but_unused", "wrong_module_or_api", "extra_changes"], "wrong module"),
        (crafted([{"name": "carcontrol_instrumentPanel_set_color", "arguments": {"color": "red"}}], fp=0,
                 memory=_bm25(found=True)), "wrong_value", ["wrong_value"], "carcontrol_instrumentPanel_set_color"),
        (crafted([{"name": "carcontrol_instrumentPanel_set_brightness", "arguments": {"brightness": 30}}], fp=1),
         "wrong_module_or_api", ["wrong_module_or_api", "extra_changes"], "wrong API"),
        (crafted([RIGHT, {"name": "carcontrol_light_set_fog_light", "arguments": {"enabled": True}}], fp=1, nfp=0,
                 memory={"provides_search": False, "provides_context": True, "evidence_lines": [1]}),
         "extra_changes", ["extra_changes"], "1 field(s)"),
    ],
)
def test_attribution_labels(record: dict[str, Any], label: str, labels: list[str], detail: str) -> None:
    result = attribute(record)
    assert result is not None
    assert result["label"] == label
    assert result["labels"] == labels
    assert detail in result["detail"]
    assert set(result["labels"]) <= set(FAILURE_LABELS)


def test_attribution_skips_success_and_errors() -> None:
    assert attribute(crafted([RIGHT], exact=True, nfp=0)) is None
    assert attribute(crafted([], error="infrastructure")) is None
    assert attribute(crafted([], memory={"provides_context": True, "evidence_lines": [1]}))["evidence"] == "in_context"


class _SearchThenFinish:
    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.request, self.step = info["request"], 0

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        self.step += 1
        if self.step == 1:
            return {
                "name": "search_memory",
                "arguments": {"query": "green instrument panel seat heating level", "top_k": 5},
            }
        return {"name": "finish", "arguments": {}}


def test_attribution_in_real_run_uses_memory_audit(tiny: str, tmp_path: Path) -> None:
    config = EvalConfig(policy="search", memory="bm25", data=tiny)
    records = run_evaluation(config, tmp_path / "run", lambda spec, env, **kw: _SearchThenFinish(), progress=False)
    by_id = {r["task_id"]: r for r in records}
    first = by_id["1_0"]
    assert first["memory"]["searches"] == 1 and 1 in first["memory"]["hit_lines"]
    assert first["memory"]["audit"]["mrr"] > 0
    assert first["attribution"]["label"] == "retrieved_but_unused"
    assert first["attribution"]["evidence"] == "retrieved"
    assert by_id["1_2"]["attribution"] is None  # the no-op task succeeds


# ---------------------------------------------------------------------------- factory
def test_factory_specs_and_errors(tiny: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import gymnasium as gym

    from vmb_agents.baselines import NoopPolicy, OraclePolicy, RandomPolicy
    from vmb_agents.factory import check_policy, make_policy, policy_kind

    env = gym.make("VehicleMem-v0", data=tiny)
    assert isinstance(make_policy("oracle", env), OraclePolicy)
    assert isinstance(make_policy("noop", env), NoopPolicy)
    assert isinstance(make_policy("random", env, seed=3), RandomPolicy)
    with pytest.raises(ConfigError, match="takes no option.*'temperature'.*accepts calls_per_episode, seed, schema"):
        make_policy("random", env, seed=3, temperature=0.1)  # an unknown option is an error, not dropped
    assert policy_kind("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert policy_kind("sb3:runs/a:b.zip") == ("sb3", "runs/a:b.zip")
    with pytest.raises(ConfigError, match="expected a policy spec"):
        policy_kind("smart")
    with pytest.raises(ConfigError, match="nothing after the colon"):
        policy_kind("hf:")
    monkeypatch.setitem(sys.modules, "vmb_agents.llm.hf", None)
    with pytest.raises(ConfigError, match="vmb_agents.llm.hf"):
        make_policy("hf:/models/x", env)
    with pytest.raises(ConfigError, match="vmb_agents.llm.hf"):
        check_policy("hf:/models/x")


def test_memory_used_inside_the_policy_is_reported_like_env_memory(tiny: str, tmp_path: Path) -> None:
    out = tmp_path / "rules"
    assert main(["eval", "--policy", "rules", "--memory", "bm25", "--data", tiny, "--out", str(out),
                 "--no-plots", "--no-progress"]) == 0
    metric = json.loads((out / "metric.json").read_text())
    assert metric["avg_memory_searches"] >= 1
    assert metric["avg_memory_tokens"] > 0
    assert metric["memory_audit"]["episodes"] == 3
    records = lines(out / "results.jsonl")
    assert all(r["memory"]["searches"] >= 1 and r["memory"]["hit_lines"] for r in records)
