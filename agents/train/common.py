"""Pieces every training script shares (the ``cleanrl_utils`` of this tree).

* :func:`add_dataclass_arguments` / :func:`args_from_namespace`: command-line flags from a
  script's ``Args`` dataclass. Each field becomes ``--field-name`` with its type and default; the
  field's docstring (a string literal right below it, read from the source with :mod:`ast`) is
  its ``--help``, so the dataclass stays the one place that documents a setting. A trailing
  ``# comment`` is read too, for scripts not yet converted;
* :func:`write_csv`: a training log as CSV;
* the SB3 trainers' pieces: :class:`SB3Args` (the settings both SB3 designs share),
  :func:`seed_everything`, :func:`generated_train` (the generated train split, cached),
  :func:`learn_with_log` (SB3 ``learn`` with a logging/checkpoint callback),
  :func:`check_sb3_args` and :func:`prepare_out` (refuse bad settings and a used ``--out``
  before anything runs), :func:`behaviour_clone` (the imitation warm start, from
  :mod:`vmb_agents.sb3.imitation`), :func:`eval_limit`
  (evaluation sized to the run), :func:`evaluate` / :func:`summarise` (evaluation records
  through :func:`vmb_gym.policy.run_episode`; ESM and F1 as fractions) and :func:`plot_curve`.
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import hashlib
import inspect
import json
import re
import shutil
import textwrap
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vmb_agents.sb3.imitation import accuracy_by_kind, behaviour_clone, demo_hits, format_accuracy
from vmb_agents.threads import apply_threads
from vmb_gym.errors import ConfigError

__all__ = [
    "EVAL_MIN_EPISODES",
    "EVAL_PER_SCENARIO",
    "SB3_CHOICES",
    "SB3Args",
    "accuracy_by_kind",
    "add_dataclass_arguments",
    "args_from_namespace",
    "behaviour_clone",
    "check_sb3_args",
    "demo_hits",
    "GENERATED_STAMP",
    "eval_limit",
    "evaluate",
    "field_docs",
    "format_accuracy",
    "format_score",
    "generated_train",
    "learn_with_log",
    "peak_rss_mib",
    "plot_curve",
    "prepare_out",
    "print_peak_rss",
    "seed_everything",
    "summarise",
    "train_settings",
    "train_split_options",
    "write_csv",
]

#: Evaluation sized to the run (``--eval-episodes -1``): this many tasks per training scenario, at least
#: :data:`EVAL_MIN_EPISODES` (a 2-scenario run evaluates 10 tasks per set, a 100-scenario run 500).
EVAL_PER_SCENARIO = 5
EVAL_MIN_EPISODES = 10

_COMMENT = re.compile(r"\s+(\w+): [^=]+=[^#]*#\s*(.+)$")


def field_docs(cls: type) -> dict[str, str]:
    """The help text of each field of dataclass ``cls`` and its dataclass bases: its docstring, else its
    trailing ``# comment``."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            out.update(_own_field_docs(klass))
    return out


def _own_field_docs(cls: type) -> dict[str, str]:
    source = textwrap.dedent(inspect.getsource(cls))
    out: dict[str, str] = {}
    for line in source.splitlines():
        m = _COMMENT.match(line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    for stmt, nxt in zip(body.body, body.body[1:], strict=False):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            out[stmt.target.id] = " ".join(nxt.value.value.split())
    return out


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type,
                            choices: Mapping[str, Sequence[str]] | None = None) -> None:
    """Add one ``--flag`` per field of ``cls`` (``--train-files`` for ``train_files``; ``--x/--no-x`` for booleans)."""
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if isinstance(f.default, bool):  # --flag / --no-flag
            parser.add_argument("--" + f.name.replace("_", "-"), action=argparse.BooleanOptionalAction,
                                default=f.default, help=docs.get(f.name, f.name.replace("_", " ")))
            continue
        kind = {int: int, float: float}.get(type(f.default), str)
        parser.add_argument("--" + f.name.replace("_", "-"), type=kind, default=f.default,
                            choices=(choices or {}).get(f.name), help=docs.get(f.name, f.name.replace("_", " ")))


