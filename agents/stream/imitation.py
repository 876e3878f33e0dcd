"""Warm start of the learned memory writer from evidence labels, and its budget calibration.

:func:`evidence_dataset` features every line of whole timelines with the label "this line is gold
evidence of a request" (only for **training** data), :func:`behaviour_clone_writer` fits the
policy to them (positives oversampled to balance the classes) and :func:`calibrate_keep` shifts
the ``keep`` logit so that the writer fills about the budget; :func:`pacing_prior` records the
margins of the training lines for the length-adaptive threshold (:mod:`vmb_agents.stream.pacing`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vmb_agents.stream.features import LineFeaturizer, line_tokens
from vmb_agents.stream.pacing import PacingPrior
from vmb_gym.envs.vehicle_mem_stream import Chunk, VehicleMemStreamEnv

__all__ = ["behaviour_clone_writer", "calibrate_keep", "evidence_dataset", "keep_margin", "keep_scores",
           "pacing_prior"]


def evidence_dataset(data: Any, files: Sequence[int] | None, featurizer: LineFeaturizer, *,
                     seed: int = 0, chunk_minutes: int = 60) -> dict[str, np.ndarray]:
    """Features and evidence labels of every line of whole timelines (for **training** data only).

    Each line is featurised as :class:`StreamWriteEnv` shows it (text and numeric blocks of its
    chunk, its tokens, the share of chunks streamed before it); the ``budget_left`` feature is
    drawn uniformly at random (the labels do not depend on it, so the warm start learns to ignore
    it and leaves its use to RL). The label is 1 when the line is a gold evidence line of a
    request of its timeline (every request comes after the lines it cites).

    Returns:
        ``{"obs": (n, dim) float32, "labels": (n,) int64, "tokens": (n,) int64, "group": (n,) scenario index,
        "chunk": (n,) chunk index (unique over the dataset)}``.
    """
    env = VehicleMemStreamEnv(data, files=files, chunk_minutes=chunk_minutes)
    rng = np.random.default_rng(seed)
    obs_l, lab_l, tok_l, grp_l, chk_l = [], [], [], [], []
    for g, sid in enumerate(env.scenario_ids):
        _, info = env.reset(options={"scenario_id": sid})
        speakers = tuple(info.get("speakers", ()))
        chunks = [item for item in env.timeline if isinstance(item, Chunk)]
        evidence = {i for item in env.timeline if not isinstance(item, Chunk) for i in item.evidence_line_ids}
        for k, chunk in enumerate(chunks):
            lines = [{"line_id": ln.line_id, "speaker": ln.speaker, "text": ln.text} for ln in chunk.lines]
            feats = featurizer.chunk(lines, speakers)
            for row, ln in zip(feats, lines, strict=True):
                t = line_tokens(ln)
                featurizer.set_budget(
                    row, budget_left=float(rng.uniform()), line_tokens=t, progress=k / max(len(chunks), 1)
                )
                tok_l.append(t)
                lab_l.append(int(ln["line_id"] in evidence))
                grp_l.append(g)
                chk_l.append(len(obs_l))
            obs_l.append(feats)
    dim = featurizer.dim
    return {"obs": np.concatenate(obs_l) if obs_l else np.zeros((0, dim), np.float32),
            "labels": np.asarray(lab_l, dtype=np.int64), "tokens": np.asarray(tok_l, dtype=np.int64),
            "group": np.asarray(grp_l, dtype=np.int64), "chunk": np.asarray(chk_l, dtype=np.int64)}


def behaviour_clone_writer(model: Any, dataset: Mapping[str, np.ndarray], *, epochs: int = 5, seed: int = 0,
                           balance: bool = True, batch_size: int = 256, lr: float = 1e-3) -> dict[str, float]:
    """Fit the policy's keep/skip to the evidence labels (:func:`vmb_agents.sb3.imitation.behaviour_clone`).

    With ``balance`` the positive lines are repeated until both classes weigh the same (evidence
    is about 1% of the lines). Returns the balanced accuracy of the argmax on ``dataset``.
    """
    from vmb_agents.sb3.imitation import behaviour_clone

    obs, labels = dataset["obs"], dataset["labels"]
    idx = np.arange(len(labels))
    pos, neg = idx[labels == 1], idx[labels == 0]
    if balance and len(pos) and len(neg):
        reps = max(1, len(neg) // len(pos))
        idx = np.concatenate([neg, np.tile(pos, reps)])
    masks = np.ones((len(idx), 2), dtype=bool)
    behaviour_clone(model, (obs[idx], masks, labels[idx], int(labels.sum()), len(labels)), epochs=epochs, seed=seed,
                    batch_size=batch_size, lr=lr)
    return keep_scores(model, dataset)


def keep_margin(model: Any, obs: np.ndarray, batch: int = 8192) -> np.ndarray:
    """``logit(keep) - logit(skip)`` of the policy for each row of ``obs``."""
    import torch

    policy = model.policy
    out = []
    with torch.no_grad():
        for start in range(0, len(obs), batch):
            dist = policy.get_distribution(torch.as_tensor(obs[start:start + batch]))
            logits = dist.distribution.logits
            out.append((logits[:, 1] - logits[:, 0]).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def keep_scores(model: Any, dataset: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Keep decisions of the policy's argmax against the labels: accuracy, balanced accuracy, recall, precision, keep
    rate."""
    labels = dataset["labels"]
    keep = keep_margin(model, dataset["obs"]) > 0
    pos = labels == 1
    recall = float(keep[pos].mean()) if pos.any() else float("nan")
    specificity = float((~keep[~pos]).mean()) if (~pos).any() else float("nan")
    return {"accuracy": float((keep == pos).mean()), "balanced_accuracy": (recall + specificity) / 2,
            "recall": recall, "precision": float(pos[keep].mean()) if keep.any() else 0.0,
            "keep_rate": float(keep.mean())}


def calibrate_keep(model: Any, dataset: Mapping[str, np.ndarray], budget_tokens: int, *, fill: float = 0.9) -> float:
    """Shift the ``keep`` logit so that the lines kept fill about ``fill`` x the budget per timeline.

    Finds the margin threshold at which the mean (over the dataset's timelines) of the tokens of
    the lines scoring above it is ``fill * budget_tokens``, and subtracts it from the bias of the
    policy's ``keep`` output. Returns the shift.
    """
    import torch

    margin = keep_margin(model, dataset["obs"])
    tokens, groups = dataset["tokens"].astype(float), dataset["group"]
    n_groups = max(len(np.unique(groups)), 1)
    order = np.argsort(-margin)
    cum = np.cumsum(tokens[order]) / n_groups
    target = fill * budget_tokens
    k = int(np.searchsorted(cum, target, side="right"))
    if k >= len(order):
        threshold = float(margin[order[-1]]) - 1e-3 if len(order) else 0.0
    else:
        threshold = float(margin[order[k]]) if k == 0 else float((margin[order[k - 1]] + margin[order[k]]) / 2)
    with torch.no_grad():
        model.policy.action_net.bias[1] -= threshold
    return threshold


def pacing_prior(model: Any, dataset: Mapping[str, np.ndarray], *, fill: float = 0.9) -> PacingPrior:
    """The pacing prior of the policy on training lines: their margins' token-weighted quantiles, tokens per chunk and
    line."""
    chunk = dataset["chunk"] if "chunk" in dataset else dataset["group"]
    return PacingPrior.fit(keep_margin(model, dataset["obs"]), dataset["tokens"], chunk, fill=fill)
