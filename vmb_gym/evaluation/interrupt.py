"""What a run says when Ctrl-C stops it: the episodes saved and the command that continues it.

``vmb eval`` and ``vmb eval-stream`` append each finished episode to ``results.jsonl`` as it
ends, so a Ctrl-C loses only the episodes that were running. The runs turn the
``KeyboardInterrupt`` into :class:`RunInterrupted` (still a ``KeyboardInterrupt``, so plain
Python code stops as before) carrying what is saved; the ``vmb`` entry point prints
:func:`interrupted_message` instead of Python's traceback and exits with
:data:`EXIT_INTERRUPTED`, the shell's status for SIGINT.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

__all__ = ["EXIT_INTERRUPTED", "RunInterrupted", "interrupted_message", "resume_command"]

#: Exit status after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run whose finished episodes are saved in ``out``.

    Attributes:
        out: the run directory.
        saved: finished episodes (or scenarios) in its ``results.jsonl``.
        total: how many the run has in all.
        unit: what an episode is called in messages (``"episodes"``, ``"scenarios"``).
    """

    def __init__(self, out: str | Path, saved: int, total: int, unit: str = "episodes") -> None:
        super().__init__(f"interrupted: {saved} of {total} {unit} saved in {out}")
        self.out = Path(out)
        self.saved = int(saved)
        self.total = int(total)
        self.unit = unit


def resume_command(argv: Sequence[str]) -> str:
    """The ``vmb`` command line that continues the run ``argv`` started (``--resume`` added once; ``--overwrite``,
    which would refuse to go with it, dropped)."""
    args = [a for a in argv if a != "--overwrite"]
    if "--resume" not in args:
        args.append("--resume")
    return shlex.join(["vmb", *args])


def interrupted_message(command: str, exc: KeyboardInterrupt, argv: Sequence[str]) -> str:
    """The one line printed after Ctrl-C: what is saved where and how to continue (when a run was stopped)."""
    if not isinstance(exc, RunInterrupted):
        return f"{command}: interrupted (Ctrl-C)"
    return (f"{command}: interrupted (Ctrl-C); {exc.saved} of {exc.total} {exc.unit} finished and saved in "
            f"{exc.out / 'results.jsonl'}; continue with: {resume_command(argv)}")
