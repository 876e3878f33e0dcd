"""Learning curves of MaskablePPO from scratch (no imitation) on the slot env and the flat-catalogue env.

Each run trains SB3's ``MaskablePPO`` with its default hyperparameters (``n_steps=2048``,
``batch_size=64``, ``n_epochs=10``, ``learning_rate=3e-4``, ``gamma=0.99``, ``ent_coef=0``) on
one env over the generated train split, and every ``--eval-every`` env steps an SB3 callback runs
the current policy deterministically on a fixed set of tasks: ``held_out`` (the first
``--eval-tasks`` tasks of the generated test split, households never trained on) and ``train``
(a fixed sample of the training tasks). The ESM and F1 of every evaluation are appended to
``--out/curves.csv``; ``--out/curves.png`` plots held-out ESM and F1 against env steps (mean +- std
over the seeds) with the imitation reference and random allowed actions as horizontal lines.

Runs (``--runs``, comma-separated ``ENV:SEED``, ``slots:SEED:imitation``, ``slots:SEED:esm``,
``slots:SEED:cost`` or ``ENV:SEED:random``):

* ``slots:S``: the slot env (``make_slot_env`` with the catalogue ``vmb train sb3`` fits on the
  train split) and the project's pointer policy class (``SlotPointerPolicy``), from a random init;
* ``catalogue:S``: the flat catalogue (``make_sb3_env``, hashed text features) and ``"MlpPolicy"``;
* ``slots:S:imitation``: the reference: the slot policy warm-started by imitation of the
  training tasks' best slots (``--bc-epochs``, as ``vmb train sb3``), evaluated at step 0
  (imitation) and then trained on by the same default PPO (imitation + PPO);
* ``slots:S:esm``: PPO from scratch as ``slots:S``, rewarded as ``vmb train sb3`` rewards by default:
  exact state match + 0.2 x value-level F1 (``--f1-weight``) instead of the env's value-level F1;
* ``slots:S:cost``: PPO from scratch as ``slots:S``, with the env's reward less ``--call-cost`` per
  vehicle call, charged at the call's step (``vmb_gym.wrappers.VehicleCallCost``);
* ``ENV:S:random``: no training, one evaluation of uniformly random allowed actions (what a
  fresh policy, whose logits are near uniform, explores).

    python scripts/learning_curves.py --out runs/curves   # the whole sweep of docs/results/rl-benchmark.md
    python scripts/learning_curves.py --runs slots:0,catalogue:0 --timesteps 8192 --out runs/curves
    python scripts/learning_curves.py --plot-only --out runs/curves

Every run appends to ``curves.csv`` (a run already in it is refused, so runs of one sweep may be
started one at a time, e.g. one process per seed); ``--plot-only`` draws the plot from it.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.train.common import add_dataclass_arguments, args_from_namespace, evaluate, summarise
from vmb_gym.data import parse_file_range
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError


@dataclass
class Args:
    """Every setting of the sweep (the flags have the same names)."""

    runs: str = ("catalogue:0,catalogue:1,catalogue:2,slots:0,slots:0:imitation,slots:1,slots:2,slots:0:esm,"
                 "slots:0:random,catalogue:0:random,slots:1:esm,slots:2:esm")
    """comma-separated runs: ENV:SEED (ENV = slots or catalogue; PPO from scratch), slots:SEED:imitation (the
    imitation warm start, then the same PPO), slots:SEED:esm (from scratch, reward ESM + f1_weight x F1) or
    ENV:SEED:random (random allowed actions, evaluated once)"""
    timesteps: int = 24_576
    """environment steps of PPO per run"""
    eval_every: int = 2048
    """env steps between evaluations (also one at step 0)"""
    eval_tasks: int = 100
    """held-out tasks per evaluation: the first N of --eval-data"""
    train_eval_tasks: int = 50
    """training tasks per evaluation (a fixed sample; 0 = none)"""
    eval_data: str = "default"
    """held-out data: "default" = the generated test split (households never trained on)"""
    eval_files: str = "1-10"
    """scenarios of --eval-data the held-out tasks come from ("" = all)"""
    data: str = "generated:train"
    """training data: "generated:train" = the generated train split (--train-scenarios households), or a data spec"""
    train_scenarios: int = 20
    """generated train households (the first N of the train split, written once into the cache)"""
    memory: str = "bm25"
    """memory module of the env"""
    max_steps: int = 6
    """step limit of an episode"""
    n_steps: int = 2048
    """PPO rollout length (SB3's default; smaller only for smoke runs)"""
    batch_size: int = 64
    """PPO minibatch size (SB3's default)"""
    learning_rate: float = 3e-4
    """PPO learning rate (SB3's default)"""
    scored_step_limit: bool = True
    """slot runs: report the scored step limit as termination (vmb_gym.wrappers.ScoredStepLimit, as `vmb train sb3`
    does); --no-scored-step-limit: as truncation, which SB3 bootstraps (how the runs before it were made)"""
    f1_weight: float = 0.2
    """slots:SEED:esm runs: final reward = exact match + f1_weight x value-level F1 (`vmb train sb3 --f1-weight`);
    other runs get the env's own reward, value-level F1"""
    call_cost: float = 0.1
    """slots:SEED:cost runs: the env's reward (value-level F1) less call_cost per vehicle call, at its step
    (`vmb train sb3 --call-cost`)"""
    bc_epochs: int = 40
    """imitation epochs of the slots:S:imitation reference (as `vmb train sb3 --bc-epochs`)"""
    out: str = "runs/curves"
    """output folder: curves.csv (appended to) and curves.png"""
    plot_only: bool = False
    """only draw curves.png from the existing curves.csv"""


#: The columns of ``curves.csv``.
FIELDS = ("env", "run", "seed", "timestep", "train_seconds", "train_cpu_seconds", "set", "esm", "f1", "episodes")
#: Run names: PPO from a random init, PPO after the imitation warm start (evaluated at step 0 = imitation), and
#: uniformly random allowed actions (no training).
SCRATCH, IMITATION, RANDOM = "ppo", "imitation+ppo", "random"
#: PPO from scratch on the slot env, rewarded with exact match + ``f1_weight`` x F1.
ESM_REWARD = "ppo-esm-reward"
#: PPO from scratch on the slot env, rewarded with the env's F1 less ``call_cost`` per vehicle call.
CALL_COST = "ppo-call-cost"
#: The run of each ``--runs`` suffix.
KINDS = {"": SCRATCH, "imitation": IMITATION, "random": RANDOM, "esm": ESM_REWARD, "cost": CALL_COST}


def parse_runs(spec: str) -> list[tuple[str, int, str]]:
    """``(env, seed, run)`` of each ``ENV:SEED[:imitation|:random]`` of ``--runs``.

    Raises:
        ConfigError: an unknown env, a seed that is not an integer, or imitation asked of the catalogue env.
    """
    out = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        parts = item.split(":")
        env, seed, kind = parts[0], parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else ""
        if env not in ("slots", "catalogue") or not seed.lstrip("-").isdigit() or kind not in KINDS \
                or (kind in ("imitation", "esm", "cost") and env != "slots") or len(parts) > 3:
            raise ConfigError(f"--runs: {item!r} is not ENV:SEED, slots:SEED:imitation, slots:SEED:esm, "
                              "slots:SEED:cost or ENV:SEED:random (ENV = slots or catalogue); e.g. --runs "
                              "slots:0,catalogue:0,slots:0:imitation,slots:0:random")
        out.append((env, int(seed), KINDS[kind]))
    return out


# ---------------------------------------------------------------------- the two envs and their policies
class Setup:
    """One env design: the training env (a ``DummyVecEnv`` of one env), the model, and the policies that run in an
    evaluation env: ``policy_for(env)`` the model (deterministic), ``random_for(env)`` random allowed actions."""

    def __init__(self, vec_env: Any, model: Any, policy_for: Callable[[Any], Any],
                 random_for: Callable[[Any], Any]) -> None:
        self.vec_env, self.model, self.policy_for, self.random_for = vec_env, model, policy_for, random_for


def slot_setup(args: Args, data: str, seed: int, f1_weight: float = -1.0, call_cost: float = 0.0) -> Setup:
    """The slot env with the catalogue ``vmb train sb3`` fits on the train split, and a fresh pointer policy;
    ``f1_weight`` >= 0: final reward exact match + ``f1_weight`` x F1 (else the env's own reward, value-level F1);
    ``call_cost``: charged per vehicle call (``VehicleCallCost``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy
    from vmb_agents.train.sb3_slots import Args as SlotArgs
    from vmb_agents.train.sb3_slots import RandomSlotPolicy, fit_catalogue, slot_env_thunk

    slot_args = SlotArgs(memory=args.memory, max_steps=args.max_steps, seed=seed, line_prior_kind="vocab",
                         f1_weight=f1_weight, call_cost=call_cost, scored_step_limit=args.scored_step_limit,
                         eval_data=args.eval_data, official_data="")
    tasks = TaskSet.load(data)
    catalogue = fit_catalogue(tasks, sorted(tasks.scenarios), slot_args)
    vec_env = DummyVecEnv([slot_env_thunk(data, sorted(tasks.scenarios), slot_args, catalogue)])
    vec_env.seed(seed)
    model = MaskablePPO(SlotPointerPolicy, vec_env, n_steps=args.n_steps, batch_size=args.batch_size, seed=seed,
                        learning_rate=args.learning_rate,
                        device="cpu", verbose=0)
    # one policy per evaluation env: its task set names the speakers of each episode
    return Setup(vec_env, model, lambda env: SlotSB3Policy(model, catalogue, env, deterministic=True),
                 lambda env: RandomSlotPolicy(catalogue, env, seed))


def catalogue_setup(args: Args, data: str, seed: int) -> Setup:
    """The flat catalogue (``make_sb3_env``; values of the training gold calls) and SB3's ``"MlpPolicy"``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_agents.sb3.catalogue_policy import SB3Policy
    from vmb_agents.train.sb3_catalogue import RandomCataloguePolicy
    from vmb_gym.wrappers.catalogue import Catalogue
    from vmb_gym.wrappers.features import make_featurizer
    from vmb_gym.wrappers.sb3 import make_sb3_env

    tasks = TaskSet.load(data)
    catalogue = Catalogue.build(search=True, extra_values=Catalogue.values_from_tasks(tasks.queries))
    featurizer = make_featurizer("hashing")

    def thunk() -> gym.Env[Any, Any]:
        env = gym.make("VehicleMem-v0", data=data, memory=args.memory, max_steps=args.max_steps)
        return Monitor(make_sb3_env(env, catalogue=catalogue, featurizer=featurizer))

    vec_env = DummyVecEnv([thunk])
    vec_env.seed(seed)
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=args.n_steps, batch_size=args.batch_size, seed=seed,
                        learning_rate=args.learning_rate,
                        device="cpu", verbose=0)
    return Setup(vec_env, model,
                 lambda env: SB3Policy(model, catalogue, featurizer, deterministic=True, memory_search=True),
                 lambda env: RandomCataloguePolicy(catalogue, seed, memory_search=True))


