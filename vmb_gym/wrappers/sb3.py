"""Bridge to stable-baselines3: wrapped envs, checkpoints, and trained models as policies.

* (the slot design lives in :mod:`agents.sb3_slots`) :func:`make_slot_env`: ``VehicleMem-v0`` + :class:`SlotActionWrapper`
  (``Discrete(N_SLOT_ACTIONS)`` slots with ``action_masks()``) + :class:`SlotFeatureWrapper`
  (per-slot features); :func:`slot_pointer_policy` is the MaskablePPO policy that scores every
  slot with one shared MLP; :func:`save_slot_checkpoint` writes the checkpoint.
* :func:`make_sb3_env` (flat design): ``VehicleMem-v0`` + :class:`CatalogueActionWrapper` (``Discrete(N)``
  with ``action_masks()``) + :class:`FeatureObservationWrapper` (``Box`` features).
* :func:`save_sb3_checkpoint` writes ``NAME.zip`` (the SB3 model) and ``NAME.vmb.json`` (the
  catalogue, the featuriser and the algorithm) side by side.
* :func:`load_sb3_policy` turns such a checkpoint into a :class:`~agents.base.Policy`-compatible
  object that acts on the raw env's text observations and ``info`` and returns structured calls,
  so ``run_episode`` and ``vmb eval --policy sb3:CHECKPOINT`` can run it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import Catalogue, CatalogueActionWrapper, EpisodeText
from vmb_gym.wrappers.features import FeatureObservationWrapper, Featurizer, featurizer_from_config, make_featurizer

ALGOS = ("ppo", "maskable_ppo")
SIDECAR_SUFFIX = ".vmb.json"


def make_sb3_env(env: gym.Env[Any, Any] | None = None, *, catalogue: Catalogue | None = None,
                 featurizer: Featurizer | str = "hashing", top_k: int = 10,
                 **make_kwargs: Any) -> FeatureObservationWrapper:
    """An SB3-ready env: catalogue actions with masks, ``Box`` observations.

    Args:
        env: a ``VehicleMem-v0`` env; when None, ``gym.make("VehicleMem-v0", **make_kwargs)``.
        catalogue: the action catalogue (default: built for the env, see
            :class:`CatalogueActionWrapper`).
        featurizer: a featuriser or its kind (``"hashing"``, ``"minilm"``).
        top_k: ``top_k`` of the search call of a default catalogue.
        **make_kwargs: keyword arguments of ``gym.make`` when ``env`` is None.
    """
    if env is None:
        import vmb_gym  # noqa: F401  (registers the ids)

        env = gym.make("VehicleMem-v0", **make_kwargs)
    elif make_kwargs:
        raise ConfigError(f"pass either env or gym.make keyword arguments, not both (got {sorted(make_kwargs)})")
    return FeatureObservationWrapper(CatalogueActionWrapper(env, catalogue, top_k=top_k), featurizer)


def _algo_class(algo: str) -> Any:
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    raise ConfigError(f"unknown algorithm {algo!r}; expected one of {ALGOS}")


def _paths(path: str | Path) -> tuple[Path, Path]:
    """``(NAME.zip, NAME.vmb.json)`` for ``NAME`` or ``NAME.zip``."""
    stem = str(path)[:-4] if str(path).endswith(".zip") else str(path)
    return Path(stem + ".zip"), Path(stem + SIDECAR_SUFFIX)


def save_sb3_checkpoint(model: Any, path: str | Path, *, algo: str, catalogue: Catalogue,
                        featurizer: Featurizer, extra: Mapping[str, Any] | None = None) -> Path:
    """Save ``model`` as ``PATH.zip`` plus the ``PATH.vmb.json`` sidecar; return the zip path."""
    zip_path, side = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    side.write_text(json.dumps({"algo": algo, "catalogue": catalogue.to_json(), "featurizer": featurizer.config(),
                                **dict(extra or {})}), encoding="utf-8")
    return zip_path


class SB3Policy:
    """A trained SB3 model acting on ``VehicleMem-v0`` text observations (the Policy protocol).

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
        self.model = model
        self.catalogue = catalogue
        self.featurizer = featurizer
        self.deterministic = deterministic
        self.memory_search = memory_search
        self.masked = type(model).__name__ == "MaskablePPO"
        self.episode = EpisodeText()
        self._fresh = True

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode from the reset observation and info."""
        self.episode.on_reset(observation, info)
        self._fresh = True

    @classmethod
    def load(cls, path: str | Path, env: gym.Env[Any, Any] | None = None, *,
             deterministic: bool = True) -> SB3Policy:
        """Load a checkpoint of :func:`save_sb3_checkpoint`."""
        return load_sb3_policy(path, env, deterministic=deterministic)

    def act(self, observation: str, info: dict[str, Any]) -> dict[str, Any]:
        """The call of the model's action for the current state."""
        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False
        features = self.featurizer(self.episode)
        mask = self.catalogue.mask(self.episode, memory_search=self.memory_search)
        if self.masked:
            action, _ = self.model.predict(features, deterministic=self.deterministic, action_masks=mask)
        else:
            action, _ = self.model.predict(features, deterministic=self.deterministic)
        return self.catalogue.decode(int(np.asarray(action).item()), self.episode)


