"""Merge slot checkpoints trained with different seeds into one checkpoint that acts as their ensemble.

``vmb train ensemble --members runs/s0/final runs/s1/final runs/s2/final --out runs/ens`` writes
``runs/ens/final.safetensors`` (+ sidecar): one :class:`~vmb_agents.sb3.slots.policy.PointerNet` ``K`` times as
wide, whose hidden layers hold the members' side by side (the second layer block-diagonal) and whose
head is the mean of theirs. Its logits are exactly the mean of the members' logits, so its
deterministic choice is the members' mean-logit vote (and, the log-sum-exp being one constant per
member and state, their mean log-probability vote); its value is the mean of their values. It is an
ordinary slot checkpoint: ``vmb eval --policy sb3:runs/ens/final`` loads it as it loads any.

Members must come from the same catalogue and featuriser (one training split, one line prior):
the merge refuses members whose sidecars differ there, since each member's features would mean
something else. Why merge rather than keep several files: one checkpoint, one forward pass, and no
ensemble code at evaluation time.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch as th

from vmb_agents.sb3.checkpoint import load_checkpoint, save_checkpoint, sidecar_meta, sidecar_path
from vmb_gym.errors import ConfigError
from vmb_gym.outdir import claim_out

#: The merged checkpoint's files in ``--out`` (removed first with ``--overwrite``).
FINAL_FILES = ("final.safetensors", "final.vmb.json", "final.zip", "final.json")

#: Sidecar keys that must be the same in every member (what the features and slots mean).
SHARED_KEYS = ("catalogue", "featurizer")


def check_members(paths: Sequence[str | Path], sidecars: Sequence[dict[str, Any]]) -> None:
    """Refuse fewer than two members, or members whose catalogue or featuriser differ from the first's."""
    if len(paths) < 2:
        raise ConfigError(f"an ensemble needs at least two member checkpoints, found {len(paths)}; fix: pass "
                          "--members with the final checkpoints of two or more seeds")
    for path, sidecar in zip(paths[1:], sidecars[1:], strict=True):
        for key in SHARED_KEYS:
            if sidecar.get(key) != sidecars[0].get(key):
                raise ConfigError(f"{sidecar_path(path)}: its {key!r} differs from {sidecar_path(paths[0])}'s; members "
                                  "must be trained on the same split with the same catalogue settings (only --seed "
                                  "differs); fix: retrain the member with the first member's options")


def merge_extractors(members: Sequence[Any], merged: Any) -> None:
    """Fill the pointer net ``merged`` (hidden ``K * h``) with the ``K`` member nets (hidden ``h`` each)."""
    k = len(members)
    with th.no_grad():
        merged.body[0].weight.copy_(th.cat([m.body[0].weight for m in members], dim=0))
        merged.body[0].bias.copy_(th.cat([m.body[0].bias for m in members]))
        merged.body[2].weight.copy_(th.block_diag(*[m.body[2].weight for m in members]))
        merged.body[2].bias.copy_(th.cat([m.body[2].bias for m in members]))
        merged.head.weight.copy_(th.cat([m.head.weight for m in members], dim=1) / k)
        merged.head.bias.copy_(th.stack([m.head.bias for m in members]).mean(0))
        # the critic reads [mean of rows, max of rows]: member j's block reads its own part of each half
        hidden = members[0].head.weight.shape[1]
        weight = th.zeros_like(merged.critic[0].weight)
        for j, m in enumerate(members):
            rows = slice(j * hidden, (j + 1) * hidden)
            weight[rows, j * hidden:(j + 1) * hidden] = m.critic[0].weight[:, :hidden]
            weight[rows, k * hidden + j * hidden:k * hidden + (j + 1) * hidden] = m.critic[0].weight[:, hidden:]
        merged.critic[0].weight.copy_(weight)
        merged.critic[0].bias.copy_(th.cat([m.critic[0].bias for m in members]))


