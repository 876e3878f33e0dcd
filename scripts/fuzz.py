"""Long fuzz run of ``VehicleMem-v0.step``: N random actions, zero exceptions allowed.

A thin caller of :func:`vmb_gym.testing.bombard`: each action is drawn from a mix of well-formed
calls (random APIs with in-range, out-of-range and wrong-typed values), malformed JSON and
Python-call text, unknown tools, huge strings, deep nesting, NaN/negative numbers and Unicode.
For every action the run checks that

* ``step()`` returned (an exception is a failure, printed with the action that caused it);
* the observation lies in the observation space;
* an unreadable action left the car's flattened state unchanged (checked every 10th action).

    .venv/bin/python scripts/fuzz.py --actions 1000000 --seed 0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    """Run the fuzz loop and print a summary; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=100_000, help="number of actions to send")
    parser.add_argument("--seed", type=int, default=0, help="seed of the action generator")
    parser.add_argument("--data", default="default", help="data spec of the env")
    parser.add_argument("--episode-steps", type=int, default=20, help="steps before a reset")
    args = parser.parse_args()

    import gymnasium as gym

    import vmb_gym  # noqa: F401
    from vmb_gym.testing import bombard

    env = gym.make("VehicleMem-v0", data=args.data, memory="bm25", max_steps=args.episode_steps)
    t0 = time.perf_counter()
    report = bombard(env, args.actions, seed=args.seed, progress=True)
    seconds = time.perf_counter() - t0
    for line in report.failures + report.state_changes:
        print(line)
    print(f"actions: {args.actions:,}  exceptions/bad observations: {len(report.failures)}  "
          f"unreadable actions: {report.rejected:,}  state changed by unreadable actions: {len(report.state_changes)}  "
          f"({args.actions / seconds:,.0f} actions/s)")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
