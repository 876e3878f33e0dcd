"""GRPO rollouts with the kept KV cache (``--rollouts kv``): the same tokens as one-at-a-time generation; a step
trains the LoRA weights only."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from vmb_agents.llm.compact_view import install
from vmb_agents.llm.trl_env import CompactToolEnv, compact_prompt
from vmb_agents.train.lm_rollouts import EnvRollouts, _Episode

TASKS = ["1_0", "1_1"]


def _suffix(tok):
    def suffix(messages):
        text = "".join(f"<|im_start|>user\n<tool_response>\n{m['content']}\n</tool_response><|im_end|>\n"
                       for m in messages)
        return tok.encode(text + "<|im_start|>assistant\n", add_special_tokens=False)
    return suffix


class ListingRollouts(EnvRollouts):
    """Every finished reply lists a module (the tiny random model writes no call of its own): multi-turn episodes."""

    def calls(self, text):
        return [{"name": "list_module_tools", "arguments": {"module_name": ["seat", "hud", "nope"][len(text) % 3]}}]


def _one_at_a_time(model, tok, prompt_ids, env, stops, suffix, max_new, turns):
    """The reference: each turn ``generate(do_sample=False)`` on the whole conversation so far, one episode alone."""
    episode = _Episode(env, prompt_ids)
    for _ in range(turns):
        if not episode.live:
            break
        ids = torch.tensor([episode.context])
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new, do_sample=False,
                             eos_token_id=sorted(stops), pad_token_id=0)
        reply = out[0, ids.shape[1]:].tolist()
        cut = next((k for k, t in enumerate(reply) if t in stops), None)
        reply = reply if cut is None else reply[:cut + 1]
        calls = ListingRollouts.calls(None, tok.decode(reply, skip_special_tokens=True)) if cut is not None else []
        episode.answer(reply, calls, suffix, 10_000)
    return episode.completion, episode.mask


def test_batched_rollouts_with_kept_cache_equal_one_at_a_time_greedy(sharp_tiny_lm):
    model, tok = sharp_tiny_lm(5)
    install(tok)
    stops = set(range(3, len(tok), 9))  # frequent stops: short replies, so episodes have several turns
    suffix = _suffix(tok)
    factory = lambda: CompactToolEnv("default", files=[1], memory="bm25")  # noqa: E731
    probe = factory()
    prompts = [compact_prompt(probe, t) for t in TASKS for _ in range(3)]  # two groups of three
    rollouts = ListingRollouts(factory, tok, max_new_tokens=8, max_turns=3, max_completion_length=10_000,
                               temperature=0.0)
    out = rollouts.run(model, prompts, [t for t in TASKS for _ in range(3)], sorted(stops), suffix)
    assert rollouts.log[0]["turns"] == 3 and rollouts.log[0]["reused_tokens"] > 0
    for prompt_ids, completion, mask, tid in zip(out["prompt_ids"], out["completion_ids"], out["env_mask"],
                                                 [t for t in TASKS for _ in range(3)], strict=True):
        env = factory()
        env.reset(task_id=tid)
        ref_completion, ref_mask = _one_at_a_time(model, tok, prompt_ids, env, stops, suffix, 8, 3)
        assert completion == ref_completion and mask == ref_mask
        assert 0 in mask  # a tool result was appended (and masked out of the loss)
    # a group's rows share one prefill: the first turn computed each distinct prompt once
    assert out["prompt_ids"][0] == out["prompt_ids"][2] != out["prompt_ids"][3]
    assert len(out["env_reward"]) == 6 and "state_f1_change" in out


def test_sampled_rollouts_differ_within_a_group_and_repeat_with_the_seed():
    from vmb_agents.train.lm import build_tiny_model

    model, tok = build_tiny_model(seed=5)
    install(tok)
    factory = lambda: CompactToolEnv("default", files=[1], memory="bm25")  # noqa: E731
    prompts = [compact_prompt(factory(), "1_0")] * 4

    def sample(seed):
        r = EnvRollouts(factory, tok, max_new_tokens=6, max_turns=2, max_completion_length=10_000, temperature=1.0,
                        seed=seed)
        return r.run(model, prompts, ["1_0"] * 4, [tok.eos_token_id], _suffix(tok))["completion_ids"]

    first = sample(0)
    assert first == sample(0) and len({tuple(c) for c in first}) > 1


def test_a_grpo_step_with_kv_rollouts_changes_only_the_lora_weights(tmp_path, monkeypatch):
    import random

    from vmb_agents.train.lm import build_tiny_model
    from vmb_agents.train.lm_args import Args
    from vmb_agents.train.lm_trl import train_grpo

    draw = random.Random(0)
    monkeypatch.setattr(CompactToolEnv, "get_reward", lambda self: draw.random())  # spread within each group
    model, tok = build_tiny_model(seed=1)
    install(tok)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    args = Args(model="tiny", out=str(tmp_path), grpo_steps=1, prompts_per_step=2, group_size=2, max_new_tokens=6,
                max_turns=2, lora_rank=2, lora_alpha=4, lora_layers=0, grpo_lr=1e-2, threads=1, memory="bm25")
    peft_model, log = train_grpo(model, tok, "default", TASKS, args)
    assert [r["step"] for r in log] == [1] and log[0]["rollout_episodes"] == 4 and "state_f1_change" in log[0]
    changed = {n for n, p in peft_model.named_parameters() if "lora_" in n
               and not torch.equal(p.detach(), before.get(n, torch.zeros_like(p)))}
    assert changed and all("lora_B" in n or "lora_A" in n for n in changed)
    base = {n.replace("base_model.model.", "").replace(".base_layer", ""): p for n, p in peft_model.named_parameters()
            if "lora_" not in n}
    assert all(torch.equal(base[n], before[n]) for n in before)
