"""The ``vmb`` command line: one module per subcommand.

Each subcommand module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Heavy imports (torch, transformers, stable-baselines3, ``agents``) happen
only inside ``run``, so building the parser is cheap and ``vmb --help`` is fast. A module that
sets ``PASSES_ARGUMENTS = True`` receives the arguments its parser does not know as
``args.extra_argv`` (``vmb train`` hands them to the chosen trainer's own parser).

:func:`main` is the one place that turns a :class:`~vmb_gym.errors.VmbError` (a bad option
value, a missing folder, an unknown memory or policy) into one line on stderr,
``vmb COMMAND: error: MESSAGE``, and exit status 2, for every command: a command's ``run``
simply raises. A full disk (``ENOSPC``/``EDQUOT``, anywhere in a command) is one line too, exit
status :data:`~vmb_gym.outdir.EXIT_DISK_FULL` (74): what was saved where and the exact command
that continues (``--resume``) or starts again (``--overwrite``), see :mod:`vmb_gym.outdir`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from vmb_gym import outdir
from vmb_gym.errors import VmbError
from vmb_gym.progress import show_progress

#: Subcommand name -> module under ``vmb_gym.cli``.
COMMANDS: dict[str, str] = {
    "eval": "eval_cmd",
    "score": "score",
    "regrade": "regrade",
    "generate": "generate",
    "validate-benchmark": "validate_benchmark",
    "memory-audit": "memory_audit",
    "conformance": "conformance",
    "train": "train",
    "eval-stream": "eval_stream",
    "compare": "compare",
    "dashboard": "dashboard",
    "serve": "serve",
    "check": "check",
}


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except for options without one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is argparse.SUPPRESS or action.required:
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="vmb",
        description="vmb_gym: VehicleMemBench as a reinforcement-learning environment.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"vmb_gym.cli.{module_name}")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP,
                           formatter_class=_HelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_run=module.run, _passes=getattr(module, "PASSES_ARGUMENTS", False))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``vmb`` console script."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "_passes", False):
        parser.error("unrecognized arguments: " + " ".join(extra))
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    args.extra_argv = extra
    outdir.forget_claims()
    show_progress()  # the library's progress notes (resuming DIR: ...) as lines on stderr
    try:
        return int(args._run(args) or 0)
    except VmbError as exc:
        print(f"{command_name(args)}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C: what is saved and how to resume, not a traceback
        from vmb_gym.evaluation.interrupt import EXIT_INTERRUPTED, interrupted_message

        print(interrupted_message(command_name(args), exc, sys.argv[1:] if argv is None else argv), file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a full disk: one line, not a traceback; anything else as before
        if not outdir.is_disk_full(exc):
            raise
        return _disk_full(args, exc, argv)


def _disk_full(args: argparse.Namespace, exc: BaseException, argv: list[str] | None) -> int:
    """Print the one line of a full disk (what is saved where, the command that goes on); its exit status."""
    print(outdir.disk_full_message(command_name(args), exc, sys.argv[1:] if argv is None else argv), file=sys.stderr)
    return outdir.EXIT_DISK_FULL


def command_name(args: argparse.Namespace) -> str:
    """``vmb COMMAND`` (``vmb train TRAINER`` for a trainer), the prefix of the command's error lines."""
    return " ".join(["vmb", *(str(p) for p in (getattr(args, "command", None), getattr(args, "trainer", None)) if p)])


def one_line(exc: BaseException) -> str:
    """The error's message on one line (a multi-line message joined with ``" | "``)."""
    return " | ".join(part.strip() for part in str(exc).splitlines() if part.strip()) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
