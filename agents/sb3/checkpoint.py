"""One checkpoint format for every SB3 design: ``NAME.safetensors`` (the weights) + ``NAME.vmb.json`` (the sidecar).

Loading a checkpoint of this format runs no code from it: the weights are a safetensors file (tensors
only) and everything else is JSON. The sidecar is a JSON object ``{"design", "algo", "format_version",
"sb3", ...}``: ``design`` is ``"catalogue"`` (the flat call catalogue,
:mod:`vmb_agents.sb3.catalogue_policy`), ``"slots"`` (the slot design, :mod:`vmb_agents.sb3.slots`) or
``"stream_writer"`` (the learned memory writer); ``"sb3"`` describes the model
(:func:`model_record`: the policy class by a name of :data:`POLICY_CLASSES` or of the algorithm's own
aliases such as ``MlpPolicy``, never a module path; its keyword arguments; the observation and
action spaces; the seed and training hyperparameters); the rest is what the design needs to rebuild
its env side (the catalogue, the featuriser, a budget) and, since the trainers record them,
``"settings"``: the training env's memory, step limit and tool schema (:func:`training_settings`;
the defaults of ``vmb eval --policy sb3:PATH``). Loading rebuilds the SB3 model from the sidecar
and puts the weights in (:func:`load_checkpoint`).

    path = save_checkpoint(model, "runs/x/final", design="slots", algo="maskable_ppo",
                           meta={"catalogue": catalogue.to_json()})
    model, sidecar = load_checkpoint(path, design="slots")

Checkpoints shipped with the package (``agents/sb3/checkpoints/NAME.safetensors`` + sidecar) load by
name: ``vmb eval --policy sb3:slots`` reads :data:`SHIPPED_DIR` ``/slots`` unless a checkpoint
``slots`` exists where the command runs (:func:`resolve_checkpoint`; saving never resolves a name).

SB3 zips (``NAME.zip``: the format of SB3's ``model.save``, and of this project's checkpoints before
:data:`FORMAT_VERSION` 3) hold a cloudpickle: loading one runs whatever code its author put in it.
:func:`load_checkpoint` refuses them unless the caller trusts the file (``trust_checkpoint=True``;
``vmb eval --trust-checkpoint``); :func:`convert_checkpoint` turns a trusted one into this format
once. Their sidecars load through a small shim (:func:`read_sidecar`): the old catalogue and slot
sidecars (``NAME.vmb.json`` without ``format_version``; the catalogue one had no ``design``) and the
stream writer's ``NAME.json`` (``"kind": "stream_writer"``) are read as ``format_version`` 1 of their
design.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from vmb_agents.sb3.legacy_paths import old_module_paths
from vmb_gym.errors import ConfigError
from vmb_gym.names import did_you_mean

#: Algorithm name -> ``"module:Class"`` of its SB3 class (the only copy; imported on first use so
#: that importing this module does not load torch).
ALGOS: dict[str, str] = {"ppo": "stable_baselines3:PPO", "maskable_ppo": "sb3_contrib:MaskablePPO"}
#: The SB3 designs a sidecar may name.
DESIGNS = ("catalogue", "slots", "stream_writer")
#: Version of the sidecar written by :func:`save_checkpoint` (1: the sidecars before format 2; 2: beside an SB3
#: zip; 3: beside ``NAME.safetensors``, with the ``"sb3"`` model record).
FORMAT_VERSION = 3
SIDECAR_SUFFIX = ".vmb.json"
WEIGHTS_SUFFIX = ".safetensors"
#: The command-line flag that lets an SB3 zip (a pickle) load.
TRUST_FLAG = "--trust-checkpoint"
#: The project's policy classes a sidecar may name, name -> ``"module:Class"``. Besides these, a sidecar may
#: name one of its algorithm's own aliases (``MlpPolicy``: ``PPO.policy_aliases``). Loading imports only the
#: modules listed here, never a path read from a file.
POLICY_CLASSES: dict[str, str] = {"SlotPointerPolicy": "vmb_agents.sb3.slots.policy:SlotPointerPolicy"}
#: Algorithm settings recorded in the sidecar and given back to the algorithm when it is rebuilt (what
#: continued training would use; acting needs none of them). A schedule is recorded as its start value.
HYPERPARAMETERS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
                   "clip_range_vf", "normalize_advantage", "ent_coef", "vf_coef", "max_grad_norm", "target_kl")
#: The sidecar entries :func:`save_checkpoint` writes itself (its arguments and the model record); the rest is the
#: design's ``meta``.
RESERVED = ("design", "algo", "format_version", "sb3")
#: The checkpoints shipped with the package, loaded by name (``sb3:slots``).
SHIPPED_DIR = Path(__file__).resolve().parent / "checkpoints"


def shipped_names() -> list[str]:
    """The names of the shipped checkpoints (weights with their sidecar in :data:`SHIPPED_DIR`)."""
    if not SHIPPED_DIR.is_dir():
        return []
    found = [*SHIPPED_DIR.glob("*" + WEIGHTS_SUFFIX), *SHIPPED_DIR.glob("*.zip")]
    return sorted({Path(_base(p)).name for p in found if sidecar_path(p).is_file()})


def _base(path: str | Path) -> str:
    """``NAME`` for ``NAME``, ``NAME.zip`` or ``NAME.safetensors``."""
    text = str(path)
    for suffix in (".zip", WEIGHTS_SUFFIX):
        if text.endswith(suffix):
            return text[:-len(suffix)]
    return text


def _has_model(path: str | Path) -> bool:
    return weights_path(path).is_file() or zip_path(path).is_file()


def resolve_checkpoint(path: str | Path) -> Path:
    """``path`` as given, or the shipped checkpoint it names.

    A bare name (no folder, no ``.zip`` or ``.safetensors``) such as ``slots`` is the shipped checkpoint
    of that name when no checkpoint of that name exists where the command runs.
    """
    text = str(path)
    given = Path(text)
    if given.parent == Path(".") and not text.endswith((".zip", WEIGHTS_SUFFIX)) and not _has_model(given):
        shipped = SHIPPED_DIR / text
        if _has_model(shipped):
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
    """``NAME.zip`` (an SB3 zip: a pickle) for ``NAME``, ``NAME.zip`` or ``NAME.safetensors``."""
    return Path(_base(path) + ".zip")


def weights_path(path: str | Path) -> Path:
    """``NAME.safetensors`` (the weights) for ``NAME``, ``NAME.zip`` or ``NAME.safetensors``."""
    return Path(_base(path) + WEIGHTS_SUFFIX)


def sidecar_path(path: str | Path) -> Path:
    """``NAME.vmb.json`` for ``NAME``, ``NAME.zip`` or ``NAME.safetensors``."""
    return Path(_base(path) + SIDECAR_SUFFIX)


def _legacy_stream_sidecar(path: str | Path) -> Path:
    """Where the stream writer wrote its sidecar before :data:`FORMAT_VERSION` 2: ``NAME.json``."""
    return Path(_base(path) + ".json")


def is_pickle_checkpoint(path: str | Path) -> bool:
    """Whether checkpoint ``path`` would load from an SB3 zip (a pickle): it has no ``NAME.safetensors`` but a zip."""
    path = resolve_checkpoint(path)
    return not weights_path(path).is_file() and zip_path(path).is_file()


def refuse_pickle(path: str | Path, trust_checkpoint: bool = False) -> None:
    """Raise :class:`ConfigError` when checkpoint ``path`` is an SB3 zip and the caller does not trust it.

    Raises:
        ConfigError: an SB3 zip without ``trust_checkpoint``; the message says why and names the flag.
    """
    if trust_checkpoint or not is_pickle_checkpoint(path):
        return
    found = zip_path(resolve_checkpoint(path))
    if not sidecar_path(found).is_file() and not _legacy_stream_sidecar(found).is_file():
        raise ConfigError(
            f"{found} is a Stable-Baselines3 zip without the sidecar ({sidecar_path(found).name}) that says which env "
            "and design it was trained for, so no loader can rebuild its policy; its data is also a pickle, which "
            "runs any code its author put in it. Fix: if you trust it, load it with MaskablePPO.load in your own "
            "script and save it with vmb_agents.sb3.checkpoint.save_checkpoint (docs/howto/sb3.md)")
    raise ConfigError(
        f"{found} is a Stable-Baselines3 zip: its data is a pickle, and loading it runs any code its author put in "
        f"it. Load it only if you trust where it came from: `vmb eval {TRUST_FLAG}` or `vmb eval-stream {TRUST_FLAG}` "
        f"(Python: trust_checkpoint=True); better, convert it once with `vmb train convert-checkpoint {found} "
        f"{TRUST_FLAG}` to safetensors + JSON, which load without running code")


def _space_record(space: Any) -> dict[str, Any]:
    """A JSON description of a ``Box`` or ``Discrete`` space."""
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Box):
        bounds = {}
        for name, values in (("low", space.low), ("high", space.high)):
            unique = np.unique(values)
            bounds[name] = float(unique[0]) if unique.size == 1 else values.tolist()
        return {"type": "Box", "shape": list(space.shape), "dtype": str(space.dtype), **bounds}
    raise ConfigError(f"a checkpoint records Box and Discrete spaces; this model has a {type(space).__name__}")


def _space(record: Any, where: Path) -> Any:
    """The space a :func:`_space_record` describes."""
    try:
        if record["type"] == "Discrete":
            return spaces.Discrete(int(record["n"]), start=int(record.get("start", 0)))
        if record["type"] == "Box":
            dtype = np.dtype(str(record["dtype"]))
            low, high = (float(record[k]) if isinstance(record[k], (int, float)) else np.asarray(record[k], dtype=dtype)
                         for k in ("low", "high"))
            return spaces.Box(low=low, high=high, shape=tuple(int(n) for n in record["shape"]), dtype=dtype)
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: unreadable space {record!r} ({type(exc).__name__}: {exc})") from exc
    raise ConfigError(f"{where}: unknown space {record!r}; expected a Box or a Discrete record")


def _policy_name(policy: Any, algo_cls: Any) -> str:
    """The registered name of ``policy``'s class (:data:`POLICY_CLASSES` or the algorithm's aliases)."""
    cls = type(policy)
    target = f"{cls.__module__}:{cls.__qualname__}"
    for name, registered in POLICY_CLASSES.items():
        if registered == target:
            return name
    for name, alias in getattr(algo_cls, "policy_aliases", {}).items():
        if alias is cls:
            return name
    raise ConfigError(f"cannot save a {cls.__qualname__} policy: a sidecar names its policy class by a registered "
                      f"name; fix: add it to POLICY_CLASSES in vmb_agents.sb3.checkpoint")


def policy_class(name: Any, algo_cls: Any, where: str | Path = "checkpoint") -> Any:
    """The policy class a sidecar names: a key of :data:`POLICY_CLASSES` or one of ``algo_cls``'s aliases.

    Raises:
        ConfigError: any other name (it is never imported as a module path).
    """
    aliases = dict(getattr(algo_cls, "policy_aliases", {}))
    if isinstance(name, str) and name in POLICY_CLASSES:
        module, attr = POLICY_CLASSES[name].split(":")
        return getattr(importlib.import_module(module), attr)
    if isinstance(name, str) and name in aliases:
        return aliases[name]
    known = sorted({*POLICY_CLASSES, *aliases})
    raise ConfigError(f"{where}: unknown policy class {name!r}; this version knows {known} (a sidecar names its policy "
                      "class by one of these names, never by a module path); fix: load it with the vmb_gym version "
                      "that wrote it, or retrain it with this one")


def _scalar(value: Any) -> Any:
    """``value`` as a JSON scalar (a schedule as its start value), or None when it is none."""
    if callable(value):
        value = value(1.0)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return None


def model_record(model: Any, algo: str) -> dict[str, Any]:
    """The sidecar's ``"sb3"`` entry for ``model``: what :func:`load_checkpoint` rebuilds it from.

    Raises:
        ConfigError: a model of another algorithm, a policy class that is not registered, keyword arguments
            that are not JSON, or a space other than Box and Discrete.
    """
    algo_cls = algo_class(algo)
    if type(model) is not algo_cls:
        raise ConfigError(f"algo {algo!r} names {algo_cls.__name__}, the model is a {type(model).__name__}; "
                          f"fix: pass the algo of the model")
    kwargs = dict(getattr(model, "policy_kwargs", None) or {})
    try:
        kwargs = json.loads(json.dumps(kwargs))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"a checkpoint records the policy's keyword arguments as JSON; {kwargs!r} is not ({exc}); "
                          "fix: train with JSON-valued policy_kwargs") from exc
    hyper = {name: _scalar(getattr(model, name)) for name in HYPERPARAMETERS if hasattr(model, name)}
    seed = getattr(model, "seed", None)
    return {"policy_class": _policy_name(model.policy, algo_cls), "policy_kwargs": kwargs,
            "observation_space": _space_record(model.observation_space),
            "action_space": _space_record(model.action_space), "seed": None if seed is None else int(seed),
            "num_timesteps": int(getattr(model, "num_timesteps", 0)), "hyperparameters": hyper}


def save_checkpoint(model: Any, path: str | Path, *, design: str, algo: str,
                    meta: Mapping[str, Any] | None = None) -> Path:
    """Save ``model`` as ``PATH.safetensors`` (its policy's weights) and ``PATH.vmb.json``; return the weights path.

    Args:
        model: the SB3 model.
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.zip``.
        design: one of :data:`DESIGNS`.
        algo: a key of :data:`ALGOS`.
        meta: what the design needs to rebuild its env side (JSON-serialisable).

    Raises:
        ConfigError: an unknown design or algorithm, ``meta`` reusing a reserved key, or a model the sidecar
            cannot describe (:func:`model_record`).
    """
    from safetensors.torch import save

    if design not in DESIGNS:
        raise ConfigError(f"unknown SB3 design {design!r}; expected one of {DESIGNS}")
    if algo not in ALGOS:
        raise ConfigError(f"unknown algorithm {algo!r}; expected one of {sorted(ALGOS)}")
    reserved = set(RESERVED) & set(meta or {})
    if reserved:
        raise ConfigError(f"checkpoint meta may not set {sorted(reserved)}: they are the save_checkpoint arguments")
    sidecar = {"design": design, "algo": algo, "format_version": FORMAT_VERSION, "sb3": model_record(model, algo),
               **dict(meta or {})}
    out = weights_path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous().clone() for k, v in model.policy.state_dict().items()}
    for target, data in ((out, save(tensors)), (sidecar_path(path), json.dumps(sidecar).encode("utf-8"))):
        partial = target.with_name(target.name + ".partial")  # a file is whole or absent
        partial.write_bytes(data)
        os.replace(partial, target)
    return out


#: The command that writes a checkpoint of each design (the hint of a missing one).
TRAIN_COMMANDS: dict[str, str] = {"catalogue": "`vmb train sb3`", "slots": "`vmb train sb3`",
                                  "stream_writer": "`vmb train stream`"}


def require_checkpoint(path: str | Path, *, design: str | None = None,
                       shipped: Iterable[str] | None = None) -> Path:
    """``path`` resolved (:func:`resolve_checkpoint`), when a checkpoint (weights or an SB3 zip) is there.

    Args:
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.zip``.
        design: the design the caller loads (None: any); it picks the training command the error names.
        shipped: the names of the shipped checkpoints of that kind, suggested when none is at ``path``
            (with a "did you mean" for a misspelt bare name). Default: :func:`shipped_names` (the slot
            policies) for a policy or any design, none for a stream writer (its loader passes
            :data:`vmb_agents.stream.learned.NAMED_WRITERS`).

    Raises:
        ConfigError: no checkpoint at ``path``; the message says how to write one and which shipped ones
            of the kind asked for there are.
    """
    resolved = resolve_checkpoint(path)
    if _has_model(resolved):
        return resolved
    if shipped is None:
        shipped = [] if design == "stream_writer" else shipped_names()
    names = list(shipped)
    train = TRAIN_COMMANDS.get(str(design), "`vmb train sb3` (or `vmb train stream` for a memory writer)")
    offer = f", or name a shipped one ({', '.join(names)})" if names else ""
    text = str(path)
    bare = Path(text).parent == Path(".") and not text.endswith((".zip", WEIGHTS_SUFFIX))
    hint = did_you_mean(text, names) if bare else ""
    raise ConfigError(f"expected an SB3 checkpoint at {weights_path(resolved)}; write one with {train}{offer}{hint}")


def read_sidecar(path: str | Path, *, design: str | None = None, shipped: Iterable[str] | None = None
                 ) -> dict[str, Any]:
    """The sidecar of checkpoint ``path``, old formats read as ``format_version`` 1 (see the module docstring).

    ``design`` and ``shipped`` word the error of a missing checkpoint (:func:`require_checkpoint`); they
    select nothing.

    Raises:
        ConfigError: the weights (or zip) or the sidecar is missing, or the sidecar is unreadable.
    """
    path = require_checkpoint(path, design=design, shipped=shipped)
    side, legacy = sidecar_path(path), _legacy_stream_sidecar(path)
    model_file = weights_path(path) if weights_path(path).is_file() else zip_path(path)
    if not side.is_file() and not legacy.is_file():
        raise ConfigError(f"{model_file} has no sidecar: expected {side} (written beside it by save_checkpoint)")
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


def sidecar_meta(sidecar: Mapping[str, Any]) -> dict[str, Any]:
    """The design's entries of ``sidecar``: the ``meta`` :func:`save_checkpoint` wrote (no :data:`RESERVED` key)."""
    return {k: v for k, v in sidecar.items() if k not in RESERVED}


def training_settings(path: str | Path) -> dict[str, Any]:
    """The env settings checkpoint ``path`` was trained with (its sidecar's ``"settings"``: memory,
    max_steps, schema); ``{}`` for a checkpoint written before they were recorded.

    Raises:
        ConfigError: as :func:`read_sidecar`, or ``"settings"`` that is not a JSON object.
    """
    path = resolve_checkpoint(path)
    settings = read_sidecar(path).get("settings", {})
    if not isinstance(settings, dict):
        raise ConfigError(f"{sidecar_path(path)}: \"settings\" should be a JSON object, "
                          f"found {type(settings).__name__}")
    return dict(settings)


def _rebuild(path: Path, sidecar: Mapping[str, Any], env: Any) -> Any:
    """The SB3 model of a safetensors checkpoint: built from its sidecar's ``"sb3"`` record, weights put in."""
    from safetensors.torch import load_file
    from stable_baselines3.common.utils import check_for_correct_spaces

    side = sidecar_path(path)
    record = sidecar.get("sb3")
    if not isinstance(record, dict) or not isinstance(record.get("policy_kwargs", {}), dict):
        raise ConfigError(f"{side}: no \"sb3\" model record beside {weights_path(path)}; fix: write it with "
                          "save_checkpoint or `vmb train convert-checkpoint`")
    algo_cls = algo_class(str(sidecar.get("algo")))
    policy_cls = policy_class(record.get("policy_class"), algo_cls, side)
    observation_space = _space(record.get("observation_space"), side)
    action_space = _space(record.get("action_space"), side)
    accepted = inspect.signature(algo_cls.__init__).parameters
    hyper = {k: v for k, v in dict(record.get("hyperparameters") or {}).items()
             if k in accepted and k not in ("policy", "env") and (v is None or isinstance(v, (bool, int, float)))}
    seed = record.get("seed")
    try:
        model = algo_cls(policy=policy_cls, env=env, device="cpu", _init_setup_model=False,
                         policy_kwargs=dict(record.get("policy_kwargs") or {}),
                         seed=int(seed) if isinstance(seed, int) else None, **hyper)
        if env is None:
            model.observation_space, model.action_space, model.n_envs = observation_space, action_space, 1
        else:
            check_for_correct_spaces(model.get_env(), observation_space, action_space)
        model._setup_model()
        model.policy.load_state_dict(load_file(str(weights_path(path)), device="cpu"))
    except (TypeError, ValueError, RuntimeError, AssertionError) as exc:
        raise ConfigError(f"{weights_path(path)}: the weights do not fit the model its sidecar describes "
                          f"({type(exc).__name__}: {str(exc).splitlines()[0][:300]})") from exc
    model.num_timesteps = int(record.get("num_timesteps") or 0)
    return model


def load_checkpoint(path: str | Path, *, design: str | None = None, env: Any = None,
                    custom_objects: Mapping[str, Any] | None = None,
                    trust_checkpoint: bool = False, shipped: Iterable[str] | None = None) -> tuple[Any, dict[str, Any]]:
    """Load checkpoint ``path`` with its sidecar: ``(model, sidecar)``.

    ``NAME.safetensors`` loads without unpickling anything: the model is rebuilt from the sidecar and the
    weights put in. An SB3 zip (no ``NAME.safetensors``) is a pickle and loads only with ``trust_checkpoint``.

    Args:
        path: ``NAME``, ``NAME.safetensors`` or ``NAME.zip``.
        design: the design the caller expects (None: any).
        env: the env to continue training in (None for acting). The rebuilt model has the recorded
            hyperparameters and fresh optimizer moments (the optimizer state is not saved).
        custom_objects: passed to SB3's ``load`` (SB3 zips only).
        trust_checkpoint: load an SB3 zip (a pickle, which can run code: only one from a trusted source).
        shipped: the shipped checkpoints of the caller's kind, offered when none is at ``path``
            (:func:`require_checkpoint`).

    Raises:
        ConfigError: an SB3 zip without ``trust_checkpoint``, missing files, an unreadable sidecar, another
            design, a newer format, an unknown algorithm or policy class, weights that do not fit.
    """
    path = resolve_checkpoint(path)
    refuse_pickle(path, trust_checkpoint)
    sidecar = read_sidecar(path, design=design, shipped=shipped)
    found = sidecar.get("design")
    if design is not None and found != design:
        raise ConfigError(f"{sidecar_path(path)}: a {found!r} checkpoint, expected the {design!r} design; "
                          f"load it with the {found!r} loader (vmb eval --policy sb3:PATH picks it from the sidecar)")
    if int(sidecar.get("format_version", 1)) > FORMAT_VERSION:
        raise ConfigError(f"{sidecar_path(path)}: sidecar format {sidecar['format_version']} is newer than this "
                          f"version's {FORMAT_VERSION}; upgrade vmb_gym to load it")
    if weights_path(path).is_file():
        return _rebuild(path, sidecar, env), sidecar
    cls = algo_class(str(sidecar.get("algo")))
    with old_module_paths():
        model = cls.load(str(zip_path(path)), env=env, device="cpu",
                         custom_objects=dict(custom_objects) if custom_objects else None)
    return model, sidecar


def convert_checkpoint(path: str | Path, out: str | Path | None = None, *, trust_checkpoint: bool = False) -> Path:
    """Write the SB3 zip checkpoint ``path`` as ``OUT.safetensors`` + ``OUT.vmb.json`` (default: beside it).

    The sidecar keeps every entry of the old one and gains the ``"sb3"`` model record; the loaded model
    acts as the zip's. Return the weights path.

    Raises:
        ConfigError: as :func:`load_checkpoint` (the zip is a pickle: ``trust_checkpoint`` is required).
    """
    model, sidecar = load_checkpoint(path, trust_checkpoint=trust_checkpoint)
    meta = sidecar_meta(sidecar)
    target = _base(resolve_checkpoint(path)) if out is None else out
    return save_checkpoint(model, target, design=str(sidecar["design"]), algo=str(sidecar["algo"]), meta=meta)


def check_spaces(model: Any, path: str | Path, *, actions: int, features: int) -> None:
    """Raise :class:`ConfigError` when the model's action count or feature width differs from the design's."""
    found = (int(model.action_space.n), int(model.observation_space.shape[0]))
    if found != (actions, features):
        raise ConfigError(f"{_base(path)}: the model expects {found[0]} actions and {found[1]} features, "
                          f"the sidecar describes {actions} and {features}; retrain it with this version")
