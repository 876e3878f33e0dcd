"""Run an evaluation: every missing (task, trial) episode, appended to ``results.jsonl`` as it finishes.

Episodes run in this process (``workers=1``), in a process pool (``workers > 1``, ``spawn``
start method: each worker builds its own :class:`~vmb_gym.evaluation.runner.EpisodeRunner`
once) or as Ray tasks (:mod:`vmb_gym.evaluation.ray_backend`). Only the parent writes
``results.jsonl``, one flushed line per finished episode, so a killed run loses nothing and
``resume=True`` runs only the missing pairs (and redoes infrastructure errors). While it runs,
the run directory is locked (:class:`~vmb_gym.evaluation.lock.OutLock`): a second run on the
same ``out_dir`` stops at once. With ``workers > 1`` the policy factory must be picklable (a
module-level function).

Ctrl-C stops the run between records: the finished episodes stay saved and
:class:`~vmb_gym.evaluation.interrupt.RunInterrupted` (a ``KeyboardInterrupt``) says how many
(pool workers ignore SIGINT and are terminated, so only the parent reacts). A run in which every
episode ended in an infrastructure error raises :class:`AllEpisodesFailed` instead of returning
records with nothing to score.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError, VmbError
from vmb_gym.evaluation.interrupt import RunInterrupted
from vmb_gym.evaluation.records import (
    CONFIG_FILE,
    RESULTS_FILE,
    ResultsWriter,
    latest_by_key,
    read_json,
    read_results,
    write_json,
)
from vmb_gym.evaluation.runner import (
    EpisodeRunner,
    EvalConfig,
    PolicyFactory,
    episode_seed,
    error_record,
    redact,
    task_order,
)
from vmb_gym.outdir import DiskFull, claim_out, claimed_out, is_disk_full
from vmb_gym.progress import progress_log

__all__ = ["EVAL_OUTPUTS", "RESUME_KEYS", "AllEpisodesFailed", "run_evaluation"]

#: What a ``vmb eval`` run writes into its folder (removed first by ``--overwrite``).
EVAL_OUTPUTS = ("config.json", "results.jsonl", "metric.json", "report.md", "esm_by_reasoning_type.png",
                "memory_tokens_vs_esm.png")  # the plots: report.PLOT_FILES
#: Config fields that must match when a run is resumed.
RESUME_KEYS = ("policy", "memory", "memory_kwargs", "data", "files", "max_steps", "schema", "limit", "seed", "reward")


class AllEpisodesFailed(VmbError):
    """Every episode of a run ended in an infrastructure error: there is nothing to score.

    Attributes:
        errors: how many episodes failed.
        first_error: the first episode's error text.
    """

    def __init__(self, out: Path, errors: int, first_error: str) -> None:
        super().__init__(
            f"all {errors} episodes failed with an infrastructure error, so nothing was scored; the first: "
            f"{first_error[:300]}; fix: remove the cause (endpoint, key, model path) and rerun with --resume "
            f"(the errors are in {out / RESULTS_FILE})")
        self.errors = errors
        self.first_error = first_error


# ---------------------------------------------------------------------------- process pool
_WORKER: EpisodeRunner | None = None
_WORKER_ERROR: str | None = None


def _init_worker(config: dict[str, Any], policy_factory: PolicyFactory) -> None:
    global _WORKER, _WORKER_ERROR
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it terminates the pool
    _thread_lock_for_tqdm()
    try:
        _WORKER = EpisodeRunner(EvalConfig(**config), policy_factory)
    except Exception as exc:  # noqa: BLE001 - reported with every episode of this worker
        _WORKER_ERROR = redact(f"worker setup failed: {type(exc).__name__}: {exc}")[:2000]


def _thread_lock_for_tqdm() -> None:
    """Give tqdm a thread lock in a worker: its default cross-process semaphore would leak when the
    worker is terminated (a "leaked semaphore" warning at exit), and workers draw no bars."""
    import threading

    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())


def _run_in_worker(task_id: str, trial: int) -> dict[str, Any]:
    if _WORKER is None:
        raise RuntimeError(_WORKER_ERROR or "worker not initialised")
    return _WORKER.run(task_id, trial)


def _pool(config: EvalConfig, policy_factory: PolicyFactory, n: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(asdict(config), policy_factory))


def _run_pool(
    config: EvalConfig, policy_factory: PolicyFactory, pending: Sequence[tuple[str, int]]
) -> Iterator[dict[str, Any]]:
    """Yield records as pool workers finish them; a crashed worker's episodes are retried once."""
    crashes: dict[tuple[str, int], int] = {}
    todo = list(pending)
    while todo:
        pool = _pool(config, policy_factory, min(config.workers, len(todo)))
        futures: dict[Future[dict[str, Any]], tuple[str, int]] = {
            pool.submit(_run_in_worker, t, k): (t, k) for t, k in todo
        }
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
        except BaseException:  # Ctrl-C (or the consumer stopped): do not wait for running episodes
            _terminate(pool)
            raise
        finally:
            pool.shutdown(wait=not broken, cancel_futures=True)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's workers now, dropping the episodes they are running."""
    stop = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if stop is not None:
        stop()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


