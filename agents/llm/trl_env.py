"""VehicleMem-v0 as a TRL ``environment_factory`` environment (GRPO with tool calling).

TRL's :class:`~trl.GRPOTrainer` (``environment_factory=...``, TRL >= 1.x, transformers >= 5.2)
builds one environment per rollout, calls ``reset(**row)`` with the dataset row, appends the
string it returns to the last user message, exposes every *public function of the class*
(found with ``inspect.getmembers(type(env), inspect.isfunction)``, minus ``reset`` and
``get_reward``) as a tool whose JSON schema comes from the type hints and the Google-style
docstring, runs the tool calls the model makes, and scores the rollout with ``get_reward()``.

:class:`VehicleMemToolEnv` follows that contract:

* ``reset(task_id=None, **row) -> str``: starts an episode (on ``task_id`` when the row has one)
  and returns the first observation (role, modules, memory context, request);
* tools: ``list_module_tools``, ``search_memory``, ``call_vehicle(name, arguments)`` (any of the
  111 ``carcontrol_*`` functions), ``finish``, plus one typed method per vehicle function of
  :data:`DEFAULT_VEHICLE_TOOLS` (the common settings: seat, climate, windows, media, ...);
* ``get_reward() -> float``: the env's final reward; an episode the model left without calling
  ``finish`` is finished first (scored on the state it reached, as a truncated episode is).
  TRL logs it as the column ``rewards/VehicleMemToolEnv/mean`` with weight 1.
* the named reward components of the episode (:mod:`vmb_gym.envs.rewards`) in
  :attr:`VehicleMemToolEnv.reward_components`; :func:`component_rewards` turns them into TRL
  reward functions, one column per component (``rewards/state_f1_change/mean``, ...), weighted
  by ``GRPOConfig(reward_weights=...)`` (0 logs a component without training on it).

For ``VehicleMemStream-v0``, :class:`~vmb_gym.envs.fork.StreamForkToolEnv` rolls a GRPO group from one
saved intermediate state, so the group's rollouts start from identical memory stores:
:func:`~vmb_gym.envs.fork.fork_rows` walks a timeline with a writer once and gives one dataset row per
request (or chunk) carrying the state there (``reset(env_state=...)``; ``reset(state_id=...)`` takes the
id from :func:`~vmb_gym.envs.fork.save_state`); :func:`~vmb_gym.envs.fork.fork` gives ``n`` envs at one
state for a hand-written loop.

:func:`make_tool_env_class` builds a subclass with typed methods for any other set of vehicle
functions (``"all"``: all 111; the prompt then carries every schema).

Example (without the trainer)::

    env = VehicleMemToolEnv(memory="gold", files=[1])
    first = env.reset(task_id="1_0")
    env.list_module_tools("seat")
    env.carcontrol_seat_set_heating_level(seat="driver", level=2)
    reward = env.get_reward()
    env.reward_components["invalid_action_rate"]

With the trainer, the components as extra reward columns (logged only, weight 0)::

    funcs = component_rewards(["exact_state_match", "invalid_action_rate"])
    GRPOTrainer(model=..., train_dataset=rows, environment_factory=VehicleMemToolEnv, reward_funcs=funcs,
                args=GRPOConfig(reward_weights=[0.0, 0.0], ...))
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import orjson

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.envs.rewards import REWARD_COMPONENTS
from vmb_gym.errors import ConfigError
from vmb_gym.envs.fork import StreamForkToolEnv, fork, fork_rows, save_state
from vmb_gym.envs.tool_episode import DEFAULT_VEHICLE_TOOLS, ToolEpisode, vehicle_methods, with_vehicle_tools

__all__ = ["StreamForkToolEnv", "fork", "fork_rows", "save_state",
           "DEFAULT_VEHICLE_TOOLS", "CompactToolEnv", "ComponentReward", "EvidenceCompactToolEnv", "LocalToolEpisode",
           "TaggedCompactToolEnv", "compact_tool_env",
           "VehicleMemToolEnv", "compact_prompt", "component_rewards", "make_tool_env_class"]


class LocalToolEpisode(ToolEpisode):
    """A :class:`vmb_gym.envs.tool_episode.ToolEpisode` over a local ``VehicleMem-v0`` (one episode per rollout).

    Args:
        data: the env's data spec (``"default"``, ``"official:DIR"``, a folder).
        files: scenario numbers to keep.
        task_ids: tasks to keep (also the cycle of ``reset`` without ``task_id``).
        memory: memory module (``"gold"`` puts the evidence in the first observation; a
            retrieval module such as ``"bm25"`` makes ``search_memory`` useful).
        schema: tool-schema flavour of the env (``"official"`` or ``"rich"``).
        reward: the env's reward (``"f1_change"``, ``"f1_positive"``, ``"esm"``, or a weighted mapping
            of reward components such as ``{"state_f1_change": 1.0, "invalid_action_rate": -0.1}``).
        max_steps: tool calls allowed per episode; later calls are refused.
        seed: seed of the task cycle used when ``reset`` gets no ``task_id``.
    """

    def __init__(
        self,
        data: str = "default",
        *,
        files: Sequence[int] | None = None,
        task_ids: Sequence[str] | None = None,
        memory: str = "gold",
        schema: str = "official",
        reward: str | Mapping[str, float] = "f1_change",
        max_steps: int = 20,
        seed: int = 0,
    ) -> None:
        super().__init__(seed)
        self.env = gym.make("VehicleMem-v0", data=data, files=files, task_ids=task_ids, memory=memory,
                            schema=schema, reward=reward, max_steps=max_steps)

    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        options = {"task_id": task_id} if task_id is not None else None
        return self.env.reset(seed=seed, options=options)

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward), bool(terminated or truncated), info


class VehicleMemToolEnv(LocalToolEpisode):
    """One ``VehicleMem-v0`` episode per rollout, with the env's tools as methods.

    Every tool returns the env's observation for that call (``[name] {json result}``); the
    calls run on the episode's simulated car exactly as env actions do (one call per step). The
    tools, the episode bookkeeping and :attr:`reward_components` are
    :class:`vmb_gym.envs.tool_episode.ToolEpisode`'s (shared with the remote
    ``vmb_gym.server.trl.RemoteToolEnv``); this class runs them on a local env. Arguments: see
    :class:`LocalToolEpisode`.
    """


class CompactToolEnv(LocalToolEpisode):
    """The compact chat view (:mod:`vmb_agents.llm.compact_view`) as a TRL ``environment_factory`` env.

    Four tools (``search_memory``, ``list_module_tools``, ``call_vehicle``, ``finish``: the
    schemas :func:`~vmb_agents.llm.compact_view.compact_tools` gives the policy), results rendered
    as the compact view renders them, ``reset`` returning the request (the dataset row's prompt
    holds the compact system message: :func:`compact_prompt`). A GRPO rollout thus sees the text
    the supervised data and ``HFPolicy(view="compact")`` see. Arguments: see :class:`LocalToolEpisode`.
    """

    #: the compact view it renders (:data:`~vmb_agents.llm.compact_view.VIEWS`; :class:`TaggedCompactToolEnv`,
    #: :class:`EvidenceCompactToolEnv`)
    view_name = "compact"

    @functools.cached_property
    def view(self) -> Any:
        """The :class:`~vmb_agents.llm.compact_view.CompactView` called :attr:`view_name` (built once)."""
        from vmb_agents.llm.compact_view import view_named

        return view_named(self.view_name)

    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        obs, info = super()._start(task_id, seed)
        messages, _ = self.view.start(obs, info)
        return str(messages[-1]["content"]), info

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        from vmb_agents.llm.compact_view import full_name, step_hits

        view = self.view
        action = {**action, "name": full_name(str(action.get("name", "")))}
        if action["name"] == "search_memory" and isinstance(action.get("arguments"), Mapping):
            action = view.to_env_call("search_memory", action["arguments"])  # the evidence view searches deeper
        _, reward, over, info = super()._advance(action)
        records = info.get("calls") or []
        result = records[-1].get("result") if records else {"success": False, "error": info.get("action_error")}
        hits = step_hits(info)[-1] if records else None  # the search's structured hits, which its text renders
        return view.tool_content(str(action["name"]), result, hits=hits), reward, over, info


class TaggedCompactToolEnv(CompactToolEnv):
    """:class:`CompactToolEnv` in the tagged view (``HFPolicy(view="compact_tagged")``): memory lines end with the
    functions they speak of (:func:`vmb_agents.llm.compact_view.render_search`)."""

    view_name = "compact_tagged"


class EvidenceCompactToolEnv(CompactToolEnv):
    """:class:`CompactToolEnv` in the evidence view (``HFPolicy(view="compact_evidence")``): searches
    :data:`~vmb_agents.llm.compact_view.EVIDENCE_TOP_K` deep and shows the lines the line prior keeps
    (:func:`vmb_agents.llm.compact_view.evidence_choice`)."""

    view_name = "compact_evidence"


def compact_tool_env(view: str) -> type[CompactToolEnv]:
    """The :class:`CompactToolEnv` class of the compact view called ``view``.

    Raises:
        ConfigError: a name that is no compact view's.
    """
    classes = {c.view_name: c for c in (CompactToolEnv, TaggedCompactToolEnv, EvidenceCompactToolEnv)}
    if view not in classes:
        raise ConfigError(f"unknown compact view {view!r}; expected one of {', '.join(classes)}")
    return classes[view]


def compact_prompt(env: LocalToolEpisode, task_id: str) -> list[dict[str, str]]:
    """The dataset row prompt of ``task_id`` for :class:`CompactToolEnv`: the compact system message and an
    empty user message (TRL appends the request that ``reset`` returns)."""
    from vmb_agents.llm.compact_view import CompactView

    obs, info = env.env.reset(options={"task_id": task_id})
    messages, _ = CompactView().start(obs, info)
    return [dict(messages[0]), {"role": "user", "content": ""}]


class ComponentReward:
    """One reward component as a TRL reward function: its column is named after the component.

    TRL calls it with the rollouts' environments (``environments=[...]``); each
    :class:`VehicleMemToolEnv` is finished first when the model did not call ``finish`` (as
    :meth:`VehicleMemToolEnv.get_reward` does) and gives its component; other environments give
    None (TRL ignores those). An instance pickles, as AsyncGRPO needs.

    Args:
        component: one of :data:`~vmb_gym.envs.rewards.REWARD_COMPONENTS`.

    Raises:
        ConfigError: an unknown component (the message names them).
    """

    def __init__(self, component: str) -> None:
        if component not in REWARD_COMPONENTS:
            raise ConfigError(f"unknown reward component {component!r}; expected one of {', '.join(REWARD_COMPONENTS)}")
        self.component = component
        self.__name__ = component  # TRL names the reward column after it

    def __repr__(self) -> str:
        return f"ComponentReward({self.component!r})"

    def __call__(self, *args: Any, environments: Sequence[Any] | None = None, **kwargs: Any) -> list[float | None]:
        """The component of each rollout's environment (None for environments of another type).

        Raises:
            ConfigError: called without ``environments`` (the trainer has no ``environment_factory``).
        """
        if environments is None:
            raise ConfigError(f"reward {self.component!r} reads the rollouts' environments; expected "
                              "GRPOTrainer(environment_factory=VehicleMemToolEnv, ...), found no environments")
        out: list[float | None] = []
        for env in environments:
            if not isinstance(env, LocalToolEpisode):
                out.append(None)
                continue
            env.get_reward()  # finishes an episode the model left open
            out.append(env.reward_components.get(self.component))
        return out


def component_rewards(components: Sequence[str] = REWARD_COMPONENTS) -> list[ComponentReward]:
    """TRL reward functions, one per named component (for ``GRPOTrainer(reward_funcs=...)``).

    Args:
        components: component names (default: all six, in :data:`~vmb_gym.envs.rewards.REWARD_COMPONENTS` order).

    Raises:
        ConfigError: an unknown component.
    """
    return [ComponentReward(c) for c in components]


def make_tool_env_class(vehicle_tools: Sequence[str] | str = DEFAULT_VEHICLE_TOOLS, *, schema: str = "official",
                        name: str = "VehicleMemToolEnvCustom") -> type[VehicleMemToolEnv]:
    """A :class:`VehicleMemToolEnv` subclass with one typed method per vehicle function named.

    Args:
        vehicle_tools: ``carcontrol_*`` names, or ``"all"`` for all 111 functions.
        schema: schema flavour the method signatures and docstrings come from.
        name: the class name.

    Raises:
        ConfigError: a name is not a vehicle function.
    """
    return with_vehicle_tools(VehicleMemToolEnv, vehicle_tools, schema=schema, name=name)  # type: ignore[return-value]


# The default class carries the common vehicle functions as methods.
for _name, _method in vehicle_methods(DEFAULT_VEHICLE_TOOLS).items():
    setattr(VehicleMemToolEnv, _name, _method)
del _name, _method


def observation_json(observation: str) -> Any:
    """The JSON result of a one-call text observation (``[name] {...}``), for tests and callers."""
    _, _, payload = observation.partition("] ")
    return orjson.loads(payload)
