"""Shipped SB3 checkpoints load by name (``sb3:slots``): a bare name resolves to ``agents/sb3/checkpoints/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmb_agents.sb3 import checkpoint
from vmb_agents.sb3.checkpoint import (
    read_sidecar,
    resolve_checkpoint,
    save_checkpoint,
    shipped_names,
    training_settings,
)
from tests.agents.sb3.tiny_models import tiny_model
from vmb_gym.errors import ConfigError


def test_a_bare_name_resolves_to_the_shipped_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = tmp_path / "shipped"
    save_checkpoint(tiny_model(), shipped / "slots", design="slots", algo="maskable_ppo",
                    meta={"settings": {"memory": "bm25", "max_steps": 6}})
    monkeypatch.setattr(checkpoint, "SHIPPED_DIR", shipped)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert shipped_names() == ["slots"]
    assert resolve_checkpoint("slots") == shipped / "slots"
    assert read_sidecar("slots")["design"] == "slots"
    assert training_settings("slots") == {"memory": "bm25", "max_steps": 6}
    # a path, a .zip or a local checkpoint of that name is read as given
    assert resolve_checkpoint("runs/slots") == Path("runs/slots")
    assert resolve_checkpoint("slots.zip") == Path("slots.zip")
    save_checkpoint(tiny_model(), work / "slots", design="catalogue", algo="maskable_ppo")
    assert resolve_checkpoint("slots") == Path("slots")
    assert read_sidecar("slots")["design"] == "catalogue"
    # saving never writes into the shipped folder
    assert json.loads((shipped / "slots.vmb.json").read_text())["design"] == "slots"


def test_an_unknown_name_lists_the_shipped_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = tmp_path / "shipped"
    save_checkpoint(tiny_model(), shipped / "slots", design="slots", algo="maskable_ppo")
    monkeypatch.setattr(checkpoint, "SHIPPED_DIR", shipped)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"name a shipped one \(slots\)"):
        read_sidecar("slot")
