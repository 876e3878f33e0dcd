"""The simulator reproduces every recorded call sequence of the official simulator."""

from __future__ import annotations

import json
from pathlib import Path

from vmb_gym.vehicle import VehicleSimulator
from vmb_gym.vehicle.conformance import check_vector, check_vectors


def test_all_official_vectors_match(official: Path) -> None:
    report = check_vectors(official / "conformance")
    assert report.checked == 4656
    assert report.initial_state_ok
    assert report.mismatches == [], report.mismatches[:3]
    assert report.mutated_defaults == []  # copy-on-write held over all 4,656 sequences


def test_initial_state_has_341_paths_in_official_order(official: Path) -> None:
    want = json.loads((official / "conformance" / "initial_state.json").read_text(encoding="utf-8"))
    got = VehicleSimulator().flatten()
    assert len(got) == 341
    assert list(got) == list(want)
    assert got == want


def test_checker_detects_a_wrong_outcome() -> None:
    vector = {
        "id": "made_up",
        "calls": [{"name": "carcontrol_HUD_set_height_level", "arguments": {"level": 7}}],
        "results": [{"success": True, "kind": "ok"}],
        "diff": {"HUD.value.height_level": [5, 8]},
    }
    mismatch = check_vector(vector)
    assert mismatch is not None
    assert mismatch["diff"]["HUD.value.height_level"] == [5, 7]
