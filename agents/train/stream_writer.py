"""Train a keep/skip memory writer for ``VehicleMemStream-v0`` under a fixed memory budget.

The learned writer sees one streamed line per step (:class:`vmb_agents.stream.learned.StreamWriteEnv`);
requests are served by the fixed rule reader, so only *what to keep* is learned. The store is
capped at ``--budget`` tokens per timeline: ``keep`` is masked for a line that does not fit.

1. **Data**: the generated *train* split (``generated_train`` of the SB3 trainer, the split the
   SB3 slot trainer uses, written once into ``--cache-dir``). ``--train-files`` are used for
   training, ``--holdout-files`` (other train-split households) for the learning curve and the
   choice of the checkpoint. The generated *test* split (``default``) and the official data are
   never touched here; evaluate on them with ``vmb eval-stream``.
2. **Warm start** (behaviour cloning): every line of the training timelines is labelled "gold
   evidence line of a request" or not (labels of the train split only), the policy imitates the
   labels with the classes balanced, then the ``keep`` logit is shifted so that the writer fills
   about ``--fill`` x the budget on the training timelines (:func:`vmb_agents.stream.imitation.calibrate_keep`).
   With ``--pacing`` (default) every saved checkpoint also records the margins of the training
   lines (:func:`vmb_agents.stream.imitation.pacing_prior`): the writer then keeps a line when its
   margin beats a threshold that adapts to the history's length (a budget share per expected
   line, :mod:`vmb_agents.stream.pacing`), so a history twice as long as the training ones does not
   fill the budget halfway.
3. **RL fine-tuning**: MaskablePPO with the env's reward (request F1 minus ``--memory-cost`` per
   stored token; 0 by default: the budget is the constraint) on whole training timelines.
4. **Curve**: after the warm start and after each PPO segment the writer is run on the holdout
   timelines, as ``vmb eval-stream`` runs it (:func:`~vmb_agents.stream.learned.load_stream_writer`'s
   writer), and so are the baselines at the same budget: store everything (``fifo``: the most
   recent lines that fit), the rule writer (``fifo``) and store nothing. The checkpoint kept as
   ``model`` is the evaluation with the best holdout return (``--keep last`` keeps the last).

Usage::

    OMP_NUM_THREADS=1 vmb train stream --budget 2000 --train-files 1-24 \
        --holdout-files 37-40 --timesteps 16000 --out runs/stream_writer

The writer shipped as ``--writer sb3:stream`` (``agents/stream/shipped/``) is retrained with::

    OMP_NUM_THREADS=1 vmb train stream --train-scenarios 80 --train-files 1-40 --holdout-files 79-80 \
        --bc-epochs 4 --timesteps 0 --hash-dim 8 --no-style-features --cue-features \
        --mask-cues hypothetical,elsewhere,question --out runs/stream_writer

(``--mask-cues``: ``keep`` is masked for lines with a hypothetical, another-vehicle or question cue of
the simulator lexicon; behaviour cloning does not see the mask (with ``--timesteps 0`` nothing else
trains), the writer applies it and the sidecar records it.)

Read top to bottom: :class:`Args` (every setting; its field docstrings are the ``--help``), the
holdout evaluation, then :func:`train` (seeding, data, baselines, warm start, PPO, outputs).

Writes under ``--out``: ``curve.csv`` (one row per evaluation and writer: timesteps, return,
ESM, F1, write recall/precision, stored tokens), ``bc.json`` (warm-start figures),
``model.safetensors``/``model.vmb.json`` (the chosen checkpoint), ``last.safetensors``/``last.vmb.json``, and the
curve ``stream_writer_curve.png`` (``--png`` elsewhere).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from vmb_agents.stream.factory import make_writer
from vmb_agents.stream.features import LineFeaturizer
from vmb_agents.stream.imitation import (
    behaviour_clone_writer,
    calibrate_keep,
    evidence_dataset,
    keep_scores,
    pacing_prior,
)
from vmb_agents.stream.learned import StreamWriteEnv, load_stream_writer, save_stream_checkpoint
from vmb_agents.train.common import add_dataclass_arguments, args_from_namespace, generated_train, write_csv
from vmb_gym.data import parse_file_range
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError
from vmb_gym.outdir import claim_out

__all__ = ["FIELDS", "Args", "add_arguments", "evaluate_writer", "main", "plot_curve", "train"]


#: What a run writes into ``--out`` (removed first with ``--overwrite``).
OUTPUTS = ("bc.json", "curve.csv", "stream_writer_curve.png",
           *(f"{name}.{ext}" for name in ("model", "last") for ext in ("safetensors", "vmb.json", "zip", "json")))


@dataclass
class Args:
    """Every setting of a run (the CLI flags have the same names, ``--train-files`` for ``train_files``)."""

    data: str = "generated:train"
    """training data: 'generated:train' (the generated train split, cached) or a data spec"""
    train_scenarios: int = 40
    """scenarios of the generated train split"""
    cache_dir: str = ""
    """where the generated train split is written once ("" = generated/ under the vmb_gym cache root:
    $VMB_CACHE_DIR, else ~/.cache/vmb_gym; the folder `vmb train sb3` uses too)"""
    train_files: str = "1-24"
    """scenarios trained on (warm start and PPO)"""
    holdout_files: str = "37-40"
    """other scenarios of the same data: curve and checkpoint choice"""
    budget: int = 2000
    """memory budget: stored tokens per timeline"""
    fill: float = 1.0
    """share of the budget the writer spends over a timeline (the pacer's target and the keep calibration's; 1.0
    scored above 0.95 and 0.9 on generated validation files 60-80: ESM 0.419, 0.410, 0.395)"""
    hash_dim: int = 256
    """slots of the line's hashed bag of words and bigrams (few: the writer leans on the simulator-vocabulary
    features, which survive a change of wording)"""
    style_features: bool = True
    """read the hashed words and the line-shape features (length, position, chunk size, speaker); false: only
    the simulator-vocabulary features, which carry from generated to real conversations"""
    cue_features: bool = False
    """read the line cues of the simulator lexicon (preference, revision, correction, hypothetical, another car,
    negation, first person, question: vmb_gym.vehicle.lexicon.LINE_CUES)"""
    mask_cues: str = ""
    """comma-separated line cues of the simulator lexicon (LINE_CUES names, e.g. hypothetical,elsewhere,question)
    whose lines the writer never keeps: keep is masked for them in training and in the saved writer"""
    pacing: bool = True
    """adapt the keep threshold to the history's length (a budget share per expected line); false: the
    calibrated argmax keeps"""
    bc_epochs: int = 4
    """behaviour-cloning epochs (0: no warm start)"""
    memory_cost: float = 0.0
    """reward cost per stored token"""
    timesteps: int = 16_000
    """PPO steps (lines) after the warm start"""
    segments: int = 4
    """holdout evaluations during PPO"""
    n_steps: int = 2048
    """PPO rollout length (lines per update)"""
    batch_size: int = 256
    """PPO minibatch size"""
    n_epochs: int = 4
    """PPO passes over each rollout"""
    gamma: float = 0.999
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.1
    """PPO ratio clip"""
    learning_rate: float = 1e-4
    """PPO learning rate"""
    ent_coef: float = 0.0
    """entropy bonus"""
    net_arch: str = "64,64"
    """hidden layer sizes of the policy and value networks, comma-separated"""
    eval_max_chunk_steps: int = 64
    """step budget per chunk of the holdout env (the writers batch their stores within it)"""
    keep: str = "best"
    """checkpoint saved as model.safetensors: 'best' (best holdout return) or 'last'"""
    seed: int = 0
    """seed of the model, the warm start and the holdout episodes"""
    out: str = "runs/stream_writer"
    """output folder"""
    overwrite: bool = False
    """replace an earlier run of this trainer in --out (its outputs are removed first; other files stay); a folder
    holding another command's run (e.g. a vmb eval run) is never written into, not even with --overwrite"""
    png: str = ""
    """curve image ('' = stream_writer_curve.png in --out)"""


