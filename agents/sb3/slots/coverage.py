"""How often the slot catalogue holds every gold call of a task, and why it misses the others.

A slot policy can only score a task whose gold calls are all among the allowed slots after the
search rounds: that share is the catalogue's ceiling. :func:`task_coverage` runs the search rounds
of one task in a slot env and names, for each gold call that no slot resolves to, what is missing:

- ``api``: the function is none of the API slots;
- ``value``: the function is an API slot, but no value slot resolves to the gold value;
- ``target``: the value is there, but not at the gold seat or zone.

Run it as a script (``python -m vmb_agents.sb3.slots.coverage --data official:DIR --files 1-10``;
``--checkpoint`` reads a trained checkpoint's catalogue, the shipped one by default).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from vmb_agents.sb3.slots.layout import SLOT_SEARCH
from vmb_gym.vehicle import API_SPECS
from vmb_gym.wrappers.catalogue import call_key


@dataclass
class GoldMiss:
    """One gold call that no allowed slot resolves to."""

    name: str
    arguments: dict[str, Any]
    kind: str  # "api", "value" or "target"
    slot_values: list[Any] = field(default_factory=list)  # the values the API's slot offers (kind "value")


@dataclass
class TaskCoverage:
    """Whether every gold call of one task is an allowed slot, and what is missing otherwise."""

    task_id: str
    request: str
    covered: bool
    misses: list[GoldMiss]
    apis: list[str]  # the API slots, in slot order


def miss_kind(gold: Any, analysis: Any, calls: Sequence[Any]) -> GoldMiss:
    """What is missing for one gold call (see the module docstring)."""
    slot = next((a for a in analysis.apis if a.api == gold.name), None)
    if slot is None:
        return GoldMiss(gold.name, dict(gold.arguments), "api")
    values = [v.value for v in slot.values]
    same_value = [c for c in calls if c is not None and c[0]["name"] == gold.name
                  and {k: v for k, v in c[0]["arguments"].items() if k not in selector_names(gold.name)}
                  == {k: v for k, v in gold.arguments.items() if k not in selector_names(gold.name)}]
    kind = "target" if same_value else "value"
    return GoldMiss(gold.name, dict(gold.arguments), kind, values if kind == "value" else [])


def selector_names(api: str) -> set[str]:
    """The argument names of an API that pick a seat or zone."""
    from vmb_agents.reader import selector_param

    sel = selector_param(API_SPECS[api])
    return {sel.name} if sel is not None else set()


def task_coverage(env: Any, task: Any) -> TaskCoverage:
    """Run the search rounds of ``task`` in a slot env (a ``make_slot_env`` env) and check its gold calls."""
    env.reset(options={"task_id": task.task_id})
    mask = env.action_masks()
    rounds = 0
    while mask[SLOT_SEARCH] and rounds < 3:
        env.step(SLOT_SEARCH)
        mask = env.action_masks()
        rounds += 1
    action_env = env
    while not hasattr(action_env, "analysis"):
        action_env = action_env.env
    analysis = action_env.analysis
    calls = [analysis.calls[i] if analysis.calls is not None and mask[i] else None for i in range(len(mask))]
    keys = {c[1] for c in calls[2:] if c is not None}
    misses = [miss_kind(g, analysis, calls) for g in task.gold_calls if call_key(g.name, g.arguments) not in keys]
    return TaskCoverage(task.task_id, task.text, not misses, misses, [a.api for a in analysis.apis])


def coverage(env: Any, tasks: Sequence[Any]) -> list[TaskCoverage]:
    """:func:`task_coverage` of every task."""
    return [task_coverage(env, t) for t in tasks]


def summarise(rows: Sequence[TaskCoverage]) -> dict[str, Any]:
    """The covered share and the misses counted by kind and by function."""
    kinds = Counter(m.kind for r in rows for m in r.misses)
    by_api = Counter(f"{m.kind}:{m.name}" for r in rows for m in r.misses)
    n = len(rows)
    return {"tasks": n, "covered": sum(r.covered for r in rows),
            "share": sum(r.covered for r in rows) / n if n else 0.0,
            "misses": dict(kinds), "by_api": dict(by_api.most_common(25))}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Measure the catalogue's coverage on a data set (prints the summary; ``--out`` writes every row)."""
    import gymnasium as gym

    from vmb_agents.sb3.checkpoint import resolve_checkpoint
    from vmb_agents.sb3.slots.env import make_slot_env
    from vmb_agents.sb3.slots.policy import SlotSB3Policy
    from vmb_gym.data import parse_file_range

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="default")
    parser.add_argument("--files", default="1-10")
    parser.add_argument("--checkpoint", default="slots", help='a slot checkpoint path or a shipped name ("slots")')
    parser.add_argument("--memory", default="bm25")
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--out", default="", help="write every task's row here (JSON lines)")
    args = parser.parse_args(argv)
    catalogue = SlotSB3Policy.load(resolve_checkpoint(args.checkpoint)).catalogue
    base = gym.make("VehicleMem-v0", data=args.data, files=parse_file_range(args.files), memory=args.memory,
                    max_steps=args.max_steps)
    env = make_slot_env(base, catalogue=catalogue)
    rows = coverage(env, list(base.unwrapped.tasks.queries))
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(asdict(r), default=str) + "\n" for r in rows)
    return summary


if __name__ == "__main__":
    main()
