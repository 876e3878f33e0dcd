"""Record (or recompute) the slot design's pins: candidate slots, feature rows, imitation demonstrations.

A structural change of the slot design must keep, on a fixed sample of tasks, the
resolved call of every unmasked slot action, the feature vectors and the demonstrations that the
training code's demo collector produces exactly as the code before it gave them.
This script computes them; ``test_pins.py`` compares a fresh run with the stored JSON.

Record against the code before the change (a git worktree ``BASE`` of it, run with this
repository's venv)::

    cd BASE && PYTHONHASHSEED=0 HF_HUB_OFFLINE=1 PYTHONPATH=BASE \\
        REPO/.venv/bin/python REPO/tests/agents/sb3/record_pins.py \\
        --official ../shared/vehiclemembench --out REPO/tests/agents/sb3/data/slot_pins.json

What is pinned:

* a catalogue fitted on 3 generated *train* households (the learned API prior, the companion
  classifier and the line prior, so every feature block is exercised), ``context=2`` as
  ``vmb train sb3`` uses;
* per task (3 per reasoning type of the default benchmark; 4 official tasks when the data is
  there): each state's allowed slot actions with the call key each resolves to, the search
  calls the search action sends, the sha256 of the float32 feature vector, and verbatim the
  feature row of the first allowed call slot after the search rounds. The episode is driven
  deterministically: search while allowed, the lowest allowed call slot, then finish;
* the demonstrations of the train households: per state the sha256 of its features, its mask
  digest, the chosen action and the right slots, plus ``(tasks with a demo, tasks)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

#: Generated train households the catalogue is fitted on and the demonstrations come from.
N_TRAIN = 3
#: Tasks per reasoning type of the default benchmark; official scenarios and tasks sampled.
PER_TYPE = 3
OFFICIAL_FILES = (1, 2)
N_OFFICIAL = 4


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:32]


def _slot_api() -> dict[str, Any]:
    """The slot design's entry points."""
    from vmb_agents.sb3.slots import SLOT_FINISH, SLOT_SEARCH, SlotCatalogue, make_slot_env
    from vmb_agents.sb3.slots.line_prior import LinePrior
    from vmb_agents.train.sb3_slots import collect_slot_demos

    return {"SlotCatalogue": SlotCatalogue, "make_slot_env": make_slot_env, "LinePrior": LinePrior,
            "collect_slot_demos": collect_slot_demos, "FINISH": SLOT_FINISH, "SEARCH": SLOT_SEARCH}


def train_households(out: Path) -> Path:
    """Generate the first :data:`N_TRAIN` scenarios of the train split into ``out``."""
    import vmb_gym
    from vmb_gym.generator import generate, split_options

    manifest_path = Path(vmb_gym.__file__).resolve().parents[1] / "benchmark" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else None
    generate(dataclasses.replace(split_options("train", manifest), scenarios=N_TRAIN), out)
    return out


def fit_catalogue(api: dict[str, Any], train_dir: Path) -> Any:
    """The slot catalogue of ``vmb train sb3`` fitted on the train households (context 2)."""
    from vmb_gym.envs.task_set import TaskSet

    tasks = TaskSet.load(str(train_dir))
    scenarios = [tasks.scenarios[i] for i in sorted(tasks.scenarios)]
    cat_cls, prior_cls = api["SlotCatalogue"], api["LinePrior"]
    prior = prior_cls.fit(prior_cls.examples_from_scenarios(scenarios), seed=0)
    return cat_cls(api_examples=cat_cls.examples_from_tasks(tasks.queries, lambda q: tasks.scenario_of(q).speakers),
                   line_prior=prior, companion_examples=cat_cls.companion_examples_from_scenarios(scenarios),
                   context=2)


def sample_tasks(data: str, files: list[int] | None, per_type: int, limit: int | None = None) -> list[str]:
    """The first ``per_type`` tasks of each reasoning type (in task order), at most ``limit``."""
    from vmb_gym.envs.task_set import TaskSet

    counts: dict[str, int] = {}
    out = []
    for q in TaskSet.load(data, files=files).queries:
        if counts.get(q.reasoning_type, 0) < per_type:
            counts[q.reasoning_type] = counts.get(q.reasoning_type, 0) + 1
            out.append(q.task_id)
    return out[:limit] if limit else out