# ----------------------------------------------------------------------------------------- evaluation
#: Columns of ``curve.csv``.
FIELDS = ("stage", "timesteps", "writer", "episodes", "reward", "mean_f1_change", "mean_esm", "write_recall",
          "write_precision", "store_tokens", "max_store_tokens", "seconds")


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def evaluate_writer(env: Any, writer: Any, scenario_ids: Sequence[int], *, seed: int = 0) -> dict[str, Any]:
    """Run ``writer`` over whole timelines of ``env`` (``VehicleMemStream-v0``) as ``vmb eval-stream`` does.

    Returns mean figures; write recall is pooled (stored / streamed gold evidence lines);
    ``max_store_tokens`` is the largest active store seen at any step of any timeline.
    """
    t0 = time.perf_counter()
    rewards, f1s, esms, prec, tokens = [], [], [], [], []
    streamed = stored = peak = 0
    for i, sid in enumerate(scenario_ids):
        obs, info = env.reset(seed=seed + i, options={"scenario_id": int(sid)})
        writer.reset(obs, info)
        view, total = dict(info), 0.0
        while True:
            obs, r, term, trunc, info = env.step(writer.act(obs, view))
            total += float(r)
            peak = max(peak, env.store_size()[1])
            view = info
            if term or trunc:
                break
        st = info["episode_stats"]
        rewards.append(total)
        f1s.append(st.get("mean_f1_change"))
        esms.append(st.get("mean_esm"))
        prec.append(st.get("write_precision"))
        tokens.append(st.get("store_tokens", 0))
        streamed += int(st.get("evidence_streamed", 0))
        stored += int(st.get("evidence_stored", 0))
    return {"episodes": len(scenario_ids), "reward": _mean(rewards), "mean_f1_change": _mean(f1s),
            "mean_esm": _mean(esms), "write_recall": stored / streamed if streamed else None,
            "write_precision": _mean(prec), "store_tokens": _mean(tokens), "max_store_tokens": peak,
            "seconds": round(time.perf_counter() - t0, 1)}


