"""``EpisodeRunner``: one env and one policy turning (task_id, trial) episodes into records.

One episode is one (task_id, trial) pair, run by :func:`vmb_gym.policy.run_episode` (the one
episode loop) with a per-episode seed (:func:`episode_seed`) and turned into one
``results.jsonl`` record (:mod:`vmb_gym.evaluation.records`). An exception raised while an
episode runs (an endpoint failure, a bug inside the policy) is an *infrastructure* error: the
episode is retried once, and if it fails again it is recorded with
``"error_kind": "infrastructure"`` and left out of the metrics. It never stops the run.

Which episodes run, where (this process, a process pool, Ray) and the writing of
``results.jsonl`` are :mod:`vmb_gym.evaluation.run`'s job.

Policies come from a ``policy_factory(spec, env, **kwargs)`` callable (``vmb_agents.factory.make_policy``
in the CLI); this module never imports :mod:`agents`.
"""

from __future__ import annotations

import logging
import re
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.attribution import attribute
from vmb_gym.policy import episode_query, run_episode
from vmb_gym.vehicle import API_SPECS

__all__ = ["EvalConfig", "EpisodeRunner", "PolicyFactory", "base_record", "episode_seed", "error_record", "redact",
           "task_order"]

log = logging.getLogger(__name__)

PolicyFactory = Callable[..., Any]

_SECRET_KEY = re.compile(r"key|token|secret|password|passwd|auth|credential", re.IGNORECASE)
_SECRET_TEXT = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|hf_[A-Za-z0-9]{8,}|(?i:bearer)\s+\S+|(?i:api[_-]?key)[=:]\s*\S+)")


