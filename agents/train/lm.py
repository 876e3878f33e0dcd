"""Fine-tune a causal LM on VehicleMem-v0: TRL's ``SFTTrainer`` with a LoRA adapter, then TRL's GRPO.

Read top to bottom: arguments, the model (``smollm2`` | ``tiny`` | a folder), the tasks, the
teacher episodes, the supervised phase, the GRPO phase, held-out evaluation, outputs.

    vmb train lm --out runs/lm-smollm2                          # the README's CPU run (~1 h)
    vmb train lm --model tiny --train-tasks 16 --eval-tasks 4 --grpo-steps 2 --out runs/lm-tiny   # seconds

**The episode the model learns** is the real multi-turn env loop in the compact chat view
(:mod:`vmb_agents.llm.compact_view`: a short system prompt, four tools, compact results): search
the memory for the person and the setting, list the module's functions, call them through
``call_vehicle`` with the remembered values, finish. Teacher episodes
(:mod:`vmb_agents.train.lm_data`) run those calls on the generated *train* split, so the tool
messages hold real bm25 hits; a share (``--gold-share``) uses the ``gold`` context instead, where
the evidence is in the prompt and there is no search.

**Supervised phase**: :func:`vmb_agents.train.lm_sft.sft_train`, TRL's ``SFTTrainer`` with a peft
LoRA adapter on the top ``--lora-layers`` blocks, loss on the assistant turns only.
**GRPO phase**: :func:`vmb_agents.train.lm_trl.train_grpo`, TRL's ``GRPOTrainer`` with
``environment_factory`` = :class:`vmb_agents.llm.trl_env.CompactToolEnv` (the same view), reward the
env's final value-level F1 (``--reward``), ``--kl-beta`` towards the SFT model (0 skips the
reference model). Both are TRL's own loops; this file only chooses their settings.

**Evaluation**: greedy, batched over ``--eval-batch`` envs (:mod:`vmb_agents.train.lm_eval`), on
``--eval-tasks`` held-out tasks of ``--eval-data`` (the generated test split by default) and
``--official-tasks`` of the official data when it is found, before training (``--eval-base``),
after SFT and after GRPO.

Outputs in ``--out``: ``adapter/`` (the LoRA adapter after SFT, with ``vmb_adapter.json``;
``vmb eval --policy hf:BASE --policy-kwargs '{"adapter": "OUT/adapter"}'``, or for SmolLM2 the
shipped copy ``hf:smollm2-vmb``), ``adapter_grpo/`` (after GRPO), ``sft_log.csv``,
``grpo_log.csv``, ``sft_loss.png``, ``grpo_reward.png``, ``eval_*.jsonl`` (one row per task) and
``summary.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import torch

from vmb_agents.threads import apply_threads
from vmb_agents.train.common import add_dataclass_arguments, prepare_out, write_csv
from vmb_agents.train.common import args_from_namespace as _args_from_namespace
from vmb_agents.train.lm_args import Args
from vmb_gym.errors import ConfigError

log = logging.getLogger(__name__)

__all__ = ["Args", "add_lm_arguments", "args_from_namespace", "build_tiny_model", "load_model", "main", "run_lm"]

#: What ``--out`` holds after a run (removed first by ``--overwrite``).
OUTPUTS = ("adapter", "adapter_grpo", "sft", "trl", "sft_log.csv", "grpo_log.csv", "sft_loss.png", "grpo_reward.png",
           "summary.json", "eval_base_held_out.jsonl", "eval_sft_held_out.jsonl", "eval_grpo_held_out.jsonl",
           "eval_base_official.jsonl", "eval_sft_official.jsonl", "eval_grpo_official.jsonl")


# ----------------------------------------------------------------------------------------- model
def build_tiny_model(seed: int = 0, vocab_size: int = 1500) -> tuple[Any, Any]:
    """A 2-layer Llama (hidden 64) with random weights and a byte-level BPE tokenizer trained on the compact view's
    texts."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from vmb_agents.llm.compact_view import COMPACT_SYSTEM
    from vmb_gym.vehicle.schema import all_vehicle_schemas

    corpus = [COMPACT_SYSTEM, '<tool_call>\n{"name": "call_vehicle", "arguments": {}}\n</tool_call><tool_response>']
    corpus += [json.dumps(s) for s in all_vehicle_schemas("official")]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>")
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                      eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, bos_token_id=None,
                      tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer


