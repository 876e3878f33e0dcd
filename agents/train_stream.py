"""Train a keep/skip memory writer for ``VehicleMemStream-v0`` with MaskablePPO and compare it to baselines.

The learned writer sees one streamed line per step (:class:`agents.stream_sb3.StreamWriteEnv`);
requests are served by the fixed rule reader, so only *what to keep* is learned. The reward is
the request F1 (``f1_change``) minus ``memory_cost`` per stored token, with ``memory_cost`` set
so that storing everything is penalised. Training runs in segments; after each the model is
evaluated (deterministically) on fixed evaluation windows, and the baselines (store everything,
store nothing, the rule writer's keep flag) are evaluated on the same windows.

Usage::

    .venv/bin/python -m agents.train_stream --files 1-4 --window-days 10 --timesteps 12000 \
        --out runs/stream_writer --png docs/stream_writer_curve.png

Writes ``curve.csv`` (one row per evaluation: timesteps, writer, reward, write recall/precision,
tokens written, mean F1) and ``model.zip``/``model.json`` under ``--out``, and the PNG.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

FIELDS = ("timesteps", "writer", "episodes", "reward", "mean_f1_change", "mean_esm", "write_recall",
          "write_precision", "tokens_written", "seconds")


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def evaluate(env: Any, choose: Callable[[np.ndarray, Any], int], seeds: Sequence[int]) -> dict[str, Any]:
    """Run one episode per seed with ``choose(obs, env) -> 0/1``; mean figures of the episodes.

    Write recall is pooled over the episodes (stored / streamed gold evidence lines); precision
    is the mean over episodes that stored something.
    """
    t0 = time.perf_counter()
    rewards, f1s, esms, prec, tokens = [], [], [], [], []
    streamed = stored = 0
    for seed in seeds:
        obs, _ = env.reset(seed=int(seed))
        total, done, info = 0.0, False, {}
        while not done:
            obs, r, done, _, info = env.step(choose(obs, env))
            total += r
        st = info["episode_stats"]
        rewards.append(total)
        f1s.append(st.get("mean_f1_change"))
        esms.append(st.get("mean_esm"))
        prec.append(st.get("write_precision"))
        tokens.append(st.get("tokens_written", 0))
        streamed += int(st.get("evidence_streamed", 0))
        stored += int(st.get("evidence_stored", 0))
    return {"episodes": len(seeds), "reward": _mean(rewards), "mean_f1_change": _mean(f1s), "mean_esm": _mean(esms),
            "write_recall": stored / streamed if streamed else None, "write_precision": _mean(prec),
            "tokens_written": _mean(tokens), "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate, write the CSV, checkpoint and plot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="default")
    parser.add_argument("--files", default="1-4", help="scenario numbers of the training/eval windows")
    parser.add_argument("--window-days", type=float, default=10.0)
    parser.add_argument("--memory-cost", type=float, default=5e-4, help="reward cost per stored token")
    parser.add_argument("--timesteps", type=int, default=12_000)
    parser.add_argument("--segments", type=int, default=4, help="evaluations during training")
    parser.add_argument("--eval-seeds", type=int, default=4, help="evaluation windows (seeds 1000, 1001, ...)")
    parser.add_argument("--n-steps", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/stream_writer")
    parser.add_argument("--png", default="docs/stream_writer_curve.png")
    args = parser.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO

    from vmb_gym.data import parse_file_range
    from agents.stream_sb3 import NUMERIC_NAMES, StreamWriteEnv, save_stream_checkpoint

    torch.set_num_threads(1)
    files = parse_file_range(args.files)
    kwargs: dict[str, Any] = {"data": args.data, "files": files, "window_days": args.window_days,
                              "memory_cost": args.memory_cost}
    train_env = StreamWriteEnv(**kwargs)
    eval_env = StreamWriteEnv(featurizer=train_env.featurizer, **kwargs)
    seeds = [1000 + i for i in range(args.eval_seeds)]
    rule_col = train_env.featurizer.hash_dim + NUMERIC_NAMES.index("rule_keep")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []

    def log(step: int, name: str, figures: dict[str, Any]) -> None:
        row = {"timesteps": step, "writer": name, **figures}
        rows.append(row)
        print(json.dumps(row), flush=True)

    baselines = {"store_everything": lambda o, e: 1, "store_nothing": lambda o, e: 0,
                 "rule": lambda o, e: int(o[rule_col] > 0.5)}
    for name, choose in baselines.items():
        log(0, name, evaluate(eval_env, choose, seeds))

    model = MaskablePPO("MlpPolicy", train_env, n_steps=args.n_steps, batch_size=128, n_epochs=4, gamma=0.995,
                        gae_lambda=0.95, ent_coef=0.01, learning_rate=3e-4, seed=args.seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": [64, 64]})

    def learned(o: np.ndarray, e: Any) -> int:
        action, _ = model.predict(o, action_masks=e.action_masks(), deterministic=True)
        return int(action)

    log(0, "learned", evaluate(eval_env, learned, seeds))
    per = max(args.n_steps, args.timesteps // max(args.segments, 1))
    done = 0
    t0 = time.perf_counter()
    while done < args.timesteps:
        model.learn(per, reset_num_timesteps=False)
        done = int(model.num_timesteps)
        log(done, "learned", evaluate(eval_env, learned, seeds))
    train_seconds = time.perf_counter() - t0
    save_stream_checkpoint(model, out / "model", algo="maskable_ppo", featurizer=train_env.featurizer,
                           extra={"stream_kwargs": {**kwargs, "files": files}, "timesteps": done})

    with (out / "curve.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: r.get(k) for k in FIELDS})
    _plot(rows, Path(args.png), args)
    print(f"trained {done} steps in {train_seconds:.0f}s; wrote {out}/curve.csv, {out}/model.zip and {args.png}")
    return 0


def _plot(rows: list[dict[str, Any]], png: Path, args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    png.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    learned = [r for r in rows if r["writer"] == "learned"]
    xs = [r["timesteps"] for r in learned]
    for ax, key, title in zip(axes, ("reward", "write_recall", "tokens_written"),
                              ("episode return (F1 - cost x tokens)", "write recall", "tokens written"), strict=True):
        ax.plot(xs, [r[key] if r[key] is not None else np.nan for r in learned], "o-", label="learned (MaskablePPO)")
        for r, style in zip((r for r in rows if r["writer"] != "learned"), ("--", ":", "-.", "--"), strict=False):
            if r[key] is not None:
                ax.axhline(r[key], linestyle=style, color="grey" if r["writer"] != "rule" else "tab:red", label=r["writer"])
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("training steps (lines)")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Stream writer: files {args.files}, window {args.window_days:g} d, memory_cost {args.memory_cost:g}/token",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
