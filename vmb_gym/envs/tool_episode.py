"""One env episode per rollout with the env's tools as typed methods: the TRL ``environment_factory`` shape.

TRL's ``GRPOTrainer(environment_factory=...)`` builds one object per rollout, calls
``reset(**row)``, exposes every public method (type hints + Google docstring -> JSON schema) as a
tool and scores the rollout with ``get_reward()``. :class:`ToolEpisode` is that object for any
way of running the env: a subclass gives :meth:`ToolEpisode._start` (begin an episode) and
:meth:`ToolEpisode._advance` (run one call). :class:`vmb_gym.server.trl.RemoteToolEnv` runs them
on a ``vmb serve`` session; the in-process ``vmb_agents.llm.trl_env.VehicleMemToolEnv`` is the same
idea over a local ``VehicleMem-v0``. The class lives with the env (the tools are the env's), so
policies and the server both take it from here.

Tools: ``list_module_tools``, ``search_memory``, ``call_vehicle(name, arguments)`` (any of the
111 ``carcontrol_*`` functions), ``finish``, plus one typed method per vehicle function attached
with :func:`with_vehicle_tools` (:data:`DEFAULT_VEHICLE_TOOLS` by default). Needs only the vehicle
schemas.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory.records import DEFAULT_TOP_K
from vmb_gym.vehicle.schema import all_vehicle_schemas

__all__ = ["DEFAULT_VEHICLE_TOOLS", "ToolEpisode", "vehicle_method", "vehicle_methods", "with_vehicle_tools"]

#: Vehicle functions exposed as their own typed methods by default.
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
_NO_EPISODE = '{"success": false, "error": "no episode: reset() was not called"}'
_OVER = '{"success": false, "error": "the episode is over (finish was called or the step limit reached)"}'


class ToolEpisode:
    """The episode bookkeeping and the env tools; subclasses say how an episode starts and steps.

    Every tool returns the env's observation for that call (``[name] {json result}``).
    """

    def __init__(self, seed: int | None = 0) -> None:
        self._seed: int | None = seed
        self._reward: float | None = None
        self._components: dict[str, float] = {}
        self._done = True
        self.last_info: dict[str, Any] = {}
        self.task_id: str | None = None

    # ------------------------------------------------------------------ to override
    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        """Begin an episode; the first observation and the reset info."""
        raise NotImplementedError

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        """Run one call; (observation, reward, episode over, info)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ TRL contract
    def reset(self, task_id: str | None = None, **kwargs: Any) -> str:
        """Start an episode on ``task_id`` (or the next task of the seeded cycle); return the first observation.

        Other keyword arguments (the dataset row's ``prompt`` and extra columns) are ignored.
        """
        obs, info = self._start(None if task_id is None else str(task_id), self._seed)
        self._seed = None  # seed the cycle once, then walk it
        self._reward = None
        self._components = {}
        self._done = False
        self.last_info = info
        self.task_id = info.get("task_id")
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
        """The named reward components of the finished episode (empty while it runs; a copy)."""
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

    def search_memory(self, query: str, top_k: int = DEFAULT_TOP_K) -> str:
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
            return _NO_EPISODE if self._reward is None else _OVER
        obs, reward, over, info = self._advance(action)
        self.last_info = info
        if over:
            self._done = True
            self._reward = float(reward)
            self._components = dict(info.get("reward_components", {}))
        return obs


def vehicle_method(schema: Mapping[str, Any]) -> Any:
    """A typed tool method calling one vehicle function (signature and docstring from its schema)."""
    fn = schema["function"]
    name = str(fn["name"])
    props: dict[str, Any] = dict(fn.get("parameters", {}).get("properties", {}))
    required = set(fn.get("parameters", {}).get("required", []))

    def method(self: ToolEpisode, **kwargs: Any) -> str:
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


def vehicle_methods(vehicle_tools: Sequence[str] | str = DEFAULT_VEHICLE_TOOLS, *,
                    schema: str = "official") -> dict[str, Any]:
    """Name -> typed method for each vehicle function named (``"all"``: all 111).

    Raises:
        ConfigError: a name is not a vehicle function.
    """
    schemas = {s["function"]["name"]: s for s in all_vehicle_schemas(schema)}  # type: ignore[arg-type]
    wanted = list(schemas) if vehicle_tools == "all" else list(vehicle_tools)
    unknown = [n for n in wanted if n not in schemas]
    if unknown:
        raise ConfigError(f"unknown vehicle functions {unknown[:5]}; expected carcontrol_* names of the schema")
    return {n: vehicle_method(schemas[n]) for n in wanted}


def with_vehicle_tools(base: type[ToolEpisode], vehicle_tools: Sequence[str] | str = DEFAULT_VEHICLE_TOOLS, *,
                       schema: str = "official", name: str | None = None) -> type[ToolEpisode]:
    """A subclass of ``base`` with one typed method per vehicle function named.

    Raises:
        ConfigError: a name is not a vehicle function.
    """
    namespace: dict[str, Any] = dict(vehicle_methods(vehicle_tools, schema=schema))
    namespace["__doc__"] = base.__doc__
    namespace["__module__"] = base.__module__
    return type(name or f"{base.__name__}Custom", (base,), namespace)
