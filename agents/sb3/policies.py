"""Any SB3 checkpoint as a policy: the sidecar's design picks the policy class (``vmb eval --policy sb3:PATH``),
and the sidecar's training settings are the evaluation's defaults (:func:`eval_settings`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_agents.sb3.checkpoint import read_sidecar, refuse_pickle, resolve_checkpoint, sidecar_path, training_settings
from vmb_gym.errors import ConfigError

__all__ = ["env_settings", "eval_settings", "load_sb3_policy", "setting_differences"]

log = logging.getLogger(__name__)


def load_sb3_policy(path: str | Path, env: Any = None, *, deterministic: bool = True,
                    drop_features: Sequence[str] = (), trust_checkpoint: bool = False) -> Any:
    """The policy of checkpoint ``path``: :class:`~vmb_agents.sb3.catalogue_policy.SB3Policy` for the flat
    catalogue, :class:`~vmb_agents.sb3.slots.policy.SlotSB3Policy` for the slot design. ``drop_features``
    (slot design only): feature groups the model sees as zeros, an ablation
    (``--policy-kwargs '{"drop_features": ["line_prior"]}'``; the names: ``SlotFeaturizer.feature_groups``).
    ``trust_checkpoint``: load an SB3 zip, a pickle that can run code
    (:func:`~vmb_agents.sb3.checkpoint.load_checkpoint`).

    Raises:
        ConfigError: an SB3 zip without ``trust_checkpoint``, missing or unreadable files, a stream-writer
            checkpoint (a writer, not a policy), an unknown feature group, or ``drop_features`` for a
            flat-catalogue checkpoint.
    """
    refuse_pickle(path, trust_checkpoint)
    design = read_sidecar(path).get("design")
    if env is not None:
        for line in setting_differences(path, env_settings(env)):
            log.warning("%s", line)
    if isinstance(drop_features, str):
        drop_features = [drop_features]
    if not isinstance(drop_features, (list, tuple)) or not all(isinstance(n, str) for n in drop_features):
        raise ConfigError(f"drop_features: expected a list of feature-group names (e.g. [\"line_prior\"]), found "
                          f"{drop_features!r}")
    if design == "slots":
        from vmb_agents.sb3.slots.policy import SlotSB3Policy

        return SlotSB3Policy.load(path, env, deterministic=deterministic, drop_features=list(drop_features),
                                  trust_checkpoint=trust_checkpoint)
    if drop_features:
        raise ConfigError(f"{path}: drop_features is an option of slot-design checkpoints; this one is {design!r}; "
                          "fix: leave drop_features out")
    if design == "catalogue":
        from vmb_agents.sb3.catalogue_policy import SB3Policy

        return SB3Policy.load(path, env, deterministic=deterministic, trust_checkpoint=trust_checkpoint)
    raise ConfigError(f"{sidecar_path(path)}: a {design!r} checkpoint is not a policy; a stream writer runs "
                      "with `vmb eval-stream --writer sb3:PATH`")


def eval_settings(spec: str, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The env settings of an evaluation of policy ``spec``.

    Each setting (a key of ``defaults``: ``memory``, ``max_steps``, ``schema``) is the value the
    user gave (``given``; None = not given), else what an ``sb3:CHECKPOINT``'s sidecar recorded
    as its training setting, else ``defaults``; other specs read nothing. A given value that
    differs from the recorded one is kept; :func:`load_sb3_policy` warns about it when it binds
    the policy to the env (:func:`setting_differences`), for the CLI and Python alike.

    Raises:
        ConfigError: an ``sb3:`` checkpoint whose files are missing or unreadable.
    """
    kind, _, path = spec.strip().partition(":")
    trained = training_settings(path.strip()) if kind == "sb3" and path.strip() else {}
    settings: dict[str, Any] = {}
    for key, default in defaults.items():
        value, recorded = given.get(key), trained.get(key)
        settings[key] = value if value is not None else recorded if recorded is not None else default
    return settings


def env_settings(env: Any) -> dict[str, Any]:
    """The settings of ``env`` a checkpoint records for its training env: ``memory``, ``max_steps``, ``schema``
    (those the env has)."""
    base = getattr(env, "unwrapped", env)
    found = {"memory": getattr(base, "memory_name", None), "max_steps": getattr(base, "max_steps", None),
             "schema": getattr(base, "schema_flavour", None)}
    return {k: v for k, v in found.items() if v is not None}


def setting_differences(path: str | Path, actual: Mapping[str, Any]) -> list[str]:
    """One warning line per setting of ``actual`` (the env's: :func:`env_settings`) that differs from the one
    checkpoint ``path`` was trained with (its sidecar's ``"settings"``; a checkpoint without them: none).

    The policy still runs in that env; a trained policy usually scores far lower on another memory module.
    """
    trained = training_settings(path)
    lines = []
    for key, value in actual.items():
        recorded = trained.get(key)
        if recorded is not None and str(value).strip().casefold() != str(recorded).casefold():
            flag = "--" + key.replace("_", "-")
            lines.append(f"the env's {key} {value} differs from the checkpoint's training setting {key} {recorded} "
                         f"({sidecar_path(resolve_checkpoint(path))}); evaluating with {value}; fix: {flag} {recorded} "
                         f"(gym.make(..., {key}={recorded!r})) to evaluate it as trained")
    return lines
