"""Where ``vmb`` commands write: one rule for ``--out``, whole files, and one line when the disk is full.

**One rule for ``--out``.** Every ``vmb`` command that writes a folder (``eval``, ``eval-stream``,
``score``, ``generate``, ``regrade --out``, ``memory-audit``, ``validate-benchmark`` and every
``vmb train`` trainer)
claims it first with :func:`claim_out` (or :func:`claimed_out`, which also holds the folder's
:class:`~vmb_gym.evaluation.lock.OutLock`). :func:`check_out` is the rule:

* a new or empty folder is claimed: the command writes :data:`MARKER` (``.vmb_run.json``: which
  command made the folder, when) and then its outputs;
* a folder holding a run of **another** command is refused, even with ``--overwrite``: ``vmb score
  --out`` pointed at a ``vmb eval`` run would otherwise replace its ``results.jsonl`` and
  ``metric.json``. To reuse such a folder, empty it yourself;
* a folder holding an earlier run of the **same** command is refused unless ``--overwrite`` (that
  run's outputs are removed first, then replaced) or, for ``vmb eval`` and ``vmb eval-stream``,
  ``--resume`` (continue it);
* a non-empty folder holding no recognisable run (say, the predictions file ``vmb score`` reads)
  is claimed too: the outputs are written beside the files there, which stay; only when one of
  those files has the name of an output is ``--overwrite`` needed (and replaces it).

Which command made a folder: its marker; for folders written before the marker existed, their
files (:func:`run_maker`): ``config.json`` with a ``writer`` (eval-stream) or a ``policy`` /
``results.jsonl`` (eval), ``results.jsonl``/``metric.json`` without ``config.json`` (score),
``history/``/``qa_data/``/``manifest.json`` (generate), ``audit.json`` (memory-audit),
``report.json`` (validate-benchmark), ``comparison.json`` (compare), and the trainers' logs and
checkpoints. The lock file and the marker alone do not make a folder "not empty".

**Whole files.** :func:`write_atomic`, :func:`write_atomic_many` and :func:`save_figure` write
through a temporary file and ``os.replace``: a file is the old one or the new one, never half of
the new one, also when the disk fills up (the temporary file is removed).

**A full disk** (``ENOSPC``, ``EDQUOT``) ends a command with one line on stderr and
:data:`EXIT_DISK_FULL`, printed by the ``vmb`` entry point (:func:`disk_full_message`): what was
saved where (a run raises :class:`DiskFull` with its counts; otherwise the folder this process
claimed is named) and the exact command that continues (``--resume`` for eval and eval-stream) or
starts again (``--overwrite``, replacing the unfinished outputs).

Example:
    >>> claim_out("runs/score-1", "vmb score")                                      # doctest: +SKIP
    >>> claim_out("runs/oracle", "vmb score")  # a vmb eval run                      # doctest: +SKIP
    Traceback (most recent call last):
    ConfigError: --out runs/oracle holds a run of `vmb eval` (config.json, metric.json, ...); ...
"""

from __future__ import annotations

import errno
import io
import json
import os
import shlex
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError

__all__ = ["DISK_FULL_ERRNOS", "EXIT_DISK_FULL", "MARKER", "OVERWRITE_HELP", "RESUMABLE", "Claim", "DiskFull",
           "check_out", "claim_out", "claimed_out", "claims", "disk_full_message", "forget_claims", "is_disk_full",
           "run_maker", "save_figure",
           "write_atomic", "write_atomic_many"]

#: The marker file a command writes into each folder it claims.
MARKER = ".vmb_run.json"
#: Files that do not make a folder "not empty": the marker and the run lock.
_IGNORED = frozenset({MARKER, ".lock"})
#: Commands whose runs continue with ``--resume``.
RESUMABLE = frozenset({"vmb eval", "vmb eval-stream"})
#: ``errno`` values of a full disk: no space left, quota exceeded.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: Exit status after a full disk (``EX_IOERR`` of sysexits.h).
EXIT_DISK_FULL = 74
#: The ``--help`` text of every writing command's ``--overwrite``.
OVERWRITE_HELP = ("replace an earlier run of this same command in --out (its outputs are removed first; other files "
                  "stay); a folder holding another command's run (e.g. a vmb eval run) is never written into, not "
                  "even with --overwrite: choose another --out or empty it yourself")


