"""Run evaluation episodes as Ray actor tasks (``vmb eval --backend ray [--address ...]``).

Each of ``config.workers`` Ray actors builds one :class:`~vmb_gym.evaluation.runner.EpisodeRunner`
(its own env and policy, once) and runs (task_id, trial) episodes handed to it as it frees up;
records come back as they finish, exactly the records of the local runner (same fields, same
per-episode seeds, same retry-once rule inside the actor). An actor that dies is restarted once
by Ray and its episode retried; an episode that still fails becomes an ``"infrastructure"``
error record, so a run never stops on one episode.

Ray is an optional dependency (``pip install vmb_gym[ray]``), imported only here. Without
``address`` a local Ray instance is started (and shut down at the end); with ``address``
(``"auto"``, ``"ray://host:10001"``, ``"host:6379"``) the run joins that cluster, whose workers
must have ``vmb_gym`` (and the policy's packages, e.g. ``agents``) installed. The policy factory
is sent to the actors with Ray's pickler, so it must be importable there (a module-level function).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.runner import EpisodeRunner, EvalConfig, PolicyFactory, episode_seed, error_record, redact

__all__ = ["import_ray", "run_ray"]

log = logging.getLogger(__name__)

_INSTALL_HINT = "the ray backend needs Ray; fix: pip install 'vmb_gym[ray]' (or pip install 'ray>=2.9')"


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed (the message names ``pip install vmb_gym[ray]``).
    """
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"{_INSTALL_HINT} ({exc})") from None
    return ray


class _EpisodeActor:
    """The body of a Ray actor: one :class:`EpisodeRunner`, built once, running episodes."""

    def __init__(self, config: dict[str, Any], policy_factory: PolicyFactory) -> None:
        self.error: str | None = None
        self.runner: EpisodeRunner | None = None
        try:
            self.runner = EpisodeRunner(EvalConfig(**config), policy_factory)
        except Exception as exc:  # noqa: BLE001 - reported with every episode of this actor
            self.error = redact(f"worker setup failed: {type(exc).__name__}: {exc}")[:2000]

    def run(self, task_id: str, trial: int) -> dict[str, Any]:
        """One episode's record (the runner never raises; a failed setup does)."""
        if self.runner is None:
            raise RuntimeError(self.error or "worker not initialised")
        return self.runner.run(task_id, trial)


def _local_runtime_env() -> dict[str, Any]:
    """Make the repository (``vmb_gym`` and ``agents``) importable in local workers."""
    root = str(Path(__file__).resolve().parents[2])
    paths = [root, os.getcwd(), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}}


def run_ray(
    config: EvalConfig,
    policy_factory: PolicyFactory,
    pending: Sequence[tuple[str, int]],
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    init_kwargs: dict[str, Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one record per (task_id, trial) of ``pending`` as Ray actors finish them.

    Args:
        config: the run configuration (``config.workers`` actors, one CPU each).
        policy_factory: ``factory(spec, env, **policy_kwargs)``, importable on the workers.
        pending: the (task_id, trial) pairs to run.
        address: a Ray cluster to join; None starts a local instance.
        num_cpus: CPUs of a local instance (default: Ray's count).
        init_kwargs: more ``ray.init`` keyword arguments.

    Raises:
        ConfigError: Ray is not installed.
    """
    ray = import_ray()
    if not pending:
        return
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None:
            kwargs.update(num_cpus=num_cpus, runtime_env=_local_runtime_env())
        else:
            kwargs["address"] = address
        kwargs.update(init_kwargs or {})
        ray.init(**kwargs)
        started = True
    actor_cls = ray.remote(num_cpus=1, max_restarts=1, max_task_retries=1)(_EpisodeActor)
    n = max(1, min(config.workers, len(pending)))
    config_dict = asdict(config)
    actors = [actor_cls.remote(config_dict, policy_factory) for _ in range(n)]
    todo = list(pending)
    running: dict[Any, tuple[Any, tuple[str, int]]] = {}

    def submit(actor: Any) -> None:
        if todo:
            key = todo.pop(0)
            running[actor.run.remote(*key)] = (actor, key)

    try:
        for actor in actors:
            submit(actor)
        while running:
            done, _ = ray.wait(list(running), num_returns=1)
            ref = done[0]
            actor, key = running.pop(ref)
            try:
                yield ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - a dead actor or a failed setup is an infrastructure error
                log.warning("ray episode %s trial %d failed: %s", key[0], key[1], exc)
                yield error_record(config, key[0], key[1], episode_seed(config.seed, *key),
                                   redact(f"{type(exc).__name__}: {exc}")[:2000], attempts=2)
            submit(actor)
    finally:
        for actor in actors:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already gone
                pass
        if started:
            ray.shutdown()
