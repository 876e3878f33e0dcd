"""Reading tool calls out of a model's text reply, for trainers whose action is the reply text.

SkyRL's ``BaseTextEnv.step`` and a verifiers rollout hand the env the model's reply as a string.
:func:`reply_action` turns it into a ``VehicleMem-v0`` action:

* ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (the Hermes/Qwen chat
  format) become the list of their calls, in order;
* a reply that is a JSON call (or list of calls), or the Python-call form
  (``carcontrol_seat_set_heating_level(seat="driver", level=2)``), is passed on as it is;
* any other reply (plain text) ends the episode with ``finish``, as a reply without tool
  calls does in the official agent loop.

A block that is not valid JSON is passed on as its text, so the env reports the error in its
observation (an invalid action, never an exception).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = ["FINISH", "TOOL_FORMAT_HINT", "reply_action"]

#: The action that ends an episode.
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}

#: One line telling a text model how to call tools (appended to the system prompt by the adapters).
TOOL_FORMAT_HINT = (
    'Call tools with <tool_call>{"name": "<tool name>", "arguments": {...}}</tool_call> blocks, one per call; '
    "a reply without a tool call ends the task."
)

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_PY_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\(")


def reply_action(text: str) -> Any:
    """The ``VehicleMem-v0`` action a text reply stands for (see the module docstring).

    Args:
        text: the model's reply.

    Returns:
        A list of calls (tool-call blocks), the reply itself (a JSON or Python-call reply), or
        :data:`FINISH` (plain text).
    """
    blocks = _BLOCK.findall(text or "")
    if blocks:
        calls: list[Any] = []
        for block in blocks:
            try:
                calls.append(orjson.loads(block))
            except orjson.JSONDecodeError:
                calls.append(block)  # the env reports what is wrong with it
        return calls
    stripped = (text or "").strip()
    if stripped.startswith("```"):
        stripped = "\n".join(stripped.splitlines()[1:]).rstrip("`").strip()
    if stripped[:1] in ("{", "[") or _PY_CALL.match(stripped):
        return stripped
    return dict(FINISH)
