"""``vmb eval --policy sb3:CHECKPOINT``: the sidecar's training settings are the defaults; an env that differs warns,
from the CLI and from Python alike (the policy's loader warns)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from vmb_agents.sb3.checkpoint import save_checkpoint, training_settings
from vmb_agents.sb3.policies import eval_settings, setting_differences

DEFAULTS = {"memory": "none", "max_steps": 20, "schema": "official"}
UNSET = {"memory": None, "max_steps": None, "schema": None}


def _FakeModel() -> object:  # a tiny real model: save_checkpoint writes its weights
    from tests.agents.sb3.tiny_models import tiny_model

    return tiny_model()


def _checkpoint(tmp_path: Path, settings: dict[str, object] | None) -> Path:
    meta = {"catalogue": {}} if settings is None else {"catalogue": {}, "settings": settings}
    return save_checkpoint(_FakeModel(), tmp_path / "ck", design="slots", algo="maskable_ppo", meta=meta)


def test_the_sidecar_fills_the_unset_flags(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, {"memory": "bm25", "max_steps": 6, "schema": "official"})
    assert training_settings(path) == {"memory": "bm25", "max_steps": 6, "schema": "official"}
    assert eval_settings(f"sb3:{path}", UNSET, DEFAULTS) == {"memory": "bm25", "max_steps": 6, "schema": "official"}
    same = eval_settings(f"sb3:{path}", {**UNSET, "memory": "BM25", "max_steps": 6}, DEFAULTS)
    assert same["memory"] == "BM25"
    assert setting_differences(path, {"memory": "BM25", "max_steps": 6}) == []  # the same setting: no word


def test_a_conflicting_flag_wins_and_is_named_with_both_values(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, {"memory": "bm25", "max_steps": 6, "schema": "official"})
    settings = eval_settings(f"sb3:{path}", {**UNSET, "memory": "dense", "max_steps": 20}, DEFAULTS)
    assert settings == {"memory": "dense", "max_steps": 20, "schema": "official"}
    side = tmp_path / "ck.vmb.json"
    assert setting_differences(path, settings) == [
        f"the env's memory dense differs from the checkpoint's training setting memory bm25 ({side}); evaluating "
        "with dense; fix: --memory bm25 (gym.make(..., memory='bm25')) to evaluate it as trained",
        f"the env's max_steps 20 differs from the checkpoint's training setting max_steps 6 ({side}); evaluating "
        "with 20; fix: --max-steps 6 (gym.make(..., max_steps=6)) to evaluate it as trained"]


def test_other_policies_and_old_checkpoints_keep_the_plain_defaults(tmp_path: Path) -> None:
    assert eval_settings("rules", UNSET, DEFAULTS) == DEFAULTS
    assert eval_settings("rules", {**UNSET, "max_steps": 5}, DEFAULTS) == {**DEFAULTS, "max_steps": 5}
    old = _checkpoint(tmp_path, None)  # written before the trainers recorded their settings
    assert eval_settings(f"sb3:{old}", UNSET, DEFAULTS) == DEFAULTS
    assert setting_differences(old, {"memory": "dense"}) == []


def test_vmb_eval_runs_a_checkpoint_with_its_training_settings(tiny_data: str, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from vmb_agents.sb3.slots import SlotCatalogue, make_slot_env
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy
    from vmb_gym.cli import main

    torch.set_num_threads(1)
    cat = SlotCatalogue()
    env = make_slot_env(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=4), catalogue=cat)
    model = MaskablePPO(SlotPointerPolicy, env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu")
    path = save_checkpoint(model, tmp_path / "slot", design="slots", algo="maskable_ppo",
                           meta={**SlotSB3Policy.checkpoint_meta(cat),
                                 "settings": {"memory": "bm25", "max_steps": 4, "schema": "official"}})
    common = ["eval", "--policy", f"sb3:{path}", "--data", tiny_data, "--no-plots", "--no-progress"]
    with caplog.at_level(logging.WARNING, logger="vmb_agents.sb3.policies"):
        assert main([*common, "--out", str(tmp_path / "a")]) == 0
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (config["memory"], config["max_steps"], config["schema"]) == ("bm25", 4, "official")
    assert caplog.messages == []
    with caplog.at_level(logging.WARNING, logger="vmb_agents.sb3.policies"):
        assert main([*common, "--max-steps", "6", "--out", str(tmp_path / "b")]) == 0
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert (config["memory"], config["max_steps"]) == ("bm25", 6)
    expected = [f"the env's max_steps 6 differs from the checkpoint's training setting max_steps 4 "
                f"({tmp_path / 'slot.vmb.json'}); evaluating with 6; fix: --max-steps 4 (gym.make(..., max_steps=4)) "
                "to evaluate it as trained"]
    assert sorted(set(caplog.messages)) == expected
    # the same policy built in Python on the same env says the same
    from vmb_agents.factory import make_policy

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="vmb_agents.sb3.policies"):
        make_policy(f"sb3:{path}", gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=6))
    assert caplog.messages == expected
