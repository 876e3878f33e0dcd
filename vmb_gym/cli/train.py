"""``vmb train {sb3,lm,stream,reader,ensemble} ...``: train a policy (or a memory writer) and evaluate it on held-out
data.

The trainers live in ``agents`` and import torch, transformers or stable-baselines3, so this
module imports them only when a trainer runs: ``vmb --help`` and ``vmb train --help`` import
nothing heavy. ``vmb train TRAINER ...`` hands everything after ``TRAINER`` to that trainer's
own parser, built from its ``Args`` (so ``vmb train sb3 --help`` lists every option).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

HELP = ("train a policy (sb3: MaskablePPO over candidate slots, or the flat call catalogue with --design catalogue; "
        "lm: SmolLM2 (or any causal LM) fine-tuned with TRL: SFTTrainer + a LoRA adapter on teacher episodes, then "
        "GRPO on the env's reward; "
        "stream: the learned memory writer of VehicleMemStream-v0) and evaluate it")

#: Set by :func:`vmb_gym.cli.main`: the command accepts arguments its own parser does not know.
PASSES_ARGUMENTS = True


def _add_sb3(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.sb3_slots import add_arguments

    add_arguments(parser)


def _run_sb3(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.common import args_from_namespace
    from vmb_agents.train.sb3_slots import Args, main
    from vmb_gym.errors import VmbError

    try:
        summary = main(args_from_namespace(Args, args))
    except VmbError as exc:
        print(f"vmb train sb3: error: {exc}", file=sys.stderr)
        return 2
    print(f"outputs in {args.out}: final checkpoint {summary['checkpoint']}")
    return 0


def _add_lm(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.lm import add_lm_arguments

    add_lm_arguments(parser)


def _run_lm(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.lm import run_lm

    return int(run_lm(args) or 0)


def _add_stream(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.stream_writer import add_arguments

    add_arguments(parser)


def _run_stream(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.stream_writer import main

    return int(main(list(argv)) or 0)


def _add_reader(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.lm_reader import add_arguments

    add_arguments(parser)


def _run_main(trainer: str, main: Callable[[list[str]], dict[str, Any]], argv: Sequence[str],
              done: Callable[[dict[str, Any]], str]) -> int:
    """Run a trainer's ``main(argv)``: its summary line (``done``) and 0, or its :class:`VmbError` and 2."""
    from vmb_gym.errors import VmbError

    try:
        summary = main(list(argv))
    except VmbError as exc:
        print(f"vmb train {trainer}: error: {exc}", file=sys.stderr)
        return 2
    print(done(summary))
    return 0


def _run_reader(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.lm_reader import main

    return _run_main("reader", main, argv, lambda summary: f"outputs in {args.out}: adapter {args.out}/adapter "
                                                           f"(pick accuracy {summary['pick_accuracy_after']})")


def _add_ensemble(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.slot_ensemble import add_arguments

    add_arguments(parser)


def _run_ensemble(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.slot_ensemble import main

    return _run_main("ensemble", main, argv,
                     lambda summary: f"outputs in {args.out}: merged checkpoint {summary['checkpoint']}")


def _add_self_imitation(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.slot_self_imitation import add_arguments

    add_arguments(parser)


def _run_self_imitation(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.slot_self_imitation import main, parse_args

    return _run_main("self-imitation", lambda a: main(parse_args(a)), argv,
                     lambda summary: f"outputs in {args.out}: checkpoint {summary['checkpoint']} (greedy solved "
                                     f"{summary['greedy_solved']} of {summary['tasks']} training tasks, some "
                                     f"episode {summary['any_solved']})")


def _add_convert(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.convert_checkpoint import add_arguments

    add_arguments(parser)


def _run_convert(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.convert_checkpoint import main

    return _run_main("convert-checkpoint", main, argv, lambda summary: f"converted: {summary['checkpoint']}")


def _add_static_encoder(parser: argparse.ArgumentParser) -> None:
    from vmb_agents.train.static_encoder import add_arguments

    add_arguments(parser)


def _run_static_encoder(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from vmb_agents.train.static_encoder import main

    return _run_main("static-encoder", main, argv, lambda summary: f"outputs in {args.out}: model {args.out}/model "
                                                                   f"(epoch {summary['epoch']})")


@dataclass(frozen=True)
class Trainer:
    """One ``vmb train`` trainer: its one-line help and two functions that import it lazily."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Sequence[str]], int]


#: Trainer name -> how to build its parser and run it (imports happen inside the functions).
TRAINERS: dict[str, Trainer] = {
    "sb3": Trainer("stable-baselines3 MaskablePPO / PPO, slot design by default (see agents/train/sb3_slots.py)",
                   _add_sb3, _run_sb3),
    "lm": Trainer("HF causal LM: TRL SFT with a LoRA adapter on teacher episodes, then TRL GRPO "
                  "(see agents/train/lm.py)", _add_lm, _run_lm),
    "stream": Trainer("the learned memory writer: behaviour cloning, calibration, PPO "
                      "(see agents/train/stream_writer.py)", _add_stream, _run_stream),
    "reader": Trainer("the LM's line reader: SmolLM2 + a LoRA adapter (TRL SFTTrainer) that picks the memory line a "
                      "request's value comes from (see agents/train/lm_reader.py)", _add_reader, _run_reader),
    "ensemble": Trainer("merge slot checkpoints trained with different seeds into one checkpoint whose logits are the "
                        "mean of theirs (see agents/train/slot_ensemble.py)", _add_ensemble, _run_ensemble),
    "self-imitation": Trainer("improve a slot checkpoint with the env's reward alone: keep the episodes the env "
                              "scores solved (greedy or sampled) and fit the policy to them "
                              "(see agents/train/slot_self_imitation.py)", _add_self_imitation, _run_self_imitation),
    "convert-checkpoint": Trainer("rewrite an SB3 zip checkpoint (a pickle; needs --trust-checkpoint) as safetensors + "
                                  "JSON, which load without running code (see agents/train/convert_checkpoint.py)",
                                  _add_convert, _run_convert),
    "static-encoder": Trainer("the static encoder of the dense memories (encoder='static'): MiniLM distilled with "
                              "model2vec, trained with sentence-transformers' MultipleNegativesRankingLoss on "
                              "generated requests and their evidence lines (see agents/train/static_encoder.py)",
                              _add_static_encoder, _run_static_encoder),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one sub-command per trainer; their options are parsed by the trainer in :func:`run`."""
    sub = parser.add_subparsers(dest="trainer", metavar="TRAINER")
    for name, trainer in TRAINERS.items():
        # add_help=False: "vmb train sb3 --help" reaches the trainer's full parser in run().
        sub.add_parser(name, help=trainer.help, description=trainer.help, add_help=False)


def trainer_parser(name: str) -> argparse.ArgumentParser:
    """The full parser of trainer ``name`` (imports the trainer, hence torch)."""
    trainer = TRAINERS[name]
    parser = argparse.ArgumentParser(prog=f"vmb train {name}", description=trainer.help,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    trainer.add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Parse the trainer's own options, run it and print where its outputs went."""
    if args.trainer not in TRAINERS:
        print("choose a trainer: " + ", ".join(f"vmb train {name} --help" for name in TRAINERS))
        return 2
    argv = list(getattr(args, "extra_argv", ()))
    trainer_args = trainer_parser(args.trainer).parse_args(argv)
    return TRAINERS[args.trainer].run(trainer_args, argv)