def args_from_namespace(cls: type, ns: argparse.Namespace) -> Any:
    """Build ``cls`` from the parsed flags."""
    return cls(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(cls)})


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows as a CSV (header from the first row); an empty file when there are none."""
    with path.open("w", newline="", encoding="utf-8") as f:
        if rows:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


# ---------------------------------------------------------------------- the SB3 trainers
@dataclasses.dataclass
class SB3Args:
    """The settings both SB3 designs share (``vmb train sb3`` flags of the same names)."""

    algo: str = "maskable_ppo"
    """"maskable_ppo" (uses action_masks) or "ppo" (ignores them)"""
    memory: str = "bm25"
    """memory module of the env"""
    timesteps: int = 20_000
    """environment steps of training"""
    out: str = "runs/sb3"
    """output folder"""
    data: str = "generated:train"
    """training data: "generated:train" (the train split, cached), a spec or a folder"""
    train_scenarios: int = 80
    """scenarios of the generated train split to write and use"""
    cache_dir: str = ""
    """where the generated train split is written once ("" = generated/ under the vmb_gym cache root:
    $VMB_CACHE_DIR, else ~/.cache/vmb_gym)"""
    whole_car: float = 0.0
    """share (0-1) of the generated train split's cabin-wide settings (climate, windows, doors, reading lights)
    set for the whole car, said so, gold target "all" (`vmb generate --whole-car`; written to train_N_whole<S>);
    0 = every call at a person's seat"""
    device_requests: float = 0.0
    """share (0-1) of the generated train split's requests that name the device and not its setting ("Put my seat
    back the way I like it"; `vmb generate --device-requests`; written to train_N_device<S>); 0 = the setting"""
    indirect_requests: float = 0.0
    """share (0-1) of the generated train split's requests whose history ties the setting to a situation or a reason
    that name neither the setting nor its device, only that ("My back is acting up again. Put things back the way I
    had them then."; `vmb generate --indirect-requests`; written to train_N_indirect<S>); 0 = the setting"""
    generator_options: str = ""
    """more options of the generated train split: "official" (`vmb generate --like official`: the options measured
    to bring generated tasks close to official files 1-40) or a JSON object of GeneratorOptions fields, e.g.
    '{"valued_near_misses": 0.1, "driver_seat": 0.9}' (written to train_N_opts<hash>); --whole-car,
    --device-requests and --indirect-requests, when set, win; "" = none"""
    train_files: str = ""
    """scenarios of `data` to train on ("" = all)"""
    eval_data: str | None = "default"
    """held-out data spec (None = `data`); "default" = generated test split"""
    eval_files: str = ""
    """held-out scenarios of the eval data ("" = all)"""
    max_steps: int = 5
    """step limit of an episode"""
    seed: int = 0
    """seed of the env cycler, the policy init and PPO sampling"""
    n_envs: int = 0
    """vector envs; 0 = one per training scenario (at most 32; slots: at most 100)"""
    n_steps: int = 64
    """rollout length per env"""
    batch_size: int = 256
    """PPO minibatch size"""
    n_epochs: int = 4
    """PPO epochs per rollout"""
    learning_rate: float = 1e-3
    """Adam learning rate (the reported run used 1e-4)"""
    ent_coef: float = 0.01
    """entropy bonus (the reported run used 0)"""
    gamma: float = 1.0
    """discount (episodes are short and the reward comes at the end)"""
    checkpoint_every: int = 10_000
    """timesteps between checkpoints"""
    eval_episodes: int = -1
    """tasks per policy on each evaluation set (held-out, official): -1 = sized to the run (5 per training
    scenario, at least 10; every task from 100 training scenarios on), 0 = every task (the full
    evaluation), N = the first N"""
    overwrite: bool = False
    """replace an earlier run of this trainer in --out (its outputs are removed first; other files stay); a folder
    holding another command's run (e.g. a vmb eval run) is never written into, not even with --overwrite"""
    progress: bool = True
    """progress bar while evaluating (--no-progress hides it)"""
    torch_threads: int = 1
    """torch CPU threads (1 is fastest on a busy 2-core machine)"""


