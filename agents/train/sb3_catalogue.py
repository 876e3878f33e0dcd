"""Train (Maskable)PPO over the flat call catalogue of VehicleMem-v0 and evaluate it on held-out scenarios.

``vmb train sb3 --design catalogue``: the flat ``Discrete(N)`` catalogue of ~2,000 complete calls
with hashed bag-of-words (or MiniLM) features of the text (it does not transfer across
households). Read top to bottom: the settings, env thunks, the random baseline, then
:func:`main`: seeding, data and catalogue, the vector env, the agent, SB3 ``learn`` with a
logging/checkpoint callback, the held-out evaluation against random and no-op, the plot.

    vmb train sb3 --design catalogue --data official:DIR --train-files 1-30 --eval-files 31-40

Outputs in ``--out`` (a new or empty folder; ``--overwrite`` replaces a previous run's):
``checkpoints/step_*.safetensors`` (+ ``.vmb.json``, with the env settings ``vmb eval`` defaults to),
``final.safetensors``, ``train_log.csv``, ``eval.csv`` (one row per held-out episode and policy),
``summary.json`` (ESM and F1 as fractions), ``learning_curve.png``.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.baselines import NoopPolicy
from vmb_agents.sb3.catalogue_policy import CataloguePolicy, SB3Policy
from vmb_agents.sb3.checkpoint import algo_class, save_checkpoint
from vmb_agents.train.common import (
    SB3Args,
    check_sb3_args,
    eval_limit,
    evaluate,
    format_score,
    generated_train,
    learn_with_log,
    plot_curve,
    prepare_out,
    seed_everything,
    summarise,
    train_settings,
)
from vmb_gym.data import parse_file_range
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.wrappers.catalogue import Catalogue
from vmb_gym.wrappers.features import make_featurizer
from vmb_gym.wrappers.sb3 import make_sb3_env


@dataclass
class Args(SB3Args):
    """Every setting of a catalogue run (the ``vmb train sb3`` flags of the same names)."""

    design: str = "catalogue"
    """the action design (this script: "catalogue")"""
    features: str = "hashing"
    '"hashing" or "minilm" (the text featurizer)'


#: What a run writes into ``--out`` (removed first with ``--overwrite``).
OUTPUTS = ("checkpoints", "final.safetensors", "final.zip", "final.vmb.json", "args.json", "train_log.csv", "eval.csv",
           "summary.json", "learning_curve.png")


def make_env(data: str, files: list[int] | None, args: Args, catalogue: Catalogue, featurizer: Any) -> Any:
    """A thunk building one wrapped env (SB3 ``Monitor`` outermost)."""

    def thunk() -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        env = gym.make("VehicleMem-v0", data=data, files=files, memory=args.memory, max_steps=args.max_steps)
        return Monitor(make_sb3_env(env, catalogue=catalogue, featurizer=featurizer))

    return thunk


class RandomCataloguePolicy(CataloguePolicy):
    """Uniformly random allowed catalogue entries (finish included): the random baseline."""

    def __init__(self, catalogue: Catalogue, seed: int, memory_search: bool) -> None:
        super().__init__(catalogue, memory_search)
        self.rng = np.random.default_rng(seed)

    def choose(self, mask: np.ndarray) -> int:
        """A random allowed entry."""
        return int(self.rng.choice(np.flatnonzero(mask)))


def main(args: Args) -> dict[str, Any]:
    """Train, checkpoint, evaluate and plot; return the summary."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    check_sb3_args(args)
    out = Path(args.out)
    prepare_out(out, args.overwrite, OUTPUTS)
    if args.data == "generated:train":
        args = dataclasses.replace(args, data=str(generated_train(args)))
    (out / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2), encoding="utf-8")
    seed_everything(args.seed, args.torch_threads)

    # --- data, catalogue (free-text values from the training gold calls only), features
    train_tasks = TaskSet.load(args.data, files=parse_file_range(args.train_files) if args.train_files else None)
    scenario_ids = sorted(train_tasks.scenarios)
    featurizer = make_featurizer(args.features)
    probe = gym.make("VehicleMem-v0", data=args.data, files=scenario_ids[:1], memory=args.memory)
    memory_search = bool(probe.unwrapped.memory.provides_search)
    probe.close()
    catalogue = Catalogue.build(search=memory_search, extra_values=Catalogue.values_from_tasks(train_tasks.queries))

    # --- vector env: each env serves a shard of the training scenarios
    n_envs = args.n_envs or min(len(scenario_ids), 32)
    shards = [scenario_ids[i::n_envs] for i in range(n_envs)]
    vec_env = DummyVecEnv([make_env(args.data, shard, args, catalogue, featurizer) for shard in shards if shard])
    vec_env.seed(args.seed)
    print(f"train: {len(train_tasks)} tasks in {len(scenario_ids)} scenarios, {vec_env.num_envs} envs; "
          f"catalogue: {catalogue.n} actions; features: {featurizer.dim}")

    # --- agent and training loop (SB3's learn with a logging/checkpoint callback)
    model = algo_class(args.algo)("MlpPolicy", vec_env, n_steps=args.n_steps, batch_size=args.batch_size,
                                  n_epochs=args.n_epochs, learning_rate=args.learning_rate, ent_coef=args.ent_coef,
                                  gamma=args.gamma, seed=args.seed, policy_kwargs={"net_arch": [256]}, device="cpu",
                                  verbose=0)
    meta = {**SB3Policy.checkpoint_meta(catalogue, featurizer), "settings": train_settings(args)}
    log_rows, train_seconds = learn_with_log(
        model, args, out, reward_key="reward",
        save=lambda m, path: save_checkpoint(m, path, design="catalogue", algo=args.algo, meta=meta))
    final = save_checkpoint(model, out / "final", design="catalogue", algo=args.algo, meta=meta)

    results = evaluate_held_out(args, final, catalogue, memory_search, out, n_train_scenarios=len(scenario_ids))
    summary = {"args": dataclasses.asdict(args), "catalogue_size": catalogue.n, "feature_dim": featurizer.dim,
               "train_steps": int(model.num_timesteps), "train_seconds": train_seconds,
               "train_steps_per_s": model.num_timesteps / train_seconds, "train_episodes": len(log_rows),
               "checkpoint": str(final), "held_out": results}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    plot_curve(log_rows, {"held_out": results}, out / "learning_curve.png",
               f"{args.algo} on VehicleMem-v0 (memory={args.memory}, features={args.features})")
    return summary


