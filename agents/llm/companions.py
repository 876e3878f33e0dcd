"""Companion calls: the settings a memory line states after its value ("... level 3. Plus the sunroof lock locked,
always.") added to a chat model's vehicle call.

A generated household's routine ties a setting to companions in the line that states it, and a request that asks
for "my whole routine" wants both. ``hf:smollm2-vmb`` makes one vehicle call: its tool shortlist offers one function
and the adapter was trained to finish after it, so on 49 of 500 held-out tasks its one call is exactly right and
the companion is missing (README, "Fewer hits for the chat model"). :func:`with_companions` reads the companions the
way the rules reader does (:func:`vmb_agents.reader.routine.line_companions`) from the hit lines that state the value
the model called, and inserts their calls right after that call in the model's reply. A guide's ``companions``
(a default of ``hf:smollm2-vmb``) applies it to every reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vmb_agents.reader.reading import Reading

__all__ = ["with_companions"]


def _vehicle_call(call: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(env function name, arguments) of a reply's call: a valid compact ``call_vehicle`` or official ``carcontrol_*``
    call (:func:`vmb_agents.llm.constrained.is_vehicle_call`, read by :meth:`CompactView.to_env_call`); None for any
    other tool."""
    from vmb_agents.llm.compact_view import CompactView
    from vmb_agents.llm.constrained import is_vehicle_call

    name, args = str(call.get("name", "")), call.get("arguments")
    if not is_vehicle_call(name, args):
        return None
    env = CompactView().to_env_call(name, json.loads(args) if isinstance(args, str) else args)
    return env["name"], dict(env["arguments"])


def _as_reply_call(call: Mapping[str, Any], compact: bool) -> dict[str, Any]:
    from vmb_agents.llm.compact_view import short_name

    if compact:
        return {"name": "call_vehicle", "arguments": {"name": short_name(call["name"]), "arguments": call["arguments"]}}
    return {"name": call["name"], "arguments": call["arguments"]}


def with_companions(messages: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]],
                    reading: Reading) -> list[dict[str, Any]]:
    """``calls`` (a reply's, ``{"name", "arguments"}``) with the companion calls of each vehicle call's value lines
    right after it, before a ``finish`` the model wrote in the same reply. Its value lines are the hits of the
    episode's latest search (``reading``'s, all of them, not only those shown; at most
    :data:`~vmb_agents.llm.line_reader.MAX_LINES`) that state the called value for the called function
    (:func:`vmb_agents.llm.constrained.stated_value`). Never a function called before (``messages``) or in
    ``calls``, each once."""
    from vmb_agents.llm.constrained import stated_value
    from vmb_agents.llm.line_reader import MAX_LINES
    from vmb_agents.reader.routine import line_companions

    vehicle = [_vehicle_call(c) for c in calls]
    if not any(vehicle) or reading.last_search is None:
        return [dict(c) for c in calls]
    earlier = [_vehicle_call(tc.get("function") or {}) for m in messages if m.get("role") == "assistant"
               for tc in m.get("tool_calls") or []]
    planned = [v[0] for v in earlier + vehicle if v is not None]
    lines = [body for _, body in reading.search_lines(-1, MAX_LINES)]
    out: list[dict[str, Any]] = []
    for call, made in zip(calls, vehicle, strict=True):
        out.append(dict(call))
        if made is None:
            continue
        name, args = made
        for body in lines:
            stated = stated_value(name, body)
            if stated is None or str(args.get(stated[0])).lower() != str(stated[1]).lower():
                continue
            for companion in line_companions(body, planned, reading.request):
                planned.append(companion["name"])
                out.append(_as_reply_call(companion, call.get("name") == "call_vehicle"))
    return out
