"""The ``--backend trl`` GRPO phase of :mod:`agents.train.lm`: TRL's ``GRPOTrainer`` with ``environment_factory``.

Each rollout runs the real multi-turn tool loop of :class:`agents.llm.trl_env.VehicleMemToolEnv`
(``list_module_tools``, ``call_vehicle``, ``finish``...), scored by its ``get_reward()``. It needs
``trl`` and ``datasets``; they are imported when the phase runs.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from vmb_gym.data import parse_file_range
from vmb_gym.errors import ConfigError

if TYPE_CHECKING:
    from agents.train.lm import Args

__all__ = ["train_trl"]


def train_trl(model: Any, tok: Any, task_ids: list[str], args: Args) -> list[dict[str, Any]]:
    """GRPO through TRL's ``GRPOTrainer`` with ``environment_factory`` (the multi-turn tool loop).

    Returns one row per logged step with the mean env reward (``rewards/VehicleMemToolEnv/mean``).
    """
    import os

    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
        from trl.chat_template_utils import qwen2_5_chat_template
    except ImportError as exc:
        raise ConfigError(f"--backend trl needs trl and datasets ({exc}); fix: pip install trl datasets") from exc
    from functools import partial

    from agents.llm.trl_env import VehicleMemToolEnv

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    tok.chat_template = qwen2_5_chat_template  # a template TRL can parse tool calls from
    tok.padding_side = "left"
    rng = random.Random(args.seed + 1)
    n_rows = args.grpo_steps * args.prompts_per_step
    rows = [{"prompt": [{"role": "user", "content": ""}], "task_id": rng.choice(task_ids)} for _ in range(n_rows)]
    config = GRPOConfig(
        output_dir=str(Path(args.out) / "trl"), max_steps=args.grpo_steps, learning_rate=args.grpo_lr or 1e-6,
        per_device_train_batch_size=args.prompts_per_step * args.group_size, num_generations=args.group_size,
        max_completion_length=args.max_new_tokens, temperature=args.temperature, beta=args.kl_beta,
        epsilon=args.clip_eps, logging_steps=1, save_strategy="no", report_to=[], seed=args.seed,
        use_cpu=not torch.cuda.is_available() or args.device == "cpu", bf16=args.dtype == "bfloat16",
        max_tool_calling_iterations=args.max_steps,
    )
    factory = partial(VehicleMemToolEnv, args.data, files=parse_file_range(args.train_files) if args.train_files else None,
                      memory=args.memory, reward=args.reward, max_steps=args.max_steps, seed=args.seed)
    trainer = GRPOTrainer(model=model, processing_class=tok, args=config, train_dataset=Dataset.from_list(rows),
                          environment_factory=factory)
    trainer.train()
    out = []
    for entry in trainer.state.log_history:
        key = next((k for k in entry if k.startswith("rewards/") and k.endswith("/mean")), None)
        if key is not None and "step" in entry:
            out.append({"step": int(entry["step"]), "mean_reward": float(entry[key]),
                        "std_reward": float(entry.get(key.replace("/mean", "/std"), 0.0)), "loss": entry.get("loss")})
    return out
