"""One checkpoint format for every SB3 design: ``NAME.zip`` (the SB3 model) + ``NAME.vmb.json`` (the sidecar).

The sidecar is a JSON object ``{"design", "algo", "format_version", ...}``: ``design`` is
``"catalogue"`` (the flat call catalogue, :mod:`vmb_agents.sb3.catalogue_policy`), ``"slots"`` (the
slot design, :mod:`vmb_agents.sb3.slots`) or ``"stream_writer"`` (the learned memory writer); the
rest is what the design needs to rebuild its env side (the catalogue, the featuriser, a budget)
and, since the trainers record them, ``"settings"``: the training env's memory, step limit and
tool schema (:func:`training_settings`; the defaults of ``vmb eval --policy sb3:PATH``).

    path = save_checkpoint(model, "runs/x/final", design="slots", algo="maskable_ppo",
                           meta={"catalogue": catalogue.to_json()})
    model, sidecar = load_checkpoint(path, design="slots")

Checkpoints shipped with the package (``agents/sb3/checkpoints/NAME.zip`` + sidecar) load by name:
``vmb eval --policy sb3:slots`` reads :data:`SHIPPED_DIR` ``/slots.zip`` unless ``slots.zip`` exists
where the command runs (:func:`resolve_checkpoint`; saving never resolves a name).

Checkpoints written before this format load through a small shim (:func:`read_sidecar`): the old
catalogue and slot sidecars (``NAME.vmb.json`` without ``format_version``; the catalogue one had
no ``design``) and the stream writer's ``NAME.json`` (``"kind": "stream_writer"``) are read as
``format_version`` 1 of their design. Nothing is rewritten on disk.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_agents.sb3.legacy_paths import old_module_paths

#: Algorithm name -> ``"module:Class"`` of its SB3 class (the only copy; imported on first use so
#: that importing this module does not load torch).
ALGOS: dict[str, str] = {"ppo": "stable_baselines3:PPO", "maskable_ppo": "sb3_contrib:MaskablePPO"}
#: The SB3 designs a sidecar may name.
DESIGNS = ("catalogue", "slots", "stream_writer")
#: Version of the sidecar written by :func:`save_checkpoint` (1: the sidecars before it).
FORMAT_VERSION = 2
SIDECAR_SUFFIX = ".vmb.json"
#: The checkpoints shipped with the package, loaded by name (``sb3:slots``).
SHIPPED_DIR = Path(__file__).resolve().parent / "checkpoints"


def shipped_names() -> list[str]:
    """The names of the shipped checkpoints (``NAME.zip`` with its sidecar in :data:`SHIPPED_DIR`)."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.stem for p in SHIPPED_DIR.glob("*.zip") if sidecar_path(p).is_file())


def resolve_checkpoint(path: str | Path) -> Path:
    """``path`` as given, or the shipped checkpoint it names.

    A bare name (no folder, no ``.zip``) such as ``slots`` is the shipped checkpoint of that name
    when no ``NAME.zip`` exists where the command runs.
    """
    text = str(path)
    given = Path(text)
    if given.parent == Path(".") and not text.endswith(".zip") and not zip_path(given).is_file():
        shipped = SHIPPED_DIR / text
        if zip_path(shipped).is_file():
            return shipped
    return given


def algo_class(name: str) -> Any:
    """The SB3 algorithm class of ``name`` (a key of :data:`ALGOS`).

    Raises:
        ConfigError: an unknown name.
    """
    target = ALGOS.get(name)
    if target is None:
        raise ConfigError(f"unknown algorithm {name!r}; expected one of {sorted(ALGOS)}")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


def zip_path(path: str | Path) -> Path:
    """``NAME.zip`` for ``NAME`` or ``NAME.zip``."""
    text = str(path)
    return Path(text if text.endswith(".zip") else text + ".zip")


def sidecar_path(path: str | Path) -> Path:
    """``NAME.vmb.json`` for ``NAME`` or ``NAME.zip``."""
    text = str(path)
    return Path((text[:-4] if text.endswith(".zip") else text) + SIDECAR_SUFFIX)


def _legacy_stream_sidecar(path: str | Path) -> Path:
    """Where the stream writer wrote its sidecar before :data:`FORMAT_VERSION` 2: ``NAME.json``."""
    return zip_path(path).with_suffix(".json")


