"""Torch's CPU threads for the policies ``vmb eval`` runs (``--threads``) and for :class:`~vmb_agents.llm.hf.HFPolicy`
(``decoding={"threads": N}``).

Torch starts with one thread per physical core. Its OpenMP threads wait for each other at the end of every parallel
region, so when another process takes one of those cores, every matrix product of a decode waits for the thread that
lost its core: beside one busy neighbour on a two-core machine an ``hf:smollm2-vmb`` episode with two threads runs
several times slower than with one. :func:`default_threads`
therefore leaves half the cores free (at least one thread, at most :data:`MAX_DEFAULT_THREADS`), and gives each of
several ``--workers`` processes one thread.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from vmb_gym.errors import ConfigError

__all__ = ["MAX_DEFAULT_THREADS", "apply_threads", "check_threads", "default_threads", "physical_cores"]

log = logging.getLogger(__name__)

#: The most threads :func:`default_threads` gives one process (a 135M-parameter decode gains little beyond it).
MAX_DEFAULT_THREADS = 4


def physical_cores() -> int:
    """Physical cores this process may run on (psutil's count where it is installed, capped by the CPU affinity)."""
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        import psutil

        physical = psutil.cpu_count(logical=False) or allowed
    except ImportError:
        physical = allowed
    return max(1, min(allowed, physical))


def default_threads(workers: int = 1, cores: int | None = None) -> int:
    """Torch threads per process of ``vmb eval``: half the physical ``cores`` (default: :func:`physical_cores`), at
    least 1 and at most :data:`MAX_DEFAULT_THREADS`; 1 when ``workers`` > 1 processes run at once."""
    if workers > 1:
        return 1
    return max(1, min(MAX_DEFAULT_THREADS, (cores or physical_cores()) // 2))


def check_threads(value: Any, what: str = "threads") -> int:
    """``value`` as a thread count.

    Raises:
        ConfigError: not a whole number >= 1 (the message says what to pass).
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{what} must be a whole number of CPU threads >= 1, found {value!r}; fix: give 1 or more "
                          f"(this machine has {physical_cores()} physical cores)")
    return value


def apply_threads(threads: int) -> None:
    """Set torch's intra-op threads to ``threads`` and, where torch still allows it (before its first inter-op
    work), its inter-op threads too. Imports torch.

    Raises:
        ConfigError: ``threads`` is not a whole number >= 1.
    """
    import torch

    check_threads(threads)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    if torch.get_num_interop_threads() != threads:
        try:
            torch.set_num_interop_threads(threads)
        except RuntimeError:  # torch allows it once, before any inter-op work; the intra-op count is what matters
            log.debug("torch inter-op threads already fixed at %d", torch.get_num_interop_threads())
