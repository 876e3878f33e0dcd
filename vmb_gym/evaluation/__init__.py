"""Evaluation runs: episodes to ``results.jsonl``, metrics, reports, plots and failure attribution.

* :mod:`~vmb_gym.evaluation.records`: the ``results.jsonl`` format (append + fsync, crash-safe reading);
* :mod:`~vmb_gym.evaluation.runner`: one env and one policy turning (task, trial) episodes into records;
* :mod:`~vmb_gym.evaluation.run`: :func:`run_evaluation`: the missing episodes, in-process, in a pool or on Ray;
* :mod:`~vmb_gym.evaluation.stream`: ``vmb eval-stream``'s episodes, records and summary (resumable too);
* :mod:`~vmb_gym.evaluation.lock`: one writer per run directory;
* :mod:`~vmb_gym.evaluation.attribution`: why a failed episode failed;
* :mod:`~vmb_gym.evaluation.report`: ``metric.json``, ``report.md`` and the console table;
* :mod:`~vmb_gym.evaluation.plots`: PNG figures (matplotlib, Agg backend);
* :mod:`~vmb_gym.evaluation.regrade`: recompute everything from saved trajectories.

This package never imports :mod:`agents`; policies come in through a factory callable.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vmb_gym.evaluation.attribution import FAILURE_LABELS, attribute
    from vmb_gym.evaluation.records import read_results, scored_calls

#: Public name -> its submodule, imported on first use (PEP 562): ``vmb score`` takes
#: ``evaluation.lock`` without attribution's simulator import.
_HOMES = {"FAILURE_LABELS": "attribution", "attribute": "attribution", "read_results": "records",
          "scored_calls": "records"}


def __getattr__(name: str) -> Any:
    """The public name ``name``, from its submodule."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)

__all__ = ["FAILURE_LABELS", "attribute", "read_results", "scored_calls"]
