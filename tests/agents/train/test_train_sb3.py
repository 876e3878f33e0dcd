"""``vmb train sb3``: refused settings, the used ``--out``, the cache root, evaluation sized to the run,
ESM as a fraction, behaviour cloning's per-step accuracy and its update count, the sidecar's settings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from vmb_agents.train import sb3_slots
from vmb_agents.train.common import (
    EVAL_MIN_EPISODES,
    SB3Args,
    accuracy_by_kind,
    check_sb3_args,
    eval_limit,
    format_score,
    GENERATED_STAMP,
    generated_train,
    train_split_options,
    prepare_out,
    summarise,
)
from vmb_gym.errors import ConfigError


@pytest.mark.parametrize("timesteps", [0, -5])
def test_non_positive_timesteps_are_refused(timesteps: int) -> None:
    with pytest.raises(ConfigError, match="--timesteps must be a positive"):
        check_sb3_args(SB3Args(timesteps=timesteps))
    with pytest.raises(ConfigError, match="--eval-episodes"):
        check_sb3_args(SB3Args(eval_episodes=-2))


def test_cli_reports_a_refused_setting_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    assert main(["train", "sb3", "--timesteps", "0", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["vmb train sb3: error: --timesteps must be a positive number of environment steps, found 0; "
                   "e.g. --timesteps 256 for a smoke run (the default is 20000)"]
    assert not (tmp_path / "run").exists()  # refused before anything is written


def test_unknown_memory_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    assert main(["train", "sb3", "--memory", "bm2", "--timesteps", "8", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("vmb train sb3: error:") and "bm25" in err[0]
    assert not (tmp_path / "run").exists()
    args = SB3Args(memory="BM25")
    check_sb3_args(args)
    assert args.memory == "bm25"  # case-insensitive where unambiguous


def test_a_used_out_is_refused_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "run"
    prepare_out(out, False, sb3_slots.OUTPUTS)  # new folder: fine
    assert (out / "checkpoints").is_dir()
    prepare_out(out, False, sb3_slots.OUTPUTS)  # only empty folders (a run that failed at once): fine
    (out / "checkpoints" / "bc.zip").write_bytes(b"old")
    (out / "summary.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not empty.*--overwrite"):
        prepare_out(out, False, sb3_slots.OUTPUTS)
    prepare_out(out, True, sb3_slots.OUTPUTS)
    assert not (out / "checkpoints" / "bc.zip").exists()  # a stale BC checkpoint would be evaluated
    assert not (out / "summary.json").exists()
    assert (out / "notes.txt").read_text() == "mine"  # not a trainer output: kept
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        prepare_out(tmp_path / "file", True, sb3_slots.OUTPUTS)


def test_generated_split_lives_under_the_one_cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_agents.train import stream_writer

    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path / "cache"))
    assert SB3Args().cache_dir == "" and stream_writer.Args().cache_dir == ""
    split = tmp_path / "cache" / "generated" / "train_3"
    (split / "qa_data").mkdir(parents=True)
    (split / GENERATED_STAMP).write_text(_train_fingerprint(3) + "\n")  # already generated: nothing is written
    assert generated_train(SB3Args(train_scenarios=3)) == split
    assert generated_train(stream_writer.Args(train_scenarios=3)) == split  # the stream trainer shares it
    assert not any((split / "qa_data").iterdir())
    own = tmp_path / "own" / "train_3"
    (own / "qa_data").mkdir(parents=True)
    (own / GENERATED_STAMP).write_text(_train_fingerprint(3) + "\n")
    monkeypatch.chdir(tmp_path)
    assert generated_train(SB3Args(train_scenarios=3, cache_dir="own")) == own  # resolved, absolute


def _train_fingerprint(n: int) -> str:
    from vmb_gym.generator.writer import fingerprint

    return fingerprint(train_split_options(n))


def test_a_stale_cached_split_is_written_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = tmp_path / "train_1"
    (split / "qa_data").mkdir(parents=True)
    (split / "qa_data" / "qa_9.json").write_text("[]")  # left by older generator code
    (split / GENERATED_STAMP).write_text("0" * 64 + "\n")
    args = SB3Args(train_scenarios=1, cache_dir=str(tmp_path))
    assert generated_train(args) == split
    assert "other generator code or options" in capsys.readouterr().out
    assert sorted(p.name for p in (split / "qa_data").iterdir()) == ["qa_1.json"]
    assert (split / GENERATED_STAMP).read_text().strip() == _train_fingerprint(1)
    before = (split / "history" / "history_1.txt").stat().st_mtime_ns
    assert generated_train(args) == split and (split / "history" / "history_1.txt").stat().st_mtime_ns == before


def test_evaluation_is_sized_to_the_run() -> None:
    assert eval_limit(-1, 2) == EVAL_MIN_EPISODES == 10
    assert eval_limit(-1, 80) == 400 and eval_limit(-1, 800) == 4000  # 800 households: every task
    assert eval_limit(0, 2) == 0 and eval_limit(7, 800) == 7  # 0 = the full evaluation
    args = sb3_slots.Args(official_data="", eval_data="default")
    assert [(name, limit) for name, _, _, limit in sb3_slots.eval_sets(args, "d", None, 2)] == \
        [("train", 10), ("held_out", 10)]
    full = sb3_slots.Args(official_data="", eval_episodes=0)
    assert [limit for *_, limit in sb3_slots.eval_sets(full, "d", None, 2)] == [200, 0]


def test_official_data_is_found_from_the_package_or_the_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vmb_gym

    monkeypatch.delenv("VMB_OFFICIAL_DIR", raising=False)
    beside = Path(vmb_gym.__file__).resolve().parents[2] / "shared" / "vehiclemembench"
    monkeypatch.chdir(tmp_path)  # the working directory plays no part
    assert sb3_slots.official_spec("auto") == (f"official:{beside}" if beside.is_dir() else "")
    monkeypatch.setenv("VMB_OFFICIAL_DIR", str(tmp_path))
    assert sb3_slots.official_spec("auto") == f"official:{tmp_path.resolve()}"
    monkeypatch.setenv("VMB_OFFICIAL_DIR", str(tmp_path / "missing"))
    assert sb3_slots.official_spec("auto") == ""
    assert sb3_slots.official_spec("official:x") == "official:x" and sb3_slots.official_spec("") == ""


def test_scores_are_fractions() -> None:
    rows = [{"esm": 1, "f1": 0.6}] + [{"esm": 0, "f1": 0.31} for _ in range(9)]
    result = summarise(rows)
    assert result["esm"] == pytest.approx(0.1) and result["f1"] == pytest.approx(0.339)
    assert format_score(result) == "ESM 0.100  F1 0.339"


def test_accuracy_by_step_kind() -> None:
    hits = np.array([True, True, False, False, True])
    actions = np.array([1, 1, 5, 7, 0])
    acc = accuracy_by_kind(hits, sb3_slots.step_kinds(actions))
    assert acc == {"all": 0.6, "call": 0.0, "search": 1.0, "finish": 1.0}


def _slot_model(tiny_data: str):  # type: ignore[no-untyped-def]
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_agents.sb3.slots import make_slot_env
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy

    torch.set_num_threads(1)
    torch.manual_seed(0)
    vec = DummyVecEnv([lambda: Monitor(make_slot_env(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25",
                                                              max_steps=4)))])
    demos = sb3_slots.collect_slot_demos(vec)
    return MaskablePPO(SlotPointerPolicy, vec, n_steps=16, batch_size=16, seed=0, device="cpu"), demos


def test_behaviour_cloning_of_a_small_demo_set_learns_the_calls(tiny_data: str) -> None:
    """The cause of F1 0.000 on the training tasks of a tiny run: one update per epoch (batch 128 > demo states).

    With the default 30 epochs that was 30 updates, and the policy still finished at every call step
    (demo accuracy = the search and finish share). Finish is now masked until the first call (every
    request asks for a change), so even that under-trained clone makes calls on this tiny set (3 of its
    4 call states right since destinations lose their "tomorrow"; all 4 before); at least 8 minibatches
    per epoch learn every one.
    """
    from vmb_agents.train.common import behaviour_clone

    model, demos = _slot_model(tiny_data)
    kinds = sb3_slots.step_kinds(demos.actions)
    assert kinds["call"].sum() >= 2
    assert not demos.masks[kinds["call"]][:, sb3_slots.SLOT_FINISH].all()  # finish masked at some call step
    few = behaviour_clone(model, demos, epochs=30, seed=0, step_kinds=kinds)
    assert few["call"] >= 0.75 and few["finish"] == 1.0
    model, demos = _slot_model(tiny_data)
    enough = behaviour_clone(model, demos, epochs=30, seed=0, min_batches=8, step_kinds=kinds)
    assert enough["call"] == 1.0 and enough["all"] == 1.0


def test_tiny_run_writes_fractions_bc_accuracy_and_the_settings(tiny_data: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = sb3_slots.Args(data=tiny_data, eval_data=tiny_data, official_data="", timesteps=16, n_steps=8,
                          batch_size=8, bc_epochs=3, max_steps=4, out=str(out), progress=False, line_prior=False)
    summary = sb3_slots.main(args)
    saved = json.loads((out / "summary.json").read_text())
    assert saved["held_out"] == summary["held_out"]
    assert set(saved["held_out"]) == {"trained", "bc_only", "rules", "random", "noop"}
    assert all(0.0 <= r["esm"] <= 1.0 and r["episodes"] == 3 for r in saved["held_out"].values())
    assert saved["held_out"]["rules"]["esm"] == pytest.approx(summarise(
        [r for r in _csv(out / "eval.csv") if r["set"] == "held_out" and r["policy"] == "rules"])["esm"])
    assert set(saved["bc"]["accuracy"]) == {"all", "call", "search", "finish"}
    sidecar = json.loads((out / "final.vmb.json").read_text())
    assert sidecar["settings"] == {"memory": "bm25", "max_steps": 4, "schema": "official"}
    with pytest.raises(ConfigError, match="not empty"):
        sb3_slots.main(args)


def _csv(path: Path) -> list[dict[str, float | str]]:
    import csv

    with path.open(encoding="utf-8") as f:
        return [{**r, "esm": int(r["esm"]), "f1": float(r["f1"])} for r in csv.DictReader(f)]


def test_sparse_rows_give_back_the_dense_rows_bit_for_bit() -> None:
    from vmb_agents.train.sparse_rows import SparseRows

    rng = np.random.default_rng(0)
    dense = rng.standard_normal((7, 300)).astype(np.float32)
    dense[rng.random(dense.shape) < 0.9] = 0.0
    dense[3] = 0.0  # an all-zero row
    rows = SparseRows(300, dense[:4])
    for row in dense[4:]:
        rows.append(row)
    assert len(rows) == 7 and rows.shape == (7, 300) and rows.nbytes < dense.nbytes / 2
    assert np.array_equal(rows[np.array([5, 0, 3, 5])], dense[[5, 0, 3, 5]])
    assert np.array_equal(rows[2:6], dense[2:6]) and np.array_equal(rows[-1], dense[-1])
    assert np.array_equal(np.stack(list(rows)), dense) and rows[1:3].dtype == np.float32
    with pytest.raises(ConfigError, match="300 values was expected, found 299"):
        rows.append(np.zeros(299))
    with pytest.raises(IndexError):
        rows[np.array([7])]


def test_behaviour_cloning_learns_the_same_from_sparse_and_dense_demonstrations(tiny_data: str) -> None:
    """The compact demonstrations change nothing that is learned: same weights, same accuracy."""
    import torch

    from vmb_agents.train.common import behaviour_clone

    results = []
    for compact in (True, False):
        model, demos = _slot_model(tiny_data)
        if not compact:
            demos = demos._replace(observations=np.stack(list(demos.observations)))
        kinds = sb3_slots.step_kinds(demos.actions)
        before = model.policy.mlp_extractor.head.weight.detach().clone()
        acc = behaviour_clone(model, demos, epochs=4, seed=0, min_batches=4, step_kinds=kinds)
        assert not torch.equal(model.policy.mlp_extractor.head.weight, before)  # it learned something
        results.append((acc, {k: v.clone() for k, v in model.policy.state_dict().items()}))
    (acc_s, weights_s), (acc_d, weights_d) = results
    assert acc_s == acc_d
    assert weights_s.keys() == weights_d.keys()
    assert all(torch.equal(weights_s[k], weights_d[k]) for k in weights_s)


def test_group_dropout_zeroes_whole_groups_in_every_row_and_nothing_else() -> None:
    from vmb_agents.sb3.slots import SlotFeaturizer

    featurizer = SlotFeaturizer()
    groups = featurizer.feature_groups()
    grouped = sorted({c for cols in groups.values() for c in cols})
    rng = np.random.default_rng(0)
    batch = rng.uniform(0.1, 1.0, size=(64, featurizer.dim)).astype(np.float32)
    untouched = sb3_slots.group_dropout(1e-9)(batch.copy(), np.random.default_rng(1))
    np.testing.assert_array_equal(untouched, batch)
    every = sb3_slots.group_dropout(1.0)(batch.copy(), np.random.default_rng(1)).reshape(64, featurizer.n_actions, -1)
    assert not every[:, :, grouped].any()
    free = [c for c in range(featurizer.row) if c not in grouped]  # the kind columns at least
    np.testing.assert_array_equal(every[:, :, free], batch.reshape(64, featurizer.n_actions, -1)[:, :, free])
    half = sb3_slots.group_dropout(0.5)(batch.copy(), np.random.default_rng(1)).reshape(64, featurizer.n_actions, -1)
    for name, cols in groups.items():
        zeroed = ~half[:, :, list(cols)].any(axis=(1, 2))  # a state's group is zeroed in every row or in none
        kept = half[:, :, list(cols)].all(axis=(1, 2))
        overlapping = any(set(cols) & set(other) for n, other in groups.items() if n != name)
        assert overlapping or (zeroed | kept).all(), name
        assert 0 < zeroed.sum() < 64, name  # about half the states


def test_behaviour_cloning_with_group_dropout_still_learns_the_calls(tiny_data: str) -> None:
    from vmb_agents.train.common import behaviour_clone

    model, demos = _slot_model(tiny_data)
    kinds = sb3_slots.step_kinds(demos.actions)
    assert demos.rules.shape == demos.actions.shape and not demos.rules[~kinds["call"]].any()
    accuracy = behaviour_clone(model, demos, epochs=30, seed=0, min_batches=8, step_kinds=kinds,
                               augment=sb3_slots.group_dropout(0.3))
    assert accuracy["call"] == 1.0 and accuracy["all"] == 1.0


@pytest.mark.parametrize(("flags", "message"), [
    (["--bc-group-dropout", "1.5"], "--bc-group-dropout: expected a probability in [0, 1), found 1.5"),
    (["--bc-group-dropout", "0.5", "--bc-dropout-groups", "prior"], "unknown feature group(s) ['prior']"),
])
def test_a_bad_dropout_setting_is_refused_before_anything_is_written(
        flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    assert main(["train", "sb3", *flags, "--out", str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
