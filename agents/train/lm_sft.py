"""The supervised phase of :mod:`vmb_agents.train.lm`: TRL's ``SFTTrainer`` with a peft LoRA adapter.

The teacher episodes (:mod:`vmb_agents.train.lm_data`) are tokenized here with the compact view's
chat template (:data:`vmb_agents.llm.compact_view.COMPACT_TEMPLATE`) and its ``{% generation %}``
assistant mask, so the loss is on the model's own turns (the calls), never on the prompt, the
memory hits or the module listings; ``SFTTrainer`` gets ``input_ids`` + ``assistant_masks`` and
builds the labels. (Tokenizing before the trainer keeps the tool-call arguments as Python dicts:
an Arrow dataset would merge every call's argument keys into one struct.)

LoRA sits on the attention and MLP projections of the top ``lora_layers`` blocks only: the
backward pass stops at the lowest adapted block, which on a 2-core CPU nearly halves a step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError

__all__ = ["LORA_TARGETS", "lora_config", "sft_train", "tokenize_rows"]

#: The projections the adapter is put on (Llama/SmolLM2/Qwen names).
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def tokenize_rows(rows: Sequence[dict[str, Any]], tokenizer: Any, *, max_length: int) -> list[dict[str, list[int]]]:
    """``input_ids`` and ``assistant_masks`` of each teacher episode (longer ones are dropped, not cut)."""
    out = []
    for row in rows:
        enc = tokenizer.apply_chat_template(row["messages"], tools=row["tools"], tokenize=True, return_dict=True,
                                            return_assistant_tokens_mask=True)
        ids = list(enc["input_ids"])
        if len(ids) <= max_length and any(enc["assistant_masks"]):
            out.append({"input_ids": ids, "assistant_masks": list(enc["assistant_masks"])})
    return out


def lora_config(model: Any, *, rank: int, alpha: int, layers: int) -> Any:
    """A peft ``LoraConfig`` on :data:`LORA_TARGETS` of the top ``layers`` blocks (0 = all blocks)."""
    from peft import LoraConfig

    n = int(getattr(model.config, "num_hidden_layers", 0) or 0)
    top = list(range(max(0, n - layers), n)) if layers and n else None
    return LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=list(LORA_TARGETS),
                      layers_to_transform=top, task_type="CAUSAL_LM")


def sft_train(
    model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], args: Any
) -> tuple[Any, list[dict[str, Any]]]:
    """Fine-tune ``model`` on the teacher episodes with TRL's ``SFTTrainer`` and a LoRA adapter.

    ``rows`` are teacher episodes (``messages`` + ``tools``, :mod:`vmb_agents.train.lm_data`) or prompt-completion
    pairs of text (``prompt`` + ``completion``, the line reader's rows, :mod:`vmb_agents.train.lm_reader`).

    ``args`` gives ``out``, ``sft_epochs``, ``sft_lr``, ``sft_batch``, ``grad_accum``, ``max_length``,
    ``lora_rank``, ``lora_alpha``, ``lora_layers``, ``seed``, ``device`` and optionally ``sft_save_steps``.
    Returns the peft model
    (adapter not merged) and the loss log (one row per logged step).

    Raises:
        ConfigError: trl, peft or datasets missing, or no episode fits ``max_length``.
    """
    try:
        from datasets import Dataset
        from trl import SFTConfig, SFTTrainer
    except ImportError as exc:
        raise ConfigError(
            f"the supervised phase needs trl, peft and datasets ({exc}); fix: pip install 'vmb_gym[lm]'"
        ) from exc
    import torch

    # prompt-completion rows (the line reader's) are tokenized by TRL itself, with the loss on the completion
    data = [dict(r) for r in rows] if rows and "prompt" in rows[0] else tokenize_rows(rows, tokenizer,
                                                                                        max_length=args.max_length)
    if not data:
        raise ConfigError(f"no teacher episode fits --max-length {args.max_length} tokens; raise it (episodes are "
                          "600-1,200 tokens in the compact view)")
    steps = max(1, math.ceil(len(data) * args.sft_epochs / (args.sft_batch * args.grad_accum)))
    save_steps = int(getattr(args, "sft_save_steps", 0) or 0)
    config = SFTConfig(
        output_dir=str(Path(args.out) / "sft"),
        num_train_epochs=args.sft_epochs,
        learning_rate=args.sft_lr,
        per_device_train_batch_size=args.sft_batch,
        gradient_accumulation_steps=args.grad_accum,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, steps // 20),
        logging_steps=1,
        save_strategy="steps" if save_steps else "no",
        save_steps=save_steps or 500,
        report_to=[],
        seed=args.seed,
        max_length=args.max_length,
        use_cpu=args.device == "cpu" or not torch.cuda.is_available(),
        dataloader_num_workers=0,
        disable_tqdm=False,
        # TRL defaults to bf16 autocast and activation checkpointing: on a CPU without bf16 units that is
        # emulated (a 900-token step took > 3 min instead of ~4 s)
        bf16=bool(torch.cuda.is_available() and args.device != "cpu" and torch.cuda.is_bf16_supported()),
        gradient_checkpointing=False,
    )
    # a model that has an adapter already (--init-adapter) trains that adapter further; TRL refuses a second one
    peft = None if hasattr(model, "peft_config") else lora_config(model, rank=args.lora_rank, alpha=args.lora_alpha,
                                                                 layers=args.lora_layers)
    trainer = SFTTrainer(model=model, args=config, train_dataset=Dataset.from_list(data), processing_class=tokenizer,
                         peft_config=peft)
    trainer.train()
    log = [{"step": int(e["step"]), "loss": float(e["loss"]), "epoch": float(e.get("epoch", 0.0))}
           for e in trainer.state.log_history if "loss" in e and "step" in e]
    return trainer.model, log
