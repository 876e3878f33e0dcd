"""The LM stack: the compact chat view, teacher episodes, TRL SFT + GRPO on a tiny model, adapters, batched eval."""

from __future__ import annotations

import argparse
import csv
import json

import gymnasium as gym
import pytest
import torch

import vmb_gym  # noqa: F401
from vmb_agents.llm.chat import ToolChatPolicy
from vmb_agents.llm.compact_view import (
    COMPACT_SYSTEM,
    CompactView,
    compact_tools,
    context_block,
    full_name,
    install,
    render_result,
    render_search,
    short_name,
    shown_bodies,
)
from vmb_agents.llm.hf import HFPolicy, adapter_settings, load_adapter
from vmb_agents.llm.trl_env import CompactToolEnv, compact_prompt
from vmb_agents.train.lm import Args, add_lm_arguments, args_from_namespace, build_tiny_model, main
from vmb_agents.train.lm_data import function_words, supported, teacher_episode, teacher_query
from vmb_agents.train.lm_eval import evaluate_batched, summarise_episodes
from vmb_agents.train.lm_failures import transcript_hits
from vmb_agents.train.lm_sft import tokenize_rows
from vmb_gym.errors import ConfigError
from tests.agents.llm.readings import memory_hits


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make("VehicleMem-v0", files=[1], memory="bm25")


@pytest.fixture(scope="module")
def tiny():
    torch.set_num_threads(1)
    model, tok = build_tiny_model(seed=0)
    return model, install(tok)