# ---------------------------------------------------------------------------- which command made a folder
def _content(out: Path) -> list[str]:
    """Up to 6 names of what ``out`` holds (top level, sorted), or ``[]`` when it holds no file at any depth
    besides the marker and the lock."""
    try:
        top = sorted(p.name for p in out.iterdir() if p.name not in _IGNORED)
    except FileNotFoundError:
        return []
    for name in top:
        path = out / name
        if not path.is_dir() or any(p.is_file() or p.is_symlink() for p in path.rglob("*")):
            return [f"{n}/" if (out / n).is_dir() else n for n in top[:6]] + (["..."] if len(top) > 6 else [])
    return []


def _read_marker(out: Path) -> str | None:
    try:
        command = json.loads((out / MARKER).read_text(encoding="utf-8")).get("command")
    except (OSError, ValueError, AttributeError):
        return None
    return command if isinstance(command, str) and command else None


def _legacy_maker(out: Path) -> str | None:
    """The command that wrote ``out`` before markers existed, told by its files (None: none recognised)."""
    names = {p.name for p in out.iterdir()}
    return _run_or_data_maker(out, names) or _trainer_maker(out, names) or _report_maker(names)


def _run_or_data_maker(out: Path, names: set[str]) -> str | None:
    """An evaluation, scoring, generation or memory-audit folder's command."""
    if "config.json" in names:
        try:
            config = json.loads((out / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            config = {}
        config = config if isinstance(config, dict) else {}
        if "writer" in config:
            return "vmb eval-stream"
        if "policy" in config or names & {"results.jsonl", "metric.json"}:
            return "vmb eval"
    if names & {"results.jsonl", "metric.json"}:
        return "vmb score"
    if names & {"history", "qa_data", "manifest.json"}:
        return "vmb generate"
    if "audit.json" in names:
        return "vmb memory-audit"
    return None


def _trainer_maker(out: Path, names: set[str]) -> str | None:
    """A training folder's ``vmb train`` command, told by its logs and checkpoints."""
    if names & {"sft_log.csv", "grpo_log.csv", "adapter_grpo"}:
        return "vmb train lm"
    if "reader_loss.png" in names or (out / "adapter" / "reader.json").is_file():
        return "vmb train reader"
    if "adapter" in names:
        return "vmb train lm"
    checkpoints = {n.split(".", 1)[0] for n in names if n.endswith((".safetensors", ".zip", ".vmb.json"))}
    if names & {"bc.json", "curve.csv", "stream_writer_curve.png"} or checkpoints & {"model", "last"}:
        return "vmb train stream"
    if names & {"args.json", "train_log.csv", "eval.csv", "learning_curve.png"}:
        return "vmb train sb3"
    if "final" in checkpoints:
        return "vmb train ensemble"
    if (out / "checkpoints").is_dir() and any((out / "checkpoints").iterdir()):
        return "vmb train sb3"
    return None


def _report_maker(names: set[str]) -> str | None:
    """A benchmark validation's or a comparison's command."""
    if "report.json" in names:
        return "vmb validate-benchmark"
    if names & {"comparison.json", "comparison.md"}:
        return "vmb compare"
    return None


def run_maker(out: str | os.PathLike[str]) -> str | None:
    """The command whose run ``out`` holds (``"vmb eval"``, ...): its marker, else told by its files.

    Returns None for a missing or empty folder and for files no ``vmb`` command writes.
    """
    path = Path(out)
    if not path.is_dir() or not _content(path):
        return None
    return _read_marker(path) or _legacy_maker(path)


def check_out(out: str | os.PathLike[str], command: str, *, overwrite: bool = False, resume: bool = False,
              outputs: Sequence[str] = ()) -> None:
    """The rule: may ``command`` write into ``out``? Returns when it may; writes nothing.

    Args:
        out: the output folder.
        command: the command that wants to write (``"vmb score"``, ``"vmb train sb3"``).
        overwrite: ``--overwrite`` was given: replace an earlier run of ``command`` (or files no
            command made that bear the name of one of ``outputs``).
        resume: ``--resume`` was given: continue an earlier run of ``command``.
        outputs: names (or glob patterns) of what ``command`` writes into ``out``.

    Raises:
        ConfigError: ``out`` is a file; it holds another command's run (even with ``overwrite``);
            it holds an earlier run of ``command`` and neither ``overwrite`` nor ``resume`` is set;
            it holds files no command made, one named as an output, and ``overwrite`` is not set;
            or both ``overwrite`` and ``resume`` are set.
    """
    path = Path(out)
    if overwrite and resume:
        raise ConfigError("--resume continues the run in --out and --overwrite replaces it; pass only one of them")
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {path} is a file; expected a folder (new or empty), or choose another --out")
    content = _content(path) if path.is_dir() else []
    if not content:
        return
    listing = ", ".join(content)
    maker = _read_marker(path) or _legacy_maker(path)
    if maker is None:
        clash = sorted({p.name for pattern in outputs for p in path.glob(pattern)} - _IGNORED)
        if not clash or overwrite:
            return
        raise ConfigError(f"--out {path} holds files no vmb command made ({listing}), and {', '.join(clash)} there "
                          f"would be replaced by `{command}`'s outputs; choose another --out, or pass --overwrite "
                          "to replace them")
    if maker != command:
        raise ConfigError(f"--out {path} holds a run of `{maker}` ({listing}); `{command}` never writes into "
                          f"another command's run, not even with --overwrite; choose another --out (or empty "
                          f"{path} yourself if that run is no longer wanted)")
    if overwrite or (resume and command in RESUMABLE):
        return
    more = ", --resume to continue it" if command in RESUMABLE else ""
    raise ConfigError(f"--out {path} is not empty: it holds an earlier `{command}` run ({listing}); choose another "
                      f"--out, or pass --overwrite to replace that run's outputs{more}")


# ---------------------------------------------------------------------------- claiming
@dataclass(frozen=True)
class Claim:
    """A folder this process claimed: where, and for which command."""

    out: Path
    command: str


_CLAIMS: list[Claim] = []
_HELD: list[Claim] = []  # the claims of the claimed_out blocks now open


def claims() -> list[Claim]:
    """The folders claimed in this process, oldest first (the ``vmb`` entry point names the last after a full disk)."""
    return list(_CLAIMS)


def forget_claims() -> None:
    """Forget the claims made so far (the ``vmb`` entry point starts each command with none)."""
    _CLAIMS.clear()


def _remove(out: Path, outputs: Iterable[str]) -> None:
    for pattern in outputs:
        for path in sorted(out.glob(pattern)):
            if path.name in _IGNORED:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()


def claim_out(out: str | os.PathLike[str], command: str, *, overwrite: bool = False, resume: bool = False,
              outputs: Sequence[str] = ()) -> Path:
    """Apply :func:`check_out`, then make ``out`` ready for ``command``: created, marked and (with
    ``overwrite``) cleared of ``outputs``.

    Args:
        out: the output folder (created when missing).
        command: the claiming command, written into :data:`MARKER`.
        overwrite: see :func:`check_out`; the ``outputs`` there are removed first (not on ``resume``).
        resume: see :func:`check_out`.
        outputs: names (or glob patterns) of what ``command`` writes into ``out``.

    A folder held by an enclosing :func:`claimed_out` block of the same ``command`` (a command
    that claims its ``--out``, then calls a library function that claims it too) is returned as
    it is: the inner claim must not read the outer one's marker as an earlier run.

    Returns:
        ``out`` as a path.

    Raises:
        ConfigError: see :func:`check_out`.
    """
    path = Path(out)
    if any(c.command == command and c.out.resolve() == path.resolve() for c in _HELD):
        return path
    check_out(path, command, overwrite=overwrite, resume=resume, outputs=outputs)
    path.mkdir(parents=True, exist_ok=True)
    if overwrite:
        _remove(path, outputs)
    if _read_marker(path) != command:
        import vmb_gym

        marker = {"command": command, "created": datetime.now(UTC).isoformat(timespec="seconds"),
                  "vmb_gym_version": vmb_gym.__version__}
        write_atomic(path / MARKER, json.dumps(marker, indent=1) + "\n")
    _CLAIMS.append(Claim(path, command))
    return path


@contextmanager
def claimed_out(out: str | os.PathLike[str], command: str, *, overwrite: bool = False, resume: bool = False,
                outputs: Sequence[str] = ()) -> Iterator[Path]:
    """:func:`claim_out` under the folder's :class:`~vmb_gym.evaluation.lock.OutLock`, held for the block.

    The rule is checked before the lock is taken too, so a refused folder is left as it was
    (not even a lock file is added).
    """
    from vmb_gym.evaluation.lock import OutLock

    check_out(out, command, overwrite=overwrite, resume=resume, outputs=outputs)
    with OutLock(out, command):
        path = claim_out(out, command, overwrite=overwrite, resume=resume, outputs=outputs)
        held = Claim(path, command)
        _HELD.append(held)
        try:
            yield path
        finally:
            _HELD.remove(held)


# ---------------------------------------------------------------------------- whole files
def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _write_file(path: Path, data: bytes, fsync: bool) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        if fsync:
            os.fsync(f.fileno())


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *, fsync: bool = True) -> None:
    """Write ``data`` (str as UTF-8) to ``path`` whole: a temporary file beside it, then ``os.replace``.

    On any error (a full disk) the temporary file is removed and ``path`` keeps its old content.
    """
    write_atomic_many({path: data}, fsync=fsync)


def write_atomic_many(files: Mapping[str | os.PathLike[str], bytes | str], *, fsync: bool = True) -> None:
    """Write several files whole and together: every temporary file first, then the renames.

    A full disk while writing leaves every file as it was (none replaced); the temporary files
    are removed.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target, data in files.items():
            path = Path(target)
            tmp = _tmp_name(path)
            staged.append((tmp, path))
            _write_file(tmp, data.encode("utf-8") if isinstance(data, str) else data, fsync)
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            with suppress(OSError):
                tmp.unlink()
        raise


def save_figure(fig: Any, path: str | os.PathLike[str], **savefig: Any) -> Path:
    """Save a matplotlib figure as a PNG whole (rendered in memory, then :func:`write_atomic`); returns ``path``."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", **savefig)
    write_atomic(path, buffer.getvalue(), fsync=False)
    return Path(path)


