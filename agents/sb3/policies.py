"""Any SB3 checkpoint as a policy: the sidecar's design picks the policy class (``vmb eval --policy sb3:PATH``),
and the sidecar's training settings are the evaluation's defaults (:func:`eval_settings`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_agents.sb3.checkpoint import read_sidecar, sidecar_path, training_settings
from vmb_gym.errors import ConfigError

__all__ = ["eval_settings", "load_sb3_policy"]


def load_sb3_policy(path: str | Path, env: Any = None, *, deterministic: bool = True,
                    drop_features: Sequence[str] = ()) -> Any:
    """The policy of checkpoint ``path``: :class:`~vmb_agents.sb3.catalogue_policy.SB3Policy` for the flat
    catalogue, :class:`~vmb_agents.sb3.slots.policy.SlotSB3Policy` for the slot design. ``drop_features``
    (slot design only): feature groups the model sees as zeros, an ablation
    (``--policy-kwargs '{"drop_features": ["line_prior"]}'``; the names: ``SlotFeaturizer.feature_groups``).

    Raises:
        ConfigError: missing or unreadable files, a stream-writer checkpoint (a writer, not a policy), an
            unknown feature group, or ``drop_features`` for a flat-catalogue checkpoint.
    """
    design = read_sidecar(path).get("design")
    if isinstance(drop_features, str):
        drop_features = [drop_features]
    if not isinstance(drop_features, (list, tuple)) or not all(isinstance(n, str) for n in drop_features):
        raise ConfigError(f"drop_features: expected a list of feature-group names (e.g. [\"line_prior\"]), found "
                          f"{drop_features!r}")
    if design == "slots":
        from vmb_agents.sb3.slots.policy import SlotSB3Policy

        return SlotSB3Policy.load(path, env, deterministic=deterministic, drop_features=list(drop_features))
    if drop_features:
        raise ConfigError(f"{path}: drop_features is an option of slot-design checkpoints; this one is {design!r}; "
                          "fix: leave drop_features out")
    if design == "catalogue":
        from vmb_agents.sb3.catalogue_policy import SB3Policy

        return SB3Policy.load(path, env, deterministic=deterministic)
    raise ConfigError(f"{sidecar_path(path)}: a {design!r} checkpoint is not a policy; a stream writer runs "
                      "with `vmb eval-stream --writer sb3:PATH`")


def eval_settings(spec: str, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The env settings of an evaluation of policy ``spec``, and a warning per conflicting flag.

    Each setting (a key of ``defaults``: ``memory``, ``max_steps``, ``schema``) is the value the
    user gave (``given``; None = not given), else what an ``sb3:CHECKPOINT``'s sidecar recorded
    as its training setting, else ``defaults``. A given value that differs from the recorded one
    is kept and named in a warning line (both values, the sidecar); other specs read nothing.

    Raises:
        ConfigError: an ``sb3:`` checkpoint whose files are missing or unreadable.
    """
    kind, _, path = spec.strip().partition(":")
    trained = training_settings(path.strip()) if kind == "sb3" and path.strip() else {}
    settings: dict[str, Any] = {}
    warnings: list[str] = []
    for key, default in defaults.items():
        value, recorded = given.get(key), trained.get(key)
        settings[key] = value if value is not None else recorded if recorded is not None else default
        if value is not None and recorded is not None and str(value).strip().casefold() != str(recorded).casefold():
            flag = "--" + key.replace("_", "-")
            warnings.append(f"{flag} {value} differs from the checkpoint's training setting {flag} {recorded} "
                            f"({sidecar_path(path.strip())}); evaluating with {value}")
    return settings, warnings