class Teacher(ToolChatPolicy):
    """Replies with the teacher episode's assistant turns (what a perfectly trained model would write)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(view=CompactView(), max_turns=5)
        self.env = env

    def chat(self, messages, tools=None):
        user = next(m["content"] for m in messages if m["role"] == "user")
        task = next(q for q in self.env.unwrapped.tasks.queries if q.text == user)
        episode = teacher_episode(gym.make("VehicleMem-v0", files=[1], memory="bm25"), task.task_id)
        turns = [m for m in episode["messages"] if m["role"] == "assistant"]
        turn = turns[sum(m["role"] == "assistant" for m in messages)]
        calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in turn["tool_calls"]]
        return {"content": "", "tool_calls": calls, "parse_errors": [], "raw": "", "usage": {}}


def test_function_words_and_teacher_query() -> None:
    assert function_words("carcontrol_airConditioner_set_temperature") == "air conditioner temperature"
    assert teacher_query("Vera said: 'warm seat please'", ("Vera Mahoney", "Maya Rossi"),
                         "carcontrol_seat_set_heating_level") == "Vera seat heating level"


def test_compact_template_is_trl_ready(tiny) -> None:
    from trl.chat_template_utils import is_chat_template_prefix_preserving, parse_response, supports_tool_calling

    _, tok = tiny
    assert supports_tool_calling(tok) and is_chat_template_prefix_preserving(tok)
    prompt = tok.apply_chat_template([{"role": "user", "content": "hi"}], tools=compact_tools(), tokenize=False,
                                     add_generation_prompt=True)
    assert "- call_vehicle(name, arguments): Call any vehicle function" in prompt
    text = '<tool_call>\n{"name": "finish", "arguments": {}}\n</tool_call><|im_end|>'
    parsed = parse_response(tok, tok(text)["input_ids"], prefix=tok(prompt)["input_ids"], tools=compact_tools())
    assert parsed["tool_calls"][0]["function"]["name"] == "finish"


def test_view_maps_names_and_renders_results() -> None:
    view = CompactView()
    assert short_name("carcontrol_seat_set_heating_level") == "seat_set_heating_level"
    assert full_name("seat_set_heating_level") == "carcontrol_seat_set_heating_level"
    assert full_name("finish") == "finish" and full_name("carcontrol_x_y") == "carcontrol_x_y"
    call = view.to_env_call("call_vehicle", {"name": "seat_set_heating_level", "arguments": '{"level": 2}'})
    assert call == {"name": "carcontrol_seat_set_heating_level", "arguments": {"level": 2}}
    listing = {"success": True, "tools": [{"type": "function", "function": {
        "name": "carcontrol_seat_set_heating_level", "description": "Set seat heating level (0-3). Extra words.",
        "parameters": {"type": "object", "properties": {"seat": {}, "level": {}}}}}]}
    assert render_result("list_module_tools", listing) == (
        "seat_set_heating_level(seat, level): Set seat heating level (0-3)")
    assert render_result("carcontrol_x", {"success": False, "error": "level must be 0-3"}) == "error: level must be 0-3"
    assert render_result("carcontrol_x", {"success": True}) == "ok"
    system = "User preference memory:\n[March 1] Gary likes 2\n\nYou are the assistant.\n\nAvailable modules:\n- seat"
    assert context_block(system) == "User preference memory:\n[March 1] Gary likes 2"
    assert context_block("You are the assistant.") == ""


def test_teacher_episode_is_exact_and_masked(env: gym.Env, tiny) -> None:
    task_id = env.unwrapped.tasks.queries[0].task_id
    row = teacher_episode(env, task_id)
    assert row["reward"] == pytest.approx(1.0)
    roles = [m["role"] for m in row["messages"]]
    assert roles[:3] == ["system", "user", "assistant"] and roles[-1] == "assistant"
    turns = [[c["function"]["name"] for c in m["tool_calls"]] for m in row["messages"] if m["role"] == "assistant"]
    assert set(turns[0]) == {"list_module_tools"} and set(turns[1]) == {"search_memory"}
    assert turns[2][-1] == "finish" and set(turns[2][:-1]) == {"call_vehicle"}
    search = transcript_hits(row["messages"])  # the saved transcript's search lines, read back from its text
    assert row["supported"] == supported([c.to_json() for c in env.unwrapped.tasks.queries[0].gold_calls], search)
    _, tok = tiny
    [enc] = tokenize_rows([row], tok, max_length=100_000)
    text = tok.decode([t for t, m in zip(enc["input_ids"], enc["assistant_masks"], strict=True) if m])
    assert "search_memory" in text and "call_vehicle" in text and "tool_response" not in text
    gold = teacher_episode(gym.make("VehicleMem-v0", files=[1], memory="gold"), task_id)
    gold_turns = [m for m in gold["messages"] if m["role"] == "assistant"]
    assert len(gold_turns) == 2 and gold_turns[0]["tool_calls"][0]["function"]["name"] == "list_module_tools"
    assert gold["reward"] == pytest.approx(1.0)


def test_supported_needs_every_remembered_value_in_the_hits() -> None:
    calls = [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
             {"name": "carcontrol_light_set_hazard", "arguments": {"enabled": True}}]
    assert supported(calls, "Vera: seat heating at level 2 please")  # place and bool not needed
    assert not supported(calls, "Vera: seat heating at level 3 please")
    shown = shown_bodies(memory_hits("[2025-01-02 10:02] Vera: seat heating at level 3 please"))
    assert shown == ["Vera: seat heating at level 3 please"]  # a rank and a time stamp are not values
    assert not supported([{"name": "x", "arguments": {"level": 10}}], "\n".join(shown))  # not the hour of 10:02
    assert supported([{"name": "x", "arguments": {"level": 10}}], "1. [2025-01-02 10:02] Vera: level 3")
    assert supported([{"name": "x", "arguments": {"level": "High"}}], "the level goes high")


def test_hits_are_listed_oldest_first() -> None:
    hits = memory_hits("[2025-03-01 11:23] Arthur: 21 degrees", "[2025-02-25 12:03] Frank: 25 percent")
    assert render_search(hits) == "1. [2025-02-25 12:03] Frank: 25 percent\n2. [2025-03-01 11:23] Arthur: 21 degrees"
    assert render_search(hits, shown=1) == "1. [2025-03-01 11:23] Arthur: 21 degrees"  # the best-ranked, then in time
    assert render_result("search_memory", {"success": True}, hits=hits) == render_search(hits)
    assert render_search([]) == "no matching memory"
    assert "Modules: HUD," in COMPACT_SYSTEM and "steeringWheel, light." in COMPACT_SYSTEM


def test_teacher_replies_score_through_the_policy_loop(env: gym.Env) -> None:
    rows = evaluate_batched(Teacher(env), "default", [q.task_id for q in env.unwrapped.tasks.queries[:3]],
                            memory="bm25", batch=2, progress=False)
    summary = summarise_episodes(rows)
    assert summary["tasks"] == 3 and summary["exact_match_rate"] == pytest.approx(1.0)
    assert summary["vehicle_call_share"] == 1.0 and summary["well_formed_share"] == 1.0
    tasks = {q.task_id: q for q in env.unwrapped.tasks.queries}
    assert [r["memory_searches"] for r in rows] == [len({c.name for c in tasks[r["task_id"]].gold_calls}) for r in rows]


def test_compact_tool_env_matches_the_view(env: gym.Env) -> None:
    task = env.unwrapped.tasks.queries[0]
    tool_env = CompactToolEnv("default", files=[1], memory="bm25")
    assert compact_prompt(tool_env, task.task_id)[0]["content"].startswith("You are the car's assistant.")
    assert tool_env.reset(task_id=task.task_id) == task.text
    module = task.gold_calls[0].name.split("_")[1]
    listing = tool_env.list_module_tools(module)
    assert short_name(task.gold_calls[0].name) + "(" in listing and "carcontrol_" not in listing
    for call in task.gold_calls:
        assert tool_env.call_vehicle(short_name(call.name), dict(call.to_json()["arguments"])) == "ok"
    assert tool_env.get_reward() == pytest.approx(1.0)
    assert tool_env.call_vehicle("nope_nothing", {}).startswith('{"success": false')  # episode over


def test_adapter_errors(tmp_path, tiny) -> None:
    model, tok = tiny
    with pytest.raises(ConfigError, match="does not exist"):
        adapter_settings(tmp_path / "missing")
    with pytest.raises(ConfigError, match="no adapter_config.json"):
        HFPolicy(model, tok, adapter=tmp_path)
    with pytest.raises(ConfigError, match="unknown chat view"):
        HFPolicy(model, tok, view="tiny")
    from peft import get_peft_model

    from vmb_agents.train.lm_sft import lora_config

    peft_model = get_peft_model(build_tiny_model(seed=2)[0], lora_config(model, rank=2, alpha=4, layers=0))
    peft_model.save_pretrained(tmp_path / "ok")
    assert load_adapter(build_tiny_model(seed=2)[0], tmp_path / "ok") is not None
    from transformers import LlamaConfig, LlamaForCausalLM

    wider = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2))
    with pytest.raises(ConfigError, match="does not fit the base model"):
        load_adapter(wider, tmp_path / "ok")


def test_tiny_sft_then_grpo_end_to_end(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    args = Args(model="tiny", out=str(out), train_scenarios=2, train_tasks=6, gold_share=0.5, sft_epochs=1,
                grad_accum=2, lora_rank=2, lora_alpha=4, lora_layers=0, grpo_steps=1, prompts_per_step=1,
                group_size=2, max_new_tokens=12, kl_beta=0.02, eval_tasks=2, eval_batch=2, threads=1, max_length=8192)
    summary = main(args)
    assert summary["teacher_episodes"] == 6
    sft_rows = list(csv.DictReader((out / "sft_log.csv").open()))
    assert [int(r["step"]) for r in sft_rows] == [1, 2, 3] and all(float(r["loss"]) > 0 for r in sft_rows)
    grpo_rows = list(csv.DictReader((out / "grpo_log.csv").open()))
    assert [int(r["step"]) for r in grpo_rows] == [1] and 0.0 <= float(grpo_rows[0]["mean_reward"]) <= 1.0
    for name in ("sft_loss.png", "grpo_reward.png", "adapter/adapter_config.json", "adapter_grpo/vmb_adapter.json",
                 "eval_sft_held_out.jsonl", "eval_grpo_held_out.jsonl"):
        assert (out / name).is_file(), name
    assert adapter_settings(out / "adapter")["view"] == "compact"
    saved = json.loads((out / "summary.json").read_text())
    assert set(saved["sft"]["held_out"]) >= {"exact_match_rate", "vehicle_call_share", "seconds_per_episode"}
    with pytest.raises(ConfigError, match="not empty"):
        main(args)


def test_cli_hook_parses_flags() -> None:
    parser = argparse.ArgumentParser()
    add_lm_arguments(parser)
    args = args_from_namespace(parser.parse_args(["--model", "tiny", "--train-tasks", "3", "--grpo-steps", "4",
                                                  "--out", "x", "--kl-beta", "0.1"]))
    assert (args.train_tasks, args.grpo_steps, args.out, args.kl_beta, args.model) == (3, 4, "x", 0.1, "tiny")
    bad = args_from_namespace(parser.parse_args(["--reward", "nope", "--out", "x"]))
    with pytest.raises(ConfigError, match="must be one of"):  # refused before any work, not after the SFT phase
        main(bad)


def test_bad_model_and_gold_share(tmp_path) -> None:
    with pytest.raises(ConfigError, match="--gold-share"):
        main(Args(out=str(tmp_path / "a"), gold_share=2.0))
    with pytest.raises(ConfigError, match="--model"):
        main(Args(out=str(tmp_path / "b"), model=str(tmp_path / "missing"), train_scenarios=2, train_tasks=2))


def test_reward_takes_a_name_or_a_json_mapping_of_components() -> None:
    """``--reward`` names a reward or maps components to weights; anything else is a ConfigError naming the fix."""
    import pytest

    from vmb_agents.train.lm_trl import grpo_reward
    from vmb_gym.errors import ConfigError

    assert grpo_reward("esm") == "esm"
    assert grpo_reward('{"state_f1_change": 1, "format_share": 0.2}') == {"state_f1_change": 1, "format_share": 0.2}
    with pytest.raises(ConfigError, match="JSON object"):
        grpo_reward("{state_f1_change: 1}")
    with pytest.raises(ConfigError, match="unknown component"):
        grpo_reward('{"style": 1}')
    with pytest.raises(ConfigError, match="must be one of"):
        grpo_reward("f1")