# ---------------------------------------------------------------------------- the run
def _check_resume(out: Path, config: EvalConfig) -> dict[str, Any]:
    saved = read_json(out / CONFIG_FILE)
    current = config.to_json()
    for key in RESUME_KEYS:
        if saved.get(key) != current.get(key):
            raise ConfigError(f"--resume: {key} differs from the saved run in {out} (saved {saved.get(key)!r}, "
                              f"now {current.get(key)!r}); fix: pass the same options or choose another --out")
    return saved


def _episodes(config: EvalConfig, policy_factory: PolicyFactory, pending: Sequence[tuple[str, int]], *,
              backend: str, address: str | None) -> Iterator[dict[str, Any]]:
    """The records of ``pending`` as they finish, from the chosen backend."""
    if backend == "ray":
        from vmb_gym.evaluation.ray_backend import run_ray

        return run_ray(config, policy_factory, pending, address=address)
    if config.workers == 1:
        runner = EpisodeRunner(config, policy_factory)
        return (runner.run(t, k) for t, k in pending)
    return _run_pool(config, policy_factory, pending)


def _write_config(out: Path, config: EvalConfig, saved_config: dict[str, Any], n_tasks: int) -> None:
    """Save ``config.json``: the config, when the run was created and resumed, the task count and version."""
    import vmb_gym

    now = datetime.now(UTC).isoformat(timespec="seconds")
    meta = config.to_json()
    meta["created"] = saved_config.get("created", now)
    meta["resumed"] = [*saved_config.get("resumed", []), now] if saved_config else []
    meta["tasks"] = n_tasks
    meta["vmb_gym_version"] = vmb_gym.__version__
    write_json(out / CONFIG_FILE, meta)