def save_checkpoint(model: Any, path: str | Path, *, design: str, algo: str,
                    meta: Mapping[str, Any] | None = None) -> Path:
    """Save ``model`` as ``PATH.zip`` and its sidecar ``PATH.vmb.json``; return the zip path.

    Args:
        model: the SB3 model.
        path: ``NAME`` or ``NAME.zip``.
        design: one of :data:`DESIGNS`.
        algo: a key of :data:`ALGOS`.
        meta: what the design needs to rebuild its env side (JSON-serialisable).

    Raises:
        ConfigError: an unknown design or algorithm, or ``meta`` reusing a reserved key.
    """
    if design not in DESIGNS:
        raise ConfigError(f"unknown SB3 design {design!r}; expected one of {DESIGNS}")
    algo_class_name = ALGOS.get(algo)
    if algo_class_name is None:
        raise ConfigError(f"unknown algorithm {algo!r}; expected one of {sorted(ALGOS)}")
    reserved = {"design", "algo", "format_version"} & set(meta or {})
    if reserved:
        raise ConfigError(f"checkpoint meta may not set {sorted(reserved)}: they are the save_checkpoint arguments")
    out = zip_path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    sidecar = {"design": design, "algo": algo, "format_version": FORMAT_VERSION, **dict(meta or {})}
    sidecar_path(path).write_text(json.dumps(sidecar), encoding="utf-8")
    return out


def read_sidecar(path: str | Path) -> dict[str, Any]:
    """The sidecar of checkpoint ``path``, old formats read as ``format_version`` 1 (see the module docstring).

    Raises:
        ConfigError: the zip or its sidecar is missing, or the sidecar is unreadable.
    """
    path = resolve_checkpoint(path)
    model_file, side = zip_path(path), sidecar_path(path)
    legacy = _legacy_stream_sidecar(path)
    if not model_file.is_file():
        names = ", ".join(shipped_names()) or "none"
        raise ConfigError(f"expected an SB3 checkpoint at {model_file}; write one with `vmb train sb3` "
                          f"(or `vmb train stream` for a memory writer), or name a shipped one ({names})")
    if not side.is_file() and not legacy.is_file():
        raise ConfigError(f"{model_file} has no sidecar: expected {side} (written beside the zip by save_checkpoint)")
    source = side if side.is_file() else legacy
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{source}: not a vmb SB3 sidecar ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: not a vmb SB3 sidecar (expected a JSON object, found {type(data).__name__})")
    if "format_version" in data:
        return data
    if source == legacy:  # the stream writer's sidecar before the one format
        if data.get("kind", "stream_writer") != "stream_writer":
            raise ConfigError(f"{source}: not a vmb SB3 sidecar (kind {data.get('kind')!r})")
        rest = {k: v for k, v in data.items() if k != "kind"}
        return {**rest, "design": "stream_writer", "algo": str(data.get("algo", "maskable_ppo")), "format_version": 1}
    return {**data, "design": str(data.get("design", "catalogue")), "format_version": 1}


def training_settings(path: str | Path) -> dict[str, Any]:
    """The env settings checkpoint ``path`` was trained with (its sidecar's ``"settings"``: memory,
    max_steps, schema); ``{}`` for a checkpoint written before they were recorded.

    Raises:
        ConfigError: as :func:`read_sidecar`, or ``"settings"`` that is not a JSON object.
    """
    path = resolve_checkpoint(path)
    settings = read_sidecar(path).get("settings", {})
    if not isinstance(settings, dict):
        raise ConfigError(f"{sidecar_path(path)}: \"settings\" should be a JSON object, found {type(settings).__name__}")
    return dict(settings)


def load_checkpoint(path: str | Path, *, design: str | None = None, env: Any = None,
                    custom_objects: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """Load ``PATH.zip`` with its sidecar: ``(model, sidecar)``.

    Args:
        path: ``NAME`` or ``NAME.zip``.
        design: the design the caller expects (None: any).
        env: passed to SB3's ``load`` (to continue training; None for acting).
        custom_objects: passed to SB3's ``load``.

    Raises:
        ConfigError: missing files, an unreadable sidecar, another design, a newer format, an
            unknown algorithm.
    """
    path = resolve_checkpoint(path)
    sidecar = read_sidecar(path)
    found = sidecar.get("design")
    if design is not None and found != design:
        raise ConfigError(f"{sidecar_path(path)}: a {found!r} checkpoint, expected the {design!r} design; "
                          f"load it with the {found!r} loader (vmb eval --policy sb3:PATH picks it from the sidecar)")
    if int(sidecar.get("format_version", 1)) > FORMAT_VERSION:
        raise ConfigError(f"{sidecar_path(path)}: sidecar format {sidecar['format_version']} is newer than this "
                          f"version's {FORMAT_VERSION}; upgrade vmb_gym to load it")
    cls = algo_class(str(sidecar.get("algo")))
    with old_module_paths():
        model = cls.load(str(zip_path(path)), env=env, device="cpu",
                         custom_objects=dict(custom_objects) if custom_objects else None)
    return model, sidecar


def check_spaces(model: Any, path: str | Path, *, actions: int, features: int) -> None:
    """Raise :class:`ConfigError` when the model's action count or feature width differs from the design's."""
    found = (int(model.action_space.n), int(model.observation_space.shape[0]))
    if found != (actions, features):
        raise ConfigError(f"{zip_path(path)}: the model expects {found[0]} actions and {found[1]} features, "
                          f"the sidecar describes {actions} and {features}; retrain it with this version")
