"""--out is locked: a second writer stops at once naming the PID; a killed holder blocks nobody."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.lock import LOCK_FILE, OutLock

REPO = Path(__file__).resolve().parents[2]
HOLDER = ("import sys; from vmb_gym.evaluation.lock import OutLock; lock = OutLock(sys.argv[1]).acquire(); "
          "print('locked', flush=True); sys.stdin.read()")


def _holder(out: Path) -> subprocess.Popen[str]:
    """A live process holding the lock on ``out`` (until its stdin closes)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=REPO)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def _vmb(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "vmb_gym.cli", *args], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=120)


def test_second_writer_in_another_process_is_refused_with_the_pid(tmp_path: Path) -> None:
    out = tmp_path / "run"
    holder = _holder(out)
    try:
        assert (out / LOCK_FILE).read_text().strip() == str(holder.pid)
        with pytest.raises(ConfigError, match=f"PID {holder.pid}"):
            OutLock(out).acquire()
        res = _vmb("eval", "--policy", "noop", "--out", str(out), "--limit", "2", "--no-plots", "--no-progress")
        assert res.returncode == 2
        assert f"another process (PID {holder.pid}" in res.stderr and "--resume" in res.stderr
        assert not (out / "results.jsonl").exists()  # it stopped before writing anything
    finally:
        holder.communicate("")
    assert holder.returncode == 0
    with OutLock(out) as lock:  # released on exit: free again
        assert (out / LOCK_FILE).read_text().strip() == str(os.getpid())
        assert lock.path == out / LOCK_FILE


def test_lock_of_a_killed_run_does_not_block_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = _vmb("eval", "--policy", "noop", "--out", str(out), "--limit", "2", "--no-plots", "--no-progress")
    assert first.returncode == 0, first.stderr
    holder = _holder(out)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (out / LOCK_FILE).read_text().strip() == str(holder.pid)  # the stale lock file, its PID dead
    res = _vmb("eval", "--policy", "noop", "--out", str(out), "--limit", "3", "--resume", "--no-plots",
               "--no-progress")
    assert res.returncode == 2 and "limit differs" in res.stderr  # got past the lock to the resume check
    res = _vmb("eval", "--policy", "noop", "--out", str(out), "--limit", "2", "--resume", "--no-plots",
               "--no-progress")
    assert res.returncode == 0, res.stderr
    assert len((out / "results.jsonl").read_text().splitlines()) == 2


def test_acquire_twice_in_one_object_is_a_no_op_and_release_is_idempotent(tmp_path: Path) -> None:
    lock = OutLock(tmp_path / "run")
    assert lock.acquire() is lock.acquire()
    lock.release()
    lock.release()
    with OutLock(tmp_path / "run"):
        pass


def test_score_and_eval_stream_refuse_a_locked_out(tmp_path: Path) -> None:
    out = tmp_path / "run"
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"task_id": "1_0", "calls": []}\n')
    holder = _holder(out)
    try:
        res = _vmb("score", "--predictions", str(preds), "--out", str(out), "--files", "1")
        assert res.returncode == 2 and f"PID {holder.pid}" in res.stderr
        res = _vmb("eval-stream", "--writer", "nothing", "--files", "1", "--window-days", "0.5", "--out", str(out),
                   "--no-progress")
        assert res.returncode == 2 and f"PID {holder.pid}" in res.stderr
        assert not (out / "results.jsonl").exists() and not (out / "metric.json").exists()
    finally:
        holder.communicate("")
    assert _vmb("score", "--predictions", str(preds), "--out", str(out), "--files", "1").returncode == 0
