"""Bridge to stable-baselines3: wrapped envs, checkpoints, and trained models as policies.

* :func:`make_sb3_env`: ``VehicleMem-v0`` + :class:`CatalogueActionWrapper` (``Discrete(N)``
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


def _load_slot_policy(zip_path: Path, meta: Mapping[str, Any], env: gym.Env[Any, Any] | None, *,
                      deterministic: bool) -> SlotSB3Policy:
    from vmb_gym.wrappers.catalogue import SlotCatalogue
    from vmb_gym.wrappers.features import SlotFeaturizer

    catalogue = SlotCatalogue.from_json(meta["catalogue"])
    slot_pointer_policy()  # the policy class the checkpoint names
    model = _algo_class(str(meta["algo"])).load(str(zip_path), device="cpu")
    expected = (catalogue.n, SlotFeaturizer().dim)
    found = (int(model.action_space.n), int(model.observation_space.shape[0]))
    if expected != found:
        raise ConfigError(f"{zip_path}: the model expects {found[0]} actions and {found[1]} features, "
                          f"the slot design has {expected[0]} and {expected[1]}")
    return SlotSB3Policy(model, catalogue, env, deterministic=deterministic)


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


def load_sb3_policy(path: str | Path, env: gym.Env[Any, Any] | None = None, *, deterministic: bool = True) -> SB3Policy:
    """Load a checkpoint written by :func:`save_sb3_checkpoint` as a policy.

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
            return _load_slot_policy(zip_path, meta, env, deterministic=deterministic)
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
    "SlotSB3Policy",
    "load_sb3_policy",
    "make_slot_env",
    "save_slot_checkpoint",
    "slot_pointer_policy",
    "make_featurizer",
    "make_sb3_env",
    "save_sb3_checkpoint",
]


# ============================================================================ slot (pointer) design
def make_slot_env(env: gym.Env[Any, Any] | None = None, *, catalogue: Any = None, **make_kwargs: Any) -> Any:
    """An SB3-ready env with the slot design: ``Discrete(N_SLOT_ACTIONS)`` with masks, slot features.

    Args:
        env: a ``VehicleMem-v0`` env; when None, ``gym.make("VehicleMem-v0", **make_kwargs)``.
        catalogue: a :class:`~vmb_gym.wrappers.catalogue.SlotCatalogue` (default: no learned prior).
    """
    from vmb_gym.wrappers.catalogue import SlotActionWrapper
    from vmb_gym.wrappers.features import SlotFeatureWrapper

    if env is None:
        import vmb_gym  # noqa: F401

        env = gym.make("VehicleMem-v0", **make_kwargs)
    elif make_kwargs:
        raise ConfigError(f"pass either env or gym.make keyword arguments, not both (got {sorted(make_kwargs)})")
    return SlotFeatureWrapper(SlotActionWrapper(env, catalogue))


def _pointer_policy_class() -> Any:
    import torch as th
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    from vmb_gym.wrappers.catalogue import N_SLOT_ACTIONS

    class PointerNet(nn.Module):
        """Scores every action row with one shared MLP (logits); the critic pools the rows."""

        def __init__(self, feature_dim: int, hidden: int = 64) -> None:
            super().__init__()
            self.n = N_SLOT_ACTIONS
            self.row = feature_dim // self.n
            self.body = nn.Sequential(nn.Linear(self.row, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
            self.head = nn.Linear(hidden, 1)
            nn.init.orthogonal_(self.head.weight, gain=0.01)
            nn.init.zeros_(self.head.bias)
            self.critic = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh())
            self.latent_dim_pi = self.n
            self.latent_dim_vf = hidden

        def _rows(self, features: th.Tensor) -> th.Tensor:
            return self.body(features.view(features.shape[0], self.n, self.row))

        def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            h = self._rows(features)
            return self.head(h).squeeze(-1), self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))

        def forward_actor(self, features: th.Tensor) -> th.Tensor:
            return self.head(self._rows(features)).squeeze(-1)

        def forward_critic(self, features: th.Tensor) -> th.Tensor:
            h = self._rows(features)
            return self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))

    class SlotPointerPolicy(MaskableActorCriticPolicy):
        """MaskablePPO policy whose logits are one shared scorer applied to every slot's features."""

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = PointerNet(self.features_dim)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            nn.init.orthogonal_(self.mlp_extractor.head.weight, gain=0.01)
            self.action_net = nn.Identity()  # the extractor's actor output already is the logits
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return SlotPointerPolicy


