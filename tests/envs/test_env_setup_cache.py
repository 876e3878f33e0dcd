"""What an env computes once and shares (each scenario's characters, the schemas' characters, the system
text) gives the same charset and first observation as computing it afresh."""

from __future__ import annotations

import string

import gymnasium as gym
import orjson

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.envs.task_set import TaskSet, scenario_chars
from vmb_gym.vehicle import MODULE_KEYS, MODULES
from vmb_gym.vehicle.schema import FINISH, LIST_MODULE_TOOLS, SEARCH_MEMORY, all_vehicle_schemas


def direct_charset(tasks: TaskSet, extra: str) -> str:
    chars = set(string.printable) | set(extra)
    for s in tasks.scenarios.values():
        for line in s.lines:
            chars.update(line.text + line.speaker)
        for q in s.queries:
            chars.update(q.text + q.gold_memory + (q.qa.question if q.qa is not None else ""))
    return "".join(sorted(chars - set("\x0b\x0c")))


def test_the_charset_is_the_datas_characters_and_each_scenarios_set_is_kept() -> None:
    tasks = TaskSet.load("default", files=[1, 2])
    assert tasks.charset(extra="€✓") == direct_charset(tasks, "€✓") and "€" in tasks.charset(extra="€")
    s = tasks.scenarios[1]
    assert scenario_chars(s) is scenario_chars(s) and scenario_chars(s) <= set(tasks.charset())


def test_envs_see_the_charset_and_system_text_computed_afresh() -> None:
    bm25, none = (gym.make("VehicleMem-v0", data="default", files=[1], memory=m).unwrapped for m in ("bm25", "none"))
    query = bm25.tasks.queries[0]
    obs, info = bm25.reset(options={"task_id": query.task_id})
    plain, _ = none.reset(options={"task_id": query.task_id})
    modules = "\n".join(f"- {k}: {MODULES[k].DESCRIPTION}" for k in MODULE_KEYS)
    assert obs.endswith("\n\nRequest: " + query.text) and "\n\nAvailable modules:\n" + modules + "\n\n" in obs
    hint = next(p for p in obs.split("\n\n") if "search_memory" in p)  # the memory paragraph, search envs only
    assert plain == obs.replace("\n\n" + hint, "") and "search_memory" not in plain
    assert info["as_of"] == query.as_of.isoformat()
    # the first observation holds the env's own texts, the tasks every request and line
    schemas = orjson.dumps(all_vehicle_schemas("official") + [LIST_MODULE_TOOLS, SEARCH_MEMORY, FINISH]).decode()
    assert "".join(sorted(bm25.observation_space.character_set)) == direct_charset(bm25.tasks, schemas + obs)