def redact(value: Any) -> Any:
    """A copy of ``value`` with secrets hidden: values under secret-looking keys, key-like strings."""
    if isinstance(value, Mapping):
        return {
            k: ("***" if _SECRET_KEY.search(str(k)) and v not in (None, "") else redact(v)) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _SECRET_TEXT.sub("***", value)
    return value


@dataclass
class EvalConfig:
    """What an evaluation run does; saved (secrets redacted) as ``config.json``.

    Attributes:
        policy: policy spec (``oracle``, ``noop``, ``random``, ``rules``, ``hf:PATH``, ...).
        memory: memory module name.
        data: ``"default"`` or ``"official:DIR"`` (or a folder).
        files: scenario numbers, or None for all.
        trials: episodes per task (K).
        workers: processes (1: in this process).
        max_steps: step limit of an episode.
        schema: tool-schema flavour, ``"official"`` or ``"rich"``.
        limit: keep only the first N tasks.
        seed: base seed; each episode's seed is derived from it, the task id and the trial.
        reward: the env's reward metric (recorded per episode as ``reward``).
        memory_kwargs: options of the memory module.
        policy_kwargs: options of the policy (redacted in ``config.json``); a ``memory`` other than
            ``memory`` (or ``memory_kwargs``) is refused, so the saved config names the memory read.
        gold_run: the gold-memory run used for MemoryScore (None: look for a sibling run).
        compare: other run directories shown in the plots.
    """

    policy: str
    memory: str = "none"
    data: str = "default"
    files: list[int] | None = None
    trials: int = 1
    workers: int = 1
    max_steps: int = 20
    schema: str = "official"
    limit: int | None = None
    seed: int = 0
    reward: str = "f1_change"
    memory_kwargs: dict[str, Any] = field(default_factory=dict)
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    gold_run: str | None = None
    compare: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ConfigError(f"trials must be >= 1, found {self.trials}; pass --trials 1 or more")
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, found {self.workers}; pass --workers 1 or more")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be >= 1 when given, found {self.limit}; omit --limit to run every task")
        self._check_policy_memory()

    def _check_policy_memory(self) -> None:
        """Refuse a memory in ``policy_kwargs`` other than ``memory``: the run would be saved under the wrong name.

        A policy given ``memory="layered"`` reads its own layered module while ``config.json``,
        ``report.md`` and every record would say ``memory``; the policy reads the env's module
        when ``memory`` alone names it, so nothing is lost by refusing.
        """
        chosen = self.policy_kwargs.get("memory")
        if isinstance(chosen, str) and chosen.strip().casefold() != self.memory.strip().casefold():
            raise ConfigError(f"--policy-kwargs sets memory {chosen!r} but --memory is {self.memory!r}: the policy "
                              f"would read {chosen!r} while config.json and report.md say {self.memory!r}; fix: pass "
                              f"--memory {chosen} and drop memory from --policy-kwargs")
        if "memory_kwargs" in self.policy_kwargs:
            raise ConfigError("--policy-kwargs sets memory_kwargs: the policy would build its own memory module "
                              "unlike the one config.json names; fix: pass them as --memory-kwargs")

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``gym.make("VehicleMem-v0", ...)``."""
        return {
            "data": self.data,
            "files": self.files,
            "memory": self.memory,
            "memory_kwargs": dict(self.memory_kwargs),
            "schema": self.schema,
            "max_steps": self.max_steps,
            "reward": self.reward,
        }

    def to_json(self) -> dict[str, Any]:
        """The config as saved in ``config.json`` (policy options redacted)."""
        return redact(asdict(self))


def episode_seed(base: int, task_id: str, trial: int) -> int:
    """A stable per-episode seed (independent of run order, worker and resume)."""
    return (zlib.crc32(f"{task_id}#{trial}".encode()) + 1_000_003 * int(base)) % (2**31 - 1)


def task_order(task_id: str) -> tuple[Any, ...]:
    """Sort key of ids ``"<scenario>_<index>"`` (numeric), other ids after them by text."""
    head, _, tail = str(task_id).partition("_")
    if head.isdigit() and tail.isdigit():
        return (0, int(head), int(tail), "")
    return (1, 0, 0, str(task_id))


def _seed_policy(policy: Any, seed: int) -> None:
    """Seed a policy for one episode: its ``seed(seed)`` method, else a ``space.seed`` and ``rng``."""
    hook = getattr(policy, "seed", None)
    if callable(hook):
        hook(seed)
        return
    space = getattr(policy, "space", None)
    if space is not None and callable(getattr(space, "seed", None)):
        space.seed(seed)
    if hasattr(policy, "rng"):
        import numpy as np

        policy.rng = np.random.default_rng(seed)


class EpisodeRunner:
    """One env and one policy, running episodes and turning them into ``results.jsonl`` records.

    Args:
        config: the run configuration.
        policy_factory: ``factory(spec, env, **policy_kwargs)`` returning the policy.
    """

    def __init__(self, config: EvalConfig, policy_factory: PolicyFactory) -> None:
        self.config = config
        self.env = gym.make("VehicleMem-v0", **config.env_kwargs())
        self.unwrapped = self.env.unwrapped
        self._factory = policy_factory
        self.policy = policy_factory(config.policy, self.env, **config.policy_kwargs)

    def run(self, task_id: str, trial: int) -> dict[str, Any]:
        """Run one episode, retrying once on an exception; never raises (errors become records)."""
        seed = episode_seed(self.config.seed, task_id, trial)
        error = ""
        for attempt in (1, 2):
            t0 = time.perf_counter()
            try:
                record = self._episode(task_id, trial, seed)
            except Exception as exc:  # noqa: BLE001 - any failure inside the episode is infrastructure
                error = redact(f"{type(exc).__name__}: {exc}")[:2000]
                log.warning("episode %s trial %d failed (attempt %d): %s", task_id, trial, attempt, error)
                continue
            record["attempts"] = attempt
            record["seconds"] = round(time.perf_counter() - t0, 6)
            return record
        return error_record(self.config, task_id, trial, seed, error, attempts=2, query=self._query(task_id))

    def _query(self, task_id: str) -> Any:
        return episode_query(self.env, task_id)

    def _episode(self, task_id: str, trial: int, seed: int) -> dict[str, Any]:
        _seed_policy(self.policy, seed)  # the env's reset does not touch the policy: same as seeding after it
        ep = run_episode(self.env, self.policy, task_id=task_id, seed=seed)
        query = self._query(task_id)
        memory = self.unwrapped.memory  # type: ignore[attr-defined]
        episode, metrics = ep.episode, ep.metrics
        hit_lines = sorted({int(i) for i in episode.get("memory_hit_line_ids", [])})
        record = base_record(self.config, task_id, trial, seed, query)
        record.update({
            "trajectory": {"actions": ep.actions, "calls": ep.calls},
            "terminated": ep.terminated,
            "truncated": ep.truncated,
            "reward": ep.reward,
            "metrics": metrics,
            "differences": list(metrics.get("differences", [])),
            "episode": episode,
            "memory": {
                "name": self.config.memory,
                "provides_context": bool(getattr(memory, "provides_context", False)),
                "provides_search": bool(getattr(memory, "provides_search", False)),
                "evidence_lines": list(query.evidence_line_ids) if query is not None else [],
                "hit_lines": hit_lines,
                "searches": int(episode.get("memory_searches", 0)),
                "tokens": int(episode.get("memory_tokens", 0)),
                "audit": episode.get("memory_audit"),
            },
            "error_kind": None,
            "error": None,
        })
        record["attribution"] = attribute(record)
        return record


def base_record(config: EvalConfig, task_id: str, trial: int, seed: int, query: Any) -> dict[str, Any]:
    """The fields every record has: ids, task metadata and the gold calls."""
    gold = [c.to_json() for c in query.gold_calls] if query is not None else []
    return {
        "task_id": task_id,
        "trial": int(trial),
        "seed": int(seed),
        "scenario_id": getattr(query, "scenario_id", None),
        "reasoning_type": getattr(query, "reasoning_type", "unknown"),
        "request": getattr(query, "text", None),
        "policy": config.policy,
        "gold_calls": gold,
        "gold_modules": sorted({API_SPECS[c["name"]].module for c in gold if c["name"] in API_SPECS}),
    }


def error_record(config: EvalConfig, task_id: str, trial: int, seed: int, error: str, *, attempts: int,
                 query: Any = None) -> dict[str, Any]:
    """The record of an episode lost to an infrastructure error (left out of the metrics)."""
    record = base_record(config, task_id, trial, seed, query)
    record.update({"trajectory": {"actions": [], "calls": []}, "metrics": {}, "differences": [], "episode": {},
                   "memory": {"name": config.memory}, "attribution": None, "error_kind": "infrastructure",
                   "error": error, "attempts": attempts, "seconds": 0.0})
    return record