def imitate(setup: Setup, args: Args, seed: int) -> None:
    """The imitation warm start of ``vmb train sb3`` on the slot env's training tasks (no feature dropout)."""
    from vmb_agents.train.common import behaviour_clone
    from vmb_agents.train.sb3_slots import collect_slot_demos, step_kinds

    demos = collect_slot_demos(setup.vec_env)
    accuracy = behaviour_clone(setup.model, demos, epochs=args.bc_epochs, seed=seed, min_batches=8,
                               step_kinds=step_kinds(demos.actions))
    print(f"imitation: {args.bc_epochs} epochs, demonstration accuracy {accuracy.get('all', float('nan')):.3f}",
          flush=True)


# ---------------------------------------------------------------------- the evaluation callback
def make_eval_callback(setup: Setup, sets: dict[str, tuple[gym.Env[Any, Any], list[str]]], every: int,
                       base: dict[str, Any], rows: list[dict[str, Any]]) -> Any:
    """An SB3 callback that evaluates the model (``setup.policy_for``) on every set at step 0 and every ``every`` env
    steps.

    Each evaluation appends one row per set to ``rows`` (``base`` + timestep, training seconds
    and CPU seconds so far, without the evaluations' own time, + ESM and F1 of
    :func:`~vmb_agents.train.common.evaluate`).
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class EvalCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = 0
            self.eval_wall = self.eval_cpu = 0.0
            self.t0 = time.perf_counter()
            self.c0 = time.process_time()

        def evaluate_now(self) -> None:
            w0, c0 = time.perf_counter(), time.process_time()
            train_wall, train_cpu = w0 - self.t0 - self.eval_wall, c0 - self.c0 - self.eval_cpu
            line = []
            for name, (env, task_ids) in sets.items():
                episodes = evaluate(setup.policy_for(env), env, task_ids)
                score = summarise(episodes)
                rows.append({**base, "timestep": self.num_timesteps, "train_seconds": round(train_wall, 1),
                             "train_cpu_seconds": round(train_cpu, 1), "set": name, "esm": round(score["esm"], 4),
                             "f1": round(score["f1"], 4), "episodes": score["episodes"]})
                line.append(f"{name} ESM {score['esm']:.3f} F1 {score['f1']:.3f} "
                            f"({np.mean([e['steps'] for e in episodes]):.1f} steps/episode)")
            self.eval_wall += time.perf_counter() - w0
            self.eval_cpu += time.process_time() - c0
            print(f"  {base['env']} {base['run']} seed {base['seed']}: {self.num_timesteps:6d} steps "
                  f"({train_wall:5.0f}s, {train_cpu:5.0f} CPU s) " + "  ".join(line), flush=True)
            self.next_eval += every

        def _on_training_start(self) -> None:
            self.t0, self.c0 = time.perf_counter(), time.process_time()
            self.evaluate_now()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_eval:
                self.evaluate_now()
            return True

    return EvalCallback()


def task_ids(env: gym.Env[Any, Any]) -> list[str]:
    """The task ids of a ``VehicleMem-v0`` env, in its order."""
    base: Any = env.unwrapped
    return [q.task_id for q in base.tasks.queries]


def eval_sets(args: Args, eval_env: gym.Env[Any, Any],
              train_env: gym.Env[Any, Any] | None) -> dict[str, tuple[gym.Env[Any, Any], list[str]]]:
    """``{set: (env, task ids)}``: the first ``--eval-tasks`` held-out tasks and a fixed sample of training tasks
    (the same for every seed)."""
    sets = {"held_out": (eval_env, task_ids(eval_env)[:args.eval_tasks])}
    if train_env is not None:
        ids = task_ids(train_env)
        sets["train"] = (train_env, list(np.random.default_rng(0).permutation(ids)[:args.train_eval_tasks]))
    return sets


# ---------------------------------------------------------------------- one run, the sweep, the plot
def run_one(args: Args, data: str, env_name: str, seed: int, run: str) -> list[dict[str, Any]]:
    """Train one run with the evaluation callback; its rows of ``curves.csv``."""
    from vmb_agents.train.common import seed_everything

    seed_everything(seed, 1)
    eval_files = parse_file_range(args.eval_files) if args.eval_files else None
    eval_env = gym.make("VehicleMem-v0", data=args.eval_data, files=eval_files, memory=args.memory,
                        max_steps=args.max_steps)
    train_env = gym.make("VehicleMem-v0", data=data, memory=args.memory, max_steps=args.max_steps) \
        if args.train_eval_tasks else None
    if env_name == "slots":
        setup = slot_setup(args, data, seed, args.f1_weight if run == ESM_REWARD else -1.0,
                           args.call_cost if run == CALL_COST else 0.0)
    else:
        setup = catalogue_setup(args, data, seed)
    sets = eval_sets(args, eval_env, train_env)
    if run == RANDOM:
        return random_rows(setup, sets, {"env": env_name, "run": run, "seed": seed})
    if run == IMITATION:
        imitate(setup, args, seed)
    rows: list[dict[str, Any]] = []
    callback = make_eval_callback(setup, sets, args.eval_every, {"env": env_name, "run": run, "seed": seed}, rows)
    setup.model.learn(total_timesteps=args.timesteps, callback=callback)
    if rows[-1]["timestep"] < setup.model.num_timesteps:
        callback.evaluate_now()
    return rows


def random_rows(setup: Setup, sets: dict[str, tuple[gym.Env[Any, Any], list[str]]],
                base: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per set: random allowed actions (``setup.random_for``), at step 0."""
    rows = []
    for name, (env, task_ids) in sets.items():
        score = summarise(evaluate(setup.random_for(env), env, task_ids))
        rows.append({**base, "timestep": 0, "train_seconds": 0.0, "train_cpu_seconds": 0.0, "set": name,
                     "esm": round(score["esm"], 4), "f1": round(score["f1"], 4), "episodes": score["episodes"]})
        print(f"  {base['env']} random: {name} ESM {score['esm']:.3f} F1 {score['f1']:.3f}", flush=True)
    return rows


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of ``curves.csv`` (numbers parsed); none when it does not exist."""
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as f:
        return [{k: (v if k in ("env", "run", "set") else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]


def append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` to ``curves.csv`` (the header first when the file is new)."""
    new = not path.is_file()
    with path.open("a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerows(rows)


#: The colour of each plotted (env, run).
COLOURS = {("slots", SCRATCH): "tab:blue", ("catalogue", SCRATCH): "tab:orange", ("slots", IMITATION): "tab:green",
           ("slots", ESM_REWARD): "tab:purple", ("slots", CALL_COST): "tab:brown"}
#: The legend name of each trained run.
RUN_NAMES = {SCRATCH: "MaskablePPO from scratch", IMITATION: "imitation + PPO",
             ESM_REWARD: "MaskablePPO from scratch, reward ESM + w x F1",
             CALL_COST: "MaskablePPO from scratch, reward F1 - c per call"}


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Held-out ESM (left) and F1 (right) against env steps: mean +- std over seeds per (env, run); the imitation
    start and random allowed actions as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    held = [r for r in rows if r["set"] == "held_out"]
    for ax, metric, name in zip(axes, ("esm", "f1"), ("ESM", "value-level F1"), strict=True):
        plot_metric(ax, held, metric)
        ax.set_xlabel("environment steps")
        ax.set_ylabel(f"held-out {name} (generated test split)")
        ax.set_ylim(-0.02, 1)
    axes[0].legend(fontsize=7, loc="upper right")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_metric(ax: Any, held: list[dict[str, Any]], metric: str) -> None:
    """One panel: ``metric`` of every trained (env, run) as mean +- std over seeds, and its horizontal lines."""
    for (env, run), colour in COLOURS.items():
        mine = [r for r in held if r["env"] == env and r["run"] == run]
        if not mine:
            continue
        steps = sorted({r["timestep"] for r in mine})
        per_step = [[r[metric] for r in mine if r["timestep"] == s] for s in steps]
        mean = np.array([np.mean(v) for v in per_step])
        std = np.array([np.std(v) for v in per_step])
        n_seeds = len({r["seed"] for r in mine})
        label = f"{RUN_NAMES[run]}, {env} env ({n_seeds} seed{'s' if n_seeds > 1 else ''})"
        ax.plot(steps, mean, color=colour, label=label, marker=".")
        ax.fill_between(steps, mean - std, mean + std, color=colour, alpha=0.2)
        if run == IMITATION:
            ax.axhline(mean[0], color=colour, linestyle="--", linewidth=1, label=f"imitation only ({mean[0]:.3f})")
    for env, colour in (("slots", "tab:blue"), ("catalogue", "tab:orange")):
        chance = [r[metric] for r in held if r["env"] == env and r["run"] == RANDOM]
        if chance:
            ax.axhline(float(np.mean(chance)), color=colour, linestyle=":", linewidth=1,
                       label=f"random allowed actions, {env} env ({np.mean(chance):.3f})")


def main(args: Args) -> list[dict[str, Any]]:
    """Run each run of ``--runs`` not yet in ``curves.csv``, appending its rows, then plot; return every row."""
    from vmb_agents.train.common import generated_train

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "curves.csv"
    if not args.plot_only:
        runs = parse_runs(args.runs)
        done = {(r["env"], int(r["seed"]), r["run"]) for r in read_rows(csv_path)}
        clash = [f"{e}:{s}:{r}" for e, s, r in runs if (e, s, r) in done]
        if clash:
            raise ConfigError(f"{csv_path} already holds run(s) {clash}; fix: another --out, or leave them out of "
                              "--runs")
        data = args.data if args.data != "generated:train" else str(
            generated_train(argparse.Namespace(train_scenarios=args.train_scenarios, cache_dir="")))
        for env_name, seed, run in runs:
            print(f"run {env_name}:{seed} ({run}), {args.timesteps} steps, train data {data}", flush=True)
            append_rows(csv_path, run_one(args, data, env_name, seed, run))
    rows = read_rows(csv_path)
    plot(rows, out / "curves.png", f"MaskablePPO (SB3 defaults), memory={args.memory}, max_steps={args.max_steps}; "
         f"held-out tasks: the first {args.eval_tasks} of {args.eval_data}; mean +- std over seeds")
    return rows


def parse_args(argv: list[str] | None = None) -> Args:
    """The :class:`Args` of command-line flags."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_dataclass_arguments(parser, Args)
    return args_from_namespace(Args, parser.parse_args(argv))


if __name__ == "__main__":
    main(parse_args())
