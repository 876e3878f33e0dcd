"""Supervised data for the LM policy: teacher episodes in the compact chat view, run on the real env.

A teacher episode is what a good small model should do in :mod:`agents.llm.compact_view`:

1. turn 1: ``search_memory`` for the person the request is for and the setting it names (the
   words of the first gold function, e.g. ``"Vera seat heating level"``), and
   ``list_module_tools`` for each module of the gold calls (a context memory such as ``gold``
   has no search: only the listing);
2. turn 2: the gold calls through ``call_vehicle`` and ``finish``.

The calls run on the env (``VehicleMem-v0`` on the generated *train* split), so the tool
messages hold the real retrieval hits and module listings the model will read at test time, and
the episode's reward is recorded (1.0 for every teacher episode the env scores as exact). Rows
are ``{"messages": [...], "tools": [...], "task_id", "memory", "reward"}``: the shape of TRL's
conversational datasets, trained with ``SFTConfig(assistant_only_loss=True)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from agents.llm.compact_view import CompactView, short_name
from agents.rules.request import read_request

__all__ = ["function_words", "teacher_episode", "teacher_rows", "teacher_query"]

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_DROP = {"carcontrol", "set", "get"}


def function_words(name: str) -> str:
    """The words of a vehicle function name: ``carcontrol_seat_set_heating_level`` -> ``seat heating level``."""
    parts = [p for chunk in name.split("_") for p in _CAMEL.sub(" ", chunk).split()]
    return " ".join(p.lower() for p in parts if p.lower() not in _DROP)


def teacher_query(request: str, speakers: Sequence[str], function: str) -> str:
    """The teacher's memory query: the first name of the person the request is for and the function's words."""
    who = read_request(request, speakers).target or ""
    first = who.split()[0] if who else ""
    return f"{first} {function_words(function)}".strip()


def _module(function: str) -> str:
    return function.split("_")[1] if function.count("_") >= 2 else ""


def _call(name: str, arguments: Mapping[str, Any], k: int, turn: int) -> dict[str, Any]:
    return {"id": f"call_{turn}_{k}", "type": "function", "function": {"name": name, "arguments": dict(arguments)}}


def teacher_episode(env: gym.Env, task_id: str, view: CompactView | None = None, *, top_k: int = 5) -> dict[str, Any] | None:
    """One teacher episode on ``task_id``: the compact-view messages, tools and the env's reward.

    Returns None for a task without gold calls (nothing to imitate).
    """
    view = view or CompactView()
    tasks = env.unwrapped.tasks
    query = tasks.queries[tasks.index_of(task_id)]
    gold = [c.to_json() for c in query.gold_calls]
    if not gold:
        return None
    obs, info = env.reset(options={"task_id": task_id})
    messages, tools = view.start(obs, info)
    speakers = tasks.scenario_of(query).speakers
    first: list[dict[str, Any]] = []
    if env.unwrapped.memory.provides_search:
        first.append(_call("search_memory", {"query": teacher_query(query.text, speakers, gold[0]["name"]),
                                             "top_k": top_k}, 0, 1))
    for module in dict.fromkeys(_module(c["name"]) for c in gold):
        first.append(_call("list_module_tools", {"module_name": module}, len(first), 1))
    reward = 0.0
    for turn, calls in ((1, first), (2, [*(_call("call_vehicle", {"name": short_name(c["name"]), "arguments": c["arguments"]}, k, 2)
                                         for k, c in enumerate(gold)), _call("finish", {}, len(gold), 2)])):
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        env_calls = [view.to_env_call(c["function"]["name"], c["function"]["arguments"]) for c in calls]
        _, reward, terminated, truncated, info = env.step(env_calls)
        if turn == 1:
            records = list(info.get("calls") or [])
            for call, record in zip(calls, records, strict=False):
                messages.append({"role": "tool", "name": call["function"]["name"],
                                 "content": view.tool_content(str(record.get("name")), record.get("result"))})
    return {"messages": messages, "tools": tools, "task_id": task_id,
            "memory": env.unwrapped.memory_name, "reward": float(reward)}


def teacher_rows(data: str, task_ids: Sequence[str], *, memory: str = "bm25", max_steps: int = 20,
                 progress: bool = True) -> list[dict[str, Any]]:
    """Teacher episodes for ``task_ids`` of ``data`` with ``memory`` (tasks without gold calls are skipped)."""
    from tqdm.auto import tqdm

    env = gym.make("VehicleMem-v0", data=data, memory=memory, max_steps=max_steps)
    rows = []
    for task_id in tqdm(task_ids, desc=f"teacher episodes ({memory})", disable=not progress, leave=False):
        row = teacher_episode(env, task_id)
        if row is not None:
            rows.append(row)
    env.close()
    return rows
