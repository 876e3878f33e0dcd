"""The tagged compact view (``HFPolicy(view="compact_tagged")``, ``vmb train lm --view compact_tagged``): memory lines
end with the vehicle functions they speak of; everything else is the compact view."""

from __future__ import annotations

import argparse

import gymnasium as gym
import pytest

pytest.importorskip("transformers")

from tests.agents.llm.readings import memory_hits
from vmb_agents.llm.compact_view import CompactView, render_result, render_search, setting_tags
from vmb_agents.llm.hf import resolve_view
from vmb_agents.llm.trl_env import CompactToolEnv, TaggedCompactToolEnv
from vmb_agents.train.lm import Args, add_lm_arguments, args_from_namespace
from vmb_agents.train.lm_data import supported, teacher_episode
from vmb_agents.train.lm_failures import transcript_hits
from vmb_gym.errors import ConfigError

LINES = ("[2025-04-10 09:01] Anna Jackson: Okay, HUD height to 8, much better for visibility.",
         "[2025-04-11 09:05] Charles King: Nice weather for the drive today.")
HITS = memory_hits(*LINES)


def test_a_line_is_tagged_with_the_functions_it_speaks_of() -> None:
    assert setting_tags("Anna Jackson: Okay, HUD height to 8, much better.") == ["HUD_set_height_level"]
    assert setting_tags("Charles King: Nice weather for the drive today.") == []
    lines = render_search(HITS, tags=True).splitlines()
    assert lines[0] == "1. " + LINES[0] + " (about: HUD_set_height_level)"
    assert lines[1] == "2. " + LINES[1]  # a line about nothing in the car is left as it is
    assert render_search([], tags=True) == "no matching memory"
    result = {"success": True, "memory_text": "(the env's text; the view renders the hits)"}
    assert render_result("search_memory", result, tags=True, hits=HITS) == render_search(HITS, tags=True)
    assert render_result("search_memory", result, hits=HITS) == "1. " + LINES[0] + "\n2. " + LINES[1]  # untagged
    with pytest.raises(ValueError, match="structured hits"):
        render_result("search_memory", result, tags=True)
    assert render_result("list_module_tools", {"success": True, "tools": []}, tags=True) == ""


def test_the_view_is_chosen_by_name_and_kept_apart_from_the_plain_one() -> None:
    tagged, plain = resolve_view("compact_tagged"), resolve_view("compact")
    assert isinstance(tagged, CompactView) and tagged.tags and tagged.name == "compact_tagged"
    assert not plain.tags and plain.name == "compact"
    result = {"success": True, "memory_text": "(the env's text)"}
    assert tagged.tool_content("search_memory", result, HITS) != plain.tool_content("search_memory", result, HITS)
    with pytest.raises(ConfigError, match="compact_tagged"):
        resolve_view("tagged")
    assert TaggedCompactToolEnv.view_name == "compact_tagged" and CompactToolEnv.view_name == "compact"
    parser = argparse.ArgumentParser()
    add_lm_arguments(parser)
    assert args_from_namespace(parser.parse_args(["--view", "compact_tagged"])).view == "compact_tagged"
    assert Args().view == "compact"
    with pytest.raises(SystemExit):
        parser.parse_args(["--view", "official"])


def test_a_tagged_teacher_episode_reads_tagged_hits_and_keeps_its_reward() -> None:
    env = gym.make("VehicleMem-v0", files=[1], memory="bm25")
    task = env.unwrapped.tasks.queries[0]
    row = teacher_episode(env, task.task_id, CompactView(tags=True), order="search_first")
    found = [m for m in row["messages"] if m["role"] == "tool" and m["name"] == "search_memory"]
    searches = [m["content"] for m in found]
    assert searches and any("(about: " in s for s in searches)
    assert row["reward"] == pytest.approx(1.0)
    plain = teacher_episode(env, task.task_id, order="search_first")
    assert [m["role"] for m in row["messages"]] == [m["role"] for m in plain["messages"]]
    assert row["supported"] == plain["supported"]  # tags name functions, never values
    assert supported([c.to_json() for c in task.gold_calls], transcript_hits(found[1:])) == row["supported"]


def test_the_tagged_view_constrains_call_names_as_the_compact_view_does() -> None:
    from vmb_agents.llm.compact_view import compact_tools
    from vmb_agents.llm.constrained import grammar_for

    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "Restore my HUD settings."}]
    for name in ("compact", "compact_tagged"):
        grammar = grammar_for(resolve_view(name), messages, compact_tools())
        # list_module_tools takes a module, not the function a tag names; call_vehicle one of the 111 functions
        assert "HUD" in grammar.modules and "HUD_set_height_level" not in grammar.modules
        assert "HUD_set_height_level" in grammar.functions
