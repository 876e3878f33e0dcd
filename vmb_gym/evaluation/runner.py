"""Run evaluation episodes and append them to ``results.jsonl`` as they finish.

One episode is one (task_id, trial) pair. Episodes run in this process (``workers=1``) or in a
process pool (``workers > 1``, ``spawn`` start method): each worker builds its own env and policy
once, runs episodes and returns records; only the parent writes ``results.jsonl``, one fsynced
line per finished episode, so a killed run loses nothing and ``resume=True`` runs only the
missing pairs.

An exception raised while an episode runs (an endpoint failure, a bug inside the policy, a
worker process that dies) is an *infrastructure* error: the episode is retried once, and if it
fails again it is recorded with ``"error_kind": "infrastructure"`` and left out of the metrics.
It never stops the run. ``resume=True`` redoes such episodes.

Policies come from a ``policy_factory(spec, env, **kwargs)`` callable (``agents.factory.make_policy``
in the CLI); this module never imports :mod:`agents`. With ``workers > 1`` the factory must be
picklable (a module-level function).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.attribution import attribute
from vmb_gym.evaluation.records import (
    CONFIG_FILE,
    RESULTS_FILE,
    ResultsWriter,
    latest_by_key,
    read_json,
    read_results,
    write_json,
)
from vmb_gym.vehicle import API_SPECS

__all__ = ["EvalConfig", "EpisodeRunner", "PolicyFactory", "episode_seed", "redact", "run_evaluation", "task_order"]

log = logging.getLogger(__name__)

PolicyFactory = Callable[..., Any]

#: Config fields that must match when a run is resumed.
_RESUME_KEYS = ("policy", "memory", "memory_kwargs", "data", "files", "max_steps", "schema", "limit", "seed", "reward")
_SECRET_KEY = re.compile(r"key|token|secret|password|passwd|auth|credential", re.IGNORECASE)
_SECRET_TEXT = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|hf_[A-Za-z0-9]{8,}|(?i:bearer)\s+\S+|(?i:api[_-]?key)[=:]\s*\S+)")


def redact(value: Any) -> Any:
    """A copy of ``value`` with secrets hidden: values under secret-looking keys, key-like strings."""
    if isinstance(value, Mapping):
        return {k: ("***" if _SECRET_KEY.search(str(k)) and v not in (None, "") else redact(v)) for k, v in value.items()}
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
        policy_kwargs: options of the policy (redacted in ``config.json``).
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

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``gym.make("VehicleMem-v0", ...)``."""
        return {"data": self.data, "files": self.files, "memory": self.memory, "memory_kwargs": dict(self.memory_kwargs),
                "schema": self.schema, "max_steps": self.max_steps, "reward": self.reward}

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
        tasks = self.unwrapped.tasks  # type: ignore[attr-defined]
        try:
            return tasks.queries[tasks.index_of(task_id)]
        except Exception:  # noqa: BLE001 - an unknown id is reported through the error record
            return None

    def _episode(self, task_id: str, trial: int, seed: int) -> dict[str, Any]:
        obs, info = self.env.reset(seed=seed, options={"task_id": task_id})
        _seed_policy(self.policy, seed)
        self.policy.reset(obs, info)
        actions: list[Any] = []
        calls: list[dict[str, Any]] = []
        while True:
            action = self.policy.act(obs, info)
            actions.append(action)
            obs, reward, terminated, truncated, info = self.env.step(action)
            calls.extend(info.get("calls", []))
            if terminated or truncated:
                break
        query = self._query(task_id)
        memory = self.unwrapped.memory  # type: ignore[attr-defined]
        episode = dict(info.get("episode_stats", {}))
        metrics = dict(info.get("metrics", {}))
        _merge_policy_memory(episode, self.policy, query)
        hit_lines = sorted({int(i) for i in episode.get("memory_hit_line_ids", [])})
        record = base_record(self.config, task_id, trial, seed, query)
        record.update({
            "trajectory": {"actions": actions, "calls": calls},
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "reward": float(reward),
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


def _merge_policy_memory(episode: dict[str, Any], policy: Any, query: Any) -> None:
    """Add the memory a policy used itself (``policy.memory_figures()``) to the env's episode figures.

    A memory module can serve through the env's ``search_memory`` tool or inside the policy;
    both routes end up in the same ``episode`` keys (searches, tokens, hit line ids, audit).
    """
    figures = getattr(policy, "memory_figures", None)
    if not callable(figures):
        return
    f = figures()
    hits = list(f.get("memory_hits", []))
    if not (f.get("memory_searches") or hits):
        return
    episode["memory_searches"] = int(episode.get("memory_searches", 0)) + int(f.get("memory_searches", 0))
    episode["memory_tokens"] = int(episode.get("memory_tokens", 0)) + int(f.get("memory_tokens", 0))
    lines = set(episode.get("memory_hit_line_ids", [])) | {int(i) for h in hits for i in h.line_ids}
    episode["memory_hit_line_ids"] = sorted(lines)
    if query is not None and hits and not episode.get("memory_audit"):
        from vmb_gym.memory.audit import audit_hits

        episode["memory_audit"] = audit_hits(query, hits)


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


# ---------------------------------------------------------------------------- process pool
_WORKER: EpisodeRunner | None = None
_WORKER_ERROR: str | None = None


def _init_worker(config: dict[str, Any], policy_factory: PolicyFactory) -> None:
    global _WORKER, _WORKER_ERROR
    try:
        _WORKER = EpisodeRunner(EvalConfig(**config), policy_factory)
    except Exception as exc:  # noqa: BLE001 - reported with every episode of this worker
        _WORKER_ERROR = redact(f"worker setup failed: {type(exc).__name__}: {exc}")[:2000]


def _run_in_worker(task_id: str, trial: int) -> dict[str, Any]:
    if _WORKER is None:
        raise RuntimeError(_WORKER_ERROR or "worker not initialised")
    return _WORKER.run(task_id, trial)


def _pool(config: EvalConfig, policy_factory: PolicyFactory, n: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(asdict(config), policy_factory))


def _run_pool(config: EvalConfig, policy_factory: PolicyFactory, pending: Sequence[tuple[str, int]]) -> Iterator[dict[str, Any]]:
    """Yield records as pool workers finish them; a crashed worker's episodes are retried once."""
    crashes: dict[tuple[str, int], int] = {}
    todo = list(pending)
    while todo:
        pool = _pool(config, policy_factory, min(config.workers, len(todo)))
        futures: dict[Future[dict[str, Any]], tuple[str, int]] = {pool.submit(_run_in_worker, t, k): (t, k) for t, k in todo}
        todo = []
        broken = False
        try:
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for fut in done:
                    key = futures[fut]
                    try:
                        yield fut.result()
                    except BrokenProcessPool:
                        broken = True
                        crashes[key] = crashes.get(key, 0) + 1
                        if crashes[key] < 2:
                            todo.append(key)
                        else:
                            yield error_record(config, key[0], key[1], episode_seed(config.seed, *key),
                                               "worker process died twice while running this episode", attempts=2)
                    except Exception as exc:  # noqa: BLE001 - e.g. the worker could not be set up
                        yield error_record(config, key[0], key[1], episode_seed(config.seed, *key),
                                           redact(f"{type(exc).__name__}: {exc}")[:2000], attempts=1)
        finally:
            pool.shutdown(wait=not broken, cancel_futures=True)


# ---------------------------------------------------------------------------- the run
def _check_resume(out: Path, config: EvalConfig) -> dict[str, Any]:
    saved = read_json(out / CONFIG_FILE)
    current = config.to_json()
    for key in _RESUME_KEYS:
        if saved.get(key) != current.get(key):
            raise ConfigError(f"--resume: {key} differs from the saved run in {out} (saved {saved.get(key)!r}, "
                              f"now {current.get(key)!r}); fix: pass the same options or choose another --out")
    return saved


def run_evaluation(
    config: EvalConfig,
    out_dir: str | os.PathLike[str],
    policy_factory: PolicyFactory,
    *,
    resume: bool = False,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> list[dict[str, Any]]:
    """Run every missing (task, trial) episode of ``config`` and append it to ``results.jsonl``.

    Args:
        config: the run configuration.
        out_dir: the run directory (created when missing).
        policy_factory: ``factory(spec, env, **kwargs)`` building the policy (picklable when
            ``config.workers > 1``).
        resume: continue the run saved in ``out_dir`` (only missing or failed pairs run).
        progress: show a tqdm progress bar (on stderr).
        backend: ``"local"`` (this process or a process pool) or ``"ray"`` (episodes as Ray tasks).
        address: the Ray cluster to join (``None`` starts a local Ray).

    Returns:
        The run's records (the latest per (task_id, trial)), ordered by task then trial.

    Raises:
        ConfigError: ``out_dir`` already holds results and ``resume`` is false, or ``resume``
            with options that differ from the saved run.
    """
    from tqdm import tqdm

    from vmb_gym.envs.task_set import TaskSet

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / RESULTS_FILE
    saved_config: dict[str, Any] = {}
    if resume and (out / CONFIG_FILE).exists():
        saved_config = _check_resume(out, config)
    elif results_path.exists() and results_path.stat().st_size > 0 and not resume:
        raise ConfigError(f"{out} already holds {RESULTS_FILE}; expected an empty or new directory; "
                          "fix: pass --resume to continue that run, or choose another --out")

    tasks = TaskSet.load(config.data, files=config.files)
    task_ids = [q.task_id for q in tasks.queries]
    if config.limit is not None:
        task_ids = task_ids[: config.limit]
    existing = latest_by_key(read_results(results_path, repair=True)) if resume and results_path.exists() else {}
    done = {k for k, r in existing.items() if not r.get("error_kind")}
    pending = [(t, k) for k in range(config.trials) for t in task_ids if (t, k) not in done]

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    meta = config.to_json()
    meta["created"] = saved_config.get("created", now)
    meta["resumed"] = [*saved_config.get("resumed", []), now] if saved_config else []
    meta["tasks"] = len(task_ids)
    import vmb_gym

    meta["vmb_gym_version"] = vmb_gym.__version__
    write_json(out / CONFIG_FILE, meta)

    if pending:
        with ResultsWriter(results_path) as writer, tqdm(total=len(pending), disable=not progress, unit="ep",
                                                         desc=f"{config.policy}/{config.memory}") as bar:
            if backend == "ray":
                from vmb_gym.evaluation.ray_backend import run_ray

                stream = run_ray(config, policy_factory, pending, address=address)
            elif config.workers == 1:
                runner = EpisodeRunner(config, policy_factory)
                stream: Iterator[dict[str, Any]] = (runner.run(t, k) for t, k in pending)
            else:
                stream = _run_pool(config, policy_factory, pending)
            errors = 0
            for record in stream:
                writer.write(record)
                errors += bool(record.get("error_kind"))
                bar.update(1)
                if errors:
                    bar.set_postfix(errors=errors)

    wanted = {(t, k) for k in range(config.trials) for t in task_ids}
    latest = latest_by_key(read_results(results_path))
    return [latest[key] for key in sorted(latest, key=lambda x: (task_order(x[0]), x[1])) if key in wanted]
