"""Any SB3 checkpoint as a policy: the sidecar's design picks the policy class (``vmb eval --policy sb3:PATH``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.sb3.checkpoint import read_sidecar, sidecar_path
from vmb_gym.errors import ConfigError


def load_sb3_policy(path: str | Path, env: Any = None, *, deterministic: bool = True) -> Any:
    """The policy of checkpoint ``path``: :class:`~agents.sb3.catalogue_policy.SB3Policy` for the flat
    catalogue, :class:`~agents.sb3.slots.policy.SlotSB3Policy` for the slot design.

    Raises:
        ConfigError: missing or unreadable files, or a stream-writer checkpoint (a writer, not a policy).
    """
    design = read_sidecar(path).get("design")
    if design == "slots":
        from agents.sb3.slots.policy import SlotSB3Policy

        return SlotSB3Policy.load(path, env, deterministic=deterministic)
    if design == "catalogue":
        from agents.sb3.catalogue_policy import SB3Policy

        return SB3Policy.load(path, env, deterministic=deterministic)
    raise ConfigError(f"{sidecar_path(path)}: a {design!r} checkpoint is not a policy; a stream writer runs "
                      "with `vmb eval-stream --writer sb3:PATH`")
