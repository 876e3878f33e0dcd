"""The imitation warm start of a masked SB3 policy: fit it to demonstrated actions.

:func:`behaviour_clone` maximises the masked log-probability of the demonstrated actions (or of the
set of right actions per state); :func:`demo_hits` / :func:`accuracy_by_kind` /
:func:`format_accuracy` report how many demonstration states the greedy policy gets right. The
slot design's trainer and the learned stream writer's warm start
(:func:`vmb_agents.stream.imitation.behaviour_clone_writer`) both use it; torch loads on first call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["accuracy_by_kind", "behaviour_clone", "demo_hits", "format_accuracy"]


def behaviour_clone(model: Any, demos: Sequence[Any], *, epochs: int, seed: int, batch_size: int = 128,
                    lr: float = 1e-3, weight_decay: float = 0.0, set_targets: bool = True, min_batches: int = 1,
                    step_kinds: Mapping[str, np.ndarray] | None = None, augment: Any = None) -> dict[str, float]:
    """Warm-start the policy: maximise the masked log-probability of the demonstrated actions.

    ``demos`` is ``(observations, masks, actions, ...)``; with ``set_targets`` and a sixth item
    (per state, every right action: the slot design's ``SlotDemos.rights``), the loss is the
    log-probability of the *set* of right actions, so slots that resolve to the same call are not
    pushed against each other. ``min_batches`` shrinks the minibatch so that an epoch makes at
    least that many updates (a small demo set otherwise gets one update per epoch). ``step_kinds``
    names groups of states (``{"call": bool array, ...}``) whose accuracy is reported beside the
    overall one. ``augment(batch, rng)`` changes a minibatch's observations (a copy) before the update
    (the slot design's feature-group dropout).

    Returns:
        The final greedy accuracy: ``"all"`` and one entry per ``step_kinds`` group.
    """
    import torch

    obs, masks, actions = demos[0], demos[1], demos[2]
    rights = demos[5] if len(demos) > 5 and set_targets else None  # obs: an array or SparseRows (dense rows)
    batch_size = max(1, min(batch_size, -(-len(actions) // max(1, min_batches))))
    policy = model.policy
    policy.set_training_mode(True)
    optim = torch.optim.Adam(policy.parameters(), lr=lr, weight_decay=weight_decay)
    rng = np.random.default_rng(seed)
    accuracy: dict[str, float] = {}
    for epoch in range(epochs):
        order = rng.permutation(len(actions))
        losses = []
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            batch = obs[idx] if augment is None else augment(np.array(obs[idx]), rng)
            dist = policy.get_distribution(torch.as_tensor(batch), action_masks=masks[idx])
            if rights is None:
                loss = -dist.log_prob(torch.as_tensor(actions[idx])).mean()
            else:  # the probability of the set of right slots (equivalent slots do not compete)
                logp = dist.distribution.logits  # normalised, masked log-probabilities
                loss = -torch.logsumexp(logp.masked_fill(~torch.as_tensor(rights[idx]), -1e9), dim=-1).mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
            losses.append(float(loss.detach()))
        if epoch in (0, epochs - 1) or (epoch + 1) % 10 == 0:
            hits = demo_hits(policy, obs, masks, actions, rights)
            accuracy = accuracy_by_kind(hits, step_kinds or {})
            print(f"  behaviour cloning epoch {epoch + 1}: loss {np.mean(losses):.3f}, "  # noqa: T201 - a trainer's progress line
                  f"{format_accuracy(accuracy, step_kinds or {})}", flush=True)
    policy.set_training_mode(False)
    return accuracy


def demo_hits(policy: Any, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray,
              rights: np.ndarray | None) -> np.ndarray:
    """Per demonstration state, whether the greedy action is right (one of ``rights`` when given)."""
    import torch

    chunk = 256  # a state's dense features and the pointer net's activations take ~0.5 MB while scored
    with torch.no_grad():  # (1,024 at once took ~450 MB above the demonstrations in a 24-household run)
        pred = np.concatenate([
            policy.get_distribution(torch.as_tensor(obs[i:i + chunk]), action_masks=masks[i:i + chunk])
            .get_actions(deterministic=True).numpy() for i in range(0, len(actions), chunk)])
    return np.asarray(pred == actions if rights is None else rights[np.arange(len(pred)), pred], dtype=bool)


def accuracy_by_kind(hits: np.ndarray, step_kinds: Mapping[str, np.ndarray]) -> dict[str, float]:
    """The share of right states overall (``"all"``) and within each group of ``step_kinds`` (NaN: empty group)."""
    out = {"all": float(hits.mean()) if len(hits) else float("nan")}
    for kind, where in step_kinds.items():
        out[kind] = float(hits[where].mean()) if where.any() else float("nan")
    return out


def format_accuracy(accuracy: Mapping[str, float], step_kinds: Mapping[str, np.ndarray]) -> str:
    """``demo accuracy 0.704 (call 0.000 of 24 states, ...)``."""
    parts = [f"{kind} {accuracy[kind]:.3f} of {int(where.sum())}" for kind, where in step_kinds.items()]
    return f"demo accuracy {accuracy['all']:.3f}" + (f" ({', '.join(parts)} states)" if parts else "")
