"""Shared fixtures: the official data folder (one lookup, skipped when absent) and small helpers.

The official VehicleMemBench release is found by :func:`official_dir` alone: ``$VMB_OFFICIAL_DIR``,
else ``../shared/vehiclemembench`` beside the repository. A test that reads it either requests the
``official`` fixture (it is then marked ``needs_shared`` at collection) or carries
``@pytest.mark.needs_shared``; either way it is skipped, with the reason, when the folder is absent,
and ``-m "not needs_shared"`` deselects all of them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Why a test that needs the official data was skipped.
SKIP_REASON = ("official VehicleMemBench data not found: set VMB_OFFICIAL_DIR or place the release "
               "at ../shared/vehiclemembench (a folder with history/ and qa_data/)")


def official_dir() -> Path | None:
    """``$VMB_OFFICIAL_DIR`` or ``../shared/vehiclemembench`` beside the repository, if it holds the release.

    A folder counts when it has both ``history/`` and ``qa_data/``.
    """
    env = os.environ.get("VMB_OFFICIAL_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "vehiclemembench")
    for c in candidates:
        if (c / "history").is_dir() and (c / "qa_data").is_dir():
            return c
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that requests ``official`` as ``needs_shared``; skip them all when the data is absent."""
    present = official_dir() is not None
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if "official" in getattr(item, "fixturenames", ()) and item.get_closest_marker("needs_shared") is None:
            item.add_marker(pytest.mark.needs_shared)
        if not present and item.get_closest_marker("needs_shared") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def official() -> Path:
    """Path of the official release folder; skips the test when it is not available."""
    path = official_dir()
    if path is None:
        pytest.skip(SKIP_REASON)
    return path


TINY_HISTORY = """\
[2025-03-01 08:00] Gary Allen: Morning! I set the seat heating to level 3, my back loves it.
[2025-03-01 08:01] Nina Park: Good for you. I prefer the cabin at 22 degrees when I drive.
[2025-03-01 08:02] Gary Allen: Noted. The panel colour green feels calm to me.
[2025-03-02 19:30] Nina Park: At night I want the ambient light in blue, please remember.
[2025-03-02 19:31] Gary Allen: Sure, blue ambient at night for you then.
[2025-03-03 07:45] Nina Park: Take me to Riverside Library tomorrow, that's my study spot.
"""

TINY_QA = {
    "related_to_vehicle_preference": [
        {
            "gold_memory": "[March 1, 2025] At 8:00 AM, Gary set the seat heating to level 3.",
            "reasoning_type": "preference_conflict",
            "query": "At 8:10 AM, Gary got into the driver's seat: 'Warm my seat the way I like it.'",
            "new_answer": ['carcontrol_seat_set_heating_level(seat="driver", level=3)'],
        },
        {
            "gold_memory": "[March 2, 2025] At 7:30 PM, Nina asked for blue ambient light at night.",
            "reasoning_type": "conditional_constraint",
            "query": "At 9:00 PM, Nina is driving home: 'Set the mood lighting for the night.'",
            "new_answer": ['carcontrol_light_set_ambient_color(color="blue")'],
        },
        {
            "gold_memory": "[March 1, 2025] At 8:01 AM, Nina prefers 22 degrees.",
            "reasoning_type": "coreference_resolution",
            "query": "At 8:30 AM, Nina drives: 'Make the temperature the way I like, and show my study spot route.'",
            "new_answer": [
                'carcontrol_airConditioner_set_temperature(zone="driver", temperature=22)',
                'carcontrol_navigation_navigate_to(destination="Riverside Library")',
            ],
        },
    ]
}


def write_dataset(root: Path, history: str | list[str], items: list, scenario: int = 1) -> Path:
    """Write one scenario in the official layout and return the folder.

    Args:
        root: the dataset folder (created).
        history: the history text, or its lines.
        items: QA items as dicts, or ``(gold_memory, reasoning_type, query, new_answer)`` tuples.
        scenario: the scenario number N of ``history_N.txt`` / ``qa_N.json``.
    """
    import json

    if not isinstance(history, str):
        history = "\n".join(history) + "\n"
    keys = ("gold_memory", "reasoning_type", "query", "new_answer")
    rows = [it if isinstance(it, dict) else dict(zip(keys, it, strict=False)) for it in items]
    (root / "history").mkdir(parents=True, exist_ok=True)
    (root / "qa_data").mkdir(parents=True, exist_ok=True)
    (root / "history" / f"history_{scenario}.txt").write_text(history, encoding="utf-8")
    (root / "qa_data" / f"qa_{scenario}.json").write_text(
        json.dumps({"related_to_vehicle_preference": rows}, indent=2), encoding="utf-8")
    return root


def write_tiny_dataset(root: Path, scenario: int = 1) -> Path:
    """Write the small 3-query dataset (our own text) in the official layout and return its folder."""
    return write_dataset(root, TINY_HISTORY, TINY_QA["related_to_vehicle_preference"], scenario)


@pytest.fixture()
def tiny_data(tmp_path: Path) -> str:
    """A data spec (``official:DIR``) of a 3-query scenario that needs no external files."""
    return "official:" + str(write_tiny_dataset(tmp_path / "tiny"))