_POINTER: Any = None


def slot_pointer_policy() -> Any:
    """The :class:`SlotPointerPolicy` class (built on first use: torch and sb3-contrib load lazily)."""
    global _POINTER
    if _POINTER is None:
        _POINTER = _pointer_policy_class()
        _POINTER.__module__ = __name__
        _POINTER.__qualname__ = "SlotPointerPolicy"
        globals()["SlotPointerPolicy"] = _POINTER
    return _POINTER


def __getattr__(name: str) -> Any:  # module attribute for unpickling SlotPointerPolicy
    if name == "SlotPointerPolicy":
        return slot_pointer_policy()
    raise AttributeError(name)


class SlotSB3Policy:
    """A trained slot-design model acting on ``VehicleMem-v0`` text observations (the Policy protocol).

    Args:
        model: the MaskablePPO (or PPO) model.
        catalogue: the :class:`~vmb_gym.wrappers.catalogue.SlotCatalogue` it was trained with.
        env: the env it runs in (for the scenario speakers and whether memory retrieves).
        deterministic: most likely allowed action (else sample).
    """

    def __init__(self, model: Any, catalogue: Any, env: gym.Env[Any, Any] | None = None, *,
                 deterministic: bool = True) -> None:
        from vmb_gym.wrappers.features import SlotFeaturizer

        self.model, self.catalogue, self.env = model, catalogue, env
        self.featurizer = SlotFeaturizer()
        self.deterministic = deterministic
        self.masked = type(model).__name__ == "MaskablePPO"
        self.memory_search = True if env is None else bool(
            getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))
        self.episode = EpisodeText()
        self.speakers: tuple[str, ...] = ()
        self._fresh = True

    def bind(self, env: gym.Env[Any, Any]) -> None:
        """Run in ``env`` (its task set names the speakers)."""
        self.env = env
        self.memory_search = bool(getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode from the reset observation and info."""
        from vmb_gym.wrappers.catalogue import speakers_of

        self.episode.on_reset(observation, info)
        self.speakers = speakers_of(self.env, info) if self.env is not None else ()
        self._fresh = True

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """The env action of the model's slot choice."""
        from vmb_gym.wrappers.catalogue import slot_call

        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False
        analysis = self.catalogue.analyse(self.episode, self.speakers)
        features = self.featurizer.features(analysis, self.episode)
        mask = self.catalogue.mask(analysis, self.episode, memory_search=self.memory_search)
        if self.masked:
            action, _ = self.model.predict(features, deterministic=self.deterministic, action_masks=mask)
        else:
            action, _ = self.model.predict(features, deterministic=self.deterministic)
        return slot_call(self.catalogue, int(np.asarray(action).item()), analysis, self.episode, self.speakers)


def save_slot_checkpoint(model: Any, path: str | Path, *, algo: str, catalogue: Any,
                         extra: Mapping[str, Any] | None = None) -> Path:
    """Save a slot-design model as ``PATH.zip`` plus its ``PATH.vmb.json`` sidecar."""
    from vmb_gym.wrappers.features import SlotFeaturizer

    zip_path, side = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    side.write_text(json.dumps({"algo": algo, "design": "slots", "catalogue": catalogue.to_json(),
                                "featurizer": SlotFeaturizer().config(), **dict(extra or {})}), encoding="utf-8")
    return zip_path
