"""One checkpoint format: the sidecar, the algo map, and the shim for the sidecars written before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmb_agents.sb3.checkpoint import (
    ALGOS,
    FORMAT_VERSION,
    algo_class,
    read_sidecar,
    save_checkpoint,
    sidecar_path,
)
from tests.agents.sb3.tiny_models import tiny_model
from vmb_gym.errors import ConfigError


def test_sidecar_path_for_name_and_zip() -> None:
    assert sidecar_path("runs/a/final") == Path("runs/a/final.vmb.json")
    assert sidecar_path("runs/a/final.zip") == Path("runs/a/final.vmb.json")


def test_algo_map_names_the_two_algorithms() -> None:
    assert sorted(ALGOS) == ["maskable_ppo", "ppo"]
    assert algo_class("ppo").__name__ == "PPO"
    assert algo_class("maskable_ppo").__name__ == "MaskablePPO"
    with pytest.raises(ConfigError, match="expected one of"):
        algo_class("a2c")


def test_save_writes_safetensors_and_versioned_sidecar(tmp_path: Path) -> None:
    path = save_checkpoint(tiny_model(), tmp_path / "ck", design="slots", algo="maskable_ppo",
                           meta={"catalogue": {"k": 1}})
    assert path == tmp_path / "ck.safetensors" and path.read_bytes()[8:9] == b"{"  # safetensors: size, JSON header
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.safetensors", "ck.vmb.json"]
    side = json.loads((tmp_path / "ck.vmb.json").read_text())
    assert {k: v for k, v in side.items() if k != "sb3"} == {
        "design": "slots", "algo": "maskable_ppo", "format_version": FORMAT_VERSION, "catalogue": {"k": 1}}
    assert side["sb3"]["policy_class"] == "MlpPolicy"
    assert side["sb3"]["observation_space"] == {"type": "Box", "shape": [4], "dtype": "float32", "low": -1.0,
                                                "high": 1.0}
    assert side["sb3"]["action_space"] == {"type": "Discrete", "n": 3, "start": 0}
    assert read_sidecar(tmp_path / "ck.safetensors") == side == read_sidecar(tmp_path / "ck")


def test_save_refuses_unknown_design_and_reserved_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown SB3 design"):
        save_checkpoint(tiny_model(), tmp_path / "x", design="flat", algo="ppo")
    with pytest.raises(ConfigError, match="may not set"):
        save_checkpoint(tiny_model(), tmp_path / "x", design="slots", algo="ppo", meta={"algo": "ppo"})


def test_old_sidecars_read_as_version_one(tmp_path: Path) -> None:
    (tmp_path / "cat.zip").write_bytes(b"zip")
    (tmp_path / "cat.vmb.json").write_text(json.dumps({"algo": "ppo", "catalogue": {}, "featurizer": {}}))
    assert read_sidecar(tmp_path / "cat")["design"] == "catalogue"
    assert read_sidecar(tmp_path / "cat")["format_version"] == 1
    (tmp_path / "slot.zip").write_bytes(b"zip")
    (tmp_path / "slot.vmb.json").write_text(json.dumps({"algo": "maskable_ppo", "design": "slots", "catalogue": {}}))
    assert read_sidecar(tmp_path / "slot")["design"] == "slots"
    (tmp_path / "w.zip").write_bytes(b"zip")  # the stream writer wrote NAME.json with "kind"
    (tmp_path / "w.json").write_text(json.dumps({"kind": "stream_writer", "algo": "maskable_ppo", "budget_tokens": 9}))
    side = read_sidecar(tmp_path / "w.zip")
    assert (side["design"], side["algo"], side["budget_tokens"], side["format_version"]) == (
        "stream_writer", "maskable_ppo", 9, 1)
    assert "kind" not in side


def test_missing_files_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected an SB3 checkpoint"):
        read_sidecar(tmp_path / "none")
    (tmp_path / "lone.zip").write_bytes(b"zip")
    with pytest.raises(ConfigError, match="no sidecar"):
        read_sidecar(tmp_path / "lone")
    (tmp_path / "bad.zip").write_bytes(b"zip")
    (tmp_path / "bad.vmb.json").write_text("{nope")
    with pytest.raises(ConfigError, match="not a vmb SB3 sidecar"):
        read_sidecar(tmp_path / "bad")
