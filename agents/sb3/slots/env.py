"""The slot design's env wrappers: ``VehicleMem-v0`` with slot actions (and masks) and slot features.

    env = make_slot_env(gym.make("VehicleMem-v0", data="default"), catalogue=SlotCatalogue())
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_agents.sb3.slots.catalogue import SlotCatalogue
from vmb_agents.sb3.slots.features import SlotFeaturizer
from vmb_agents.sb3.slots.layout import SLOT_FINISH, SLOT_SEARCH
from vmb_agents.sb3.slots.records import SlotAnalysis, SlotEpisodeText, search_rounds
from vmb_gym.errors import ConfigError
from vmb_gym.wrappers.catalogue import EpisodeText

#: Most requests whose first search round a :class:`SlotActionWrapper` keeps (cleared when full).
FIRST_SEARCHES = 4096


def refuse_context_memory(env: gym.Env[Any, Any]) -> None:
    """Refuse an env whose memory comes only as context: the slot design reads search hits only.

    Raises:
        ConfigError: the env's memory module provides context and no search (``gold``,
            ``full_history``, ``summary``): the slot design would run without memory, silently.
    """
    memory = getattr(env.unwrapped, "memory", None)
    if getattr(memory, "provides_context", False) and not getattr(memory, "provides_search", False):
        raise ConfigError(f"the SB3 slot design reads memory through search_memory hits only; memory "
                          f"{getattr(memory, 'name', '?')!r} comes as context, which it would ignore; use a "
                          "search module (bm25, dense, hybrid, layered, key_value, ...) or --policy rules")

class SlotActionWrapper(gym.Wrapper[Any, np.int64, Any, Any]):
    """``VehicleMem-v0`` with the slot action space: ``Discrete(N_SLOT_ACTIONS)`` plus ``action_masks()``.

    Observations stay the env's text; :class:`SlotFeatureWrapper`
    turns them into slot features. ``self.analysis`` is the current :class:`SlotAnalysis`.

    Args:
        env: a ``VehicleMem-v0`` env.
        catalogue: the slot catalogue (default: no learned API prior).
        f1_weight: when set, the final reward is ``exact_match + f1_weight * f1_change`` (the
            env's own reward otherwise).
    """

    def __init__(self, env: gym.Env[Any, Any], catalogue: SlotCatalogue | None = None, *,
                 f1_weight: float | None = None) -> None:
        super().__init__(env)
        self.f1_weight = f1_weight
        base = env.unwrapped
        refuse_context_memory(env)
        self._memory_search = bool(getattr(getattr(base, "memory", None), "provides_search", False))
        self.catalogue = catalogue or SlotCatalogue()
        self.action_space = spaces.Discrete(self.catalogue.n)
        self.episode = SlotEpisodeText()
        self.speakers: tuple[str, ...] = ()
        self.analysis: SlotAnalysis | None = None
        #: the first search round's calls per (request, speakers): they depend on nothing else
        self._first_searches: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env, the episode record and the slots."""
        if seed is not None:
            self.action_space.seed(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode.on_reset(obs, info)
        self.speakers = speakers_of(self.env, info)
        self.analysis = self.catalogue.analyse(self.episode, self.speakers)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Run the call the action's slots resolve to (an empty slot runs as ``finish``)."""
        index = int(action)
        if not 0 <= index < self.catalogue.n:
            raise ConfigError(f"action {index} is outside the slot catalogue (0-{self.catalogue.n - 1})")
        assert self.analysis is not None
        if index == SLOT_SEARCH and search_rounds(self.episode) == 0:
            call: Any = self.first_search()
        else:
            call = slot_call(self.catalogue, index, self.analysis, self.episode, self.speakers)
        obs, reward, terminated, truncated, info = self.env.step(call)
        self.episode.on_step(obs, info)
        self.analysis = self.catalogue.analyse(self.episode, self.speakers)
        info["slot_call"] = call
        metrics = info.get("metrics")
        if self.f1_weight is not None and metrics is not None:
            # exact state match plus a little value-level F1: F1 alone pays for extra guesses
            reward = float(metrics.get("exact_match", 0.0)) + self.f1_weight * float(metrics.get("f1_change", 0.0))
        return obs, reward, terminated, truncated, info

    def first_search(self) -> list[dict[str, Any]]:
        """The first search round's calls (:meth:`SlotCatalogue.search_action`), made once per request and
        speakers; each call is a fresh copy."""
        key = (self.episode.request, self.speakers)
        calls = self._first_searches.get(key)
        if calls is None:
            if len(self._first_searches) >= FIRST_SEARCHES:
                self._first_searches.clear()
            calls = self._first_searches[key] = self.catalogue.search_action(self.episode, self.speakers)
        return [{"name": c["name"], "arguments": dict(c["arguments"])} for c in calls]

    def action_masks(self) -> np.ndarray:
        """Allowed slot actions now (``finish`` always is)."""
        assert self.analysis is not None
        return self.catalogue.mask(self.analysis, self.episode, memory_search=self._memory_search)


def speakers_of(env: gym.Env[Any, Any], info: Mapping[str, Any]) -> tuple[str, ...]:
    """The speakers of the episode's scenario (from the env's task set; never its gold answers)."""
    tasks = getattr(env.unwrapped, "tasks", None)
    scenario = getattr(tasks, "scenarios", {}).get(info.get("scenario_id")) if tasks is not None else None
    return tuple(getattr(scenario, "speakers", ()) or ())


def slot_call(catalogue: SlotCatalogue, index: int, analysis: SlotAnalysis, episode: EpisodeText,
              speakers: Sequence[str]) -> Any:
    """The env action of slot action ``index``: finish, the search calls, or the resolved call."""
    if index == SLOT_FINISH:
        return {"name": "finish", "arguments": {}}
    if index == SLOT_SEARCH:
        return catalogue.search_action(episode, speakers)
    call = catalogue.resolve(index, analysis)
    return call if call is not None else {"name": "finish", "arguments": {}}


class SlotFeatureWrapper(gym.Wrapper[np.ndarray, Any, Any, Any]):
    """Slot features over a :class:`SlotActionWrapper` (``action_masks`` passes through)."""

    def __init__(self, env: gym.Env[Any, Any], featurizer: SlotFeaturizer | None = None) -> None:
        super().__init__(env)
        self.featurizer = featurizer or SlotFeaturizer()
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)

    def _obs(self) -> np.ndarray:
        inner = self.env
        return self.featurizer.features(inner.analysis, inner.episode)  # type: ignore[attr-defined]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset and describe the slots."""
        _, info = self.env.reset(seed=seed, options=options)
        return self._obs(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step and describe the slots."""
        _, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The inner wrapper's masks."""
        return self.env.action_masks()  # type: ignore[attr-defined]


def make_slot_env(env: gym.Env[Any, Any] | None = None, *, catalogue: Any = None, f1_weight: float | None = None,
                  featurizer: SlotFeaturizer | None = None, **make_kwargs: Any) -> Any:
    """An SB3-ready env with the slot design: ``Discrete(N_SLOT_ACTIONS)`` with masks, slot features.

    Args:
        env: a ``VehicleMem-v0`` env; when None, ``gym.make("VehicleMem-v0", **make_kwargs)``.
        catalogue: a :class:`~vmb_agents.sb3.slots.catalogue.SlotCatalogue` (default: no learned prior).
        f1_weight: final reward ``exact_match + f1_weight * f1_change`` (None: the env's reward).
        featurizer: the :class:`SlotFeaturizer` (default: every feature).
    """
    if env is None:
        import vmb_gym  # noqa: F401

        env = gym.make("VehicleMem-v0", **make_kwargs)
    elif make_kwargs:
        raise ConfigError(f"pass either env or gym.make keyword arguments, not both (got {sorted(make_kwargs)})")
    return SlotFeatureWrapper(SlotActionWrapper(env, catalogue, f1_weight=f1_weight), featurizer)