def load_sb3_policy(path: str | Path, env: gym.Env[Any, Any] | None = None, *,
                    deterministic: bool = True) -> SB3Policy:
    """Load a checkpoint written by :func:`save_sb3_checkpoint` (the flat call catalogue) as a policy.

    Checkpoints of the slot design (sidecar ``"design": "slots"``) depend on the rules baseline and
    load with ``agents.sb3_slots.load_slot_policy``; ``vmb eval --policy sb3:PATH`` picks the right
    loader from the sidecar.

    Args:
        path: ``NAME.zip`` or ``NAME`` (the ``NAME.vmb.json`` sidecar must sit beside it).
        env: the env the policy will run in (its memory decides whether ``search_memory`` is
            offered); optional.
        deterministic: greedy actions (default) or sampled ones.

    Raises:
        ConfigError: the checkpoint or its sidecar is missing or unreadable.
    """
    zip_path, side = _paths(path)
    if not zip_path.is_file() or not side.is_file():
        raise ConfigError(f"expected an SB3 checkpoint {zip_path} and its sidecar {side}; "
                          "write them with `vmb train sb3` or save_sb3_checkpoint()")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
        if meta.get("design") == "slots":
            raise ConfigError(f"{side}: a slot-design checkpoint; load it with agents.sb3_slots.load_slot_policy "
                              "(vmb eval --policy sb3:PATH does this for you)")
        catalogue = Catalogue.from_json(meta["catalogue"])
        featurizer = featurizer_from_config(meta["featurizer"])
        algo = meta["algo"]
    except (KeyError, ValueError, TypeError) as exc:
        raise ConfigError(f"{side}: not a vmb SB3 sidecar ({type(exc).__name__}: {exc})") from exc
    model = _algo_class(algo).load(str(zip_path), device="cpu")
    expected = (catalogue.n, featurizer.dim)
    found = (int(model.action_space.n), int(model.observation_space.shape[0]))
    if expected != found:
        raise ConfigError(f"{zip_path}: the model expects {found[0]} actions and {found[1]} features, "
                          f"the sidecar describes {expected[0]} and {expected[1]}")
    memory_search = None
    if env is not None:
        memory_search = bool(getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))
    return SB3Policy(model, catalogue, featurizer, deterministic=deterministic, memory_search=memory_search)


__all__ = [
    "ALGOS",
    "Catalogue",
    "CatalogueActionWrapper",
    "EpisodeText",
    "FeatureObservationWrapper",
    "SB3Policy",
    "load_sb3_policy",
    "make_featurizer",
    "make_sb3_env",
    "save_sb3_checkpoint",
]
