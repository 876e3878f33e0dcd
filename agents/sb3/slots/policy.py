"""The slot design's policies: the pointer network (one scorer shared by every slot) and the trained model as a policy.

:class:`SlotPointerPolicy` is the MaskablePPO policy class the checkpoints name;
:class:`SlotSB3Policy` runs a trained model on ``VehicleMem-v0`` text observations (the Policy
protocol), and loads a ``design="slots"`` checkpoint (:meth:`SlotSB3Policy.load`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from vmb_agents.sb3.checkpoint import check_spaces, load_checkpoint
from vmb_agents.sb3.slots.catalogue import SlotCatalogue
from vmb_agents.sb3.slots.env import refuse_context_memory, slot_call, speakers_of
from vmb_agents.sb3.slots.features import SlotFeaturizer
from vmb_agents.sb3.slots.layout import N_SLOT_ACTIONS
from vmb_agents.sb3.slots.records import SlotEpisodeText


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
        """``(logits of every slot, critic latent)``."""
        h = self._rows(features)
        return self.head(h).squeeze(-1), self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        """The logits of every slot."""
        return self.head(self._rows(features)).squeeze(-1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        """The critic latent (mean and max of the row encodings)."""
        h = self._rows(features)
        return self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))


class SlotPointerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose logits are one shared scorer applied to every slot's features.

    Args:
        pointer_hidden: width of the scorer's hidden layers (64; a merged ensemble of K members,
            :mod:`vmb_agents.train.slot_ensemble`, is K times as wide); the other arguments are SB3's.
    """

    def __init__(self, *args: Any, pointer_hidden: int = 64, **kwargs: Any) -> None:
        self.pointer_hidden = int(pointer_hidden)
        super().__init__(*args, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "pointer_hidden": self.pointer_hidden}

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = PointerNet(self.features_dim, hidden=self.pointer_hidden)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        nn.init.orthogonal_(self.mlp_extractor.head.weight, gain=0.01)
        self.action_net = nn.Identity()  # the extractor's actor output already is the logits
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def slot_pointer_policy() -> type[SlotPointerPolicy]:
    """The :class:`SlotPointerPolicy` class (kept for callers of the old lazy builder)."""
    return SlotPointerPolicy


class SlotSB3Policy:
    """A trained slot-design model acting on ``VehicleMem-v0`` text observations (the Policy protocol).

    Args:
        model: the MaskablePPO (or PPO) model.
        catalogue: the :class:`~vmb_agents.sb3.slots.catalogue.SlotCatalogue` it was trained with.
        env: the env it runs in (for the scenario speakers and whether memory retrieves).
        deterministic: most likely allowed action (else sample).
        drop_features: feature groups the model sees as zeros (:meth:`SlotFeaturizer.feature_groups`; an
            ablation of a trained model, e.g. ``["line_prior"]``; :meth:`load` adds the groups the checkpoint
            was trained without).
    """

    def __init__(self, model: Any, catalogue: Any, env: gym.Env[Any, Any] | None = None, *,
                 deterministic: bool = True, drop_features: Sequence[str] = ()) -> None:
        self.model, self.catalogue, self.env = model, catalogue, env
        self.featurizer = SlotFeaturizer(drop=drop_features)
        self.deterministic = deterministic
        self.masked = type(model).__name__ == "MaskablePPO"
        if env is not None:
            refuse_context_memory(env)
        self.memory_search = True if env is None else bool(
            getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))
        self.episode = SlotEpisodeText()
        self.speakers: tuple[str, ...] = ()
        self._fresh = True

    @staticmethod
    def checkpoint_meta(catalogue: SlotCatalogue, drop_features: Sequence[str] = ()) -> dict[str, Any]:
        """The sidecar content of a slot checkpoint (``meta`` of ``save_checkpoint``; ``drop_features``: the
        feature groups it was trained without)."""
        return {"catalogue": catalogue.to_json(), "featurizer": SlotFeaturizer(drop=drop_features).config()}

    @classmethod
    def load(cls, path: str | Path, env: gym.Env[Any, Any] | None = None, *, deterministic: bool = True,
             drop_features: Sequence[str] = (), trust_checkpoint: bool = False) -> SlotSB3Policy:
        """Load a ``design="slots"`` checkpoint as a policy (``vmb eval --policy sb3:PATH``;
        ``trust_checkpoint``: load an SB3 zip, a pickle that can run code).

        Raises:
            ConfigError: the checkpoint or its sidecar is missing, unreadable, or not of the slot design; an SB3
                zip without ``trust_checkpoint``.
        """
        model, meta = load_checkpoint(path, design="slots", trust_checkpoint=trust_checkpoint)
        catalogue = SlotCatalogue.from_json(meta["catalogue"])
        check_spaces(model, path, actions=catalogue.n, features=SlotFeaturizer().dim)
        trained_without = list((meta.get("featurizer") or {}).get("drop") or [])
        drop = trained_without + [name for name in drop_features if name not in trained_without]
        return cls(model, catalogue, env, deterministic=deterministic, drop_features=drop)

    def bind(self, env: gym.Env[Any, Any]) -> None:
        """Run in ``env`` (its task set names the speakers)."""
        refuse_context_memory(env)
        self.env = env
        self.memory_search = bool(getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode from the reset observation and info."""
        self.episode.on_reset(observation, info)
        self.speakers = speakers_of(self.env, info) if self.env is not None else ()
        self._fresh = True

    def observe(self, observation: str, info: dict[str, Any]) -> None:
        """Record a step's observation (the first :meth:`act` after a reset has none to record)."""
        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """The env action of the model's slot choice."""
        self.observe(observation, info)
        analysis = self.catalogue.analyse(self.episode, self.speakers)
        features = self.featurizer.features(analysis, self.episode)
        mask = self.catalogue.mask(analysis, self.episode, memory_search=self.memory_search)
        if self.masked:
            action, _ = self.model.predict(features, deterministic=self.deterministic, action_masks=mask)
        else:
            action, _ = self.model.predict(features, deterministic=self.deterministic)
        return slot_call(self.catalogue, int(np.asarray(action).item()), analysis, self.episode, self.speakers)
