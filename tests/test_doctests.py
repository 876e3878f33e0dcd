"""The examples in the public docstrings run (the env, wrapper, simulator and schema pages), and
those of the docs page sections in :data:`DOC_SECTIONS`."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "vmb_gym.envs.vehicle_mem",
    "vmb_gym.envs.vehicle_mem_stream",
    "vmb_gym.wrappers.evaluation",
    "vmb_gym.vehicle.simulator",
    "vmb_gym.vehicle.schema",
    "vmb_gym.policy",
    "vmb_gym.metrics",
    "vmb_agents",
]

#: Sections of docs/env.md (their ``## `` titles) whose ``>>>`` examples run.
DOC_SECTIONS = ["Python API"]
DOC = Path(__file__).resolve().parents[1] / "docs" / "env.md"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def readme_section(title: str) -> str:
    """The text of the docs/env.md section ``## title``, up to the next ``## `` title, code fences blanked."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end != -1 else len(text)]
    return "\n".join("" if line.startswith("```") else line for line in section.splitlines())  # fences end outputs


@pytest.mark.parametrize("title", DOC_SECTIONS)
def test_readme_examples(title: str) -> None:
    test = doctest.DocTestParser().get_doctest(readme_section(title), {}, f"docs/env.md: {title}", str(DOC), 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
