"""A trained policy built in Python warns, as ``vmb eval`` does, when the env differs from its training env."""

from __future__ import annotations

import logging

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.factory import make_policy
from vmb_agents.sb3.checkpoint import SHIPPED_DIR

pytest.importorskip("sb3_contrib")

LOGGER = "vmb_agents.sb3.policies"


def test_make_policy_on_another_memory_says_which_memory_the_checkpoint_was_trained_on(
        caplog: pytest.LogCaptureFixture) -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="layered", max_steps=6)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        make_policy("sb3:slots", env)
    assert caplog.messages == [
        f"the env's memory layered differs from the checkpoint's training setting memory bm25 "
        f"({SHIPPED_DIR / 'slots.vmb.json'}); evaluating with layered; fix: --memory bm25 "
        "(gym.make(..., memory='bm25')) to evaluate it as trained"]


def test_make_policy_on_the_training_settings_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        make_policy("sb3:slots", env)
    assert caplog.messages == []
