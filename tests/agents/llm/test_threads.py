"""Torch CPU threads of the policies ``vmb eval`` runs: ``--threads``, its default, ``Decoding.threads``, bad values."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import torch

import vmb_agents.factory
import vmb_agents.threads
from tests.conftest import write_tiny_dataset
from vmb_agents.factory import make_policy
from vmb_agents.llm.hf import Decoding, HFPolicy
from vmb_agents.threads import default_threads
from vmb_gym.cli import main
from vmb_gym.errors import ConfigError

TINY_DECODING = {"decoding": {"max_new_tokens": 4}}


@pytest.fixture(autouse=True)
def torch_threads() -> Iterator[int]:
    """Start each test at 2 torch threads (not what the tests ask for) and restore the count it found."""
    found = torch.get_num_threads()
    torch.set_num_threads(2)
    yield 2
    torch.set_num_threads(found)


@pytest.fixture()
def data(tmp_path: Path) -> str:
    return f"official:{write_tiny_dataset(tmp_path / 'data')}"


@pytest.fixture()
def forward_threads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """torch.get_num_threads() at each forward of the models ``vmb eval`` builds (a hook added by make_policy)."""
    seen: list[int] = []
    original = vmb_agents.factory.make_policy

    def spying(*args: Any, **kwargs: Any) -> Any:
        policy = original(*args, **kwargs)
        policy.model.register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
        return policy

    monkeypatch.setattr(vmb_agents.factory, "make_policy", spying)
    return seen


def _eval(tiny_dir: Path, data: str, out: Path, *extra: str) -> int:
    return main(["eval", "--policy", f"hf:{tiny_dir}", "--data", data, "--limit", "1", "--max-steps", "2",
                 "--policy-kwargs", json.dumps(TINY_DECODING), "--out", str(out), "--no-plots", "--no-progress",
                 *extra])


def test_threads_option_reaches_torch_before_the_first_forward(tiny_dir: Path, data: str, tmp_path: Path,
                                                               forward_threads: list[int]) -> None:
    assert _eval(tiny_dir, data, tmp_path / "run", "--threads", "1") == 0
    assert forward_threads and set(forward_threads) == {1}
    assert torch.get_num_threads() == 1


def test_default_is_half_the_physical_cores(tiny_dir: Path, data: str, tmp_path: Path, forward_threads: list[int],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vmb_agents.threads, "physical_cores", lambda: 6)
    assert _eval(tiny_dir, data, tmp_path / "run") == 0
    assert forward_threads and set(forward_threads) == {3}


def test_default_threads_rule() -> None:
    assert [default_threads(1, cores) for cores in (1, 2, 3, 4, 8, 16, 64)] == [1, 1, 1, 2, 4, 4, 4]
    assert default_threads(2, 16) == default_threads(8, 64) == 1  # one thread per worker process
    assert 1 <= default_threads() <= 4


@pytest.mark.parametrize("value", ["0", "-2"])
def test_bad_threads_option_is_one_clear_error(tiny_dir: Path, data: str, tmp_path: Path, value: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert _eval(tiny_dir, data, tmp_path / "run", "--threads", value) == 2
    err = capsys.readouterr().err
    assert f"--threads must be a whole number of CPU threads >= 1, found {value}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_decoding_threads_set_torch_threads_and_win_over_make_policy(tiny_dir: Path) -> None:
    policy = HFPolicy(str(tiny_dir), device="cpu", decoding={"threads": 1, "max_new_tokens": 4})
    assert policy.decoding.threads == 1 and torch.get_num_threads() == 1
    env = gym.make("VehicleMem-v0")
    make_policy(f"hf:{tiny_dir}", env, threads=2, device="cpu", decoding={"threads": 1, "max_new_tokens": 4})
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2"])
def test_bad_threads_values_raise_config_errors(value: Any) -> None:
    with pytest.raises(ConfigError, match="decoding threads must be a whole number of CPU threads >= 1"):
        Decoding(threads=value)
    with pytest.raises(ConfigError, match="threads must be a whole number"):
        make_policy("oracle", gym.make("VehicleMem-v0"), threads=value)


def test_policies_without_torch_leave_its_threads(data: str, tmp_path: Path) -> None:
    assert main(["eval", "--policy", "oracle", "--data", data, "--threads", "1", "--out", str(tmp_path / "run"),
                 "--no-plots", "--no-progress"]) == 0
    assert torch.get_num_threads() == 2


def test_eval_stream_refuses_bad_threads(data: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-stream", "--writer", "rules", "--data", data, "--threads", "0", "--out", str(tmp_path / "s"),
                 "--no-progress"]) == 2
    assert "--threads must be a whole number of CPU threads >= 1, found 0" in capsys.readouterr().err