# ---------------------------------------------------------------------------- a full disk
#: How a full disk reads in the messages of libraries that do not keep the errno (safetensors, ...).
_DISK_FULL_WORDS = tuple({os.strerror(e) for e in DISK_FULL_ERRNOS} | {"StorageFull", "QuotaExceeded"})


def _disk_full_cause(exc: BaseException | None) -> BaseException | None:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
            return exc
        if not isinstance(exc, OSError) and any(word in str(exc) for word in _DISK_FULL_WORDS):
            return exc
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return None


def is_disk_full(exc: BaseException) -> bool:
    """``exc`` (or an exception it was raised from) says the disk is full: ENOSPC or EDQUOT."""
    return _disk_full_cause(exc) is not None


class DiskFull(OSError):
    """The disk filled up during a run; what is saved is whole (an ``OSError`` with the cause's errno).

    Attributes:
        out: the run's folder.
        saved: finished units saved (None: not counted).
        total: units of the run.
        unit: what a unit is called (``"episodes"``, ``"scenarios"``).
        file: where they are saved (default ``out``).
        detail: what is saved, in words (used when ``saved`` is None).
    """

    def __init__(self, cause: OSError, out: str | os.PathLike[str], *, saved: int | None = None,
                 total: int | None = None, unit: str = "episodes", file: str | os.PathLike[str] | None = None,
                 detail: str | None = None) -> None:
        super().__init__(cause.errno or errno.ENOSPC, cause.strerror or os.strerror(errno.ENOSPC), cause.filename)
        self.out = Path(out)
        self.saved = saved
        self.total = total
        self.unit = unit
        self.file = Path(file) if file is not None else self.out
        self.detail = detail


