"""Batched greedy evaluation of a chat policy: ``batch`` envs stepped together, one ``generate`` per turn.

:func:`evaluate_batched` runs each task once on its own ``VehicleMem-v0`` slot; every turn, the
requests of all running slots go to the policy's :meth:`~vmb_agents.llm.chat.ToolChatPolicy.act_batch`
(one left-padded ``generate`` with the KV cache for :class:`~vmb_agents.llm.hf.HFPolicy`), and a slot
whose episode ended takes the next task. The figures per task are the env's own episode metrics
(``exact_match``, ``f1_change``, ...), the ones ``vmb eval`` writes to ``results.jsonl``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.llm.compact_view import VEHICLE_PREFIX
from vmb_gym.errors import ConfigError

__all__ = ["evaluate_batched", "summarise_episodes"]


def evaluate_batched(policy: Any, data: str, task_ids: Sequence[str], *, memory: str = "bm25", batch: int = 8,
                     max_steps: int = 20, progress: bool = True, desc: str = "eval",
                     traces: bool = False) -> list[dict[str, Any]]:
    """One greedy episode per task; a row per task with its metrics, calls and timing (``traces``: and its
    transcript, ``messages``).

    Raises:
        ConfigError: ``batch`` below 1.
    """
    from tqdm.auto import tqdm

    if batch < 1:
        raise ConfigError(f"batch must be a positive number of envs, found {batch}")
    todo = list(task_ids)
    envs = [gym.make("VehicleMem-v0", data=data, memory=memory, max_steps=max_steps)
            for _ in range(min(batch, len(todo)))]
    slots: list[dict[str, Any] | None] = [None] * len(envs)
    obs: list[str] = [""] * len(envs)
    infos: list[dict[str, Any]] = [{} for _ in envs]
    rows: list[dict[str, Any]] = []
    bar = tqdm(total=len(todo), desc=desc, disable=not progress, leave=False)
    started = time.monotonic()

    def start(i: int) -> None:
        task_id = todo.pop(0)
        obs[i], infos[i] = envs[i].reset(options={"task_id": task_id})
        slots[i] = {"task_id": task_id, "calls": [], "started": time.monotonic()}

    for i in range(len(envs)):
        start(i)
    while any(s is not None for s in slots):
        # every slot, every turn: the policy keeps one episode state per position (a finished slot's
        # final info, which has "metrics", makes it answer without the model)
        actions = policy.act_batch(obs, infos)
        for i, action in enumerate(actions):
            slot = slots[i]
            if slot is None:
                continue
            obs[i], _, terminated, truncated, infos[i] = envs[i].step(action)
            slot["calls"] += [c.get("name") for c in infos[i].get("calls") or []]
            if terminated or truncated:
                state = policy.batch_states[i] if i < len(getattr(policy, "batch_states", [])) else None
                rows.append(_row(slot, infos[i], dict(state.stats) if state else {}))
                if traces:
                    rows[-1]["messages"] = list(state.messages) if state else []
                bar.update(1)
                slots[i] = None
                if todo:
                    start(i)
    bar.close()
    for env in envs:
        env.close()
    seconds = time.monotonic() - started
    for row in rows:
        row["batch_seconds_per_episode"] = seconds / max(1, len(rows))
    return rows


def _row(slot: dict[str, Any], info: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    metrics = dict(info.get("metrics") or {})
    calls = [str(c) for c in slot["calls"] if c]
    return {"task_id": slot["task_id"], **{k: v for k, v in metrics.items() if isinstance(v, (int, float, bool))},
            "turns": int(stats.get("turns", 0)), "parse_errors": int(stats.get("parse_errors", 0)),
            "stop_reason": stats.get("stop_reason"), "completion_tokens": int(stats.get("completion_tokens", 0)),
            "vehicle_calls": sum(c.startswith(VEHICLE_PREFIX) for c in calls),
            "memory_searches": calls.count("search_memory"), "calls": calls,
            "seconds": time.monotonic() - slot["started"]}


def summarise_episodes(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """ESM, value-level F1, the share of episodes with a vehicle call and seconds per episode."""
    n = max(1, len(rows))
    return {
        "tasks": len(rows),
        "exact_match_rate": sum(float(r.get("exact_match", 0)) for r in rows) / n,
        "state_f1_change": sum(float(r.get("f1_change", 0)) for r in rows) / n,
        "vehicle_call_share": sum(r.get("vehicle_calls", 0) > 0 for r in rows) / n,
        # episodes the model ended with a readable finish call (every reply was a well-formed call)
        "well_formed_share": sum(r.get("stop_reason") == "finish_call" and not r.get("parse_errors") for r in rows) / n,
        "searches_per_task": sum(r.get("memory_searches", 0) for r in rows) / n,
        "seconds_per_episode": float(rows[0]["batch_seconds_per_episode"]) if rows else 0.0,
    }