# ----------------------------------------------------------------------------------------- training
def warm_start(model: Any, data: str, train_files: Sequence[int], featurizer: LineFeaturizer,
               args: Args) -> tuple[dict[str, Any], dict[str, np.ndarray] | None]:
    """Behaviour cloning on the evidence labels, then the keep calibration to the budget.

    Returns their figures and the training lines' dataset (None without warm start and pacing).
    """
    bc: dict[str, Any] = {"budget_tokens": args.budget}
    t0 = time.perf_counter()
    dataset = evidence_dataset(data, train_files, featurizer, seed=args.seed) if args.bc_epochs > 0 or args.pacing \
        else None
    if args.bc_epochs > 0 and dataset is not None:
        bc["lines"], bc["evidence_lines"] = len(dataset["labels"]), int(dataset["labels"].sum())
        bc["after_bc"] = behaviour_clone_writer(model, dataset, epochs=args.bc_epochs, seed=args.seed)
        bc["keep_shift"] = calibrate_keep(model, dataset, args.budget, fill=args.fill)
        bc["after_calibration"] = keep_scores(model, dataset)
        bc["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({"warm_start": bc}), flush=True)
    return bc, dataset


def train(args: Args) -> int:
    """Warm start, calibrate, fine-tune, evaluate on the holdout, write the CSV, checkpoints and plot."""
    torch.set_num_threads(1)
    net_arch = [int(n) for n in args.net_arch.split(",") if n.strip()]
    data = args.data
    if data == "generated:train":
        data = str(generated_train(args))
    train_files = parse_file_range(args.train_files)
    holdout_files = parse_file_range(args.holdout_files)
    if set(train_files) & set(holdout_files):
        raise ConfigError(f"--train-files {args.train_files} and --holdout-files {args.holdout_files} overlap; "
                          "pick holdout scenarios that are not trained on")
    out = claim_out(args.out, "vmb train stream", overwrite=args.overwrite, outputs=OUTPUTS)  # the --out rule
    featurizer = LineFeaturizer(hash_dim=args.hash_dim, style_features=args.style_features,
                                cue_features=args.cue_features)
    budget = args.budget

    mask_cues = [c.strip() for c in args.mask_cues.split(",") if c.strip()]
    train_env = StreamWriteEnv(data=data, files=train_files, featurizer=featurizer, memory_cost=args.memory_cost,
                               memory_budget_tokens=budget, cache_features=True, mask_cues=mask_cues)
    eval_env = VehicleMemStreamEnv(data, files=holdout_files, memory_cost=args.memory_cost,
                                   max_chunk_steps=args.eval_max_chunk_steps)
    holdout = list(eval_env.scenario_ids)
    model = MaskablePPO(
        "MlpPolicy",
        train_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        learning_rate=args.learning_rate,
        seed=args.seed,
        verbose=0,
        device="cpu",
        policy_kwargs={"net_arch": net_arch},
    )

    rows: list[dict[str, Any]] = []

    def log(stage: str, step: int, name: str, figures: dict[str, Any]) -> None:
        row = {"stage": stage, "timesteps": step, "writer": name, **figures}
        rows.append(row)
        print(json.dumps(row), flush=True)

    for spec, name in ((f"everything@{budget}", "store_everything"), (f"rules@{budget}", "rule"),
                       ("nothing", "store_nothing")):
        log("baseline", 0, name, evaluate_writer(eval_env, make_writer(spec), holdout, seed=args.seed))

    # the generated split by name, not by the cache path it was written to on this machine
    data_name = (
        f"generated:train (train split, {args.train_scenarios} scenarios)" if args.data == "generated:train" else data
    )
    stream_kwargs = {"data": data_name, "files": train_files, "memory_cost": args.memory_cost}
    bc, dataset = warm_start(model, data, train_files, featurizer, args)
    (out / "bc.json").write_text(json.dumps(bc, indent=2))

    def save(name: str) -> Path:
        extra = {"stream_kwargs": stream_kwargs, "timesteps": int(model.num_timesteps), "bc_epochs": args.bc_epochs,
                 "fill": args.fill, "mask_cues": mask_cues}
        if args.pacing and dataset is not None:  # the margins of the model as saved
            extra["pacing"] = pacing_prior(model, dataset, fill=args.fill).to_json()
        return save_stream_checkpoint(
            model, out / name, algo="maskable_ppo", featurizer=featurizer, budget_tokens=budget, extra=extra
        )

    def evaluate_model(stage: str) -> float:
        path = save("last")
        figures = evaluate_writer(eval_env, load_stream_writer(path), holdout, seed=args.seed)
        log(stage, int(model.num_timesteps), "learned", figures)
        return float(figures["reward"] or 0.0)

    best = evaluate_model("warm_start" if args.bc_epochs > 0 else "init")
    save("model")
    per = max(args.n_steps, args.timesteps // max(args.segments, 1))
    start = int(model.num_timesteps)
    t0 = time.perf_counter()
    while int(model.num_timesteps) - start < args.timesteps:
        model.learn(per, reset_num_timesteps=False)
        score = evaluate_model("ppo")
        if args.keep == "last" or score > best:
            best = score
            save("model")
    train_seconds = time.perf_counter() - t0

    write_csv(out / "curve.csv", [{k: r.get(k) for k in FIELDS} for r in rows])
    png = Path(args.png) if args.png else out / "stream_writer_curve.png"
    plot_curve(rows, png, args)
    print(f"PPO: {int(model.num_timesteps) - start} steps in {train_seconds:.0f}s; wrote {out}/curve.csv, "
          f"{out}/model.safetensors (the {args.keep} evaluation) and {png}")
    return 0


def plot_curve(rows: list[dict[str, Any]], png: Path, args: Args) -> None:
    """The holdout curve of the learned writer with the baselines as lines (four panels)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    png.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    learned = [r for r in rows if r["writer"] == "learned"]
    xs = [r["timesteps"] for r in learned]
    styles = {"store_everything": ("--", "grey"), "rule": ("-.", "tab:red"), "store_nothing": (":", "black")}
    for ax, key, title in zip(axes, ("reward", "mean_esm", "write_recall", "store_tokens"),
                              ("holdout return (sum of request F1)", "holdout ESM", "write recall", "stored tokens"),
                              strict=True):
        ax.plot(xs, [r[key] if r[key] is not None else np.nan for r in learned], "o-",
                label="learned (BC warm start, then MaskablePPO)")
        for r in rows:
            if r["writer"] in styles and r[key] is not None:
                style, color = styles[r["writer"]]
                ax.axhline(r[key], linestyle=style, color=color, label=r["writer"])
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("PPO steps (lines) after the warm start")
    axes[-1].axhline(args.budget, color="tab:green", linewidth=0.8, label="budget")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Stream writer at a {args.budget}-token memory budget: trained on generated train files "
                 f"{args.train_files}, holdout files {args.holdout_files} (whole timelines)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field."""
    add_dataclass_arguments(parser, Args, {"keep": ["best", "last"]})


def main(argv: list[str] | None = None) -> int:
    """``vmb train stream`` / ``python -m vmb_agents.train.stream_writer``: parse the flags and :func:`train`."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_arguments(parser)
    return train(args_from_namespace(Args, parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
