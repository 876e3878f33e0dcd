"""Train MaskablePPO over candidate slots on VehicleMem-v0 and evaluate it (``vmb train sb3``, the default design).

The slot design: a small scenario-independent ``Discrete`` space of *slots* (k-th candidate API
of the request x k-th candidate value read from the memory hits x k-th seat/zone, plus search
and finish), resolved into concrete calls per episode, with per-slot features and a pointer
policy (one scorer shared by all slots); see :class:`vmb_agents.sb3.slots.SlotCatalogue`. Trained on
the generated *train* split (written once into ``--cache-dir``), evaluated on the train tasks
(a sample), the held-out default test split and, when present, the official data.

Read top to bottom: the settings, the env thunk and the random baseline, the demonstrations,
then :func:`main`: seeding, the catalogue fitted on the training tasks, the vector env, the
agent, the behaviour-cloning warm start, SB3 ``learn``, the evaluation, the plot.

    vmb train sb3 --timesteps 30000 --out runs/sb3
    vmb train sb3 --design catalogue ...    # the flat catalogue: agents/train/sb3_catalogue.py

Outputs in ``--out`` (a new or empty folder; ``--overwrite`` replaces a previous run's):
``checkpoints/bc.safetensors`` and ``checkpoints/step_*.safetensors`` (+ ``.vmb.json``, which records the env
settings ``vmb eval --policy sb3:...`` defaults to), ``final.safetensors``, ``train_log.csv``,
``eval.csv`` (one row per set, policy and episode), ``summary.json`` (ESM and F1 as fractions),
``learning_curve.png``. The evaluation is sized to the run (``--eval-episodes``; 0 evaluates
every task).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

import vmb_gym  # registers VehicleMem-v0
from vmb_gym.wrappers import ScoredStepLimit, VehicleCallCost
from vmb_agents.baselines import NoopPolicy
from vmb_agents.reader import RulesPolicy
from vmb_agents.sb3.checkpoint import algo_class, load_checkpoint, save_checkpoint, sidecar_meta
from vmb_agents.sb3.kl_ppo import add_kl_to_start
from vmb_agents.sb3.slots import (
    SLOT_FINISH,
    SLOT_SEARCH,
    SlotCatalogue,
    SlotFeaturizer,
    SlotFeatureWrapper,
    make_slot_env,
    slot_call,
)
from vmb_agents.sb3.slots.layout import N_MEMORY_VALUES, unpack_slot
from vmb_agents.sb3.slots.line_prior import fit_line_prior
from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy
from vmb_agents.train.common import (
    SB3_CHOICES,
    SB3Args,
    add_dataclass_arguments,
    args_from_namespace,
    behaviour_clone,
    check_sb3_args,
    eval_limit,
    evaluate,
    format_score,
    generated_train,
    learn_with_log,
    plot_curve,
    prepare_out,
    print_peak_rss,
    seed_everything,
    summarise,
    train_settings,
)
from vmb_agents.train.sparse_rows import SparseRows
from vmb_gym.data import parse_file_range
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import call_key


@dataclass
class Args(SB3Args):
    """Every setting of ``vmb train sb3`` (the flags have the same names)."""

    design: str = "slots"
    """"slots" (pointer over candidate slots) or "catalogue" (flat call catalogue: agents/train/sb3_catalogue.py)"""
    official_data: str = "auto"
    """also evaluated when present: "auto" = $VMB_OFFICIAL_DIR, else shared/vehiclemembench beside the checkout
    (found from the package, not the working directory); "" = skip; or a data spec"""
    official_files: str = "1-40"
    """official scenarios evaluated (when the official data is found)"""
    train_eval_episodes: int = 200
    """training tasks re-run for the train score (slots design; at most the --eval-episodes size when that is
    -1; 0 = every training task)"""
    f1_weight: float = 0.2
    """slots: final reward = exact match + f1_weight * value-level F1 (< 0: the env's F1)"""
    call_cost: float = 0.0
    """slots: subtract this from the reward for each vehicle function call, at its step
    (vmb_gym.wrappers.VehicleCallCost; 0 = no cost)"""
    scored_step_limit: bool = True
    """slots: report the scored step-limit step as terminated (vmb_gym.wrappers.ScoredStepLimit), so PPO does not add
    gamma x V(last observation) to a final score; --no-scored-step-limit: as truncated (SB3 bootstraps it)"""
    bc_epochs: int = 30
    """slots: warm start by imitating the best slots of the training tasks (0 = pure RL)"""
    bc_weight_decay: float = 0.0
    """slots: Adam weight decay of the imitation warm start (1e-4 gave no gain)"""
    bc_group_dropout: float = 0.0
    """slots: during imitation, each feature group (SlotFeaturizer.feature_groups) of a state is zeroed with this
    probability in every row (0 = off)"""
    bc_dropout_groups: str = ""
    """slots: the feature groups --bc-group-dropout may zero, comma-separated ("" = every group)"""
    line_prior: bool = True
    """slots: fit the line prior (real preference vs chatter) on the training evidence"""
    line_prior_kind: str = "words"
    """slots: what the line prior reads: words, vocab, cues, words+cues, minilm or both
    (agents/sb3/slots/line_prior.py)"""
    search_context: int = 2
    """slots: neighbouring same-day lines each memory search shows around a hit (0-3)"""
    device_alike: bool = False
    """slots: a request that names a device without its setting scores each of its functions alike in the rules'
    candidates, as the rules reader does (kept in the checkpoint; the shipped one was trained without it)"""
    features: str = "hashing"
    '"hashing" or "minilm" (catalogue design only)'
    drop_features: str = ""
    """slots: comma-separated feature groups trained as zeros, an ablation (line_prior, line_hash, cues, ...:
    SlotFeaturizer.feature_groups); kept in the checkpoint, so its evaluation drops them too"""
    start: str = ""
    """slots: PPO from this slot checkpoint ("slots" = the shipped one): its catalogue, features and weights, no
    catalogue fitting and no imitation; "" = fit and imitate here"""
    kl_to_start: float = 0.0
    """slots: PPO loss + this weight x KL(policy || the policy it started from, frozen) (agents/sb3/kl_ppo.py);
    0 = off"""


def drop_list(value: str) -> list[str]:
    """The feature groups of ``--drop-features`` (comma-separated; "" = none)."""
    return [name.strip() for name in value.split(",") if name.strip()]


def slot_env_thunk(data: str, files: list[int], args: Args, catalogue: SlotCatalogue) -> Any:
    """A thunk building one slot env (SB3 ``Monitor`` outermost)."""

    def thunk() -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        env = gym.make("VehicleMem-v0", data=data, files=files, memory=args.memory, max_steps=args.max_steps)
        f1_weight = args.f1_weight if args.f1_weight >= 0 else None
        featurizer = SlotFeaturizer(drop=drop_list(args.drop_features))
        slot_env = make_slot_env(env, catalogue=catalogue, f1_weight=f1_weight, featurizer=featurizer)
        if args.scored_step_limit:
            slot_env = ScoredStepLimit(slot_env)
        if args.call_cost:
            slot_env = VehicleCallCost(slot_env, args.call_cost)
        return Monitor(slot_env)

    return thunk


def slot_env(env: Any) -> Any:
    """The :class:`SlotFeatureWrapper` under a training env's outer wrappers (Monitor, step limit, call cost)."""
    while not isinstance(env, SlotFeatureWrapper):
        env = env.env
    return env


class RandomSlotPolicy:
    """Uniformly random allowed slot actions (finish included): the random baseline of the slot design."""

    def __init__(self, catalogue: SlotCatalogue, env: gym.Env[Any, Any], seed: int) -> None:
        self._inner = SlotSB3Policy(None, catalogue, env)
        self.rng = np.random.default_rng(seed)

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start an episode."""
        self._inner.reset(observation, info)

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """The call of a random allowed slot."""
        p = self._inner
        p.observe(observation, info)
        analysis = p.catalogue.analyse(p.episode, p.speakers)
        allowed = np.flatnonzero(p.catalogue.mask(analysis, p.episode, memory_search=p.memory_search))
        return slot_call(p.catalogue, int(self.rng.choice(allowed)), analysis, p.episode, p.speakers)


class SlotDemos(NamedTuple):
    """Demonstrations of the best slots on the training tasks (indexable like the old 6-tuple)."""

    observations: SparseRows  # dense float32 rows on indexing (see vmb_agents.train.sparse_rows)
    masks: np.ndarray
    actions: np.ndarray
    found: int  # training tasks with a demonstration (every gold call among the allowed slots)
    total: int  # training tasks
    rights: np.ndarray  # per state, every allowed slot that is right
    rules: np.ndarray  # per state, whether a right slot is the rules reader's own choice


def collect_slot_demos(vec_env: Any) -> SlotDemos:
    """Demonstrations of the best slots on the training tasks: search, the gold calls, finish.

    Each training env runs each of its tasks once: the search rounds, then (when every gold call
    is some allowed slot) the slots whose resolved call equals a gold call, then finish. Only the
    training split's gold calls are used. The observations are kept as their non-zero entries
    (:class:`~vmb_agents.train.sparse_rows.SparseRows`, exact), each as soon as its episode ends.
    """
    observations = SparseRows(int(np.prod(vec_env.envs[0].observation_space.shape)))
    masks: list[np.ndarray] = []
    actions: list[int] = []
    rights: list[np.ndarray] = []
    rules: list[bool] = []
    found = total = 0
    for monitor in vec_env.envs:
        env = slot_env(monitor)
        for q in env.unwrapped.tasks.queries:
            total += 1
            episode = demo_episode(env, q)
            if episode is None:
                continue
            found += 1
            for obs, mask, action, right, by_rules in episode:
                observations.append(obs)
                masks.append(mask)
                actions.append(action)
                rights.append(right)
                rules.append(by_rules)
    right_sets, by_rules = np.stack(rights), np.array(rules)
    calls = np.array(actions) >= 2
    print(f"demonstrations: the rules reader's own choice is right in {by_rules[calls].mean():.1%} of the "
          f"{int(calls.sum())} call states", flush=True)
    print(f"demonstrations: {found}/{total} training tasks have every gold call among the slots "
          f"({len(actions)} states, {float(right_sets.sum(1).mean()):.2f} right slots per state; "
          f"{observations.nbytes / 2**20:.0f} MiB of features, {len(actions) * observations.width * 4 / 2**20:.0f} "
          "MiB dense)", flush=True)
    return SlotDemos(observations, np.stack(masks), np.array(actions), found, total, right_sets, by_rules)


def rules_slots(analysis: Any, n: int) -> np.ndarray:
    """Per action, whether it is the rules reader's own choice: its API, its first value and its first target."""
    out = np.zeros(n, dtype=bool)
    for j in range(2, n):
        a, v, t = unpack_slot(j)
        if t == 0 and a < len(analysis.apis) and analysis.apis[a].rules_choice:
            values = analysis.apis[a].values
            out[j] = v < min(len(values), N_MEMORY_VALUES) and values[v].rules_top
    return out


def demo_episode(env: Any, q: Any) -> list[tuple[np.ndarray, np.ndarray, int, np.ndarray, bool]] | None:
    """One task's demonstrated states ``(observation, mask, action, right slots, a right slot is the rules reader's
    own choice)``; None when a gold call is no slot.

    Every allowed slot that resolves to the next gold call is right at a call step (a value and
    its unchanged shifted copy, the same value stated twice, the same seat); the gold order puts
    the requested setting before its routine companion; search and finish have one answer.
    """
    obs, _ = env.reset(options={"task_id": q.task_id})
    states: list[tuple[Any, np.ndarray, int, np.ndarray | None]] = []
    mask = env.action_masks()
    while mask[SLOT_SEARCH] and len(states) < 3:  # the search rounds (first look, follow-ups)
        states.append((obs, mask, SLOT_SEARCH, None))
        obs, *_ = env.step(SLOT_SEARCH)
        mask = env.action_masks()
    analysis = env.env.analysis  # the SlotActionWrapper's analysis after the searches
    by_key: dict[str, int] = {}
    for i in np.flatnonzero(mask):
        if i >= 2 and analysis.calls[i] is not None:
            by_key.setdefault(analysis.calls[i][1], int(i))
    gold_keys = [call_key(c.name, c.arguments) for c in q.gold_calls]
    plan = [by_key.get(k) for k in gold_keys]
    if not plan or any(i is None for i in plan):
        return None
    for key, i in zip(gold_keys, plan, strict=True):
        m = env.action_masks()
        right = np.zeros(len(m), dtype=bool)
        for j in np.flatnonzero(m):
            if j >= 2 and analysis.calls[j] is not None and analysis.calls[j][1] == key:
                right[j] = True
        right[int(i)] = True  # type: ignore[arg-type]
        states.append((obs, m, int(i), right))  # type: ignore[arg-type]
        obs, *_ = env.step(int(i))  # type: ignore[arg-type]
    states.append((obs, env.action_masks(), SLOT_FINISH, None))
    by_rules = rules_slots(analysis, len(mask))
    out = []
    for o, m, a, right in states:
        if m[a]:
            out.append((o, m, a, (np.eye(len(m), dtype=bool)[a] if right is None else right) & m,
                        right is not None and bool((right & by_rules).any())))
    return out


def group_dropout(p: float, names: Sequence[str] = ()) -> Any:
    """An imitation minibatch augmentation: each feature group of a state (of ``names``; default every
    :meth:`SlotFeaturizer.feature_groups` group) zeroed with probability ``p`` in every row.

    Raises:
        ConfigError: a name that is not a feature group.
    """
    featurizer = SlotFeaturizer(drop=names)  # checks the names
    every = featurizer.feature_groups()
    groups = [np.array(every[name], dtype=np.int64) for name in (names or every)]

    def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rows = batch.reshape(batch.shape[0], featurizer.n_actions, featurizer.row)
        for cols in groups:
            drop = rng.random(batch.shape[0]) < p
            if drop.any():
                rows[np.ix_(np.flatnonzero(drop), np.arange(featurizer.n_actions), cols)] = 0.0
        return batch

    return augment


#: What a run writes into ``--out`` (removed first with ``--overwrite``).
OUTPUTS = ("checkpoints", "final.safetensors", "final.zip", "final.vmb.json", "args.json", "train_log.csv", "eval.csv",
           "summary.json", "learning_curve.png")
#: Demonstration states grouped by what the step decides (their accuracy is reported beside the overall).
STEP_KINDS = ("call", "search", "finish")


def step_kinds(actions: np.ndarray) -> dict[str, np.ndarray]:
    """The demonstration states of each :data:`STEP_KINDS` group: a vehicle call, a memory search, finish."""
    return {"call": actions >= 2, "search": actions == SLOT_SEARCH, "finish": actions == SLOT_FINISH}


def fit_catalogue(train_tasks: TaskSet, scenario_ids: list[int], args: Args) -> SlotCatalogue:
    """The slot catalogue, learned from the training tasks only.

    The API prior (request wording -> first gold function name), the companion classifier
    (routine clause -> its gold function name) and the line prior (history line -> is it gold
    evidence of some request).
    """
    train_scenarios = [train_tasks.scenarios[i] for i in scenario_ids]
    line_prior = None
    if args.line_prior:
        line_prior = fit_line_prior(train_scenarios, args.line_prior_kind, seed=args.seed, log=print, auc_data={
            "held_out": args.eval_data or "default", "official": official_spec(args.official_data)})
    return SlotCatalogue(api_examples=SlotCatalogue.examples_from_tasks(
        train_tasks.queries, lambda q: train_tasks.scenario_of(q).speakers), line_prior=line_prior,
        companion_examples=SlotCatalogue.companion_examples_from_scenarios(train_scenarios),
        context=args.search_context, device_alike=args.device_alike)


def start_sidecar(args: Args) -> dict[str, Any]:
    """The sidecar of ``--start`` (a slot checkpoint), checked against the run's env settings.

    Raises:
        ConfigError: not a slot checkpoint, a non-MaskablePPO run, or a memory or step limit other than the
            checkpoint was trained with; ``--kl-to-start`` without ``--start``.
    """
    if not args.start:
        if args.kl_to_start:
            raise ConfigError("--kl-to-start penalises the distance to a start policy; fix: add --start CHECKPOINT "
                              "(e.g. --start slots, the shipped one)")
        return {}
    if args.algo != "maskable_ppo":
        raise ConfigError(f"--start continues a MaskablePPO slot checkpoint; found --algo {args.algo}")
    _, sidecar = load_checkpoint(args.start, design="slots")
    trained = dict(sidecar.get("settings") or {})
    for key in ("memory", "max_steps"):
        if key in trained and str(trained[key]) != str(getattr(args, key)):
            flag = "--" + key.replace("_", "-")
            raise ConfigError(f"--start {args.start} was trained with {key} {trained[key]}, this run has "
                              f"{getattr(args, key)}; fix: {flag} {trained[key]}")
    return sidecar


def start_from(model: Any, args: Args, out: Path, meta: dict[str, Any]) -> None:
    """Put the ``--start`` weights into ``model``, save them as ``checkpoints/start`` (evaluated beside the
    trained one), and add the ``--kl-to-start`` penalty."""
    start, _ = load_checkpoint(args.start, design="slots")
    model.policy.load_state_dict(start.policy.state_dict())
    save_checkpoint(model, out / "checkpoints" / "start", design="slots", algo=args.algo, meta=meta)
    if args.kl_to_start:
        add_kl_to_start(model, args.kl_to_start)


def main(args: Args) -> dict[str, Any]:
    """Train the pointer policy (warm start, then PPO), evaluate, plot; return the summary."""
    if args.design == "catalogue":
        return main_catalogue(args)
    from stable_baselines3.common.vec_env import DummyVecEnv

    check_sb3_args(args)
    started = start_sidecar(args)
    SlotFeaturizer(drop=drop_list(args.drop_features))  # an unknown group fails before any work
    SlotFeaturizer(drop=drop_list(args.bc_dropout_groups))
    if not 0.0 <= args.bc_group_dropout < 1.0:
        raise ConfigError(f"--bc-group-dropout: expected a probability in [0, 1), found {args.bc_group_dropout}; "
                          "fix: 0 (off) or e.g. 0.6")
    out = Path(args.out)
    prepare_out(out, args.overwrite, OUTPUTS)
    seed_everything(args.seed, args.torch_threads)
    data = str(generated_train(args)) if args.data == "generated:train" else args.data
    (out / "args.json").write_text(json.dumps({**dataclasses.asdict(args), "resolved_data": data}, indent=2),
                                   encoding="utf-8")
    train_files = parse_file_range(args.train_files) if args.train_files else None
    train_tasks = TaskSet.load(data, files=train_files)
    scenario_ids = sorted(train_tasks.scenarios)
    if started:
        catalogue = SlotCatalogue.from_json(started["catalogue"])
        args = dataclasses.replace(args, drop_features=",".join((started.get("featurizer") or {}).get("drop") or []))
    else:
        catalogue = fit_catalogue(train_tasks, scenario_ids, args)
    peaks = {"catalogue": print_peak_rss("fitting the catalogue")}
    n_envs = args.n_envs or min(len(scenario_ids), 100)
    shards = [scenario_ids[i::n_envs] for i in range(n_envs)]
    vec_env = DummyVecEnv([slot_env_thunk(data, shard, args, catalogue) for shard in shards if shard])
    vec_env.seed(args.seed)
    print(f"train: {len(train_tasks)} tasks in {len(scenario_ids)} scenarios ({data}), {vec_env.num_envs} envs; "
          f"slot actions: {catalogue.n}; features: {vec_env.observation_space.shape[0]}")

    # --- agent, imitation warm start, PPO
    demos = collect_slot_demos(vec_env) if args.bc_epochs > 0 and not started else None
    peaks["demonstrations"] = print_peak_rss("the demonstrations")
    policy = SlotPointerPolicy if args.algo == "maskable_ppo" else "MlpPolicy"
    policy_kwargs = dict(started["sb3"].get("policy_kwargs") or {}) if started else None
    model = algo_class(args.algo)(policy, vec_env, n_steps=max(args.n_steps, 8), batch_size=args.batch_size,
                                  n_epochs=args.n_epochs, learning_rate=args.learning_rate, ent_coef=args.ent_coef,
                                  gamma=args.gamma, seed=args.seed, device="cpu", verbose=0,
                                  policy_kwargs=policy_kwargs)
    if started:
        meta = {**{k: v for k, v in sidecar_meta(started).items() if k != "ensemble"}, "settings": train_settings(args),
                "start": {"checkpoint": args.start, "kl_to_start": args.kl_to_start,
                          "ensemble": started.get("ensemble")}}
        start_from(model, args, out, meta)
    else:
        meta = {**SlotSB3Policy.checkpoint_meta(catalogue, drop_list(args.drop_features)),
                "settings": train_settings(args)}
    bc_seconds, bc_accuracy = 0.0, {}
    if demos is not None and args.algo == "maskable_ppo":
        t_bc = time.perf_counter()
        # min_batches: a small demo set (a 2-scenario run has ~80 states) still gets 8 updates per epoch
        bc_accuracy = behaviour_clone(model, demos, epochs=args.bc_epochs, seed=args.seed,
                                      weight_decay=args.bc_weight_decay, min_batches=8,
                                      step_kinds=step_kinds(demos.actions),
                                      augment=(group_dropout(args.bc_group_dropout, drop_list(args.bc_dropout_groups))
                                               if args.bc_group_dropout else None))
        bc_seconds = time.perf_counter() - t_bc
        peaks["behaviour_cloning"] = print_peak_rss("behaviour cloning")
        save_checkpoint(model, out / "checkpoints" / "bc", design="slots", algo=args.algo, meta=meta)
    log_rows, train_seconds = learn_with_log(
        model, args, out, reward_key="f1_change", progress_every=1000,
        save=lambda m, path: save_checkpoint(m, path, design="slots", algo=args.algo, meta=meta))
    final = save_checkpoint(model, out / "final", design="slots", algo=args.algo, meta=meta)
    peaks["ppo"] = print_peak_rss("PPO")

    results = evaluate_sets(args, data, train_files, catalogue, final, out, n_train_scenarios=len(scenario_ids))
    peaks["evaluation"] = print_peak_rss("the evaluation")
    summary = {"args": dataclasses.asdict(args), "design": "slots", "data": data, "slot_actions": catalogue.n,
               "feature_dim": int(vec_env.observation_space.shape[0]), "train_steps": int(model.num_timesteps),
               "train_seconds": train_seconds, "train_steps_per_s": model.num_timesteps / train_seconds,
               "train_episodes": len(log_rows), "checkpoint": str(final), "results": results,
               "held_out": results.get("held_out", {}),
               "bc": {"demo_states": int(len(demos.observations)) if demos else 0,
                      "tasks_with_demo": int(demos.found) if demos else 0,
                      "tasks": int(demos.total) if demos else 0, "seconds": bc_seconds,
                      "accuracy": bc_accuracy},
               "peak_rss_mib": peaks}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    plot_curve(log_rows, results, out / "learning_curve.png",
               f"MaskablePPO slot policy (memory={args.memory}, {len(scenario_ids)} train scenarios)")
    return summary


def eval_sets(args: Args, data: str, train_files: list[int] | None,
              n_train_scenarios: int) -> list[tuple[str, str, list[int] | None, int]]:
    """``(name, data, files, episode limit)`` of each evaluation set: train, held-out, official (when found).

    The limit (0 = every task) is ``--eval-episodes``, sized to the run when -1
    (:func:`~vmb_agents.train.common.eval_limit`); the train sample is at most ``--train-eval-episodes``.
    """
    eval_files = parse_file_range(args.eval_files) if args.eval_files else None
    limit = eval_limit(args.eval_episodes, n_train_scenarios)
    train_limit = args.train_eval_episodes
    if args.eval_episodes == -1 and train_limit:
        train_limit = min(train_limit, limit)
    sets: list[tuple[str, str, list[int] | None, int]] = [
        ("train", data, train_files, train_limit), ("held_out", args.eval_data or data, eval_files, limit)]
    official = official_spec(args.official_data)
    if official:
        try:
            TaskSet.load(official, files=parse_file_range(args.official_files)[:1])
            sets.append(("official", official, parse_file_range(args.official_files), limit))
        except Exception as exc:  # noqa: BLE001  (the official data is optional)
            print(f"official data skipped: {exc}")
    return sets


def official_spec(value: str) -> str:
    """The official data spec of ``--official-data``: ``"auto"`` is ``$VMB_OFFICIAL_DIR``, else
    ``shared/vehiclemembench`` beside the checkout (``""`` when neither is a folder); other values as given."""
    if value != "auto":
        return value
    env = os.environ.get("VMB_OFFICIAL_DIR")
    folder = (
        Path(env).expanduser() if env else Path(vmb_gym.__file__).resolve().parents[2] / "shared" / "vehiclemembench"
    )
    if not folder.is_dir():
        print(
            f"official data skipped: {folder} is not a folder (set $VMB_OFFICIAL_DIR or --official-data official:DIR)"
        )
        return ""
    return f"official:{folder.resolve()}"


def set_policies(set_name: str, env: Any, args: Args, catalogue: SlotCatalogue, final: Path,
                 out: Path) -> dict[str, Any]:
    """The policies evaluated on one set: the trained, BC-only and ``--start`` checkpoints; rules, random and no-op
    off the train set."""
    policies: dict[str, Any] = {"trained": SlotSB3Policy.load(final, env)}
    for name, file in (("bc_only", "bc"), ("start", "start")):
        if (out / "checkpoints" / f"{file}.safetensors").is_file():
            policies[name] = SlotSB3Policy.load(out / "checkpoints" / file, env)
    if set_name != "train":
        policies.update({"rules": RulesPolicy(args.memory, source=env),
                         "random": RandomSlotPolicy(catalogue, env, args.seed), "noop": NoopPolicy()})
    return policies


def evaluate_sets(args: Args, data: str, train_files: list[int] | None, catalogue: SlotCatalogue, final: Path,
                  out: Path, *, n_train_scenarios: int) -> dict[str, dict[str, dict[str, float]]]:
    """The trained and BC-only checkpoints on every set; rules, random and no-op beside them off the train set.

    Each set first prints what it evaluates (tasks of how many, which policies); a progress bar
    counts the episodes of each policy (``--no-progress`` hides it).
    """
    results: dict[str, dict[str, dict[str, float]]] = {}
    with (out / "eval.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["set", "policy", "task_id", "reasoning_type", "esm", "f1", "steps"])
        writer.writeheader()
        for set_name, set_data, set_files, limit in eval_sets(args, data, train_files, n_train_scenarios):
            env = gym.make("VehicleMem-v0", data=set_data, files=set_files, memory=args.memory,
                           max_steps=args.max_steps)
            task_ids = [q.task_id for q in env.unwrapped.tasks.queries]
            n_all = len(task_ids)
            if limit:
                task_ids = list(np.random.default_rng(args.seed).permutation(task_ids)[:limit]) if set_name == "train" \
                    else task_ids[:limit]
            policies = set_policies(set_name, env, args, catalogue, final, out)
            print(
                f"evaluating {set_name}: {len(task_ids)} of {n_all} tasks x {len(policies)} policies "
                f"({', '.join(policies)})" + ("" if len(task_ids) == n_all else "; --eval-episodes 0 runs every task"),
                flush=True,
            )
            results[set_name] = {}
            for name, pol in policies.items():
                t1 = time.perf_counter()
                rows = evaluate(pol, env, task_ids, desc=f"{set_name} {name}", progress=args.progress)
                writer.writerows({"set": set_name, "policy": name, **r} for r in rows)
                results[set_name][name] = summarise(rows)
                print(f"{set_name:9s} {name:8s} {format_score(results[set_name][name])}  "
                      f"({len(rows)} episodes, {time.perf_counter() - t1:.0f}s)", flush=True)
            env.close()
    return results


def main_catalogue(args: Args) -> dict[str, Any]:
    """``--design catalogue``: run :func:`vmb_agents.train.sb3_catalogue.main` with the shared settings."""
    from vmb_agents.train import sb3_catalogue

    fields = {f.name for f in dataclasses.fields(sb3_catalogue.Args)}
    return sb3_catalogue.main(sb3_catalogue.Args(**{k: v for k, v in dataclasses.asdict(args).items() if k in fields}))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field (``--train-files`` for ``train_files``)."""
    add_dataclass_arguments(parser, Args, SB3_CHOICES)


def parse_args(argv: list[str] | None = None) -> Args:
    """The :class:`Args` of command-line flags."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return args_from_namespace(Args, parser.parse_args(argv))


if __name__ == "__main__":
    main(parse_args())
