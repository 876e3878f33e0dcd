"""The examples in the public docstrings run (the env, wrapper, simulator and schema pages)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "vmb_gym.envs.vehicle_mem",
    "vmb_gym.envs.vehicle_mem_stream",
    "vmb_gym.wrappers.evaluation",
    "vmb_gym.vehicle.simulator",
    "vmb_gym.vehicle.schema",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
