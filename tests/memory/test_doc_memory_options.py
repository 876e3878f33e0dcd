"""docs/memory.md's option examples run as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from vmb_gym.memory import make_memory

DOC = Path(__file__).resolve().parents[2] / "docs" / "memory.md"


def test_memory_kwargs_examples_are_accepted() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"--memory (\w+) --memory-kwargs '(\{[^']*\})'", text)
    assert found, "docs/memory.md shows no --memory NAME --memory-kwargs example"
    for name, raw in found:
        kwargs = json.loads(raw)
        assert "top_k" not in kwargs
        make_memory(name, **kwargs)  # a ConfigError here is what the doc used to show


def test_summary_llm_example_imports_vmb_agents_factory() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "import vmb_agents.factory" in text
    code = ("import vmb_agents.factory\n"
            "from vmb_gym.memory.chat_backends import chat_backend_kinds\n"
            "print(sorted(chat_backend_kinds()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "openai" in out and "hf" in out
