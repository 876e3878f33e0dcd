"""Improve a slot checkpoint with the env's reward alone: reward-filtered self-imitation (``vmb train self-imitation``).

Expert iteration (also known as rejection-sampling fine-tuning, ReST or RAFT) on the slot env: for
each training task, run the policy once greedily and ``--samples`` times sampling its own
distribution; keep, per task, one episode that the env scored an exact state match (the greedy one
when it solved the task, else the solving sample the policy found most probable); then fit the
policy to the kept episodes' actions (masked log-likelihood, :func:`vmb_agents.sb3.imitation.behaviour_clone`).
The training tasks' gold calls are never read: the only teacher is the env's score, so the phase
learns from the tasks where a sample solved what the greedy policy missed (and sharpens what it
already solves).

Read top to bottom: the settings, :func:`best_episodes` (one task's group of episodes and the one
kept), :func:`collect_best` (every training task), :func:`main` (the start checkpoint, the
generated train split, sampling, fitting, the saved checkpoint and ``summary.json``).

    vmb train self-imitation --start slots --out runs/slots_rl     # households 161-320 of the train split
    vmb eval --policy sb3:runs/slots_rl/final --data runs/validation --out runs/val_rl   # then vmb compare

Outputs in ``--out`` (a new or empty folder; ``--overwrite`` replaces a previous run's):
``final.safetensors`` + ``final.vmb.json`` (a slot checkpoint, loaded like any: ``sb3:OUT/final``) and
``summary.json`` (the settings; tasks, greedy solved, any episode solved, kept states; seconds).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from tqdm import tqdm

from vmb_agents.sb3.checkpoint import load_checkpoint, save_checkpoint, sidecar_meta
from vmb_agents.sb3.imitation import behaviour_clone
from vmb_agents.sb3.slots import SlotCatalogue
from vmb_agents.train.common import (
    add_dataclass_arguments,
    args_from_namespace,
    generated_train,
    prepare_out,
    seed_everything,
    train_settings,
)
from vmb_agents.train.sb3_slots import Args as SlotArgs
from vmb_agents.train.sb3_slots import slot_env, slot_env_thunk
from vmb_agents.train.sparse_rows import SparseRows
from vmb_gym.data import parse_file_range
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError

#: What a run writes in ``--out`` (removed first with ``--overwrite``).
OUTPUTS = ("final.safetensors", "final.vmb.json", "summary.json", "checkpoints")

#: Scenarios whose envs are built at once (each of the ``samples + 1`` envs holds their histories).
SCENARIOS_PER_CHUNK = 20


@dataclass
class Args:
    """Every setting of ``vmb train self-imitation`` (the flags have the same names)."""

    out: str = "runs/slots_self_imitation"
    """output folder (new or empty; --overwrite replaces a previous run's outputs)"""
    overwrite: bool = False
    """replace a previous run's outputs in --out"""
    start: str = "slots"
    """the slot checkpoint to improve ("slots" = the shipped imitation policy, or a path); its catalogue, features,
    memory and step limit are kept"""
    samples: int = 8
    """sampled episodes per training task, beside the greedy one"""
    epochs: int = 10
    """passes over the kept episodes' states"""
    learning_rate: float = 3e-4
    """Adam learning rate of the fit"""
    train_scenarios: int = 320
    """size of the generated train split (written once into --cache-dir; the same split `vmb train sb3
    --train-scenarios N` uses)"""
    train_files: str = "161-320"
    """the train split's scenarios sampled on (161-320: households the shipped `sb3:slots` never trained on; it
    imitated 1-160)"""
    whole_car: float = 0.0
    """generator option of the train split (as `vmb train sb3 --whole-car`)"""
    device_requests: float = 0.0
    """generator option of the train split (as `vmb train sb3 --device-requests`)"""
    indirect_requests: float = 0.0
    """generator option of the train split (as `vmb train sb3 --indirect-requests`)"""
    generator_options: str = ""
    """more generator options of the train split (as `vmb train sb3 --generator-options`)"""
    cache_dir: str = ""
    """where the generated train split is kept ("" = generated/ in the vmb_gym cache root)"""
    seed: int = 0
    """seed of the sampling and of the fit's minibatch order"""
    torch_threads: int = 1
    """torch CPU threads (the pointer net is small: more threads only add contention)"""


class TaskGroup(NamedTuple):
    """One task's group of episodes: which solved it, and the one kept."""

    solved: list[bool]  # per episode (index 0 is the greedy one)
    kept: int | None  # the episode kept: the greedy one when it solved the task, else the most probable solving sample


def best_episodes(solved: Sequence[bool], log_probs: Sequence[float]) -> TaskGroup:
    """The episode a task keeps: the greedy one (index 0) when it solved the task, else the solving sample with the
    highest log-probability under the policy, else none."""
    if solved[0]:
        return TaskGroup(list(solved), 0)
    solving = [i for i in range(1, len(solved)) if solved[i]]
    return TaskGroup(list(solved), max(solving, key=lambda i: log_probs[i]) if solving else None)


def run_group(policy: Any, envs: Sequence[Any], task_id: str, rng: Any) -> tuple[TaskGroup, list[Any]]:
    """Run one task in every env at once (env 0 greedy, the others sampled), one batched forward pass per step;
    return the group and the kept episode's ``(observation, mask, action)`` states."""
    import torch

    obs = [env.reset(options={"task_id": task_id})[0] for env in envs]
    states: list[list[Any]] = [[] for _ in envs]
    done, solved, log_probs = [False] * len(envs), [False] * len(envs), [0.0] * len(envs)
    while not all(done):
        live = [i for i in range(len(envs)) if not done[i]]
        masks = np.stack([envs[i].action_masks() for i in live])
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(np.stack([obs[i] for i in live])), action_masks=masks)
            greedy = dist.get_actions(deterministic=True).numpy()
            torch.manual_seed(int(rng.integers(2**31)))
            sampled = dist.get_actions(deterministic=False).numpy()
            sampled_logp = dist.log_prob(torch.as_tensor(sampled)).numpy()
        for j, i in enumerate(live):
            action = int(greedy[j] if i == 0 else sampled[j])
            states[i].append((obs[i], masks[j], action))
            log_probs[i] += 0.0 if i == 0 else float(sampled_logp[j])
            obs[i], _, terminated, truncated, info = envs[i].step(action)
            if terminated or truncated:
                done[i] = True
                solved[i] = bool((info.get("metrics") or {}).get("exact_match", False))
    group = best_episodes(solved, log_probs)
    return group, ([] if group.kept is None else states[group.kept])


