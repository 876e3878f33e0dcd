"""``vmb eval`` and ``vmb eval-stream`` refuse an SB3 zip checkpoint (a pickle, which can run code) in one line that
names ``--trust-checkpoint``, and load it with that flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from tests.agents.sb3.tiny_models import tiny_model
from tests.cli.test_config_errors import error_line
from vmb_gym.cli import main


def _sidecar(zip_file: Path, design: str, meta: dict[str, object]) -> None:
    sidecar = {"design": design, "algo": "maskable_ppo", "format_version": 2, **meta}
    zip_file.with_suffix(".vmb.json").write_text(json.dumps(sidecar))


def test_vmb_eval_refuses_an_sb3_zip_unless_trusted(tiny_data: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from vmb_agents.sb3.slots import SlotCatalogue, make_slot_env
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy

    torch.set_num_threads(1)
    cat = SlotCatalogue()
    env = make_slot_env(gym.make("VehicleMem-v0", data=tiny_data, memory="bm25", max_steps=4), catalogue=cat)
    model = MaskablePPO(SlotPointerPolicy, env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"pointer_hidden": 8})
    old = tmp_path / "old.zip"
    model.save(str(old))  # SB3's own format: a pickle, as this project's checkpoints were before format 3
    _sidecar(old, "slots", {**SlotSB3Policy.checkpoint_meta(cat), "settings": {"memory": "bm25", "max_steps": 4}})
    common = ["eval", "--policy", f"sb3:{old}", "--data", tiny_data, "--no-plots", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "refused")]) == 2
    line = error_line(capsys)
    assert line.startswith(f"vmb eval: error: {old} is a Stable-Baselines3 zip: its data is a pickle, and loading it "
                           "runs any code its author put in it")
    assert "`vmb eval --trust-checkpoint`" in line and "vmb train convert-checkpoint" in line
    assert not (tmp_path / "refused" / "results.jsonl").exists()
    assert main([*common, "--trust-checkpoint", "--out", str(tmp_path / "trusted")]) == 0
    assert (tmp_path / "trusted" / "results.jsonl").read_text().strip()


def test_vmb_eval_stream_refuses_an_sb3_zip_unless_trusted(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_agents.stream.features import LineFeaturizer

    featurizer = LineFeaturizer()
    old = tmp_path / "writer.zip"
    tiny_model(obs_dim=featurizer.dim, actions=2).save(str(old))
    _sidecar(old, "stream_writer", {"featurizer": featurizer.config(), "budget_tokens": None})
    common = ["eval-stream", "--writer", f"sb3:{old}", "--files", "1", "--window-days", "0.5", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "refused")]) == 2
    line = error_line(capsys)
    assert line.startswith(f"vmb eval-stream: error: {old} is a Stable-Baselines3 zip: its data is a pickle")
    assert "`vmb eval-stream --trust-checkpoint`" in line
    assert main([*common, "--trust-checkpoint", "--out", str(tmp_path / "trusted")]) == 0
    assert len((tmp_path / "trusted" / "results.jsonl").read_text().splitlines()) == 1
