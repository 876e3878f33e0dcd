"""The Ray evaluation backend: same records as the local runner (skipped without Ray)."""

from __future__ import annotations

import sys

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.runner import EpisodeRunner, EvalConfig

_VOLATILE = ("seconds",)


def _strip(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in _VOLATILE}


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_gym.evaluation import ray_backend

    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    with pytest.raises(ConfigError, match=r"pip install 'vmb_gym\[ray\]'"):
        ray_backend.import_ray()


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray instance (2 CPUs, no dashboard) shared by the tests of this module."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_records_match_local_runner(ray_local) -> None:
    from vmb_agents.factory import make_policy
    from vmb_gym.evaluation.ray_backend import run_ray

    config = EvalConfig(policy="oracle", files=[1], workers=2, limit=3)
    local = EpisodeRunner(config, make_policy)
    task_ids = [q.task_id for q in local.unwrapped.tasks.queries][:3]
    pending = [(t, 0) for t in task_ids] + [(task_ids[0], 1)]
    expected = {(t, k): _strip(local.run(t, k)) for t, k in pending}

    records = list(run_ray(config, make_policy, pending))
    got = {(r["task_id"], r["trial"]): _strip(r) for r in records}
    assert got == expected
    assert all(r["error_kind"] is None and r["reward"] == 1.0 for r in records)


def test_ray_setup_failure_becomes_error_records(ray_local) -> None:
    from vmb_gym.evaluation.ray_backend import run_ray

    config = EvalConfig(policy="oracle", files=[1], workers=1)
    records = list(run_ray(config, _broken_factory, [("1_0", 0), ("1_1", 0)]))
    assert [r["error_kind"] for r in records] == ["infrastructure", "infrastructure"]
    assert "worker setup failed" in records[0]["error"]


def _broken_factory(spec: str, env: object, **kwargs: object) -> object:
    raise RuntimeError("no policy here")