#: The flags with a fixed set of values.
SB3_CHOICES = {"algo": ["ppo", "maskable_ppo"], "design": ["slots", "catalogue"], "features": ["hashing", "minilm"]}


# ---------------------------------------------------------------------- setup
def check_sb3_args(args: Any) -> None:
    """Refuse settings no run can use, before anything is written.

    Raises:
        ConfigError: ``timesteps`` below 1, ``eval_episodes`` below -1, a negative
            ``train_eval_episodes``, or an unknown ``memory`` (with the close names).
    """
    from vmb_gym.memory.registry import check_memory

    args.memory = check_memory(args.memory)
    if args.timesteps < 1:
        raise ConfigError(f"--timesteps must be a positive number of environment steps, found {args.timesteps}; "
                          "e.g. --timesteps 256 for a smoke run (the default is 20000)")
    if args.eval_episodes < -1:
        raise ConfigError(f"--eval-episodes must be -1 (sized to the run), 0 (every task) or a positive count, "
                          f"found {args.eval_episodes}")
    if getattr(args, "train_eval_episodes", 0) < 0:
        raise ConfigError(f"--train-eval-episodes must be 0 (every training task) or a positive count, "
                          f"found {args.train_eval_episodes}")


def prepare_out(out: Path, overwrite: bool, outputs: Sequence[str], command: str = "vmb train sb3") -> None:
    """Make ``out`` ready for a run of ``command``: the one ``--out`` rule of every ``vmb`` command
    (:func:`vmb_gym.outdir.claim_out`), then ``out/checkpoints``.

    A new or empty folder is claimed (marked as ``command``'s). An earlier run of ``command`` there
    is refused unless ``overwrite``, which removes its ``outputs`` (file or folder names) first, so
    no stale checkpoint is evaluated; other files are kept. A folder holding another command's run
    (a ``vmb eval`` run, another trainer's) is refused even with ``overwrite``.

    Raises:
        ConfigError: ``out`` is a file, holds another command's run, or holds an earlier run (or
            files no command made) without ``overwrite``.
    """
    from vmb_gym.outdir import claim_out

    claim_out(out, command, overwrite=overwrite, outputs=outputs)
    (Path(out) / "checkpoints").mkdir(parents=True, exist_ok=True)