def evaluate_held_out(args: Args, final: Path, catalogue: Catalogue, memory_search: bool, out: Path, *,
                      n_train_scenarios: int) -> dict[str, dict[str, float]]:
    """The reloaded checkpoint, random allowed calls and no-op on the held-out tasks (``out/eval.csv``).

    As many tasks as :func:`~vmb_agents.train.common.eval_limit` says (``--eval-episodes``; 0 = every task).
    """
    eval_files = parse_file_range(args.eval_files) if args.eval_files else None
    eval_env = gym.make("VehicleMem-v0", data=args.eval_data or args.data, files=eval_files, memory=args.memory,
                        max_steps=args.max_steps)
    task_ids = [q.task_id for q in eval_env.unwrapped.tasks.queries]
    n_all, limit = len(task_ids), eval_limit(args.eval_episodes, n_train_scenarios)
    if limit:
        task_ids = task_ids[:limit]
    policies = {"trained": SB3Policy.load(final, eval_env),
                "random": RandomCataloguePolicy(catalogue, args.seed, memory_search),
                "noop": NoopPolicy()}
    print(f"evaluating held_out: {len(task_ids)} of {n_all} tasks x {len(policies)} policies ({', '.join(policies)})"
          + ("" if len(task_ids) == n_all else "; --eval-episodes 0 runs every task"), flush=True)
    results: dict[str, dict[str, float]] = {}
    with (out / "eval.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["policy", "task_id", "reasoning_type", "esm", "f1", "steps"])
        writer.writeheader()
        for name, policy in policies.items():
            rows = evaluate(policy, eval_env, task_ids, desc=f"held_out {name}", progress=args.progress)
            writer.writerows({"policy": name, **r} for r in rows)
            results[name] = summarise(rows)
            print(f"held_out  {name:8s} {format_score(results[name])}  ({len(rows)} episodes)", flush=True)
    return results