def run_evaluation(
    config: EvalConfig,
    out_dir: str | os.PathLike[str],
    policy_factory: PolicyFactory,
    *,
    resume: bool = False,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    lock: bool = True,
    overwrite: bool = False,
) -> list[dict[str, Any]]:
    """Run every missing (task, trial) episode of ``config`` and append it to ``results.jsonl``.

    ``out_dir`` is claimed first (:func:`vmb_gym.outdir.claim_out`): a folder holding another
    command's run is refused, and an earlier ``vmb eval`` run there needs ``resume`` (continue it)
    or ``overwrite`` (replace it).

    Args:
        config: the run configuration.
        out_dir: the run directory (created when missing).
        policy_factory: ``factory(spec, env, **kwargs)`` building the policy (picklable when
            ``config.workers > 1``).
        resume: continue the run saved in ``out_dir`` (only missing or failed pairs run; how many
            finished ones are skipped is a :mod:`vmb_gym.progress` note, on stderr under ``vmb``).
        progress: show a tqdm progress bar (on stderr).
        backend: ``"local"`` (this process or a process pool) or ``"ray"`` (episodes as Ray tasks).
        address: the Ray cluster to join (``None`` starts a local Ray).
        lock: hold the run directory's :class:`~vmb_gym.evaluation.lock.OutLock` while running
            (False when the caller already holds it).
        overwrite: replace an earlier ``vmb eval`` run in ``out_dir`` (its outputs are removed first).

    Returns:
        The run's records (the latest per (task_id, trial)), ordered by task then trial.

    Raises:
        ConfigError: ``out_dir`` holds another command's run, or an earlier run without
            ``resume`` or ``overwrite``; ``resume`` with options that differ from the saved run; or
            another process is writing ``out_dir``.
        AllEpisodesFailed: every episode of the run ended in an infrastructure error.
        RunInterrupted: Ctrl-C; the finished episodes are saved (``resume=True`` continues).
        DiskFull: the disk filled up; the finished episodes are saved whole (``resume=True`` continues).
    """
    out = Path(out_dir)
    claim: dict[str, Any] = {"overwrite": overwrite, "resume": resume, "outputs": EVAL_OUTPUTS}
    with claimed_out(out, "vmb eval", **claim) if lock else nullcontext(claim_out(out, "vmb eval", **claim)):
        return _run_locked(config, out, policy_factory, resume=resume, progress=progress, backend=backend,
                           address=address)


def _run_locked(config: EvalConfig, out: Path, policy_factory: PolicyFactory, *, resume: bool, progress: bool,
                backend: str, address: str | None) -> list[dict[str, Any]]:
    """:func:`run_evaluation` once the run directory is locked."""
    from vmb_gym.envs.task_set import TaskSet

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
    _write_config(out, config, saved_config, len(task_ids))

    if resume and existing:
        progress_log.info("resuming %s: skipping %d finished episodes of %d, running %d",
                          out, len(done), len(task_ids) * config.trials, len(pending))
    if pending:
        _write_episodes(config, policy_factory, pending, results_path, done=len(done),
                        total=len(task_ids) * config.trials, progress=progress, backend=backend, address=address)

    wanted = {(t, k) for k in range(config.trials) for t in task_ids}
    latest = latest_by_key(read_results(results_path))
    records = [latest[key] for key in sorted(latest, key=lambda x: (task_order(x[0]), x[1])) if key in wanted]
    if pending and records and all(r.get("error_kind") for r in records):
        raise AllEpisodesFailed(out, len(records), str(records[0].get("error") or ""))
    return records


def _write_episodes(config: EvalConfig, policy_factory: PolicyFactory, pending: Sequence[tuple[str, int]],
                    results_path: Path, *, done: int, total: int, progress: bool, backend: str,
                    address: str | None) -> None:
    """Run ``pending`` and append each record as it finishes (Ctrl-C: :class:`RunInterrupted`; a full disk:
    :class:`~vmb_gym.outdir.DiskFull`)."""
    from tqdm import tqdm

    finished = errors = 0
    episodes = _episodes(config, policy_factory, pending, backend=backend, address=address)
    try:
        with ResultsWriter(results_path) as writer, tqdm(total=len(pending), disable=not progress, unit="ep",
                                                         desc=f"{config.policy}/{config.memory}") as bar:
            for record in episodes:
                writer.write(record)
                errors += bool(record.get("error_kind"))
                finished += not record.get("error_kind")
                bar.update(1)
                if errors:
                    bar.set_postfix(errors=errors)
    except KeyboardInterrupt:
        raise RunInterrupted(results_path.parent, done + finished, total) from None
    except OSError as exc:
        if not is_disk_full(exc) or isinstance(exc, DiskFull):
            raise
        raise DiskFull(exc, results_path.parent, saved=done + finished, total=total, file=results_path) from exc
    finally:
        close = getattr(episodes, "close", None)
        if close is not None:
            close()  # a pool stops its workers now, wherever the interrupt landed
