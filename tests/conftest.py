"""Shared fixtures: the official data folder (skipped when absent) and small helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def official_dir() -> Path | None:
    """``$VMB_OFFICIAL_DIR`` or ``../shared/vehiclemembench`` beside the repository, if present."""
    env = os.environ.get("VMB_OFFICIAL_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "vehiclemembench")
    for c in candidates:
        if (c / "qa_data").is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def official() -> Path:
    """Path of the official release folder; skips the test when it is not available."""
    path = official_dir()
    if path is None:
        pytest.skip("official VehicleMemBench data not found (set VMB_OFFICIAL_DIR or place ../shared/vehiclemembench)")
    return path
