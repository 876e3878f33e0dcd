"""Reading tool calls out of a model's text reply, for trainers whose action is the reply text.

SkyRL's ``BaseTextEnv.step`` and a verifiers rollout hand the env the model's reply as a string.
:func:`reply_action` turns it into a ``VehicleMem-v0`` action:

* a reply that holds a tool call in any common format (Hermes/Qwen ``<tool_call>`` JSON or XML
  blocks, Llama ``<|python_tag|>``, Mistral ``[TOOL_CALLS]``, OpenAI tool-call objects, bare JSON,
  the Python-call form ``carcontrol_seat_set_heating_level(seat="driver", level=2)``: see
  :mod:`vmb_gym.envs.tool_call_formats`) is passed on as its text (a reply that is one fenced code
  block, as the code inside), and the env reads it with the same reader;
* any other reply (plain text) ends the episode with ``finish``, as a reply without tool
  calls does in the official agent loop.

A reply that tries to call and cannot be read (broken JSON inside a block, an XML block without a
function name, ``[TOOL_CALLS]`` followed by junk, ...) is passed on too: the env answers it with a
``parse_error`` observation that says what is wrong, and counts it (an invalid action, never an
exception, never a silent ``finish``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FINISH", "TOOL_FORMAT_HINT", "reply_action"]

#: The action that ends an episode.
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}

#: One line telling a text model how to call tools (appended to the system prompt by the adapters).
TOOL_FORMAT_HINT = (
    'Call tools with <tool_call>{"name": "<tool name>", "arguments": {...}}</tool_call> blocks, one per call; '
    "a reply without a tool call ends the task."
)


def reply_action(text: str) -> Any:
    """The ``VehicleMem-v0`` action a text reply stands for (see the module docstring).

    Args:
        text: the model's reply.

    Returns:
        The reply's text (it holds a call attempt, read or not), or :data:`FINISH` (plain text).
    """
    from vmb_gym.envs.tool_call_formats import parse_reply

    if not parse_reply(text or "").attempted:
        return dict(FINISH)
    stripped = (text or "").strip()
    if stripped.startswith("```") and stripped.endswith("```") and stripped.count("```") == 2:
        stripped = "\n".join(stripped.splitlines()[1:]).rstrip("`").strip()
    return stripped