def collect_best(policy: Any, data: str, scenario_ids: list[int], env_args: SlotArgs, catalogue: SlotCatalogue,
                 samples: int, seed: int, total: int
                 ) -> tuple[tuple[SparseRows, np.ndarray, np.ndarray], dict[str, int]]:
    """Every training task's group (:func:`run_group`), ``SCENARIOS_PER_CHUNK`` scenarios' envs at a time; the kept
    states as ``(observations, masks, actions)`` and the counts (tasks, greedy_solved, any_solved, kept_states).
    ``total``: the number of tasks, for the progress bar."""
    rng = np.random.default_rng(seed)
    rows: SparseRows | None = None
    masks: list[np.ndarray] = []
    actions: list[int] = []
    counts = {"tasks": 0, "greedy_solved": 0, "any_solved": 0, "kept_states": 0}
    with tqdm(total=total, desc="self-imitation episodes", unit="task") as bar:
        for c in range(0, len(scenario_ids), SCENARIOS_PER_CHUNK):
            chunk = scenario_ids[c:c + SCENARIOS_PER_CHUNK]
            envs = [slot_env(slot_env_thunk(data, chunk, env_args, catalogue)()) for _ in range(samples + 1)]
            for q in envs[0].unwrapped.tasks.queries:
                group, kept = run_group(policy, envs, q.task_id, rng)
                counts["tasks"] += 1
                counts["greedy_solved"] += group.solved[0]
                counts["any_solved"] += any(group.solved)
                for obs, mask, action in kept:
                    rows = rows if rows is not None else SparseRows(len(obs))
                    rows.append(obs)
                    masks.append(mask)
                    actions.append(action)
                bar.update(1)
                bar.set_postfix(greedy=f"{counts['greedy_solved'] / counts['tasks']:.3f}",
                                any=f"{counts['any_solved'] / counts['tasks']:.3f}")
            for env in envs:
                env.close()
    counts["kept_states"] = len(actions)
    if rows is None:
        raise ConfigError("no training task was solved by the greedy policy or any sample, so there is nothing to "
                          "imitate; fix: more --samples, more --train-files, or a stronger --start")
    return (rows, np.stack(masks), np.array(actions)), counts


