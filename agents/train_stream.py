"""Train a keep/skip memory writer for ``VehicleMemStream-v0`` under a fixed memory budget.

The learned writer sees one streamed line per step (:class:`agents.stream.learned.StreamWriteEnv`);
requests are served by the fixed rule reader, so only *what to keep* is learned. The store is
capped at ``--budget`` tokens per timeline: ``keep`` is masked for a line that does not fit.

1. **Data**: the generated *train* split (:func:`agents.train_sb3.generated_train`, the split the
   SB3 slot trainer uses, written once into ``--cache-dir``). ``--train-files`` are used for
   training, ``--holdout-files`` (other train-split households) for the learning curve and the
   choice of the checkpoint. The generated *test* split (``default``) and the official data are
   never touched here; evaluate on them with ``vmb eval-stream``.
2. **Warm start** (behaviour cloning): every line of the training timelines is labelled "gold
   evidence line of a request" or not (labels of the train split only), the policy imitates the
   labels with the classes balanced, then the ``keep`` logit is shifted so that the writer fills
   about ``--fill`` x the budget on the training timelines (:func:`agents.stream.imitation.calibrate_keep`).
3. **RL fine-tuning**: MaskablePPO with the env's reward (request F1 minus ``--memory-cost`` per
   stored token; 0 by default: the budget is the constraint) on whole training timelines.
4. **Curve**: after the warm start and after each PPO segment the writer is run on the holdout
   timelines, as ``vmb eval-stream`` runs it (:func:`~agents.stream.learned.load_stream_writer`'s
   writer), and so are the baselines at the same budget: store everything (``fifo``: the most
   recent lines that fit), the rule writer (``fifo``) and store nothing. The checkpoint kept as
   ``model.zip`` is the evaluation with the best holdout return (``--keep last`` keeps the last).

Usage::

    OMP_NUM_THREADS=1 .venv/bin/python -m agents.train_stream --budget 2000 --train-files 1-24 \
        --holdout-files 37-40 --timesteps 16000 --out runs/stream_writer --png docs/stream_writer_curve.png

Writes under ``--out``: ``curve.csv`` (one row per evaluation and writer: timesteps, return,
ESM, F1, write recall/precision, stored tokens), ``bc.json`` (warm-start figures),
``model.zip``/``model.json`` (the chosen checkpoint), ``last.zip``/``last.json``, and the PNG.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The trainer's options."""
    parser.add_argument("--data", default="generated:train",
                        help="training data: 'generated:train' (the generated train split, cached) or a data spec")
    parser.add_argument("--train-scenarios", type=int, default=40, help="scenarios of the generated train split")
    parser.add_argument("--cache-dir", default=".cache/vmb_gym")
    parser.add_argument("--train-files", default="1-24", help="scenarios trained on (warm start and PPO)")
    parser.add_argument("--holdout-files", default="37-40", help="other scenarios of the same data: curve and checkpoint choice")
    parser.add_argument("--budget", type=int, default=2000, help="memory budget: stored tokens per timeline")
    parser.add_argument("--fill", type=float, default=0.9, help="calibrate keep to fill this share of the budget")
    parser.add_argument("--bc-epochs", type=int, default=4, help="behaviour-cloning epochs (0: no warm start)")
    parser.add_argument("--memory-cost", type=float, default=0.0, help="reward cost per stored token")
    parser.add_argument("--timesteps", type=int, default=16_000, help="PPO steps (lines) after the warm start")
    parser.add_argument("--segments", type=int, default=4, help="holdout evaluations during PPO")
    parser.add_argument("--n-steps", type=int, default=2048)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--ent-coef", type=float, default=0.0)
    parser.add_argument("--keep", choices=("best", "last"), default="best", help="checkpoint saved as model.zip")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/stream_writer")
    parser.add_argument("--png", default="docs/stream_writer_curve.png")


