"""The evidence compact view (``HFPolicy(view="compact_evidence")``, ``vmb train lm --view compact_evidence``):
every memory search is 20 deep and shows only the lines the shipped line prior reads as someone's real setting, at
most six."""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("transformers")

from tests.agents.llm.readings import memory_hits
from vmb_agents.llm.compact_view import (
    EVIDENCE_LINES,
    EVIDENCE_TOP_K,
    CompactView,
    evidence_choice,
    evidence_prior,
    render_result,
    view_named,
)
from vmb_agents.llm.hf import resolve_view
from vmb_agents.llm.trl_env import CompactToolEnv, EvidenceCompactToolEnv, compact_tool_env
from vmb_agents.train.lm_data import teacher_episode
from vmb_gym.errors import ConfigError

#: Two genuine statements among a van, a hypothetical and a relative's car (relevance order, as the env ranks).
HITS = memory_hits(
    "[2025-06-02 15:42] Arthur Rossi: In my work van the sunroof opening is always stuck at 30 percent.",
    "[2025-06-29 14:43] Arthur Rossi: Update on the sunroof opening: 25 percent from today, I started the early shift.",
    "[2025-06-10 19:23] Arthur Rossi: Hypothetically, would 45 percent for the sunroof opening drain the battery?",
    "[2025-06-23 07:07] Arthur Rossi: Please set the sunroof opening to 85 percent for me from now on.",
    "[2025-06-21 11:07] Daphne Marsh: My neighbour keeps the sunroof opening at 90 percent, I could never.")


def test_only_the_lines_the_prior_reads_as_real_settings_are_shown_oldest_first() -> None:
    kept = evidence_choice(HITS)
    assert [h.text.split(": ", 1)[1][:12] for h in kept] == ["Update on th", "Please set t"]  # in the env's order
    shown = render_result("search_memory", {"success": True}, evidence=True, hits=HITS)
    assert shown.splitlines() == [
        "1. [2025-06-23 07:07] Arthur Rossi: Please set the sunroof opening to 85 percent for me from now on.",
        "2. [2025-06-29 14:43] Arthur Rossi: Update on the sunroof opening: 25 percent from today, "
        "I started the early shift."]
    prior = evidence_prior()
    scores = prior.many([h.text.split(": ", 1)[1] for h in HITS])
    assert scores[1] > 0.5 and scores[3] > 0.5 and max(scores[0], scores[2], scores[4]) < 0.5


def test_at_most_the_limit_and_the_first_hits_when_none_passes() -> None:
    assert len(evidence_choice(HITS, limit=1)) == 1
    chatter = memory_hits(*(f"[2025-06-0{k} 10:00] Anna Lee: The manual spends three pages on the sunroof."
                            for k in range(1, 9)))
    fallback = evidence_choice(chatter)
    assert fallback == chatter[:EVIDENCE_LINES]  # none passes: the best-ranked hits
    assert evidence_choice([]) == []
    assert render_result("search_memory", {"success": True}, evidence=True, hits=[]) == "no matching memory"
    assert evidence_choice(HITS, threshold=1.1, limit=2) == HITS[:2]


def test_the_view_is_chosen_by_name_and_searches_deeper() -> None:
    view = resolve_view("compact_evidence")
    assert isinstance(view, CompactView) and view.evidence and view.name == "compact_evidence"
    assert view_named("compact").name == "compact" and view_named("compact_tagged").tags
    call = view.to_env_call("search_memory", {"query": "Arthur sunroof", "top_k": 5})
    assert call == {"name": "search_memory", "arguments": {"query": "Arthur sunroof", "top_k": EVIDENCE_TOP_K}}
    assert CompactView().to_env_call("search_memory", {"query": "q", "top_k": 5})["arguments"]["top_k"] == 5
    with pytest.raises(ConfigError, match="compact_evidence"):
        view_named("evidence")
    with pytest.raises(ConfigError, match="not both"):
        CompactView(tags=True, evidence=True)
    assert compact_tool_env("compact_evidence") is EvidenceCompactToolEnv
    assert compact_tool_env("compact") is CompactToolEnv


def test_a_teacher_episode_and_a_grpo_rollout_read_the_same_filtered_hits() -> None:
    env = gym.make("VehicleMem-v0", files=[1], memory="bm25")
    task = env.unwrapped.tasks.queries[0]
    row = teacher_episode(env, task.task_id, view_named("compact_evidence"))
    search = next(m for m in row["messages"] if m["role"] == "tool" and m["name"] == "search_memory")
    assert 1 <= len(search["content"].splitlines()) <= EVIDENCE_LINES
    assert row["reward"] == pytest.approx(1.0)  # the gold calls are played whatever the view shows
    query = next(tc["function"]["arguments"]["query"] for m in row["messages"] if m["role"] == "assistant"
                 for tc in m["tool_calls"] if tc["function"]["name"] == "search_memory")
    tool_env = EvidenceCompactToolEnv("default", files=[1], memory="bm25")
    tool_env.reset(task_id=task.task_id)
    assert tool_env.search_memory(query, top_k=8) == search["content"]  # 20 deep whatever top_k the model asks
