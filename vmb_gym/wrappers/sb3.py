"""Bridge to stable-baselines3, env side: ``VehicleMem-v0`` with the flat call catalogue and ``Box`` features.

:func:`make_sb3_env` (flat design): ``VehicleMem-v0`` + :class:`CatalogueActionWrapper` (``Discrete(N)``
with ``action_masks()``) + :class:`FeatureObservationWrapper` (``Box`` features). The agent side
lives in :mod:`vmb_agents.sb3`: the trained model as a policy (:mod:`vmb_agents.sb3.catalogue_policy`), the
one checkpoint format (:mod:`vmb_agents.sb3.checkpoint`) and the slot design (:mod:`vmb_agents.sb3.slots`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import CATALOGUE_TOP_K, Catalogue, CatalogueActionWrapper, EpisodeText
from vmb_gym.wrappers.features import FeatureObservationWrapper, Featurizer, make_featurizer

def make_sb3_env(env: gym.Env[Any, Any] | None = None, *, catalogue: Catalogue | None = None,
                 featurizer: Featurizer | str = "hashing", top_k: int = CATALOGUE_TOP_K,
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


__all__ = [
    "Catalogue",
    "CatalogueActionWrapper",
    "EpisodeText",
    "FeatureObservationWrapper",
    "make_featurizer",
    "make_sb3_env",
]