def main(argv: list[str] | None = None) -> int:
    """Warm start, calibrate, fine-tune, evaluate on the holdout, write the CSV, checkpoints and plot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO

    from agents.stream.factory import make_writer
    from agents.stream.features import LineFeaturizer
    from agents.stream.imitation import behaviour_clone_writer, calibrate_keep, evidence_dataset, keep_scores
    from agents.stream.learned import StreamWriteEnv, load_stream_writer, save_stream_checkpoint
    from agents.train_sb3 import generated_train
    from vmb_gym.data import parse_file_range
    from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv

    torch.set_num_threads(1)
    data = args.data
    if data == "generated:train":
        data = str(generated_train(SimpleNamespace(cache_dir=args.cache_dir, train_scenarios=args.train_scenarios)))
    train_files = parse_file_range(args.train_files)
    holdout_files = parse_file_range(args.holdout_files)
    if set(train_files) & set(holdout_files):
        parser.error("--train-files and --holdout-files overlap")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    featurizer = LineFeaturizer()
    budget = args.budget

    train_env = StreamWriteEnv(data=data, files=train_files, memory_cost=args.memory_cost, memory_budget_tokens=budget,
                               cache_features=True)
    eval_env = VehicleMemStreamEnv(data, files=holdout_files, memory_cost=args.memory_cost, max_chunk_steps=64)
    holdout = list(eval_env.scenario_ids)
    model = MaskablePPO("MlpPolicy", train_env, n_steps=args.n_steps, batch_size=256, n_epochs=4, gamma=0.999,
                        gae_lambda=0.95, clip_range=0.1, ent_coef=args.ent_coef, learning_rate=args.learning_rate,
                        seed=args.seed, verbose=0, device="cpu", policy_kwargs={"net_arch": [64, 64]})

    rows: list[dict[str, Any]] = []

    def log(stage: str, step: int, name: str, figures: dict[str, Any]) -> None:
        row = {"stage": stage, "timesteps": step, "writer": name, **figures}
        rows.append(row)
        print(json.dumps(row), flush=True)

    for spec, name in ((f"everything@{budget}", "store_everything"), (f"rules@{budget}", "rule"),
                       ("nothing", "store_nothing")):
        log("baseline", 0, name, evaluate_writer(eval_env, make_writer(spec), holdout, seed=args.seed))

    stream_kwargs = {"data": data, "files": train_files, "memory_cost": args.memory_cost}
    bc: dict[str, Any] = {"budget_tokens": budget}
    t0 = time.perf_counter()
    if args.bc_epochs > 0:
        dataset = evidence_dataset(data, train_files, featurizer, seed=args.seed)
        bc["lines"], bc["evidence_lines"] = len(dataset["labels"]), int(dataset["labels"].sum())
        bc["after_bc"] = behaviour_clone_writer(model, dataset, epochs=args.bc_epochs, seed=args.seed)
        bc["keep_shift"] = calibrate_keep(model, dataset, budget, fill=args.fill)
        bc["after_calibration"] = keep_scores(model, dataset)
        bc["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({"warm_start": bc}), flush=True)
    (out / "bc.json").write_text(json.dumps(bc, indent=2))

    def save(name: str) -> Path:
        return save_stream_checkpoint(model, out / name, algo="maskable_ppo", featurizer=featurizer, budget_tokens=budget,
                                      extra={"stream_kwargs": stream_kwargs, "timesteps": int(model.num_timesteps),
                                             "bc_epochs": args.bc_epochs, "fill": args.fill})

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

    with (out / "curve.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: r.get(k) for k in FIELDS})
    _plot(rows, Path(args.png), args)
    print(f"PPO: {int(model.num_timesteps) - start} steps in {train_seconds:.0f}s; wrote {out}/curve.csv, "
          f"{out}/model.zip (the {args.keep} evaluation) and {args.png}")
    return 0


def _plot(rows: list[dict[str, Any]], png: Path, args: argparse.Namespace) -> None:
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


if __name__ == "__main__":
    raise SystemExit(main())
