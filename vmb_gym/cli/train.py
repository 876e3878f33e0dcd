"""``vmb train {sb3,lm} ...``: train an SB3 policy or a language-model policy and evaluate it on held-out data."""

from __future__ import annotations

import argparse

HELP = ("train a policy (sb3: MaskablePPO over candidate slots, or the flat call catalogue with --design catalogue; "
        "lm: supervised warm start on oracle trajectories, then GRPO with the env's reward) and evaluate it")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``sb3`` trainer and its flags (those of ``agents/train_sb3.py``)."""
    from agents.train_sb3 import add_arguments as add_sb3_arguments

    sub = parser.add_subparsers(dest="trainer", metavar="TRAINER")
    sb3 = sub.add_parser("sb3", help="stable-baselines3 MaskablePPO / PPO, slot design by default (see agents/train_sb3.py)",
                         formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_sb3_arguments(sb3)
    from agents.train_lm import add_lm_arguments

    lm = sub.add_parser("lm", help="HF causal LM: SFT on oracle trajectories, then GRPO (see agents/train_lm.py)",
                        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_lm_arguments(lm)


def run(args: argparse.Namespace) -> int:
    """Run the chosen trainer; print where its outputs went."""
    if args.trainer == "lm":
        from agents.train_lm import run_lm

        return int(run_lm(args) or 0)
    if args.trainer != "sb3":
        print("choose a trainer: vmb train sb3 --help or vmb train lm --help")
        return 2
    from agents.train_sb3 import args_from_namespace, main

    summary = main(args_from_namespace(args))
    print(f"outputs in {args.out}: final checkpoint {summary['checkpoint']}")
    return 0
