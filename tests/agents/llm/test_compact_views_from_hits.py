"""The compact views render a search from its structured hits (the step's ``info["memory_hits"]``), never from the
env's rendered text; on real episodes of the default set the text the model reads is byte for byte what the views
showed when they re-read the env's ``memory_text``.

``compact_views_default.json`` holds, per memory, task and view, the sha256 of every ``search_memory`` message of one
step of searches and of the lines its support is judged on (``lm_data.supported``), recorded from that earlier
rendering. bm25 gives one-line hits; layered (with the hashing embedder, so the hits do not depend on the installed
encoder) gives facts whose revisions span lines (shown whole, tagged on their first line).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("transformers")

import vmb_gym  # noqa: F401
from vmb_agents.llm.chat import ToolChatPolicy
from vmb_agents.llm.compact_view import (
    EVIDENCE_LINES,
    CompactView,
    placed,
    render_result,
    shown_bodies,
    step_hits,
    view_named,
)
from vmb_agents.llm.trl_env import compact_tool_env
from vmb_agents.train.lm_data import request_query, teacher_query

GOLDEN = Path(__file__).with_name("compact_views_default.json")
MEMORIES = ("bm25", "layered")


def memory_kwargs(memory: str) -> dict[str, Any]:
    """The memory's arguments: layered embeds with the deterministic hashing embedder (no model weights)."""
    from vmb_gym.memory.retrieval import HashingEmbedder

    return {"embedder": HashingEmbedder()} if memory == "layered" else {}
#: view name -> (tags, evidence, shown)
VARIANTS: dict[str, tuple[bool, bool, int]] = {"compact": (False, False, 0), "compact_tagged": (True, False, 0),
                                               "compact_evidence": (False, True, 0), "shown8": (False, False, 8),
                                               "tagged_shown8": (True, False, 8)}
#: every this many-th task of the default set
EVERY = 40


def episodes(memory: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(task_id, info)`` of one step of searches (the request, the teacher's queries, 8 and 20 deep, and a search
    that finds nothing) on every :data:`EVERY`-th task of the default set."""
    env = gym.make("VehicleMem-v0", data="default", memory=memory, memory_kwargs=memory_kwargs(memory), max_steps=50)
    tasks = env.unwrapped.tasks
    for query in tasks.queries[::EVERY]:
        env.reset(options={"task_id": query.task_id})
        speakers = tasks.scenario_of(query).speakers
        texts = [query.text, request_query(query.text, speakers),
                 *(teacher_query(query.text, speakers, c.name) for c in query.gold_calls)]
        action = [{"name": "search_memory", "arguments": {"query": t, "top_k": k}} for t in texts for k in (8, 20)]
        action.append({"name": "search_memory", "arguments": {"query": "zzqx qqzx", "top_k": 3}})
        *_, info = env.step(action[:31])
        yield query.task_id, info
    env.close()


def digest(texts: Sequence[str], bodies: Sequence[str]) -> str:
    """One sha256 of a step's message texts and support lines."""
    return hashlib.sha256(json.dumps([list(texts), list(bodies)]).encode()).hexdigest()


@pytest.fixture(scope="module")
def golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("memory", MEMORIES)
def test_views_render_the_structured_hits_as_the_recorded_text(memory: str, golden: dict[str, str]) -> None:
    seen = 0
    spans = filtered = 0
    for task_id, info in episodes(memory):
        per_call = step_hits(info)
        assert len(per_call) == len(info["calls"]) and all(h is not None for h in per_call[:-1])
        for name, (tags, evidence, shown) in VARIANTS.items():
            texts = [render_result("search_memory", r["result"], tags, evidence, shown, hits=h)
                     for r, h in zip(info["calls"], per_call, strict=True)]
            bodies = ["\n".join(shown_bodies(h or (), tags, evidence, shown)) for h in per_call]
            assert digest(texts, bodies) == golden[f"{memory}/{task_id}/{name}"], (memory, task_id, name)
            seen += 1
            filtered += evidence and any(len(t.splitlines()) < len(h or ()) for t, h in zip(texts, per_call,
                                                                                              strict=True))
        spans += any(not placed(hit) for hits in per_call for hit in hits or ())
        if memory == "bm25":  # no word of the query is in the history (layered's dense side finds neighbours)
            assert per_call[-1] == () and texts[-1] == "no matching memory"
    assert seen == len([k for k in golden if k.startswith(memory + "/")]) > 0
    if memory == "bm25":
        assert filtered > 0 and spans == 0  # the evidence view showed fewer lines than were searched
    else:
        assert spans > 0  # layered facts span lines: such a search is shown whole, as the env ranks it


def test_the_policy_loop_and_the_trl_env_render_the_steps_hits() -> None:
    """The chat policy's ``tool`` messages and the TRL env's tool text are the view's rendering of the step's hits."""
    view = view_named("compact_evidence")
    env = gym.make("VehicleMem-v0", data="default", memory="bm25")
    task = env.unwrapped.tasks.queries[0]
    policy = ToolChatPolicy(view=view)
    obs, info = env.reset(options={"task_id": task.task_id})
    state = policy.new_state(obs, info)
    state.pending = [{"id": "c0", "type": "function", "env_name": "search_memory",
                      "function": {"name": "search_memory", "arguments": {"query": task.text}}}]
    *_, step = env.step([view.to_env_call("search_memory", {"query": task.text, "top_k": 5})])
    policy._prepare(state, step)  # folds the step's results (and its info["memory_hits"]) into the transcript
    (hits,) = step_hits(step)
    assert state.messages[-1]["content"] == view.tool_content("search_memory", step["calls"][0]["result"], hits)
    assert 0 < len(state.messages[-1]["content"].splitlines()) <= EVIDENCE_LINES < len(hits)
    tool_env = compact_tool_env("compact_evidence")("default", memory="bm25")
    tool_env.reset(task_id=task.task_id)
    assert tool_env.search_memory(task.text, top_k=5) == state.messages[-1]["content"]
    assert CompactView().tool_content("finish", {"success": True}) == "done"
