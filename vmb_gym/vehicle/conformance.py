"""Check the simulator against recorded call sequences of the official simulator.

The official release's conformance folder holds ``vectors.jsonl`` (call sequences with each
call's outcome kind and the net exact diff of the flattened state) and ``initial_state.json``.
:func:`check_vectors` replays every vector on a fresh :class:`VehicleSimulator` and reports each
mismatch; it is used by the test suite and by ``python -m vmb_gym.vehicle.conformance DIR``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vmb_gym.vehicle.simulator import MODULES, VehicleSimulator
from vmb_gym.vehicle.state import exact_diff, exact_equal


@dataclass
class ConformanceReport:
    """Outcome of a conformance run."""

    checked: int = 0
    initial_state_ok: bool = True
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    #: Modules whose shared defaults were mutated in place during the run (copy-on-write broken).
    mutated_defaults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the initial state and every vector match and no default was mutated."""
        return self.initial_state_ok and not self.mismatches and not self.mutated_defaults


def mutated_defaults() -> list[str]:
    """Keys of the modules whose shared default values no longer equal their import-time copy.

    Module state is copy-on-write (see :mod:`vmb_gym.vehicle.module`); a non-empty answer means
    an API mutated a stored value in place, which would leak into every later fresh car.
    """
    return [key for key, cls in MODULES.items() if not cls.defaults_intact()]


def _diff_equal(got: dict[str, list[Any]], want: dict[str, list[Any]]) -> bool:
    return got.keys() == want.keys() and all(exact_equal(got[k], want[k]) for k in got)


def check_vector(vector: dict[str, Any]) -> dict[str, Any] | None:
    """Replay one vector; return a mismatch record or ``None`` when it matches."""
    sim = VehicleSimulator()
    before = sim.flatten()
    kinds = []
    for call in vector["calls"]:
        res = sim.call(call["name"], call.get("arguments"), with_state=False)
        kinds.append("error" if "error" in res else ("ok" if res.get("success") else "fail"))
    want_kinds = [r["kind"] for r in vector["results"]]
    diff = exact_diff(before, sim.flatten())
    if kinds == want_kinds and _diff_equal(diff, vector["diff"]):
        return None
    return {"id": vector["id"], "kinds": kinds, "want_kinds": want_kinds, "diff": diff, "want_diff": vector["diff"]}


def check_vectors(folder: str | Path, prefix: str = "") -> ConformanceReport:
    """Replay every vector in ``folder/vectors.jsonl`` whose id starts with ``prefix``."""
    folder = Path(folder)
    report = ConformanceReport()
    initial = json.loads((folder / "initial_state.json").read_text(encoding="utf-8"))
    flat = VehicleSimulator().flatten()
    report.initial_state_ok = list(flat) == list(initial) and _diff_equal(exact_diff(initial, flat), {})
    with (folder / "vectors.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            vector = json.loads(line)
            if not vector["id"].startswith(prefix):
                continue
            report.checked += 1
            mismatch = check_vector(vector)
            if mismatch is not None:
                report.mismatches.append(mismatch)
    report.mutated_defaults = mutated_defaults()
    return report


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``python -m vmb_gym.vehicle.conformance DIR [PREFIX]``."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m vmb_gym.vehicle.conformance CONFORMANCE_DIR [ID_PREFIX]")
        return 2
    report = check_vectors(args[0], args[1] if len(args) > 1 else "")
    for m in report.mismatches[:50]:
        print(json.dumps(m, ensure_ascii=False))
    print(f"checked {report.checked} vectors; initial state ok: {report.initial_state_ok}; "
          f"mismatches: {len(report.mismatches)}; mutated defaults: {report.mutated_defaults or 'none'}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