def merge_models(models: Sequence[Any]) -> Any:
    """One MaskablePPO model acting as the mean-logit ensemble of ``models`` (the first one, rebuilt wider)."""
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy

    base = models[0]
    hidden = sum(int(getattr(m.policy, "pointer_hidden", 64)) for m in models)
    kwargs = {**dict(base.policy_kwargs or {}), "pointer_hidden": hidden}
    policy = SlotPointerPolicy(base.observation_space, base.action_space, lambda _: 0.0, **kwargs)
    merge_extractors([m.policy.mlp_extractor for m in models], policy.mlp_extractor)
    with th.no_grad():
        k = len(models)
        policy.value_net.weight.copy_(th.cat([m.policy.value_net.weight for m in models], dim=1) / k)
        policy.value_net.bias.copy_(th.stack([m.policy.value_net.bias for m in models]).mean(0))
    base.policy = policy
    base.policy_kwargs = kwargs
    return base


def merge_checkpoints(members: Sequence[str | Path], out: str | Path, *, trust_checkpoint: bool = False) -> Path:
    """Merge the slot checkpoints ``members`` into ``out`` (``NAME``); return the weights path
    (``trust_checkpoint``: members may be SB3 zips, pickles that can run code).

    Raises:
        ConfigError: fewer than two members, a missing or non-slot checkpoint, members whose
            catalogue or featuriser differ, or an SB3 zip member without ``trust_checkpoint``.
    """
    loaded = [load_checkpoint(p, design="slots", trust_checkpoint=trust_checkpoint) for p in members]
    sidecars = [sidecar for _, sidecar in loaded]
    check_members(members, sidecars)
    if len({s.get("algo") for s in sidecars}) != 1 or sidecars[0].get("algo") != "maskable_ppo":
        algos = [s.get("algo") for s in sidecars]
        raise ConfigError(f"members must all be maskable_ppo slot checkpoints; found {algos}")
    spaces = [(int(m.action_space.n), tuple(m.observation_space.shape)) for m, _ in loaded]
    if len(set(spaces)) != 1:
        raise ConfigError(
            f"members must have the same action count and feature width (one featuriser version); found "
            f"{dict(zip(map(str, members), spaces, strict=False))}; fix: retrain the older members with this version"
        )
    model = merge_models([m for m, _ in loaded])
    meta = sidecar_meta(sidecars[0])
    meta["ensemble"] = {"members": [str(p) for p in members],
                        "seeds": [getattr(m, "seed", None) for m, _ in loaded]}  # SB3 keeps the training seed
    return save_checkpoint(model, out, design="slots", algo="maskable_ppo", meta=meta)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``vmb train ensemble``."""
    from vmb_gym.outdir import OVERWRITE_HELP

    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--members", nargs="+", required=True,
                        help="two or more slot checkpoints (NAME or NAME.zip) trained with the same options but the "
                             "seed, e.g. runs/s0/final runs/s1/final runs/s2/final")
    parser.add_argument("--out", required=True,
                        help="output folder: the merged checkpoint is written as OUT/final.safetensors + "
                             "OUT/final.vmb.json")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="let members be Stable-Baselines3 zips: pickles, which run any code their author put in "
                             "them (only files from a trusted source)")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Merge the members and print where the merged checkpoint went."""
    parser = argparse.ArgumentParser(prog="vmb train ensemble", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    new = not Path(args.out).exists()
    claim_out(args.out, "vmb train ensemble", overwrite=args.overwrite, outputs=FINAL_FILES)  # the --out rule
    try:
        path = merge_checkpoints(args.members, Path(args.out) / "final", trust_checkpoint=args.trust_checkpoint)
    except ConfigError:  # members refused: a folder made for them goes again
        if new:
            shutil.rmtree(args.out, ignore_errors=True)
        raise
    summary = {"checkpoint": str(path), "members": list(args.members)}
    print(json.dumps(summary, indent=1))
    return summary
