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

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import orjson

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_gym.envs.rewards import REWARD_COMPONENTS
from vmb_gym.errors import ConfigError
from vmb_gym.vehicle.schema import all_vehicle_schemas

__all__ = ["DEFAULT_VEHICLE_TOOLS", "ComponentReward", "VehicleMemToolEnv", "component_rewards", "make_tool_env_class"]

#: Vehicle functions exposed as their own typed methods by :class:`VehicleMemToolEnv`.
DEFAULT_VEHICLE_TOOLS: tuple[str, ...] = (
    "carcontrol_seat_set_heating_level",
    "carcontrol_airConditioner_set_temperature",
    "carcontrol_window_set_open_degree",
    "carcontrol_music_play_song",
    "carcontrol_radio_play_station",
    "carcontrol_steeringWheel_set_heating_level",
    "carcontrol_light_set_reading_light_brightness",
    "carcontrol_HUD_set_height_level",
)

_JSON_TO_PY: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool,
                                "object": dict, "array": list}


class VehicleMemToolEnv:
    """One ``VehicleMem-v0`` episode per rollout, with the env's tools as methods.

    Every tool returns the env's observation for that call (``[name] {json result}``); the
    calls run on the episode's simulated car exactly as env actions do (one call per step).

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
        self.env = gym.make("VehicleMem-v0", data=data, files=files, task_ids=task_ids, memory=memory,
                            schema=schema, reward=reward, max_steps=max_steps)
        self._seed: int | None = seed
        self._reward: float | None = None
        self._components: dict[str, float] = {}
        self._done = True
        self.last_info: dict[str, Any] = {}
        self.task_id: str | None = None

    # ------------------------------------------------------------------ TRL contract
    def reset(self, task_id: str | None = None, **kwargs: Any) -> str:
        """Start an episode on ``task_id`` (or the next task of the seeded cycle); return the first observation.

        Other keyword arguments (the dataset row's ``prompt`` and extra columns) are ignored.
        """
        options = {"task_id": str(task_id)} if task_id is not None else None
        obs, info = self.env.reset(seed=self._seed, options=options)
        self._seed = None  # seed the cycle once, then walk it
        self._reward = None
        self._components = {}
        self._done = False
        self.last_info = info
        self.task_id = info["task_id"]
        return obs

    def get_reward(self) -> float:
        """The episode's final reward (the episode is finished first when the model did not call ``finish``)."""
        if self._reward is None:
            if self._done:  # reset was never called
                return 0.0
            self._step({"name": "finish", "arguments": {}})
        return float(self._reward or 0.0)

    @property
    def reward_components(self) -> dict[str, float]:
        """The named reward components of the finished episode (empty while it runs; a copy).

        Keys: :data:`~vmb_gym.envs.rewards.REWARD_COMPONENTS` (``state_f1_change``,
        ``state_f1_positive``, ``exact_state_match``, ``invalid_action_rate``,
        ``tool_error_rate``, ``format_share``). A property, so TRL does not expose it as a tool.
        """
        return dict(self._components)

    # ------------------------------------------------------------------ tools
    def list_module_tools(self, module_name: str) -> str:
        """List the functions of one vehicle module, with their parameters.

        Args:
            module_name: Exact module name, e.g. 'seat', 'airConditioner' or 'window'.

        Returns:
            The module's function schemas as JSON, or an error.
        """
        return self._step({"name": "list_module_tools", "arguments": {"module_name": module_name}})

    def search_memory(self, query: str, top_k: int = 5) -> str:
        """Search the household's past conversations for preferences.

        Args:
            query: What to look for, e.g. 'Gary seat heating'.
            top_k: How many lines to return (1-20).

        Returns:
            The matching memory lines, or an error when the env has no searchable memory.
        """
        return self._step({"name": "search_memory", "arguments": {"query": query, "top_k": top_k}})

    def call_vehicle(self, name: str, arguments: dict) -> str:
        """Call any vehicle function (a carcontrol_* name from list_module_tools).

        Args:
            name: The function name, e.g. 'carcontrol_seat_set_heating_level'.
            arguments: The function's keyword arguments as a JSON object, e.g. {"seat": "driver", "level": 2}.

        Returns:
            The function's result as JSON, or an error.
        """
        args = dict(arguments) if isinstance(arguments, Mapping) else arguments
        return self._step({"name": name, "arguments": args})

    def finish(self) -> str:
        """End the task: the car is in the state you want.

        Returns:
            A confirmation; the episode is scored now.
        """
        return self._step({"name": "finish", "arguments": {}})

    # ------------------------------------------------------------------ mechanics
    def _step(self, action: dict[str, Any]) -> str:
        if self._done:
            if self._reward is None:
                return '{"success": false, "error": "no episode: reset() was not called"}'
            return '{"success": false, "error": "the episode is over (finish was called or the step limit reached)"}'
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.last_info = info
        if terminated or truncated:
            self._done = True
            self._reward = float(reward)
            self._components = dict(info.get("reward_components", {}))
        return obs


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
            if not isinstance(env, VehicleMemToolEnv):
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


def _vehicle_method(schema: Mapping[str, Any]) -> Any:
    """A typed tool method calling one vehicle function (signature and docstring from its schema)."""
    fn = schema["function"]
    name = str(fn["name"])
    props: dict[str, Any] = dict(fn.get("parameters", {}).get("properties", {}))
    required = set(fn.get("parameters", {}).get("required", []))

    def method(self: VehicleMemToolEnv, **kwargs: Any) -> str:
        return self._step({"name": name, "arguments": {k: v for k, v in kwargs.items() if v is not None}})

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    ordered = [p for p in props if p in required] + [p for p in props if p not in required]
    for pname in ordered:
        hint: Any = _JSON_TO_PY.get(str(props[pname].get("type", "string")), str)
        if pname not in required:
            hint = hint | None
        annotations[pname] = hint
        params.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY,
                                        default=inspect.Parameter.empty if pname in required else None,
                                        annotation=hint))
    lines = [str(fn.get("description") or name).strip().replace("\n", " ")]
    if ordered:
        lines += ["", "Args:"]
        for pname in ordered:
            desc = str(props[pname].get("description") or pname).replace("\n", " ")
            enum = props[pname].get("enum")
            if enum:
                desc += f" (one of {', '.join(map(str, enum))})"
            lines.append(f"    {pname}: {desc}")
    lines += ["", "Returns:", "    The function's result as JSON, or an error."]
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__annotations__ = annotations
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    return method


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
    schemas = {s["function"]["name"]: s for s in all_vehicle_schemas(schema)}  # type: ignore[arg-type]
    wanted = list(schemas) if vehicle_tools == "all" else list(vehicle_tools)
    unknown = [n for n in wanted if n not in schemas]
    if unknown:
        raise ConfigError(f"unknown vehicle functions {unknown[:5]}; expected carcontrol_* names of the schema")
    namespace = {n: _vehicle_method(schemas[n]) for n in wanted}
    namespace["__doc__"] = VehicleMemToolEnv.__doc__
    return type(name, (VehicleMemToolEnv,), namespace)


# The default class carries the common vehicle functions as methods.
for _tool in DEFAULT_VEHICLE_TOOLS:
    setattr(VehicleMemToolEnv, _tool,
            _vehicle_method(next(s for s in all_vehicle_schemas("official") if s["function"]["name"] == _tool)))
del _tool


def observation_json(observation: str) -> Any:
    """The JSON result of a one-call text observation (``[name] {...}``), for tests and callers."""
    _, _, payload = observation.partition("] ")
    return orjson.loads(payload)
