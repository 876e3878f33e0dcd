"""The slot design's candidate slots, feature rows and demonstrations are pinned, task by task.

``data/slot_pins.json`` and ``data/slot_pins_alt.json`` hold what ``record_pins.py`` records (see that script for
how to re-record): for 15 default tasks (3 per reasoning type) and, when the official data is there, official
tasks, the resolved call of every allowed slot action, the search calls, the feature vectors (sha256 of their
float32 bytes, one row verbatim) and the imitation demonstrations. The tests run the same recording on the current
code, and each part (default episodes, official episodes, demonstrations) must equal one of the two recordings, so
any change to what the catalogue offers or what the featuriser computes fails here. Re-record both files, with the
same command, only for a change that is meant; a change to the rules reader's candidates counts, since the
catalogue reads them (``vmb_agents.sb3.slots.analysis.rules_candidates``).

The two recordings come from the same code: ``slot_pins.json`` on a machine with AVX-512, ``slot_pins_alt.json``
with numpy, OpenBLAS and torch held to AVX2 (``NPY_DISABLE_CPU_FEATURES`` of the AVX-512 features,
``OPENBLAS_CORETYPE=Haswell``, ``ATEN_CPU_CAPABILITY=avx2``), a stand-in for CI machines without AVX-512. They differ
in one default task, ``1_5``, whose first search round's fourth query is a near-tie between two APIs ("zoom" or
"ac mode") that falls either way with the CPU's float kernels; their demonstrations and official episodes are equal.
So the default part may differ from the closest recording in that one task.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import official_dir

HERE = Path(__file__).resolve().parent
PINS = json.loads((HERE / "data" / "slot_pins.json").read_text(encoding="utf-8"))
PINS_ALT = json.loads((HERE / "data" / "slot_pins_alt.json").read_text(encoding="utf-8"))


def _matches_one(check: Any, *alternatives: Any) -> None:
    """``check(part)`` passes for one of ``alternatives`` (the recordings' parts); else the first one's failure."""
    for alt in alternatives:
        try:
            check(alt)
            return
        except AssertionError:
            pass
    check(alternatives[0])  # report against the first recording


def _recorder() -> Any:
    spec = importlib.util.spec_from_file_location("record_pins", HERE / "record_pins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    """The pins recomputed with the current code (official tasks too when the data is there)."""
    official = official_dir()
    return _recorder().record(str(official) if official else None)


def _compare_task(a: dict[str, Any], b: dict[str, Any]) -> None:
    tid = a["task_id"]
    assert b["searches"] == a["searches"], f"{tid}: the search action's calls changed"
    assert len(b["states"]) == len(a["states"]), f"{tid}: the episode took another number of steps"
    for k, (sa, sb) in enumerate(zip(a["states"], b["states"], strict=True)):
        assert sb["allowed"] == sa["allowed"], f"{tid} state {k}: allowed slots or their resolved calls changed"
        assert sb["features"] == sa["features"], f"{tid} state {k}: the feature vector changed"
    assert b["first_call_row"] == a["first_call_row"], f"{tid}: the first call slot's feature row changed"


def _compare_episodes(old: list[dict[str, Any]], new: list[dict[str, Any]], *, near_ties: int = 0) -> None:
    """Every task as recorded, except at most ``near_ties`` of them (then the first failure is raised)."""
    assert [e["task_id"] for e in new] == [e["task_id"] for e in old]
    failures: list[AssertionError] = []
    for a, b in zip(old, new, strict=True):
        try:
            _compare_task(a, b)
        except AssertionError as error:
            failures.append(error)
    if len(failures) > near_ties:
        raise failures[0]


def test_candidate_slots_and_features_on_the_default_benchmark(fresh: dict[str, Any]) -> None:
    assert len(PINS["episodes"]["default"]) == len(PINS_ALT["episodes"]["default"]) == 15  # 3 per reasoning type
    # one task of 15 may differ from the closest recording: a near-tie between two APIs (task 1_5) falls either
    # way with the CPU's float kernels; the code before the rules changes moves 2+ tasks of every recording
    _matches_one(lambda old: _compare_episodes(old, fresh["episodes"]["default"], near_ties=1),
                 PINS["episodes"]["default"], PINS_ALT["episodes"]["default"])


@pytest.mark.needs_shared
def test_candidate_slots_and_features_on_official_tasks(fresh: dict[str, Any]) -> None:
    _matches_one(lambda old: _compare_episodes(old, fresh["episodes"]["official"]), PINS["episodes"]["official"],
                 PINS_ALT["episodes"]["official"])


def _compare_demos(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert (new["found"], new["total"]) == (old["found"], old["total"]) == (29, 30)
    assert new["actions"] == old["actions"]
    assert new["rights"] == old["rights"]
    assert new["masks"] == old["masks"]
    assert new["features"] == old["features"]


def test_imitation_demonstrations(fresh: dict[str, Any]) -> None:
    _matches_one(lambda old: _compare_demos(old, fresh["demos"]), PINS["demos"], PINS_ALT["demos"])
