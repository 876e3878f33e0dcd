"""Test input for the slot design: memory hits in the env's ``info["memory_hits"]`` form."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vmb_gym.envs.tool_runtime import hit_record
from vmb_gym.memory import MemoryHit


def hit_records(*lines: str) -> list[dict[str, Any]]:
    """One hit dict per ``"[YYYY-MM-DD HH:MM] Speaker: text"`` line (entry ids ``L0``, ``L1``, ...)."""
    out = []
    for i, line in enumerate(lines):
        stamp, text = line[1:17], line[19:]
        assert line[0] == "[" and line[17:19] == "] ", f"expected '[YYYY-MM-DD HH:MM] text', got {line!r}"
        hit = MemoryHit(entry_id=f"L{i}", text=text, score=1.0, timestamp=datetime.strptime(stamp, "%Y-%m-%d %H:%M"),
                        line_ids=(i,))
        out.append(hit_record(hit))
    return out
