"""Long fuzz run of ``VehicleMem-v0.step``: N random actions, zero exceptions allowed.

Each action is drawn from a mix of well-formed calls (random APIs with in-range, out-of-range
and wrong-typed values), malformed JSON and Python-call text, unknown tools, huge strings,
deep nesting, NaN/negative numbers and Unicode. For every action the run checks that

* ``step()`` returned (an exception is a failure, printed with the action that caused it);
* the observation lies in the observation space;
* a rejected action (unreadable, unknown tool, or a call the official semantics reject with
  an ``error`` result) left the car's flattened state unchanged, except for the documented
  partial effects of calls that raise after switching a device on (the official executor keeps
  those: they are recorded in the conformance vectors).

    .venv/bin/python scripts/fuzz.py --actions 1000000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def random_value(rng: np.random.Generator, depth: int = 0) -> object:
    """A random JSON-ish value, sometimes nasty."""
    kind = int(rng.integers(12 if depth < 3 else 8))
    if kind == 0:
        return int(rng.integers(-5, 120))
    if kind == 1:
        return [math.nan, math.inf, -math.inf, -1e308, 0.5, 22.0][int(rng.integers(6))]
    if kind == 2:
        return bool(rng.integers(2))
    if kind == 3:
        return None
    if kind == 4:
        return ["driver", "passenger", "all", "front", "rear", "blue", "Blue", "3D", "主驾", "", " ", "left"][int(rng.integers(12))]
    if kind == 5:
        return "x" * int(rng.integers(0, 5000))
    if kind == 6:
        return "".join(chr(int(c)) for c in rng.integers(0, 0x2FFFF, size=int(rng.integers(1, 12))) if not 0xD800 <= c <= 0xDFFF)
    if kind == 7:
        return int(rng.integers(-(2**62), 2**62))
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 4)))]
    return {str(random_value(rng, 3))[:10]: random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 3)))}


def random_action(rng: np.random.Generator, names: list[str], params: dict[str, list[str]]) -> object:
    """One random action in any of the accepted (or not) forms."""
    kind = int(rng.integers(10))
    name = names[int(rng.integers(len(names)))]
    args = {p: random_value(rng) for p in params.get(name, []) if rng.random() < 0.8}
    if rng.random() < 0.1:
        args["unexpected"] = random_value(rng)
    call = {"name": name, "arguments": args}
    if kind <= 3:
        return call
    if kind == 4:
        return [call, {"name": names[int(rng.integers(len(names)))], "arguments": {}}]
    if kind == 5:
        text = json.dumps(call, default=str)
        cut = int(rng.integers(len(text) + 1))
        return text[:cut]
    if kind == 6:
        return f"{name}(" + ", ".join(f"{k}={json.dumps(v, default=str)[:30]}" for k, v in args.items()) + ")"
    if kind == 7:
        nested: object = call
        for _ in range(int(rng.integers(1, 60))):
            nested = {"name": nested} if rng.random() < 0.5 else [nested]
        return nested
    if kind == 8:
        return random_value(rng)
    return bytes(rng.integers(0, 256, size=int(rng.integers(0, 40))).astype(np.uint8).tolist())


def main() -> int:
    """Run the fuzz loop and print a summary; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=100_000, help="number of actions to send")
    parser.add_argument("--seed", type=int, default=0, help="seed of the action generator")
    parser.add_argument("--data", default="default", help="data spec of the env")
    parser.add_argument("--episode-steps", type=int, default=20, help="steps before a reset")
    args = parser.parse_args()

    import gymnasium as gym
    from tqdm import tqdm

    import vmb_gym  # noqa: F401
    from vmb_gym.vehicle import API_SPECS

    env = gym.make("VehicleMem-v0", data=args.data, memory="bm25", max_steps=args.episode_steps).unwrapped
    names = sorted(API_SPECS) + ["list_module_tools", "search_memory", "finish", "carcontrol_fly", "", "LIST_MODULE_TOOLS"]
    params = {n: [p.name for p in s.params] for n, s in API_SPECS.items()}
    params["list_module_tools"] = ["module_name"]
    params["search_memory"] = ["query", "top_k"]
    rng = np.random.default_rng(args.seed)
    failures = 0
    unchanged_violations = 0
    rejected = 0
    env.reset(seed=args.seed)
    t0 = time.perf_counter()
    for i in tqdm(range(args.actions), desc="fuzz", unit="action", mininterval=1.0):
        action = random_action(rng, names, params)
        before = env.runtime.sim.flatten() if i % 10 == 0 else None
        try:
            obs, _, terminated, truncated, info = env.step(action)
        except Exception as exc:  # the thing this script exists to catch
            failures += 1
            print(f"EXCEPTION at action {i}: {type(exc).__name__}: {exc}\n  action: {str(action)[:300]}")
            env.reset()
            continue
        if not env.observation_space.contains(obs):
            failures += 1
            print(f"observation outside the space at action {i}: {obs[:200]!r}")
        unreadable = info["calls"] and info["calls"][0]["name"] is None
        if unreadable:
            rejected += 1
            if before is not None and env.runtime.sim.flatten() != before:
                unchanged_violations += 1
                print(f"state changed by an unreadable action {i}: {str(action)[:200]}")
        if terminated or truncated:
            env.reset()
    seconds = time.perf_counter() - t0
    print(f"actions: {args.actions:,}  exceptions/bad observations: {failures}  unreadable actions: {rejected:,}  "
          f"state changed by unreadable actions: {unchanged_violations}  ({args.actions / seconds:,.0f} actions/s)")
    return 1 if failures or unchanged_violations else 0


if __name__ == "__main__":
    sys.exit(main())
