"""Benchmark vmb_gym: scoring, env steps, resets, memory ingestion and search, peak memory.

Prints one table. Run it on the machine you care about; targets (from the issues) are shown
beside each number:

    .venv/bin/python scripts/bench.py [--data official:../shared/vehiclemembench] [--memory bm25,hybrid]

Every number is measured here, nothing is hard-coded. Scoring, step and reset timings are CPU
time of this process (medians of repeats for scoring), so time stolen by other tenants of a shared
VM does not count; memory timings are wall-clock.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.process_time()  # CPU time: steal and waits on a shared VM do not count
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def bench_scoring(queries: list, repeats: int) -> float:
    """Seconds per task for the full scoring path (fresh worlds, gold and predicted calls executed)."""
    from vmb_gym.scoring.scorer import score_task

    def run() -> None:
        for q in queries:
            score_task(q, q.gold_calls)

    run()  # warm the gold caches the scorer keeps, as a long eval would
    return _median_time(run, repeats) / len(queries)


def bench_env(data: str, steps: int) -> tuple[float, float]:
    """(vehicle-call steps per second, seconds per reset of a cached scenario)."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    env = gym.make("VehicleMem-v0", data=data, max_steps=20).unwrapped
    env.reset(seed=0)
    calls = [
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
        {"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", "temperature": 21}},
        {"name": "carcontrol_light_set_ambient_color", "arguments": {"color": "blue"}},
        {"name": "carcontrol_HUD_set_height_level", "arguments": {"level": 4}},
    ]
    t0 = time.process_time()
    for i in range(steps):  # episodes of 10 calls, resets included, as in training
        if i % 10 == 0:
            env.reset()
        env.step(calls[i % 4])
    step_rate = steps / (time.process_time() - t0)
    task_ids = [q.task_id for q in env.tasks.queries]
    for tid in task_ids:  # warm the per-task caches
        env.reset(options={"task_id": tid})
    n = 2000
    t0 = time.process_time()
    for i in range(n):
        env.reset(options={"task_id": task_ids[i % len(task_ids)]})
    reset_time = (time.process_time() - t0) / n
    return step_rate, reset_time


def bench_memory(name: str, scenarios: list, searches: int, offset: int = 0) -> tuple[float, float]:
    """(ingestion seconds per scenario, seconds per search) for one memory module."""
    from vmb_gym.memory import make_memory

    module = make_memory(name)
    t0 = time.perf_counter()
    for s in scenarios:
        module.ingest(s)
    ingest = (time.perf_counter() - t0) / len(scenarios)
    scenario = scenarios[-1]
    module.ingest(scenario)
    if not module.provides_search:
        return ingest, float("nan")
    # Distinct texts never searched before in this process (history lines as free-text queries,
    # a different slice per module: modules share one query encoder and its cache), so every
    # search pays for its own encoding.
    texts = list(dict.fromkeys(ln.text for ln in scenario.lines))[offset * searches:(offset + 1) * searches]
    as_of = scenario.lines[-1].timestamp  # the whole history is visible
    module.search("warm-up: load the query encoder", as_of=as_of, top_k=10)  # model loading is not search time
    t0 = time.perf_counter()
    for text in texts:
        module.search(text, as_of=as_of, top_k=10)
    return ingest, (time.perf_counter() - t0) / len(texts)


def main() -> int:
    """Run the benchmarks and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="default", help="data spec: default, official:DIR or a folder")
    parser.add_argument("--memory", default="bm25,dense,hybrid,layered",
                        help="comma-separated memory modules to time (dense models are slow to ingest on CPU)")
    parser.add_argument("--memory-scenarios", type=int, default=3, help="scenarios ingested per memory module")
    parser.add_argument("--steps", type=int, default=50_000, help="vehicle-call env steps to time")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of the scoring run (median taken)")
    args = parser.parse_args()

    from vmb_gym.data import load_scenarios

    t0 = time.perf_counter()
    scenarios = load_scenarios(args.data)
    load_s = time.perf_counter() - t0
    queries = [q for s in scenarios for q in s.queries]
    rows: list[tuple[str, str, str]] = []
    rows.append(("data", f"{len(scenarios)} scenarios, {len(queries)} tasks ({args.data})", ""))
    rows.append(("load time (first load)", f"{load_s:.2f} s", ""))
    per_task = bench_scoring(queries, args.repeats)
    rows.append(("scoring per task (gold replay, executed)", f"{per_task * 1e6:.1f} us", "<= 28 us"))
    step_rate, reset_t = bench_env(args.data, args.steps)
    rows.append(("env vehicle-call steps/s", f"{step_rate:,.0f}", ">= 50,000"))
    rows.append(("env reset (cached scenario)", f"{reset_t * 1e6:.1f} us", "<= 50 us"))
    for i, name in enumerate(m for m in args.memory.split(",") if m):
        try:
            ingest, search = bench_memory(name, scenarios[: args.memory_scenarios], 200, offset=i)
        except Exception as exc:  # a missing optional backend must not stop the other numbers
            rows.append((f"memory {name}", f"unavailable ({type(exc).__name__}: {exc})"[:90], ""))
            continue
        target = {"bm25": "<= 1 ms", "dense": "<= 2 ms"}.get(name, "")
        rows.append((f"memory {name}: ingestion per scenario", f"{ingest * 1e3:.1f} ms", ""))
        rows.append((f"memory {name}: search latency", f"{search * 1e3:.3f} ms", target))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(("peak memory (RSS)", f"{peak:.0f} MiB", ""))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':<40}  target")
    print("-" * (width + 56))
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<40}  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