def peak_rss_mib() -> float:
    """The process's peak resident memory so far, MiB (``getrusage(RUSAGE_SELF).ru_maxrss``; KiB on Linux)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # macOS reports bytes


def print_peak_rss(phase: str) -> float:
    """Print ``peak RSS after PHASE: N MiB`` (the training log's memory line) and return N."""
    peak = peak_rss_mib()
    print(f"peak RSS after {phase}: {peak:,.0f} MiB", flush=True)
    return peak


def seed_everything(seed: int, torch_threads: int) -> None:
    """Seed Python, NumPy and torch; set torch's CPU threads (small nets: more threads only add contention)."""
    import random

    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    apply_threads(torch_threads)


#: The file beside a cached generated split that holds :func:`vmb_gym.generator.writer.fingerprint` of what wrote it.
GENERATED_STAMP = "generator_fingerprint.txt"


def train_split_options(scenarios: int, renderer: str = "template", whole_car: float = 0.0,
                        device_requests: float = 0.0, indirect_requests: float = 0.0,
                        extra: Mapping[str, Any] | None = None) -> Any:
    """The generator options of the first ``scenarios`` households of the shipped manifest's train split;
    ``extra`` (:func:`generator_extra`) first, then the three shares where they are set."""
    import vmb_gym
    from vmb_gym.generator import split_options

    manifest_path = Path(vmb_gym.__file__).resolve().parents[1] / "benchmark" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else None
    opts = dataclasses.replace(
        split_options("train", manifest), scenarios=scenarios, renderer=renderer, **(extra or {})
    )
    shares = {"whole_car": whole_car, "device_requests": device_requests, "indirect_requests": indirect_requests}
    return dataclasses.replace(opts, **{k: v for k, v in shares.items() if v})


def generator_extra(spec: str) -> dict[str, Any]:
    """The ``--generator-options`` of a trainer as GeneratorOptions fields: ``""`` none, ``"official"``
    :data:`vmb_gym.generator.OFFICIAL_LIKE`, else a JSON object.

    Raises:
        ConfigError: not JSON, not an object, or a field GeneratorOptions does not have (says which it has).
    """
    from vmb_gym.generator import OFFICIAL_LIKE, GeneratorOptions

    spec = (spec or "").strip()
    if not spec:
        return {}
    if spec == "official":
        return dict(OFFICIAL_LIKE)
    try:
        extra = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--generator-options must be 'official' or a JSON object, got {spec!r} ({exc})") from None
    if not isinstance(extra, dict):
        raise ConfigError(f"--generator-options must be 'official' or a JSON object, got {type(extra).__name__}")
    known = {f.name for f in dataclasses.fields(GeneratorOptions)} - {"seed", "scenarios", "first_scenario_id"}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise ConfigError(f"--generator-options: unknown GeneratorOptions fields {unknown}; known: {sorted(known)}")
    return extra


def generated_train(args: Any, renderer: str = "template") -> Path:
    """The generated train split (first ``args.train_scenarios`` scenarios), written once into ``args.cache_dir``
    (``""``: ``generated/`` under :func:`vmb_gym.cache_root.cache_dir`); an absolute path. ``renderer``: how its
    lines and requests are worded (``"natural"``: requests in the official query style; folder ``train_N_natural``);
    ``args.whole_car`` > 0 sets that share of the cabin-wide settings for the whole car (folder ``train_N_whole<S>``);
    ``args.device_requests`` > 0 makes that share of the requests name the device only (``..._device<S>``), and
    ``args.indirect_requests`` > 0 that share name only a situation or a reason (``..._indirect<S>``).
    A cached split is reused only when its :data:`GENERATED_STAMP` matches the generator's sources and options;
    otherwise it is written again (a changed renderer never trains on stale text)."""
    from vmb_gym.cache_root import cache_dir
    from vmb_gym.generator import generate
    from vmb_gym.generator.writer import fingerprint

    root = Path(args.cache_dir).expanduser() if args.cache_dir else cache_dir() / "generated"
    whole = float(getattr(args, "whole_car", 0.0))
    device = float(getattr(args, "device_requests", 0.0))
    indirect = float(getattr(args, "indirect_requests", 0.0))
    extra = generator_extra(getattr(args, "generator_options", ""))
    name = f"train_{args.train_scenarios}" + ("" if renderer == "template" else f"_{renderer}")
    tag = hashlib.sha256(json.dumps(extra, sort_keys=True).encode()).hexdigest()[:8] if extra else ""
    out = root.resolve() / (name + (f"_whole{whole:g}" if whole else "") + (f"_device{device:g}" if device else "")
                            + (f"_indirect{indirect:g}" if indirect else "") + (f"_opts{tag}" if tag else ""))
    opts = train_split_options(args.train_scenarios, renderer, whole, device, indirect, extra)
    stamp, want = out / GENERATED_STAMP, fingerprint(opts)
    found = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else None
    cached = (out / "qa_data").is_dir()
    if cached and found == want:
        return out
    if cached:
        why = "has no fingerprint" if found is None else "was written by other generator code or options"
        print(f"the cached train split {out} {why}: writing it again", flush=True)
        for sub in ("history", "qa_data", "meta"):  # only what generate() writes
            shutil.rmtree(out / sub, ignore_errors=True)
    generate(opts, out)
    stamp.write_text(want + "\n", encoding="utf-8")
    return out


def train_settings(args: Any) -> dict[str, Any]:
    """The env settings of the training run, kept in the checkpoint's sidecar under ``"settings"``.

    They are the defaults of ``vmb eval --policy sb3:CHECKPOINT`` (the env is built with the
    default tool schema, ``"official"``).
    """
    return {"memory": args.memory, "max_steps": int(args.max_steps), "schema": "official"}


# ---------------------------------------------------------------------- training
def learn_with_log(model: Any, args: Any, out: Path, *, reward_key: str, save: Callable[[Any, Path], Any],
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
                print_progress(self.num_timesteps, time.perf_counter() - self.t0, log_rows[-500:])
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


def print_progress(steps: int, seconds: float, recent: Sequence[Mapping[str, Any]]) -> None:
    """One progress line: ESM, reward and steps of the ``recent`` training episodes."""
    print(f"  {steps:7d} steps  {seconds:6.0f}s  last {len(recent)} "
          f"episodes: ESM {np.mean([r['esm'] for r in recent]):.3f}  "
          f"F1 {np.mean([r['reward'] for r in recent]):.3f}  "
          f"steps {np.mean([r['steps'] for r in recent]):.2f}",
          flush=True)


# ---------------------------------------------------------------------- evaluation and outputs
def eval_limit(requested: int, n_train_scenarios: int) -> int:
    """Tasks per policy on an evaluation set: ``requested`` (0 = every task), or for -1 the size of the run
    (:data:`EVAL_PER_SCENARIO` per training scenario, at least :data:`EVAL_MIN_EPISODES`)."""
    if requested >= 0:
        return requested
    return max(EVAL_MIN_EPISODES, EVAL_PER_SCENARIO * n_train_scenarios)


def evaluate(policy: Any, env: Any, task_ids: Sequence[str], *, desc: str | None = None,
             progress: bool = False) -> list[dict[str, Any]]:
    """Run ``policy`` once on each task of ``env`` (:func:`vmb_gym.policy.run_episode`); one record per episode.

    With ``progress``, a tqdm bar (labelled ``desc``) counts the episodes on a terminal (not in a
    redirected log); it is removed when done.
    """
    from tqdm import tqdm

    from vmb_gym.policy import run_episode

    rows = []
    for tid in tqdm(task_ids, desc=desc, unit="episode", leave=False, disable=None if progress else True,
                    dynamic_ncols=True):
        ep = run_episode(env, policy, task_id=tid)
        rows.append({"task_id": tid, "reasoning_type": ep.reasoning_type, "esm": int(ep.metrics.get("exact_match", 0)),
                     "f1": float(ep.metrics.get("f1_change", 0.0)), "steps": ep.episode.get("steps", 0)})
    return rows


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """ESM and mean value-level F1 of evaluation records, both fractions in [0, 1]."""
    return {"esm": float(np.mean([r["esm"] for r in rows])), "f1": float(np.mean([r["f1"] for r in rows])),
            "episodes": len(rows)}


def format_score(result: Mapping[str, float]) -> str:
    """``ESM 0.100  F1 0.387`` (fractions, the one unit of every vmb command)."""
    return f"ESM {result['esm']:.3f}  F1 {result['f1']:.3f}"


def plot_curve(log_rows: Sequence[Mapping[str, Any]], results: Mapping[str, Mapping[str, Mapping[str, float]]],
               path: Path, title: str) -> None:
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
                ax.axhline(r["esm"], linestyle=style, color=colour, linewidth=1,
                           label=f"{set_name} ESM {name} ({r['esm']:.3f})")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
