"""The flat-catalogue SB3 design as a policy: a trained model acting on ``VehicleMem-v0`` text observations.

The env side (the call catalogue, its features and the action wrapper) is library code in
:mod:`vmb_gym.wrappers`; this module holds the agent side: :class:`SB3Policy` and the sidecar
content of its checkpoints (:meth:`SB3Policy.checkpoint_meta`, saved with
:func:`vmb_agents.sb3.checkpoint.save_checkpoint` under ``design="catalogue"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from vmb_agents.sb3.checkpoint import check_spaces, load_checkpoint, sidecar_path
from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import Catalogue, EpisodeText
from vmb_gym.wrappers.features import Featurizer, featurizer_from_config


class CataloguePolicy:
    """A policy that picks catalogue entries: it keeps the episode's text and decodes its choice.

    Subclasses implement :meth:`choose` (an allowed index of the catalogue's mask); ``reset`` and
    ``act`` keep an :class:`EpisodeText` from the observations and ``info`` the policy is shown,
    as the training wrappers do.
    """

    def __init__(self, catalogue: Catalogue, memory_search: bool | None) -> None:
        self.catalogue = catalogue
        self.memory_search = memory_search
        self.episode = EpisodeText()
        self._fresh = True

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode from the reset observation and info."""
        self.episode.on_reset(observation, info)
        self._fresh = True

    def act(self, observation: str, info: dict[str, Any]) -> dict[str, Any]:
        """The call of the chosen catalogue entry for the current state."""
        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False
        mask = self.catalogue.mask(self.episode, memory_search=self.memory_search)
        return self.catalogue.decode(self.choose(mask), self.episode)

    def choose(self, mask: np.ndarray) -> int:
        """The index of the entry to call, among those ``mask`` allows."""
        raise NotImplementedError


class SB3Policy(CataloguePolicy):
    """A trained SB3 model over the flat call catalogue (the Policy protocol).

    It keeps its own :class:`EpisodeText` from the observations and ``info`` it is shown, and
    computes the same features and masks as the training wrappers.

    Args:
        model: the SB3 model (PPO or MaskablePPO).
        catalogue: the catalogue it was trained with.
        featurizer: the featuriser it was trained with.
        deterministic: take the most likely allowed action (else sample).
        memory_search: whether the env's memory retrieves (None: as the catalogue says).
    """

    def __init__(self, model: Any, catalogue: Catalogue, featurizer: Featurizer, *, deterministic: bool = True,
                 memory_search: bool | None = None) -> None:
        super().__init__(catalogue, memory_search)
        self.model = model
        self.featurizer = featurizer
        self.deterministic = deterministic
        self.masked = type(model).__name__ == "MaskablePPO"

    @staticmethod
    def checkpoint_meta(catalogue: Catalogue, featurizer: Featurizer) -> dict[str, Any]:
        """The sidecar content of a catalogue checkpoint (``meta`` of ``save_checkpoint``)."""
        return {"catalogue": catalogue.to_json(), "featurizer": featurizer.config()}

    @classmethod
    def load(cls, path: str | Path, env: gym.Env[Any, Any] | None = None, *,
             deterministic: bool = True, trust_checkpoint: bool = False) -> SB3Policy:
        """Load a ``design="catalogue"`` checkpoint as a policy.

        Args:
            path: ``NAME``, ``NAME.safetensors`` or ``NAME.zip`` (the ``NAME.vmb.json`` sidecar must sit beside it).
            env: the env the policy will run in (its memory decides whether ``search_memory`` is
                offered); optional.
            deterministic: greedy actions (default) or sampled ones.
            trust_checkpoint: load an SB3 zip (a pickle, which can run code).

        Raises:
            ConfigError: the checkpoint or its sidecar is missing, unreadable or of another design; an SB3 zip
                without ``trust_checkpoint``.
        """
        model, meta = load_checkpoint(path, design="catalogue", trust_checkpoint=trust_checkpoint)
        try:
            catalogue = Catalogue.from_json(meta["catalogue"])
            featurizer = featurizer_from_config(meta["featurizer"])
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"{sidecar_path(path)}: not a catalogue sidecar ({type(exc).__name__}: {exc})") from exc
        check_spaces(model, path, actions=catalogue.n, features=featurizer.dim)
        memory_search = None
        if env is not None:
            memory_search = bool(getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))
        return cls(model, catalogue, featurizer, deterministic=deterministic, memory_search=memory_search)

    def choose(self, mask: np.ndarray) -> int:
        """The model's action for the current state (masked for MaskablePPO)."""
        features = self.featurizer(self.episode)
        if self.masked:
            action, _ = self.model.predict(features, deterministic=self.deterministic, action_masks=mask)
        else:
            action, _ = self.model.predict(features, deterministic=self.deterministic)
        return int(np.asarray(action).item())
