"""Progress notes of long library calls (``resuming <dir>: ...``), shown by the ``vmb`` command line.

Library code never prints: it logs these notes at INFO on the :data:`progress_log` logger
(``vmb_gym.progress``). The ``vmb`` command calls :func:`show_progress` once, which writes each note
as a plain line on stderr; Python callers see them when they configure :mod:`logging` (for example
``logging.basicConfig(level=logging.INFO)``), or call :func:`show_progress` themselves.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["progress_log", "show_progress"]

#: The logger of the progress notes.
progress_log = logging.getLogger("vmb_gym.progress")


class _StderrLines(logging.Handler):
    """Each record's message as one line on the ``sys.stderr`` of the moment (a test's capture included)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(record.getMessage() + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging's contract: a failing handler reports, never raises
            self.handleError(record)


def show_progress() -> None:
    """Write the progress notes to stderr as plain lines, and only there (idempotent)."""
    if not any(isinstance(h, _StderrLines) for h in progress_log.handlers):
        progress_log.addHandler(_StderrLines())
    progress_log.setLevel(logging.INFO)
    progress_log.propagate = False
