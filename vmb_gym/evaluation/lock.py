"""One writer per run directory: an exclusive ``flock`` on ``OUT/.lock`` that holds the writer's PID.

``vmb eval``, ``vmb eval-stream`` and ``vmb score`` take the lock before they write into
``--out`` and keep it until they are done. A second process on the same folder stops at once
with a :class:`~vmb_gym.errors.ConfigError` naming the PID that holds it. The kernel releases
an ``flock`` when its process dies, so the lock file a killed run leaves behind (its PID dead)
does not block ``--resume``: the next run simply takes the lock and writes its own PID.

Example:
    >>> with OutLock("runs/oracle"):                                      # doctest: +SKIP
    ...     ...  # write results.jsonl
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from vmb_gym.errors import ConfigError

__all__ = ["LOCK_FILE", "OutLock"]

#: The lock file inside a run directory.
LOCK_FILE = ".lock"


def _holder(fd: int) -> str:
    """The PID written in the lock file (``"unknown"`` when unreadable)."""
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return "unknown"
    return text or "unknown"


class OutLock:
    """An exclusive lock on a run directory, held from :meth:`acquire` (or ``with``) to :meth:`release`.

    Args:
        out: the run directory (created when missing).
        command: the command named in the error message (``vmb eval``, ...).
    """

    def __init__(self, out: str | os.PathLike[str], command: str = "vmb") -> None:
        self.out = Path(out)
        self.path = self.out / LOCK_FILE
        self.command = command
        self._fd: int | None = None

    def acquire(self) -> OutLock:
        """Take the lock at once or fail.

        Raises:
            ConfigError: another live process holds the lock on this directory.
        """
        if self._fd is not None:
            return self
        self.out.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(fd)
            os.close(fd)
            raise ConfigError(f"{self.out} is being written by another process (PID {pid}, lock {self.path}); "
                              f"expected no other writer; fix: wait for it to finish (or stop it), then run "
                              f"{self.command} again (with --resume to continue), or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Let the lock go (the file stays; an unlocked file blocks nobody)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> OutLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