def main(args: Args) -> dict[str, Any]:
    """Sample, keep the solving episodes, fit the start policy to them, save; return the summary."""
    if args.samples < 1:
        raise ConfigError(f"--samples must be at least 1 sampled episode per task, found {args.samples}; e.g. 8")
    if args.epochs < 1 or args.learning_rate <= 0:
        raise ConfigError(f"--epochs must be >= 1 and --learning-rate > 0, found {args.epochs} and "
                          f"{args.learning_rate}")
    model, sidecar = load_checkpoint(args.start, design="slots")
    trained = dict(sidecar.get("settings") or {})
    env_args = SlotArgs(memory=str(trained.get("memory", "bm25")), max_steps=int(trained.get("max_steps", 6)),
                        drop_features=",".join((sidecar.get("featurizer") or {}).get("drop") or []),
                        train_scenarios=args.train_scenarios, cache_dir=args.cache_dir, whole_car=args.whole_car,
                        device_requests=args.device_requests, indirect_requests=args.indirect_requests,
                        generator_options=args.generator_options)
    data = str(generated_train(env_args))
    scenario_ids = parse_file_range(args.train_files) if args.train_files else list(range(1, args.train_scenarios + 1))
    total = len(TaskSet.load(data, files=scenario_ids))  # missing households fail here, before --out is claimed
    out = Path(args.out)
    prepare_out(out, args.overwrite, OUTPUTS, command="vmb train self-imitation")
    seed_everything(args.seed, args.torch_threads)
    catalogue = SlotCatalogue.from_json(sidecar["catalogue"])
    t0 = time.perf_counter()
    model.policy.set_training_mode(False)
    kept, counts = collect_best(model.policy, data, scenario_ids, env_args, catalogue, args.samples, args.seed,
                                  total)
    sampling_seconds = time.perf_counter() - t0
    print(f"self-imitation: {counts['tasks']} tasks, greedy solved {counts['greedy_solved']}, some episode solved "
          f"{counts['any_solved']}; fitting {counts['kept_states']} states", flush=True)
    accuracy = behaviour_clone(model, kept, epochs=args.epochs, seed=args.seed, lr=args.learning_rate,
                               set_targets=False, min_batches=8)
    meta = {**{k: v for k, v in sidecar_meta(sidecar).items() if k != "ensemble"}, "settings": train_settings(env_args),
            "start": {"checkpoint": args.start, "self_imitation": dataclasses.asdict(args)}}
    final = save_checkpoint(model, out / "final", design="slots", algo="maskable_ppo", meta=meta)
    summary = {"args": dataclasses.asdict(args), "data": data, "checkpoint": str(final), **counts,
               "fit_accuracy": accuracy.get("all"), "sampling_seconds": round(sampling_seconds, 1),
               "seconds": round(time.perf_counter() - t0, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field."""
    add_dataclass_arguments(parser, Args)


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """The :class:`Args` of command-line flags."""
    parser = argparse.ArgumentParser(prog="vmb train self-imitation", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return args_from_namespace(Args, parser.parse_args(list(argv) if argv is not None else None))