def _state(env: Any, obs: np.ndarray) -> dict[str, Any]:
    inner = env.env  # SlotActionWrapper
    mask = env.action_masks()
    calls = inner.analysis.calls
    allowed = [[int(i), calls[i][1] if i >= 2 and calls is not None and calls[i] is not None else None]
               for i in np.flatnonzero(mask)]
    return {"allowed": allowed, "features": _digest(np.asarray(obs, dtype=np.float32))}


def record_episode(api: dict[str, Any], env: Any, task_id: str) -> dict[str, Any]:
    """Drive one task deterministically and record every state (see the module docstring)."""
    obs, _ = env.reset(options={"task_id": task_id})
    states, searches = [_state(env, obs)], []
    while env.action_masks()[api["SEARCH"]] and len(searches) < 3:
        obs, _, _, _, info = env.step(api["SEARCH"])
        searches.append(info["slot_call"])
        states.append(_state(env, obs))
    mask = env.action_masks()
    calls = [int(i) for i in np.flatnonzero(mask) if i >= 2]
    row: list[float] = []
    if calls:
        width = env.observation_space.shape[0] // env.action_space.n
        row = [float(x) for x in np.asarray(obs, dtype=np.float32).reshape(-1, width)[calls[0]]]
        obs, _, terminated, truncated, _ = env.step(calls[0])
        states.append(_state(env, obs))
        if not (terminated or truncated):
            env.step(api["FINISH"])
    else:
        env.step(api["FINISH"])
    return {"task_id": task_id, "searches": searches, "states": states, "first_call_row": row}


def record_demos(api: dict[str, Any], catalogue: Any, train_dir: Path) -> dict[str, Any]:
    """The demo collector's output on the train households (one env per household, as training shards)."""
    import gymnasium as gym
    from stable_baselines3.common.monitor import Monitor

    from vmb_gym.envs.task_set import TaskSet

    ids = sorted(TaskSet.load(str(train_dir)).scenarios)

    class _Vec:  # what collect_slot_demos reads of a DummyVecEnv
        envs = [Monitor(api["make_slot_env"](gym.make("VehicleMem-v0", data=str(train_dir), files=[i], memory="bm25",
                                                      max_steps=5), catalogue=catalogue, f1_weight=0.2))
                for i in ids]

    demos = api["collect_slot_demos"](_Vec())
    obs, masks, actions, found, total, rights = (demos[k] for k in range(6))
    return {"found": int(found), "total": int(total), "actions": [int(a) for a in actions],
            "features": [_digest(np.asarray(o, dtype=np.float32)) for o in obs],
            "masks": [_digest(np.asarray(m, dtype=bool)) for m in masks],
            "rights": [[int(i) for i in np.flatnonzero(r)] for r in rights]}


def record(official: str | None) -> dict[str, Any]:
    """Everything the pins hold (see the module docstring)."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401  (registers the env ids)

    api = _slot_api()
    with tempfile.TemporaryDirectory() as tmp:
        train_dir = train_households(Path(tmp) / "train")
        catalogue = fit_catalogue(api, train_dir)
        out: dict[str, Any] = {"demos": record_demos(api, catalogue, train_dir), "episodes": {}}
    sets: list[tuple[str, str, list[int] | None, int | None]] = [("default", "default", None, None)]
    if official:
        sets.append(("official", f"official:{official}", list(OFFICIAL_FILES), N_OFFICIAL))
    for name, data, files, limit in sets:
        env = api["make_slot_env"](gym.make("VehicleMem-v0", data=data, files=files, memory="bm25", max_steps=5),
                                   catalogue=catalogue, f1_weight=0.2)
        per_type = 1 if name == "official" else PER_TYPE
        out["episodes"][name] = [record_episode(api, env, tid) for tid in sample_tasks(data, files, per_type, limit)]
    return out


def main() -> None:
    """Write the pins to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official", default="", help="official data folder ('' = skip the official tasks)")
    parser.add_argument("--out", required=True, help="JSON file to write")
    args = parser.parse_args()
    pins = record(args.official or None)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(pins, separators=(",", ":")) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