def _rerun(argv: Sequence[str], flag: str | None) -> str:
    """``vmb ARGV`` with ``flag`` added once (``--resume`` drops ``--overwrite``: they exclude each other)."""
    args = list(argv)
    if flag == "--resume":
        args = [a for a in args if a != "--overwrite"]
    if flag and flag not in args:
        args.append(flag)
    return shlex.join(["vmb", *args])


def disk_full_message(command: str, exc: BaseException, argv: Sequence[str]) -> str:
    """The one line printed when the disk filled up: the cause, what is saved where, the command to go on."""
    cause = _disk_full_cause(exc) or exc
    reason = " ".join(str(cause).split()) or os.strerror(errno.ENOSPC)
    claim = _CLAIMS[-1] if _CLAIMS else None
    resumable = claim is not None and claim.command in RESUMABLE
    if isinstance(exc, DiskFull) and exc.saved is not None:
        saved = f"{exc.saved} of {exc.total} {exc.unit} finished and saved in {exc.file}"
    elif isinstance(exc, DiskFull) and exc.detail:
        saved = exc.detail
    elif claim is not None and resumable:
        saved = f"the {'scenarios' if claim.command == 'vmb eval-stream' else 'episodes'} finished so far are saved " \
                f"in {claim.out / 'results.jsonl'}"
    elif claim is not None and _content(claim.out):
        saved = f"what was written so far is in {claim.out} (each file whole; the run is not complete)"
    elif claim is not None:
        saved = f"nothing was saved in {claim.out}"
    else:
        saved = "nothing was saved"
    if resumable:
        flag: str | None = "--resume"
    elif claim is not None and _content(claim.out):
        flag = "--overwrite"  # the unfinished outputs are this command's: replace them
    else:
        flag = None
    how = "continue with" if resumable else "run again with"
    return f"{command}: error: the disk is full ({reason}); {saved}; free space, then {how}: {_rerun(argv, flag)}"
