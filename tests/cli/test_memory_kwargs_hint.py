"""``vmb eval --memory-kwargs``: the parse-error hint's example is an option of the module it names."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from vmb_gym.cli.eval_cmd import _json_object
from vmb_gym.memory import make_memory
from vmb_gym.memory.registry import check_memory_options


def _hint() -> tuple[str, dict]:
    with pytest.raises(argparse.ArgumentTypeError) as err:
        _json_object("{top_k: 5")
    msg = str(err.value)
    m = re.search(r"such as '(\{.*?\})' \(--memory (\w+)\)", msg)
    assert m, msg
    return m.group(2), json.loads(m.group(1))


def test_hint_example_is_accepted_by_its_module() -> None:
    module, kwargs = _hint()
    assert kwargs
    check_memory_options(module, type(make_memory(module, **kwargs)), kwargs)
    memory = make_memory(module, **kwargs)
    for key, value in kwargs.items():
        assert getattr(memory, key) == value


def test_hint_does_not_suggest_top_k() -> None:
    _, kwargs = _hint()
    assert "top_k" not in kwargs
