"""Supervised data for the LM policy: teacher episodes in the compact chat view, run on the real env.

A teacher episode is what a good small model should do in :mod:`vmb_agents.llm.compact_view`, in
three turns where each answer is copied from what the model has just read:

1. ``list_module_tools`` for each module of the gold calls (the module names are in the system
   prompt);
2. ``search_memory`` for the person the request is for and each gold function's words, as the
   listing writes them (``"Vera seat heating level"``); a context memory such as ``gold`` has no
   search, so this turn is left out;
3. the gold calls through ``call_vehicle`` (names copied from the listing, values from the hits)
   and ``finish``.

The calls run on the env (``VehicleMem-v0`` on the generated *train* split), so the tool
messages hold the real retrieval hits and module listings the model will read at test time, and
the episode's reward is recorded (1.0 for every teacher episode the env scores as exact).
:func:`supported` says whether every gold value the model must copy is in the hits it read; a
model trained on unsupported episodes learns to write values it cannot see (the first CPU run
did: held-out ESM 0), so :func:`teacher_rows` keeps only supported ones by default. Rows are
``{"messages": [...], "tools": [...], "task_id", "memory", "reward", "supported"}``: the shape of
TRL's conversational datasets, trained with ``SFTConfig(assistant_only_loss=True)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.llm.compact_view import CompactView, short_name, shown_bodies, step_hits, view_named
from vmb_agents.reader.request import read_request

__all__ = ["ORDERS", "PLACE_ARGUMENTS", "TEACHER_TOP_K", "function_words", "request_query", "supported",
           "teacher_episode", "teacher_query", "teacher_rows", "train_order"]

#: Hits per search of the teacher episodes the LM adapters were trained on (``vmb train lm --top-k``).
TEACHER_TOP_K = 8

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


def request_query(request: str, speakers: Sequence[str]) -> str:
    """The search-first teacher's first query: the person's first name and the request's quoted words (the whole
    request when nothing is quoted), as the rules reader's first search; official requests rarely name the setting
    ("my usual calming atmosphere"), so the module is chosen after reading what the person said before."""
    req = read_request(request, speakers)
    first = req.target.split()[0] if req.target else ""
    return f"{first} {' '.join(req.quotes) or request}".strip()


#: Teacher turn orders: list the module first (the shipped adapter), or search the request first.
ORDERS = ("list_first", "search_first")


def _module(function: str) -> str:
    return function.split("_")[1] if function.count("_") >= 2 else ""


def _call(name: str, arguments: Mapping[str, Any], k: int, turn: int) -> dict[str, Any]:
    return {"id": f"call_{turn}_{k}", "type": "function", "function": {"name": name, "arguments": dict(arguments)}}


#: Arguments that name a place (a seat, a window), read from the request, not from the memory.
PLACE_ARGUMENTS = frozenset({"seat", "position", "light", "window", "zone", "area", "door", "mirror", "side"})


def supported(calls: Sequence[Mapping[str, Any]], memory_text: str) -> bool:
    """Whether every remembered value of ``calls`` (not a place, not a boolean) is written in ``memory_text``: the
    memory the model read without ranks and time stamps, which are not values (a search's
    :func:`~vmb_agents.llm.compact_view.shown_bodies`, or a context module's block)."""
    text = memory_text.lower()
    values = [v for c in calls for k, v in (c.get("arguments") or {}).items()
              if k not in PLACE_ARGUMENTS and not isinstance(v, bool)]
    return all(re.search(rf"(?<![\w.]){re.escape(str(v).lower())}(?!\w)", text) for v in values)


def teacher_episode(env: gym.Env, task_id: str, view: CompactView | None = None, *, top_k: int = TEACHER_TOP_K,
                    order: str = "list_first") -> dict[str, Any] | None:
    """One teacher episode on ``task_id``: the compact-view messages, tools, the env's reward and support.

    ``order="search_first"`` (with a searchable memory) puts a search for the request (:func:`request_query`)
    before the listing: search the request, list the module, search the person and the function's words, call.
    Support is judged on the second search's hits (the one the values are copied from).
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
    turns = [[_call("list_module_tools", {"module_name": m}, k, 1)
              for k, m in enumerate(dict.fromkeys(_module(c["name"]) for c in gold))]]
    if order == "search_first" and env.unwrapped.memory.provides_search:
        turns.insert(0, [_call("search_memory", {"query": request_query(query.text, speakers), "top_k": top_k}, 0, 0)])
    if env.unwrapped.memory.provides_search:
        functions = dict.fromkeys(c["name"] for c in gold)
        turns.append([_call("search_memory", {"query": teacher_query(query.text, speakers, f), "top_k": top_k}, k, 2)
                      for k, f in enumerate(functions)])
    last = len(turns) + 1
    turns.append([*(_call("call_vehicle", {"name": short_name(c["name"]), "arguments": c["arguments"]}, k, last)
                    for k, c in enumerate(gold)), _call("finish", {}, len(gold), last)])
    reward, bodies = 0.0, []
    for calls in turns:
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        env_calls = [view.to_env_call(c["function"]["name"], c["function"]["arguments"]) for c in calls]
        _, reward, _, _, info = env.step(env_calls)
        if calls is turns[-1]:
            break
        for call, record, hits in zip(calls, list(info.get("calls") or []), step_hits(info), strict=False):
            content = view.tool_content(str(record.get("name")), record.get("result"), hits=hits)
            first_search = order == "search_first" and calls is turns[0]
            if call["function"]["name"] == "search_memory" and not first_search:  # the lines values are copied from
                bodies += (shown_bodies(hits, view.tags, view.evidence, view.shown) if hits is not None
                           else content.splitlines())
            messages.append({"role": "tool", "name": call["function"]["name"], "content": content})
    context = "\n".join(bodies) if env.unwrapped.memory.provides_search else str(messages[0]["content"])
    return {"messages": messages, "tools": tools, "task_id": task_id, "memory": env.unwrapped.memory_name,
            "reward": float(reward), "supported": supported(gold, context)}


def train_order(train_dir: str, seed: int = 0) -> list[str]:
    """The task ids of the train split ``train_dir`` in the order ``vmb train lm --seed SEED`` draws its teacher
    episodes (the first ``--gold-share`` of them with the gold context, the next ones until ``--train-tasks`` are kept).

    Raises:
        ConfigError: ``train_dir`` is not a folder.
    """
    import random

    from vmb_gym.errors import ConfigError

    if not Path(train_dir).is_dir():
        raise ConfigError(f"expected a generated train split folder (as `vmb train lm` writes under "
                          f"~/.cache/vmb_gym/generated/); found {train_dir!r}, which is not a folder")
    ids = [q.task_id for q in gym.make("VehicleMem-v0", data=train_dir).unwrapped.tasks.queries]
    random.Random(seed).shuffle(ids)
    return ids


def teacher_rows(data: str, task_ids: Sequence[str], *, memory: str = "bm25", max_steps: int = 20,
                 top_k: int = TEACHER_TOP_K, supported_only: bool = True, limit: int | None = None,
                 progress: bool = True,
                 order: str = "list_first", view: str = "compact") -> list[dict[str, Any]]:
    """Teacher episodes for ``task_ids`` of ``data`` with ``memory``, at most ``limit`` of them.

    Tasks without gold calls are skipped, and with ``supported_only`` so are episodes whose gold
    values are not in the hits (:func:`supported`). ``view``: a compact view's name
    (:func:`~vmb_agents.llm.compact_view.view_named`).
    """
    from tqdm.auto import tqdm

    env = gym.make("VehicleMem-v0", data=data, memory=memory, max_steps=max_steps)
    chat_view = view_named(view)
    rows: list[dict[str, Any]] = []
    bar = tqdm(task_ids, desc=f"teacher episodes ({memory})", disable=not progress, leave=False)
    for task_id in bar:
        row = teacher_episode(env, task_id, chat_view, top_k=top_k, order=order)
        if row is not None and (row["supported"] or not supported_only):
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
    bar.close()
    env.close()
    return rows