def load_model(name: str, seed: int = 0) -> tuple[Any, Any, str]:
    """(model, tokenizer with the compact template, base name for the adapter's settings)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vmb_agents.llm.compact_view import install

    if name == "tiny":
        model, tok = build_tiny_model(seed)
    else:
        path = name
        if name == "smollm2":
            from vmb_agents.llm.hf import convert_gguf

            path = str(convert_gguf())
        if not Path(path).is_dir():
            raise ConfigError(f"--model must be 'smollm2', 'tiny' or a checkpoint folder, found {name!r} "
                              f"({path} is not a folder)")
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
        tok = AutoTokenizer.from_pretrained(path)
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return model, install(tok), name


# ----------------------------------------------------------------------------------------- evaluation
def evaluate(model: Any, tok: Any, args: Args, data: str, task_ids: list[str], tag: str, out: Path) -> dict[str, Any]:
    """Greedy batched episodes of ``model`` on ``task_ids``; rows to ``eval_{tag}.jsonl``, the summary back."""
    from vmb_agents.llm.hf import HFPolicy
    from vmb_agents.train.lm_eval import evaluate_batched, summarise_episodes

    if not task_ids:
        return {}
    model.eval()
    policy = HFPolicy(model, tok, view=args.view,
                      decoding={"max_new_tokens": args.max_new_tokens, "max_turns": args.max_turns})
    rows = evaluate_batched(policy, data, task_ids, memory=args.memory, batch=args.eval_batch,
                            max_steps=args.max_steps, desc=f"eval {tag}")
    with open(out / f"eval_{tag}.jsonl", "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    summary = summarise_episodes(rows)
    print(f"  {tag}: ESM {summary['exact_match_rate']:.3f}  F1 {summary['state_f1_change']:.3f}  "
          f"vehicle call in {summary['vehicle_call_share']:.0%} of episodes  "
          f"{summary['seconds_per_episode']:.1f} s/episode ({len(rows)} tasks)", flush=True)
    return summary


def evaluate_sets(model: Any, tok: Any, args: Args, sets: dict[str, tuple[str, list[str]]], phase: str,
                  out: Path) -> dict[str, Any]:
    """:func:`evaluate` on every set of :func:`eval_sets` after ``phase``; name -> summary."""
    return {name: evaluate(model, tok, args, spec, ids, f"{phase}_{name}", out) for name, (spec, ids) in sets.items()}


def eval_sets(args: Args) -> dict[str, tuple[str, list[str]]]:
    """The held-out (and, when found, official) tasks to evaluate: name -> (data spec, task ids)."""
    import gymnasium as gym

    from vmb_gym.data.spec import official_candidates

    sets: dict[str, tuple[str, list[str]]] = {}
    if args.eval_tasks:
        ids = [q.task_id for q in gym.make("VehicleMem-v0", data=args.eval_data).unwrapped.tasks.queries]
        random.Random(args.seed).shuffle(ids)
        sets["held_out"] = (args.eval_data, ids[:args.eval_tasks])
    official = next((p for p in official_candidates() if p.is_dir()), None) if args.official_tasks else None
    if official is not None:
        spec = f"official:{official}"
        ids = [q.task_id for q in gym.make("VehicleMem-v0", data=spec, files="1-40").unwrapped.tasks.queries]
        step = max(1, len(ids) // args.official_tasks)
        sets["official"] = (spec, ids[::step][:args.official_tasks])
    elif args.official_tasks:
        print("  official data not found ($VMB_OFFICIAL_DIR or ../shared/vehiclemembench): official evaluation skipped")
    return sets


# ----------------------------------------------------------------------------------------- the run
def main(args: Args) -> dict[str, Any]:
    """Teacher episodes, SFT, GRPO, evaluation and outputs; returns the summary."""
    from vmb_agents.train.common import generated_train
    from vmb_agents.train.lm_data import train_order
    from vmb_agents.train.lm_plots import plot_grpo, plot_sft
    from vmb_agents.train.lm_sft import sft_train
    from vmb_agents.train.lm_trl import grpo_reward, train_grpo

    grpo_reward(args.reward)  # a bad --reward fails here, not after the SFT phase
    renderers = _renderers(args.renderers)
    if not 0.0 <= args.gold_share <= 1.0:
        raise ConfigError(f"--gold-share must be in [0, 1], found {args.gold_share}")
    out = Path(args.out)
    prepare_out(out, args.overwrite, OUTPUTS, "vmb train lm")
    out.mkdir(parents=True, exist_ok=True)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads > 0:
        apply_threads(args.threads)
    args.device = "cuda" if args.device == "auto" and torch.cuda.is_available() else (
        "cpu" if args.device == "auto" else args.device)

    # --- tasks: teacher episodes on the generated train split(s)
    t0 = time.monotonic()
    rows: list[dict[str, Any]] = []
    splits = [str(generated_train(args, renderer)) for renderer in renderers]
    orders = [train_order(split, args.seed) for split in splits]
    for k, (train_dir, train_ids) in enumerate(zip(splits, orders, strict=True)):
        if args.sft_epochs > 0:
            rows += _teacher_split(args, train_dir, train_ids, args.train_tasks * (k + 1) // len(renderers)
                                   - args.train_tasks * k // len(renderers))
    random.Random(args.seed + 1).shuffle(rows)
    train_dir, train_ids = splits[0], orders[0]  # GRPO's split
    used = {r["task_id"] for r in rows if r["train_dir"] == train_dir}
    model, tok, base = load_model(args.model, args.seed)
    if args.init_adapter:
        from peft import PeftModel

        from vmb_agents.llm.hf import adapter_settings

        adapter_settings(args.init_adapter)  # a clear error for a wrong folder
        model = PeftModel.from_pretrained(model, args.init_adapter, is_trainable=True)
    summary: dict[str, Any] = {"args": dataclasses.asdict(args), "train_dir": train_dir, "teacher_episodes": len(rows),
                               "teacher_seconds": round(time.monotonic() - t0, 1),
                               "parameters": sum(p.numel() for p in model.parameters())}
    sets = eval_sets(args)
    if args.eval_base:
        summary["base"] = evaluate_sets(model, tok, args, sets, "base", out)

    # --- supervised phase: TRL SFTTrainer + LoRA
    t0 = time.monotonic()
    sft_log: list[dict[str, Any]] = []
    if args.sft_epochs > 0:
        model, sft_log = sft_train(model, tok, rows, args)
        summary["sft_seconds"] = round(time.monotonic() - t0, 1)
        save_adapter(model, out / "adapter", base, args)
        summary["sft"] = evaluate_sets(model, tok, args, sets, "sft", out)
    write_csv(out / "sft_log.csv", sft_log)
    plot_sft(out / "sft_loss.png", sft_log, f"{args.model}: SFT on {len(rows)} teacher episodes")

    # --- GRPO: TRL GRPOTrainer over the compact tool env
    t0 = time.monotonic()
    grpo_log: list[dict[str, Any]] = []
    if args.grpo_steps > 0:
        model, grpo_log = train_grpo(model, tok, train_dir, [t for t in train_ids if t not in used], args)
        summary["grpo_seconds"] = round(time.monotonic() - t0, 1)
        save_adapter(model, out / "adapter_grpo", base, args)
        summary["grpo"] = evaluate_sets(model, tok, args, sets, "grpo", out)
    write_csv(out / "grpo_log.csv", grpo_log)
    plot_grpo(out / "grpo_reward.png", grpo_log, f"{args.model}: GRPO on the env reward ({args.reward})")
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def _renderers(spec: str) -> list[str]:
    """The renderers of ``--renderers`` ("template,natural" -> both).

    Raises:
        ConfigError: an empty list or an unknown renderer.
    """
    from vmb_gym.generator.options import RENDERERS

    names = [r.strip() for r in spec.split(",") if r.strip()]
    bad = [r for r in names if r not in RENDERERS]
    if not names or bad:
        raise ConfigError(f"--renderers takes a comma-separated list of {list(RENDERERS)}, found {spec!r}; "
                          "fix: e.g. --renderers template,natural")
    return list(dict.fromkeys(names))


def _teacher_split(args: Args, train_dir: str, train_ids: list[str], n: int) -> list[dict[str, Any]]:
    """``n`` teacher episodes of one train split: a ``--gold-share`` with the gold context, the others ``--memory``."""
    from vmb_agents.train.lm_data import teacher_rows

    n_gold = round(n * args.gold_share)
    keep = {"supported_only": not args.keep_unsupported, "max_steps": args.max_steps, "top_k": args.top_k,
            "order": args.teacher_order, "view": args.view}
    rows = teacher_rows(train_dir, train_ids[:n_gold], memory="gold", **keep)
    rows += teacher_rows(train_dir, train_ids[n_gold:], memory=args.memory, limit=n - len(rows), **keep)
    return [{**r, "train_dir": train_dir} for r in rows]


def save_adapter(model: Any, folder: Path, base: str, args: Args) -> None:
    """The LoRA adapter and ``vmb_adapter.json`` (base, view and generation limits ``HFPolicy`` reads)."""
    from vmb_agents.llm.hf import ADAPTER_SETTINGS

    model.save_pretrained(folder)
    settings = {"base": base, "view": args.view, "max_new_tokens": args.max_new_tokens, "max_turns": args.max_turns,
                "memory": args.memory, "renderers": args.renderers, "init_adapter": args.init_adapter,
                "teacher_order": args.teacher_order,
                **({"device_requests": args.device_requests} if args.device_requests else {}),
                **({"indirect_requests": args.indirect_requests} if args.indirect_requests else {}),
                **({"generator_options": args.generator_options} if args.generator_options else {}),
                "trained_with": "vmb train lm (TRL SFTTrainer + peft LoRA"
                + (", then GRPOTrainer)" if folder.name.endswith("grpo") else ")")}
    (folder / ADAPTER_SETTINGS).write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------------------- CLI
def add_lm_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field (``--train-tasks`` for ``train_tasks``)."""
    from vmb_agents.llm.compact_view import VIEWS
    from vmb_agents.train.lm_data import ORDERS

    from vmb_agents.train.lm_trl import ROLLOUTS

    add_dataclass_arguments(parser, Args, {"device": ["auto", "cpu", "cuda"], "teacher_order": list(ORDERS),
                                           "view": list(VIEWS), "rollouts": list(ROLLOUTS)})  # --reward: grpo_reward


def args_from_namespace(ns: argparse.Namespace) -> Args:
    """The :class:`Args` of a parsed namespace."""
    return _args_from_namespace(Args, ns)


def run_lm(args: argparse.Namespace) -> int:
    """``vmb train lm``: run :func:`main` and print where the outputs went."""
    summary = main(args_from_namespace(args))
    print(f"outputs in {args.out}: adapter/, sft_log.csv, sft_loss.png, summary.json"
          + (", adapter_grpo/, grpo_log.csv, grpo_reward.png" if summary.get("grpo") else ""))
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    _parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_lm_arguments(_parser)
    raise SystemExit(run_lm(_parser.parse_args()))
