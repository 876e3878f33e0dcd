"""Data specs: which folder ``default``, ``official``, ``official:DIR`` or a plain path names.

* ``default``: the set shipped with vmb_gym (:func:`~vmb_gym.data.embedded.embedded_benchmark_dir`).
* ``official``: the official release at its usual place: ``$VMB_OFFICIAL_DIR``, else
  ``../shared/vehiclemembench`` beside the package root (the folder that holds ``vmb_gym/``; the
  repository in a source checkout), whatever the working directory.
* ``official:DIR`` or ``DIR``: that folder; a relative ``DIR`` is looked up from the working
  directory, then from the package root, so ``official:../shared/vehiclemembench`` finds the
  release from any directory of the checkout.

A folder that exists nowhere is a :class:`~vmb_gym.errors.ConfigError` naming every path tried
(and ``default`` when the spec is a near miss such as ``defualt``). Names are matched ignoring
case (``Default``, ``OFFICIAL:DIR``).
"""

from __future__ import annotations

import os
from pathlib import Path

from vmb_gym.data.embedded import embedded_benchmark_dir
from vmb_gym.errors import ConfigError
from vmb_gym.names import did_you_mean

__all__ = ["OFFICIAL_ENV", "data_folder", "official_candidates", "package_root"]

#: Environment variable naming the official release folder (what ``official`` means first).
OFFICIAL_ENV = "VMB_OFFICIAL_DIR"
#: Where the official release usually lies, relative to the package root.
OFFICIAL_BESIDE_ROOT = Path("..") / "shared" / "vehiclemembench"

_PREFIX = "official:"
_FORMS = "'default' (the shipped set), 'official' (the release at $VMB_OFFICIAL_DIR), 'official:DIR' or a folder"


def package_root() -> Path:
    """The folder that holds the ``vmb_gym`` package (the repository root in a source checkout)."""
    return Path(__file__).resolve().parents[2]


def official_candidates() -> list[Path]:
    """Where ``official`` looks, in order: ``$VMB_OFFICIAL_DIR`` (when set), then beside the package root."""
    env = os.environ.get(OFFICIAL_ENV, "").strip()
    return ([Path(env).expanduser()] if env else []) + [(package_root() / OFFICIAL_BESIDE_ROOT).resolve()]


def _first_folder(candidates: list[Path], spec: str, what: str) -> str:
    """The first of ``candidates`` that is a folder.

    Raises:
        ConfigError: none is; the message lists every path tried.
    """
    for path in candidates:
        if path.is_dir():
            return str(path)
    tried = ", ".join(str(p) for p in dict.fromkeys(candidates))
    raise ConfigError(f"{what} for data {spec!r} does not exist (tried {tried}); fix: point to a folder that "
                      f"holds history/ and qa_data/, or set ${OFFICIAL_ENV}")


def _relative_candidates(folder: str) -> list[Path]:
    path = Path(folder).expanduser()
    return [path] if path.is_absolute() else [path, (package_root() / path).resolve()]


def data_folder(spec: str | os.PathLike[str] = "default") -> str | os.PathLike[str]:
    """The folder a data spec names (see the module docstring for the forms).

    Raises:
        ConfigError: ``spec`` is empty, ``"official:"`` without a folder, or names a folder
            that does not exist (the message lists the paths tried and the close spec names).
    """
    text = os.fspath(spec)
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"expected a data spec ({_FORMS}), found an empty value")
    text = text.strip()
    if text.casefold() == "default":
        return embedded_benchmark_dir()
    if text.casefold() == "official":
        return _first_folder(official_candidates(), text, "the official release folder")
    if text[: len(_PREFIX)].casefold() == _PREFIX:
        folder = text[len(_PREFIX):].strip()
        if not folder:
            raise ConfigError("expected 'official:DIR' with a folder after the colon, found 'official:'; "
                              "e.g. official:../shared/vehiclemembench, or 'official' for $VMB_OFFICIAL_DIR")
        return _first_folder(_relative_candidates(folder), text, "the official folder")
    candidates = _relative_candidates(text)
    for path in candidates:
        if path.is_dir():
            return text if path == candidates[0] else str(path)
    tried = ", ".join(str(p) for p in dict.fromkeys(candidates))
    raise ConfigError(f"expected a data spec ({_FORMS}), found {text!r}, which is no folder (tried {tried})"
                      f"{did_you_mean(text, ['default', 'official'])}")
