"""``vmb conformance``: replay the official simulator's recorded call sequences."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "Replay recorded official-simulator call sequences (conformance/vectors.jsonl) and report mismatches."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb conformance``."""
    parser.add_argument("folder", help="folder holding vectors.jsonl and initial_state.json")
    parser.add_argument("--prefix", default="", help="only vectors whose id starts with this")
    parser.add_argument("--show", type=int, default=20, help="how many mismatches to print")


def run(args: argparse.Namespace) -> int:
    """Run the check and print a summary."""
    from vmb_gym.vehicle.conformance import check_vectors

    _check_folder(Path(args.folder))  # a wrong folder: one error line, not a traceback
    report = check_vectors(args.folder, args.prefix)
    for m in report.mismatches[: args.show]:
        print(json.dumps(m, ensure_ascii=False))
    print(f"checked {report.checked} vectors; initial state ok: {report.initial_state_ok}; "
          f"mismatches: {len(report.mismatches)}")
    return 0 if report.ok else 1


#: The files a conformance folder holds (the release's ``conformance/``).
FILES = ("vectors.jsonl", "initial_state.json")


def _check_folder(folder: Path) -> None:
    """Raise a :class:`~vmb_gym.errors.ConfigError` unless ``folder`` holds the conformance files.

    When ``folder/conformance`` holds them (the release root was given), the message names it.
    """
    from vmb_gym.errors import ConfigError

    missing = [name for name in FILES if not (folder / name).is_file()]
    if not missing:
        return
    inner = folder / "conformance"
    if folder.is_dir() and all((inner / name).is_file() for name in FILES):
        raise ConfigError(f"{folder} holds no {' or '.join(missing)} (the release root, not its conformance "
                          f"folder); did you mean {inner}?")
    found = "found no such folder" if not folder.exists() else (
        "found a file, not a folder" if not folder.is_dir() else f"found no {' or '.join(missing)} in it")
    raise ConfigError(f"expected a conformance folder holding {' and '.join(FILES)} (the release's "
                      f"conformance/), {found}: {folder}; fix: give DIR/conformance of the official release")
