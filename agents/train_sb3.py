"""Train a (Maskable)PPO policy on VehicleMem-v0 and evaluate it on held-out scenarios.

Read top to bottom: arguments, env thunks, seeding, the training loop (SB3 ``learn`` with a
logging/checkpoint callback), the held-out evaluation against rules, random and no-op, the plot.

    vmb train sb3 --timesteps 30000 --out runs/sb3                       # slot design (default)
    vmb train sb3 --design catalogue --data official:DIR --train-files 1-30 --eval-files 31-40

Two action designs:

* ``slots`` (default): a small scenario-independent ``Discrete`` space of *slots* (k-th candidate
  API of the request x k-th candidate value read from the memory hits x k-th seat/zone, plus
  search and finish), resolved into concrete calls per episode, with per-slot features and a
  pointer policy (one scorer shared by all slots). Trained on the generated *train* split
  (written once into ``--cache-dir``), evaluated on the held-out default test split and, when
  present, on the official data. See :class:`agents.sb3.slots.SlotCatalogue`.
* ``catalogue``: the flat ``Discrete(N)`` catalogue of ~2,000 complete calls with hashed
  bag-of-words (or MiniLM) features of the text (it does not transfer across households).

Outputs in ``--out``: ``checkpoints/step_*.zip`` (+ ``.vmb.json`` sidecars), ``final.zip``,
``train_log.csv`` (one row per training episode), ``eval.csv`` (one row per held-out episode and
policy), ``summary.json`` and ``learning_curve.png``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from agents.base import run_episode
from agents.baselines import NoopPolicy
from agents.cli_args import add_dataclass_arguments
from agents.cli_args import args_from_namespace as _args_from_namespace
from vmb_gym.data import parse_file_range
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.wrappers.catalogue import Catalogue, EpisodeText
from vmb_gym.wrappers.features import make_featurizer
from agents.sb3.catalogue_policy import SB3Policy
from agents.sb3.checkpoint import algo_class, save_checkpoint
from vmb_gym.wrappers.sb3 import make_sb3_env


@dataclass
class Args:
    """Every setting of a run (the CLI flags have the same names)."""

    design: str = "slots"  # "slots" (pointer over candidate slots) or "catalogue" (flat call catalogue)
    algo: str = "maskable_ppo"  # "maskable_ppo" (uses action_masks) or "ppo" (ignores them)
    memory: str = "bm25"  # memory module of the env
    timesteps: int = 20_000  # environment steps of training
    out: str = "runs/sb3"  # output folder
    data: str = "generated:train"  # training data: "generated:train" (the train split, cached), a spec or a folder
    train_scenarios: int = 80  # scenarios of the generated train split to write and use
    cache_dir: str = ".cache/vmb_gym"  # where the generated train split is written once
    train_files: str = ""  # scenarios of `data` to train on ("" = all)
    eval_data: str | None = "default"  # held-out data spec (None = `data`); "default" = generated test split
    eval_files: str = ""  # held-out scenarios of the eval data ("" = all)
    official_data: str = "official:../shared/vehiclemembench"  # also evaluated when present ("" = skip)
    official_files: str = "1-40"  # official scenarios evaluated (when the official data is found)
    train_eval_episodes: int = 200  # training tasks re-run for the train score (slots design)
    f1_weight: float = 0.2  # slots: final reward = exact match + f1_weight * value-level F1 (< 0: the env's F1)
    bc_epochs: int = 30  # slots: warm start by imitating the best slots of the training tasks (0 = pure RL)
    bc_weight_decay: float = 0.0  # slots: Adam weight decay of the imitation warm start (1e-4 gave no gain)
    line_prior: bool = True  # slots: fit the line prior (real preference vs chatter) on the training evidence
    search_context: int = 2  # slots: neighbouring same-day lines each memory search shows around a hit (0-3)
    features: str = "hashing"  # "hashing" or "minilm"
    max_steps: int = 5  # step limit of an episode
    seed: int = 0  # seed of the env cycler, the policy init and PPO sampling
    n_envs: int = 0  # vector envs; 0 = one per training scenario (at most 32; slots: at most 100)
    n_steps: int = 64  # rollout length per env
    batch_size: int = 256  # PPO minibatch size
    n_epochs: int = 4  # PPO epochs per rollout
    learning_rate: float = 1e-3  # Adam learning rate (the reported run used 1e-4)
    ent_coef: float = 0.01  # entropy bonus (the reported run used 0)
    gamma: float = 1.0  # episodes are short and the reward comes at the end
    checkpoint_every: int = 10_000  # timesteps between checkpoints
    eval_episodes: int = 0  # held-out episodes per policy (0 = every held-out task)
    torch_threads: int = 1  # torch CPU threads (1 is fastest on a busy 2-core machine)


def make_env(data: str, files: list[int] | None, args: Args, catalogue: Catalogue, featurizer: Any) -> Any:
    """A thunk building one wrapped env (SB3 ``Monitor`` outermost)."""

    def thunk() -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        env = gym.make("VehicleMem-v0", data=data, files=files, memory=args.memory, max_steps=args.max_steps)
        return Monitor(make_sb3_env(env, catalogue=catalogue, featurizer=featurizer))

    return thunk


class RandomCataloguePolicy:
    """Uniformly random allowed catalogue entries (finish included): the random baseline."""

    def __init__(self, catalogue: Catalogue, seed: int, memory_search: bool) -> None:
        self.catalogue, self.memory_search = catalogue, memory_search
        self.rng = np.random.default_rng(seed)
        self.episode = EpisodeText()
        self._fresh = True

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.episode.on_reset(observation, info)
        self._fresh = True

    def act(self, observation: str, info: dict[str, Any]) -> dict[str, Any]:
        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False
        allowed = np.flatnonzero(self.catalogue.mask(self.episode, memory_search=self.memory_search))
        return self.catalogue.decode(int(self.rng.choice(allowed)), self.episode)


def learn_with_log(model: Any, args: Args, out: Path, *, reward_key: str, save: Callable[[Any, Path], Any],
                   progress_every: int | None = None) -> tuple[list[dict[str, Any]], float]:
    """Run ``model.learn`` for ``args.timesteps``, logging every finished episode.

    Each episode's row (timestep, reward = ``metrics[reward_key]``, esm, steps, seconds) is kept
    and written to ``out/train_log.csv``; ``save(model, path)`` writes a checkpoint every
    ``args.checkpoint_every`` steps; with ``progress_every``, a summary of the last 500 episodes
    is printed every that many episodes. Returns the rows and the training seconds.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    log_rows: list[dict[str, Any]] = []

    class LogAndCheckpoint(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.t0 = time.perf_counter()
            self.next_ckpt = args.checkpoint_every
            self.next_print = progress_every

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "metrics" in info:
                    log_rows.append({"timestep": self.num_timesteps, "reward": float(info["metrics"][reward_key]),
                                     "esm": int(info["metrics"]["exact_match"]), "steps": int(info["step"]),
                                     "seconds": round(time.perf_counter() - self.t0, 2)})
            if self.next_print is not None and len(log_rows) >= self.next_print:
                recent = log_rows[-500:]
                print(f"  {self.num_timesteps:7d} steps  {time.perf_counter() - self.t0:6.0f}s  last {len(recent)} "
                      f"episodes: ESM {100 * np.mean([r['esm'] for r in recent]):5.1f}  "
                      f"F1 {np.mean([r['reward'] for r in recent]):.3f}  "
                      f"steps {np.mean([r['steps'] for r in recent]):.2f}",
                      flush=True)
                self.next_print += progress_every
            if self.num_timesteps >= self.next_ckpt:
                save(self.model, out / "checkpoints" / f"step_{self.num_timesteps}")
                self.next_ckpt += args.checkpoint_every
            return True

    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=LogAndCheckpoint())
    train_seconds = time.perf_counter() - t0
    with (out / "train_log.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["timestep", "reward", "esm", "steps", "seconds"])
        writer.writeheader()
        writer.writerows(log_rows)
    print(f"trained {model.num_timesteps} steps in {train_seconds:.1f}s "
          f"({model.num_timesteps / train_seconds:.0f} steps/s), {len(log_rows)} episodes")
    return log_rows, train_seconds


def evaluate(policy: Any, env: gym.Env[Any, Any], task_ids: list[str]) -> list[dict[str, Any]]:
    """Run ``policy`` once on each task; one record per episode."""
    rows = []
    for tid in task_ids:
        ep = run_episode(env, policy, task_id=tid)
        rows.append({"task_id": tid, "reasoning_type": ep.reasoning_type, "esm": int(ep.metrics.get("exact_match", 0)),
                     "f1": float(ep.metrics.get("f1_change", 0.0)), "steps": ep.episode.get("steps", 0)})
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """ESM (percent) and mean value-level F1 of evaluation records."""
    return {"esm": 100.0 * float(np.mean([r["esm"] for r in rows])), "f1": float(np.mean([r["f1"] for r in rows])),
            "episodes": len(rows)}


def main(args: Args) -> dict[str, Any]:
    """Train, checkpoint, evaluate and plot; return the summary."""
    if args.design == "slots":
        return main_slots(args)
    if args.data == "generated:train":
        args = dataclasses.replace(args, data=str(generated_train(args)))
    from stable_baselines3.common.vec_env import DummyVecEnv

    out = Path(args.out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2), encoding="utf-8")

    # --- seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # small nets: extra threads only add contention

    # --- data splits, catalogue (free-text values from the training gold calls only), features
    train_files = parse_file_range(args.train_files) if args.train_files else None
    eval_files = parse_file_range(args.eval_files) if args.eval_files else None
    train_tasks = TaskSet.load(args.data, files=train_files)
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

    # --- agent
    algo_cls = algo_class(args.algo)
    model = algo_cls("MlpPolicy", vec_env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                     learning_rate=args.learning_rate, ent_coef=args.ent_coef, gamma=args.gamma, seed=args.seed,
                     policy_kwargs={"net_arch": [256]}, device="cpu", verbose=0)

    # --- training loop: SB3's learn, with a callback that logs episodes and writes checkpoints
    meta = SB3Policy.checkpoint_meta(catalogue, featurizer)
    log_rows, train_seconds = learn_with_log(
        model, args, out, reward_key="reward",
        save=lambda m, path: save_checkpoint(m, path, design="catalogue", algo=args.algo, meta=meta))
    final = save_checkpoint(model, out / "final", design="catalogue", algo=args.algo, meta=meta)
    fps = model.num_timesteps / train_seconds

    # --- held-out evaluation: the reloaded checkpoint, random allowed calls, no-op
    eval_env = gym.make("VehicleMem-v0", data=args.eval_data or args.data, files=eval_files, memory=args.memory,
                        max_steps=args.max_steps)
    task_ids = [q.task_id for q in eval_env.unwrapped.tasks.queries]
    if args.eval_episodes:
        task_ids = task_ids[: args.eval_episodes]
    policies = {"trained": SB3Policy.load(final, eval_env),
                "random": RandomCataloguePolicy(catalogue, args.seed, memory_search),
                "noop": NoopPolicy()}
    results: dict[str, dict[str, float]] = {}
    with (out / "eval.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["policy", "task_id", "reasoning_type", "esm", "f1", "steps"])
        writer.writeheader()
        for name, policy in policies.items():
            rows = evaluate(policy, eval_env, task_ids)
            writer.writerows({"policy": name, **r} for r in rows)
            results[name] = summarise(rows)
            print(f"held-out {name:8s} ESM {results[name]['esm']:5.1f}  F1 {results[name]['f1']:.3f}  ({len(rows)} episodes)")

    summary = {"args": dataclasses.asdict(args), "catalogue_size": catalogue.n, "feature_dim": featurizer.dim,
               "train_steps": int(model.num_timesteps), "train_seconds": train_seconds, "train_steps_per_s": fps,
               "train_episodes": len(log_rows), "checkpoint": str(final), "held_out": results}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")

    # --- learning curve
    plot_curve(log_rows, {"held_out": results}, out / "learning_curve.png",
               f"{args.algo} on VehicleMem-v0 (memory={args.memory}, features={args.features})")
    return summary


# ---------------------------------------------------------------------- slot design
def generated_train(args: Args) -> Path:
    """The generated train split (first ``train_scenarios`` scenarios), written once into the cache."""
    from vmb_gym.generator import generate, split_options

    out = Path(args.cache_dir) / f"train_{args.train_scenarios}"
    if not (out / "qa_data").is_dir():
        manifest_path = Path(vmb_gym.__file__).resolve().parents[1] / "benchmark" / "manifest.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else None
        opts = dataclasses.replace(split_options("train", manifest), scenarios=args.train_scenarios)
        generate(opts, out)
    return out


class RandomSlotPolicy:
    """Uniformly random allowed slot actions (finish included): the random baseline of the slot design."""

    def __init__(self, catalogue: Any, env: gym.Env[Any, Any], seed: int) -> None:
        from agents.sb3.slots.policy import SlotSB3Policy

        self._inner = SlotSB3Policy(None, catalogue, env)
        self.rng = np.random.default_rng(seed)

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._inner.reset(observation, info)

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        from agents.sb3.slots import slot_call

        p = self._inner
        p.observe(observation, info)
        analysis = p.catalogue.analyse(p.episode, p.speakers)
        allowed = np.flatnonzero(p.catalogue.mask(analysis, p.episode, memory_search=p.memory_search))
        return slot_call(p.catalogue, int(self.rng.choice(allowed)), analysis, p.episode, p.speakers)


def _slot_env_thunk(data: str, files: list[int], args: Args, catalogue: Any) -> Any:
    def thunk() -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        from agents.sb3.slots import make_slot_env

        env = gym.make("VehicleMem-v0", data=data, files=files, memory=args.memory, max_steps=args.max_steps)
        f1_weight = args.f1_weight if args.f1_weight >= 0 else None
        return Monitor(make_slot_env(env, catalogue=catalogue, f1_weight=f1_weight))

    return thunk


def main_slots(args: Args) -> dict[str, Any]:
    """The slot design: train MaskablePPO with the pointer policy, evaluate, plot."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.sb3.slots.line_prior import LinePrior
    from agents.rules import RulesPolicy
    from agents.sb3.slots import SlotCatalogue
    from agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy

    out = Path(args.out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    data = str(generated_train(args)) if args.data == "generated:train" else args.data
    (out / "args.json").write_text(json.dumps({**dataclasses.asdict(args), "resolved_data": data}, indent=2),
                                   encoding="utf-8")
    train_files = parse_file_range(args.train_files) if args.train_files else None
    train_tasks = TaskSet.load(data, files=train_files)
    scenario_ids = sorted(train_tasks.scenarios)
    # learned from the training tasks only: the API prior (request wording -> first gold function name),
    # the companion classifier (routine clause -> its gold function name) and the line prior (history
    # line -> is it gold evidence of some request)
    train_scenarios = [train_tasks.scenarios[i] for i in scenario_ids]
    line_prior = None
    if args.line_prior:
        line_prior = LinePrior.fit(LinePrior.examples_from_scenarios(train_scenarios), seed=args.seed)
    catalogue = SlotCatalogue(api_examples=SlotCatalogue.examples_from_tasks(
        train_tasks.queries, lambda q: train_tasks.scenario_of(q).speakers), line_prior=line_prior,
        companion_examples=SlotCatalogue.companion_examples_from_scenarios(train_scenarios),
        context=args.search_context)
    n_envs = args.n_envs or min(len(scenario_ids), 100)
    shards = [scenario_ids[i::n_envs] for i in range(n_envs)]
    vec_env = DummyVecEnv([_slot_env_thunk(data, shard, args, catalogue) for shard in shards if shard])
    vec_env.seed(args.seed)
    print(f"train: {len(train_tasks)} tasks in {len(scenario_ids)} scenarios ({data}), {vec_env.num_envs} envs; "
          f"slot actions: {catalogue.n}; features: {vec_env.observation_space.shape[0]}")

    demos = collect_slot_demos(vec_env) if args.bc_epochs > 0 else None
    algo_cls = algo_class(args.algo)
    policy = SlotPointerPolicy if args.algo == "maskable_ppo" else "MlpPolicy"
    n_steps = max(args.n_steps, 8)
    model = algo_cls(policy, vec_env, n_steps=n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                     learning_rate=args.learning_rate, ent_coef=args.ent_coef, gamma=args.gamma, seed=args.seed,
                     device="cpu", verbose=0)
    meta = SlotSB3Policy.checkpoint_meta(catalogue)
    bc_seconds = 0.0
    if demos is not None and args.algo == "maskable_ppo":
        t_bc = time.perf_counter()
        behaviour_clone(model, demos, epochs=args.bc_epochs, seed=args.seed, weight_decay=args.bc_weight_decay)
        bc_seconds = time.perf_counter() - t_bc
        save_checkpoint(model, out / "checkpoints" / "bc", design="slots", algo=args.algo, meta=meta)
    log_rows, train_seconds = learn_with_log(
        model, args, out, reward_key="f1_change", progress_every=1000,
        save=lambda m, path: save_checkpoint(m, path, design="slots", algo=args.algo, meta=meta))
    final = save_checkpoint(model, out / "final", design="slots", algo=args.algo, meta=meta)
    fps = model.num_timesteps / train_seconds

    # --- evaluation: train tasks (a sample), the held-out generated test split, the official data
    eval_files = parse_file_range(args.eval_files) if args.eval_files else None
    sets: list[tuple[str, str, list[int] | None, int]] = [
        ("train", data, train_files, args.train_eval_episodes),
        ("held_out", args.eval_data or data, eval_files, args.eval_episodes)]
    if args.official_data:
        try:
            TaskSet.load(args.official_data, files=parse_file_range(args.official_files)[:1])
            sets.append(("official", args.official_data, parse_file_range(args.official_files), args.eval_episodes))
        except Exception as exc:  # noqa: BLE001  (the official data is optional)
            print(f"official data skipped: {exc}")
    results: dict[str, dict[str, dict[str, float]]] = {}
    with (out / "eval.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["set", "policy", "task_id", "reasoning_type", "esm", "f1", "steps"])
        writer.writeheader()
        for set_name, set_data, set_files, limit in sets:
            env = gym.make("VehicleMem-v0", data=set_data, files=set_files, memory=args.memory,
                           max_steps=args.max_steps)
            task_ids = [q.task_id for q in env.unwrapped.tasks.queries]
            if limit:
                task_ids = list(np.random.default_rng(args.seed).permutation(task_ids)[:limit]) if set_name == "train" \
                    else task_ids[:limit]
            policies: dict[str, Any] = {"trained": SlotSB3Policy.load(final, env)}
            if (out / "checkpoints" / "bc.zip").is_file():
                policies["bc_only"] = SlotSB3Policy.load(out / "checkpoints" / "bc", env)
            if set_name != "train":
                policies.update({"rules": RulesPolicy(args.memory, source=env),
                                 "random": RandomSlotPolicy(catalogue, env, args.seed), "noop": NoopPolicy()})
            results[set_name] = {}
            for name, pol in policies.items():
                t1 = time.perf_counter()
                rows = evaluate(pol, env, task_ids)
                writer.writerows({"set": set_name, "policy": name, **r} for r in rows)
                results[set_name][name] = summarise(rows)
                print(f"{set_name:9s} {name:8s} ESM {results[set_name][name]['esm']:5.1f}  "
                      f"F1 {results[set_name][name]['f1']:.3f}  "
                      f"({len(rows)} episodes, {time.perf_counter() - t1:.0f}s)")
            env.close()
    summary = {"args": dataclasses.asdict(args), "design": "slots", "data": data, "slot_actions": catalogue.n,
               "feature_dim": int(vec_env.observation_space.shape[0]), "train_steps": int(model.num_timesteps),
               "train_seconds": train_seconds, "train_steps_per_s": fps, "train_episodes": len(log_rows),
               "checkpoint": str(final), "results": results, "held_out": results.get("held_out", {}),
               "bc": {"demo_states": int(len(demos[0])) if demos else 0,
                      "tasks_with_demo": int(demos[3]) if demos else 0,
                      "tasks": int(demos[4]) if demos else 0, "seconds": bc_seconds}}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    plot_curve(log_rows, results, out / "learning_curve.png",
               f"MaskablePPO slot policy (memory={args.memory}, {len(scenario_ids)} train scenarios)")
    return summary


def collect_slot_demos(vec_env: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int, np.ndarray]:
    """Demonstrations of the best slots on the training tasks: search, the gold calls, finish.

    Each training env runs each of its tasks once: the search step, then (when every gold call
    is some allowed slot) the slots whose resolved call equals a gold call, then finish. Only the
    training split's gold calls are used. Returns ``(observations, masks, actions, tasks with a
    demonstration, tasks, right slots)`` (the last: per state, every allowed slot that is right).
    """
    from agents.sb3.slots import SLOT_FINISH, SLOT_SEARCH
    from vmb_gym.wrappers.catalogue import call_key

    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    right_l: list[np.ndarray] = []
    found = total = 0
    for monitor in vec_env.envs:
        env = monitor.env  # SlotFeatureWrapper
        inner = env.env  # SlotActionWrapper
        for q in env.unwrapped.tasks.queries:
            total += 1
            obs, _ = env.reset(options={"task_id": q.task_id})
            states = []
            mask = env.action_masks()
            while mask[SLOT_SEARCH] and len(states) < 3:  # the search rounds (first look, follow-ups)
                states.append((obs, mask, SLOT_SEARCH))
                obs, *_ = env.step(SLOT_SEARCH)
                mask = env.action_masks()
            cat, analysis = inner.catalogue, inner.analysis
            by_key: dict[str, int] = {}
            for i in np.flatnonzero(mask):
                if i >= 2 and analysis.calls[i] is not None:
                    by_key.setdefault(analysis.calls[i][1], int(i))
            gold_keys = [call_key(c.name, c.arguments) for c in q.gold_calls]
            plan = [by_key.get(k) for k in gold_keys]
            if not plan or any(i is None for i in plan):
                continue
            found += 1
            # every allowed slot that resolves to the next gold call is right at a call step (several
            # slots often resolve to the same call: a value and its unchanged shifted copy, the same
            # value stated twice, the same seat); the gold order puts the requested setting before its
            # routine companion, so the companion is chosen knowing which line's value was set
            # (a companion first left states the demonstrations never showed); search and finish
            # steps have one answer
            for n, i in enumerate(plan):
                m = env.action_masks()
                right = np.zeros(len(m), dtype=bool)
                for j in np.flatnonzero(m):
                    if j >= 2 and analysis.calls[j] is not None and analysis.calls[j][1] == gold_keys[n]:
                        right[j] = True
                right[int(i)] = True  # type: ignore[index]
                states.append((obs, m, int(i), right))  # type: ignore[arg-type]
                obs, *_ = env.step(int(i))  # type: ignore[arg-type]
            states.append((obs, env.action_masks(), SLOT_FINISH))
            for st in states:
                o, m, a = st[0], st[1], st[2]
                if m[a]:
                    right = st[3] if len(st) > 3 else np.eye(len(m), dtype=bool)[a]
                    obs_l.append(o)
                    mask_l.append(m)
                    act_l.append(a)
                    right_l.append(right & m)
            del cat
    rights = np.stack(right_l)
    print(f"demonstrations: {found}/{total} training tasks have every gold call among the slots "
          f"({len(act_l)} states, {float(rights.sum(1).mean()):.2f} right slots per state)", flush=True)
    return np.stack(obs_l), np.stack(mask_l), np.array(act_l), found, total, rights


def behaviour_clone(model: Any, demos: tuple[Any, ...], *, epochs: int, seed: int, batch_size: int = 128,
                    lr: float = 1e-3, weight_decay: float = 0.0, set_targets: bool = True) -> None:
    """Warm-start the policy: maximise the masked log-probability of the demonstrated slots.

    With ``set_targets`` (and demonstrations that carry them), the loss is the log-probability of
    the *set* of right slots of each state (every allowed slot that resolves to a gold call still
    to make), so slots that resolve to the same call are not pushed against each other.
    """
    obs, masks, actions = demos[0], demos[1], demos[2]
    rights = demos[5] if len(demos) > 5 and set_targets else None
    policy = model.policy
    policy.set_training_mode(True)
    optim = torch.optim.Adam(policy.parameters(), lr=lr, weight_decay=weight_decay)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        order = rng.permutation(len(actions))
        losses = []
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            o = torch.as_tensor(obs[idx])
            dist = policy.get_distribution(o, action_masks=masks[idx])
            if rights is None:
                loss = -dist.log_prob(torch.as_tensor(actions[idx])).mean()
            else:  # the probability of the set of right slots (equivalent slots do not compete)
                logp = dist.distribution.logits  # normalised, masked log-probabilities
                right = torch.as_tensor(rights[idx])
                loss = -torch.logsumexp(logp.masked_fill(~right, -1e9), dim=-1).mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
            losses.append(float(loss.detach()))
        if epoch in (0, epochs - 1) or (epoch + 1) % 10 == 0:
            chunk = 1024  # the pointer net's activations of every demo state at once add ~117 KB per state
            with torch.no_grad():  # (about 3.7 GB for the 800-household run's 31,751 states)
                pred = np.concatenate([
                    policy.get_distribution(torch.as_tensor(obs[i:i + chunk]), action_masks=masks[i:i + chunk])
                    .get_actions(deterministic=True).numpy() for i in range(0, len(actions), chunk)])
                acc = float((pred == actions).mean() if rights is None else rights[np.arange(len(pred)), pred].mean())
            print(f"  behaviour cloning epoch {epoch + 1}: loss {np.mean(losses):.3f}, "
                  f"demo accuracy {acc:.3f}", flush=True)
    policy.set_training_mode(False)


def plot_curve(log_rows: list[dict[str, Any]], results: dict[str, dict[str, dict[str, float]]], path: Path,
               title: str) -> None:
    """Training ESM / reward (moving mean) with the evaluation ESMs as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    if log_rows:
        steps = np.array([r["timestep"] for r in log_rows])
        window = max(1, len(log_rows) // 40)
        kernel = np.ones(window) / window
        for key, label in (("reward", "train F1 reward"), ("esm", "train ESM")):
            values = np.convolve([r[key] for r in log_rows], kernel, mode="valid")
            ax.plot(steps[window - 1:], values, label=f"{label} (mean of {window} episodes)")
    colours = {"held_out": "tab:green", "official": "tab:red"}
    for set_name, colour in colours.items():
        for name, style in (("trained", "-"), ("rules", "--"), ("random", ":")):
            r = results.get(set_name, {}).get(name)
            if r:
                ax.axhline(r["esm"] / 100.0, linestyle=style, color=colour, linewidth=1,
                           label=f"{set_name} ESM {name} ({r['esm']:.1f}%)")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv: list[str] | None = None) -> Args:
    """Flags named after the :class:`Args` fields."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return args_from_namespace(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field (``--train-files`` for ``train_files``)."""
    add_dataclass_arguments(parser, Args, {"algo": ["ppo", "maskable_ppo"], "design": ["slots", "catalogue"],
                                           "features": ["hashing", "minilm"]})


def args_from_namespace(ns: argparse.Namespace) -> Args:
    """The :class:`Args` of a parsed namespace."""
    return _args_from_namespace(Args, ns)


if __name__ == "__main__":
    main(parse_args())
