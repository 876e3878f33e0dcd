"""``vmb eval --policy sb3:CHECKPOINT``: the sidecar's training settings are the defaults; a conflicting flag warns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from vmb_agents.sb3.checkpoint import save_checkpoint, training_settings  # noqa: E402
from vmb_agents.sb3.policies import eval_settings  # noqa: E402

DEFAULTS = {"memory": "none", "max_steps": 20, "schema": "official"}
UNSET = {"memory": None, "max_steps": None, "schema": None}


class _FakeModel:
    def save(self, path: str) -> None:
        Path(path).write_bytes(b"zip")


def _checkpoint(tmp_path: Path, settings: dict[str, object] | None) -> Path:
    meta = {"catalogue": {}} if settings is None else {"catalogue": {}, "settings": settings}
    return save_checkpoint(_FakeModel(), tmp_path / "ck", design="slots", algo="maskable_ppo", meta=meta)


def test_the_sidecar_fills_the_unset_flags(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, {"memory": "bm25", "max_steps": 6, "schema": "official"})
    assert training_settings(path) == {"memory": "bm25", "max_steps": 6, "schema": "official"}
    settings, warnings = eval_settings(f"sb3:{path}", UNSET, DEFAULTS)
    assert settings == {"memory": "bm25", "max_steps": 6, "schema": "official"} and warnings == []
    same, warnings = eval_settings(f"sb3:{path}", {**UNSET, "memory": "BM25", "max_steps": 6}, DEFAULTS)
    assert same["memory"] == "BM25" and warnings == []  # the same setting, given explicitly: no word


def test_a_conflicting_flag_wins_and_is_named_with_both_values(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, {"memory": "bm25", "max_steps": 6, "schema": "official"})
    settings, warnings = eval_settings(f"sb3:{path}", {**UNSET, "memory": "dense", "max_steps": 20}, DEFAULTS)
    assert settings == {"memory": "dense", "max_steps": 20, "schema": "official"}
    assert warnings == [
        f"--memory dense differs from the checkpoint's training setting --memory bm25 ({tmp_path / 'ck.vmb.json'}); "
        "evaluating with dense",
        f"--max-steps 20 differs from the checkpoint's training setting --max-steps 6 ({tmp_path / 'ck.vmb.json'}); "
        "evaluating with 20"]


def test_other_policies_and_old_checkpoints_keep_the_plain_defaults(tmp_path: Path) -> None:
    assert eval_settings("rules", UNSET, DEFAULTS) == (DEFAULTS, [])
    assert eval_settings("rules", {**UNSET, "max_steps": 5}, DEFAULTS) == ({**DEFAULTS, "max_steps": 5}, [])
    old = _checkpoint(tmp_path, None)  # written before the trainers recorded their settings
    assert eval_settings(f"sb3:{old}", UNSET, DEFAULTS) == (DEFAULTS, [])


def test_vmb_eval_runs_a_checkpoint_with_its_training_settings(tiny_data: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
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
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (config["memory"], config["max_steps"], config["schema"]) == ("bm25", 4, "official")
    assert "warning" not in capsys.readouterr().err
    assert main([*common, "--max-steps", "6", "--out", str(tmp_path / "b")]) == 0
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert (config["memory"], config["max_steps"]) == ("bm25", 6)
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warned == [f"vmb eval: warning: --max-steps 6 differs from the checkpoint's training setting --max-steps 4 "
                      f"({tmp_path / 'slot.vmb.json'}); evaluating with 6"]
