"""``vmb train ensemble``: slot checkpoints of several seeds merged into one whose logits are the mean of theirs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vmb_agents.sb3.checkpoint import load_checkpoint, save_checkpoint
from vmb_gym.errors import ConfigError


def _member(tiny_data: str, tmp_path: Path, seed: int, catalogue: object = None) -> Path:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from vmb_agents.sb3.slots import SlotCatalogue, make_slot_env
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy

    torch.set_num_threads(1)
    cat = catalogue or SlotCatalogue()
    env = make_slot_env(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=4), catalogue=cat)
    model = MaskablePPO(SlotPointerPolicy, env, n_steps=16, batch_size=16, n_epochs=1, seed=seed, device="cpu")
    model.learn(16)  # members differ in their weights, as seeds do
    return save_checkpoint(model, tmp_path / f"m{seed}", design="slots", algo="maskable_ppo",
                           meta={**SlotSB3Policy.checkpoint_meta(cat), "settings": {"memory": "bm25", "max_steps": 4}})


def test_merged_logits_and_values_are_the_members_mean(tiny_data: str, tmp_path: Path) -> None:
    import torch as th

    from vmb_agents.train.slot_ensemble import merge_checkpoints

    members = [_member(tiny_data, tmp_path, seed) for seed in (0, 1, 2)]
    out = merge_checkpoints(members, tmp_path / "ens" / "final")
    merged, sidecar = load_checkpoint(out, design="slots")
    models = [load_checkpoint(p, design="slots")[0] for p in members]
    assert merged.policy.pointer_hidden == 3 * 64
    assert sidecar["ensemble"]["seeds"] == [0, 1, 2] and sidecar["settings"]["max_steps"] == 4
    x = th.rand(4, merged.observation_space.shape[0]) * 2 - 1
    with th.no_grad():
        logits = [m.policy.mlp_extractor.forward_actor(x) for m in models]
        assert not th.allclose(logits[0], logits[1])
        np.testing.assert_allclose(merged.policy.mlp_extractor.forward_actor(x), th.stack(logits).mean(0), atol=1e-5)
        values = th.stack([m.policy.predict_values(x) for m in models]).mean(0)
        np.testing.assert_allclose(merged.policy.predict_values(x), values, atol=1e-5)


def test_vmb_eval_runs_the_merged_checkpoint(tiny_data: str, tmp_path: Path) -> None:
    from vmb_gym.cli import main

    members = [str(_member(tiny_data, tmp_path, seed)) for seed in (0, 1)]
    assert main(["train", "ensemble", "--members", *members, "--out", str(tmp_path / "ens")]) == 0
    assert main(["eval", "--policy", f"sb3:{tmp_path / 'ens' / 'final'}", "--data", tiny_data, "--no-plots",
                 "--no-progress", "--out", str(tmp_path / "run")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert rows and all(r["policy"].startswith("sb3:") and r["error_kind"] is None for r in rows)


def test_members_of_other_catalogues_or_too_few_are_refused(tiny_data: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_agents.sb3.slots import SlotCatalogue
    from vmb_agents.train.slot_ensemble import merge_checkpoints
    from vmb_gym.cli import main

    first = _member(tiny_data, tmp_path, 0)
    with pytest.raises(ConfigError, match="at least two member checkpoints"):
        merge_checkpoints([first], tmp_path / "one")
    other = _member(tiny_data, tmp_path, 1, catalogue=SlotCatalogue(context=2))
    with pytest.raises(ConfigError, match="'catalogue' differs"):
        merge_checkpoints([first, other], tmp_path / "two")
    assert main(["train", "ensemble", "--members", str(first), str(other), "--out", str(tmp_path / "cli")]) == 2
    assert "'catalogue' differs" in capsys.readouterr().err
    assert not (tmp_path / "cli").exists()
