"""The GRPO phase of :mod:`vmb_agents.train.lm`: TRL's ``GRPOTrainer`` over the compact tool env.

Each rollout runs the real multi-turn tool loop of :class:`vmb_agents.llm.trl_env.CompactToolEnv` (the
compact chat view the supervised phase trained on), scored by the env's final reward. ``--rollouts kv``
(the default) generates them with :class:`vmb_agents.train.lm_rollouts.EnvRollouts` as TRL's
``rollout_func`` (a step's episodes sampled together, each conversation's KV cache kept across its
turns); ``--rollouts trl`` with TRL's own ``environment_factory`` loop (``generate`` on the whole
conversation every turn: the path for vLLM on a GPU). TRL computes the loss and updates in both.
The model is trained as a peft LoRA model: the SFT adapter when there is one, else a fresh adapter
(:func:`vmb_agents.train.lm_sft.lora_config`), so a ``--kl-beta`` above 0 takes the reference model from the
base weights with the adapter disabled instead of loading one by name (which fails for a model that exists only
in memory).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from vmb_gym.errors import ConfigError

if TYPE_CHECKING:
    from vmb_agents.train.lm_args import Args

__all__ = ["ROLLOUTS", "grpo_reward", "grpo_trainer", "train_grpo"]

#: How rollouts are generated (``--rollouts``): our batched KV-cache sampler, or TRL's environment_factory loop.
ROLLOUTS = ("kv", "trl")


def grpo_reward(text: str) -> str | Mapping[str, float]:
    """``--reward`` as the env takes it: a reward name, or a JSON mapping of reward components to weights.

    ``'{"state_f1_change": 1.0, "format_share": 0.2}'`` gives partial credit for well-formed calls, so a
    group of rollouts that all miss the state still differs in reward (GRPO learns nothing from a
    group whose rewards are all equal).

    Raises:
        ConfigError: text that is neither a known name nor valid JSON, or a mapping the env refuses
            (unknown component, a weight that is not a number).
    """
    from vmb_gym.envs.rewards import RewardSpec

    reward: str | Mapping[str, float] = text
    if text.lstrip().startswith("{"):
        try:
            reward = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"--reward: expected a reward name or a JSON object of components to weights, "
                f'got {text!r:.80} ({exc}); e.g. \'{{"state_f1_change": 1, "format_share": 0.2}}\''
            ) from exc
    RewardSpec.parse(reward)
    return reward


def train_grpo(model: Any, tok: Any, data: str, task_ids: list[str], args: Args) -> tuple[Any, list[dict[str, Any]]]:
    """GRPO on ``task_ids`` of ``data``; returns the trained model and one log row per step.

    Raises:
        ConfigError: trl, peft or datasets missing, no tasks, or an unknown ``--rollouts``.
    """
    trainer = grpo_trainer(model, tok, data, task_ids, args)
    trainer.train()
    return trainer.model, _log_rows(trainer)


def grpo_trainer(model: Any, tok: Any, data: str, task_ids: list[str], args: Args) -> Any:
    """TRL's ``GRPOTrainer`` for ``args.grpo_steps`` steps on ``task_ids`` of ``data`` (the model wrapped in a LoRA
    adapter when it has none), ready to ``train()``; ``scripts/bench.py`` times its steps.

    Raises:
        ConfigError: as :func:`train_grpo`.
    """
    try:
        from datasets import Dataset
        from peft import PeftModel, get_peft_model
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        raise ConfigError(f"GRPO needs trl, peft and datasets ({exc}); fix: pip install 'vmb_gym[lm]'") from exc
    from vmb_agents.llm.trl_env import compact_prompt, compact_tool_env
    from vmb_agents.train.lm_sft import lora_config

    if not task_ids:
        raise ConfigError("GRPO needs training tasks beyond the teacher episodes; lower --train-tasks or raise "
                          "--train-scenarios")
    if args.rollouts not in ROLLOUTS:
        raise ConfigError(f"--rollouts must be one of {', '.join(ROLLOUTS)}, found {args.rollouts!r}")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    if not isinstance(model, PeftModel):
        model = get_peft_model(model, lora_config(model, rank=args.lora_rank, alpha=args.lora_alpha,
                                                  layers=args.lora_layers))
    tok.padding_side = "left"
    rng = random.Random(args.seed + 2)
    env_class = compact_tool_env(args.view)
    probe = env_class(data, memory=args.memory, max_steps=args.max_steps)
    n_rows = args.grpo_steps * args.prompts_per_step
    rows = [
        {"prompt": compact_prompt(probe, tid), "task_id": tid} for tid in (rng.choice(task_ids) for _ in range(n_rows))
    ]
    config = GRPOConfig(
        output_dir=str(Path(args.out) / "trl"), max_steps=args.grpo_steps, learning_rate=args.grpo_lr,
        per_device_train_batch_size=args.prompts_per_step * args.group_size, num_generations=args.group_size,
        max_completion_length=4 * args.max_new_tokens + 1024, temperature=args.temperature, beta=args.kl_beta,
        epsilon=args.clip_eps, logging_steps=1, report_to=[], seed=args.seed,
        save_strategy="steps" if args.grpo_save_steps > 0 else "no", save_steps=max(1, args.grpo_save_steps),
        use_cpu=args.device == "cpu" or not torch.cuda.is_available(), max_tool_calling_iterations=args.max_turns,
        bf16=bool(torch.cuda.is_available() and args.device != "cpu" and torch.cuda.is_bf16_supported()),
        gradient_checkpointing=False,  # TRL's defaults (bf16, checkpointing) are emulated and slow on CPU
    )
    factory = partial(env_class, data, memory=args.memory, reward=grpo_reward(args.reward), max_steps=args.max_steps,
                      seed=args.seed)
    if args.rollouts == "trl":
        return GRPOTrainer(model=model, processing_class=tok, args=config, train_dataset=Dataset.from_list(rows),
                           environment_factory=factory)
    from vmb_agents.train.lm_rollouts import EnvRollouts, env_trainer_class, reward_functions

    funcs, weights = reward_functions()
    config.reward_weights = weights
    rollouts = EnvRollouts(factory, tok, max_new_tokens=args.max_new_tokens, max_turns=args.max_turns,
                           max_completion_length=config.max_completion_length, temperature=args.temperature,
                           seed=args.seed)
    return env_trainer_class()(model=model, processing_class=tok, args=config, reward_funcs=funcs,
                               train_dataset=Dataset.from_list(rows), rollout_func=rollouts)


def _log_rows(trainer: Any) -> list[dict[str, Any]]:
    """One row per logged step: the env reward's mean and std within the step, loss, KL and, with ``--rollouts kv``,
    the partial-credit components and the rollout seconds."""
    rollouts = getattr(trainer, "rollout_func", None)
    timings = list(getattr(rollouts, "log", []))
    out: list[dict[str, Any]] = []
    for entry in trainer.state.log_history:
        key = next((k for k in entry if k.startswith("rewards/") and k.endswith("/mean")), None)
        if key is not None and "step" in entry:
            row = {"step": int(entry["step"]), "mean_reward": float(entry[key]),
                   "std_reward": float(entry.get(key.replace("/mean", "/std"), 0.0)),
                   "loss": entry.get("loss"), "kl": entry.get("kl")}
            row.update({k.split("/")[1]: v for k, v in entry.items()
                        if k.startswith("rewards/") and k.endswith("/mean") and k != key})
            if len(timings) >= len(out) + 1:
                row.update({f"rollout_{k}": round(v, 2) for k, v in timings[len(out)].items()})
            out.append(row)
    return out
