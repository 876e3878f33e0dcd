"""The ``layered`` writer stores what the layered memory extracts (it used to store nothing)."""

from __future__ import annotations

from datetime import datetime

import pytest

from vmb_agents.stream.factory import make_writer
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.memory import make_memory
from vmb_gym.policy import run_stream_episode

SCENARIOS = (1, 2)


def _env() -> VehicleMemStreamEnv:
    return VehicleMemStreamEnv("default", files=list(SCENARIOS), store="bm25", max_chunk_steps=64)


def _run(spec: str) -> list[tuple[dict, list[dict], dict]]:
    """Per default timeline 1-2: episode stats, the store log and the streamed lines by id."""
    env, writer = _env(), make_writer(spec)
    out = []
    for i, sid in enumerate(env.scenario_ids):
        ep = run_stream_episode(env, writer, seed=i, options={"scenario_id": sid})
        out.append((ep.episode, [op for op in env._store_log if op["op"] == "store"], dict(env._seen)))
    return out


@pytest.fixture(scope="module")
def layered() -> list[tuple[dict, list[dict], dict]]:
    return _run("layered")


def _kept_lines(lines: dict) -> set[int]:
    """The history lines the layered extraction keeps: the revisions of its facts over the whole timeline."""
    mem = make_memory("layered", semantic=False)
    ordered = sorted(lines.values(), key=lambda ln: (ln.timestamp, ln.line_id))
    mem.reset(0, tuple(dict.fromkeys(ln.speaker for ln in ordered)))
    for ln in ordered:
        mem.observe(ln)
    return {r.line_id for f in mem.facts(datetime.max) for r in f.revisions if r.line_id}


def test_layered_writer_stores_the_extraction(layered) -> None:
    nothing = _run("nothing")
    for (stats, stores, _), (none_stats, none_stores, _) in zip(layered, nothing, strict=True):
        assert none_stores == [] and none_stats["store_tokens"] == 0
        assert len(stores) >= 5
        assert stats["store_entries"] == len(stores)
        assert stats["store_tokens"] > 0
        assert stats["write_recall"] > 0.5  # it keeps most of the requests' evidence lines; nothing keeps none
        assert none_stats["write_recall"] == 0.0
    assert sum(s["mean_esm"] for s, _, _ in layered) > sum(s["mean_esm"] for s, _, _ in nothing)


def test_layered_writer_stores_only_lines_the_extraction_keeps(layered) -> None:
    for _, stores, lines in layered:
        stored = {i for op in stores for i in op["line_ids"]}
        kept = _kept_lines(lines)
        assert stored, "the layered writer stored nothing"
        assert stored <= kept, sorted(stored - kept)[:5]
        assert all(op["setting"] for op in stores)  # each store is tagged with its fact's setting
        assert len(stored) < len(lines) / 2  # an extraction, not every line


def test_layered_writer_keeps_its_budget() -> None:
    for stats, stores, _ in _run("layered@300"):
        assert stores
        assert 0 < stats["store_tokens"] <= 300
