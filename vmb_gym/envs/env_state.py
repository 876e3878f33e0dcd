"""Forkable episodes: the plain-data state of a vehicle env (``get_state`` / ``set_state``).

Both vehicle envs save what makes their future: the car (each touched module's fields), the
memory (``VehicleMem-v0``: the episode's search accounting; ``VehicleMemStream-v0``: the log of
writes the policy made, replayed into an empty store on restore), the episode bookkeeping
(steps, messages, counters, calls, the task, the stream position) and the state of every random
generator of the episode. An :class:`EnvState` holds only plain data (dicts, lists, strings,
numbers, booleans, None; times as ISO 8601 strings), so it pickles and it serialises as JSON
(:meth:`EnvState.to_json_data` / :meth:`EnvState.from_json_data`).

``set_state`` on an env built with the same arguments restores the episode exactly: the same
actions give the same observations, rewards, infos and final metrics (wall-clock figures aside).
A state of another version, another env or another configuration is refused with a
:class:`~vmb_gym.errors.StateError` (a :class:`~vmb_gym.errors.ConfigError`): the caller is the
trainer, never the policy, and the env is left as it was.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from vmb_gym.errors import StateError
from vmb_gym.memory.records import MemoryHit
from vmb_gym.memory.session import SearchResult
from vmb_gym.types import ToolCall
from vmb_gym.vehicle import MODULES, VehicleSimulator
from vmb_gym.vehicle.state import copy_value

__all__ = ["STATE_VERSION", "EnvState", "apply_or_roll_back", "check_state", "config_fingerprint", "hit_data",
           "hit_from", "parse_stamp", "restore_runtime", "restore_vehicle", "rng_state", "runtime_state",
           "set_rng_state", "stamp", "vehicle_state"]

#: Version of the :class:`EnvState` layout; a state of another version is refused.
STATE_VERSION = 1


@dataclass
class EnvState:
    """A saved episode of a vehicle env: plain data only.

    Attributes:
        version: :data:`STATE_VERSION` when it was saved.
        env_id: ``"VehicleMem-v0"`` or ``"VehicleMemStream-v0"``.
        config: fingerprint of the env's construction arguments (:func:`config_fingerprint`).
        data: the episode (env-specific keys; plain data).
    """

    version: int
    env_id: str
    config: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json_data(self) -> dict[str, Any]:
        """The state as a JSON-safe dict (a deep copy)."""
        return {"version": self.version, "env_id": self.env_id, "config": self.config,
                "data": copy.deepcopy(self.data)}

    @classmethod
    def from_json_data(cls, obj: Any) -> EnvState:
        """The state from :meth:`to_json_data`'s dict.

        Raises:
            StateError: ``obj`` is not such a dict.
        """
        if isinstance(obj, EnvState):
            return obj
        if not isinstance(obj, Mapping) or not {"version", "env_id", "config", "data"} <= set(obj):
            raise StateError("expected an env state: a dict with version, env_id, config and data "
                             f"(EnvState.to_json_data()), got {type(obj).__name__}")
        if not isinstance(obj["data"], Mapping):
            raise StateError(f"expected an env state's data to be a dict, got {type(obj['data']).__name__}")
        return cls(obj["version"], str(obj["env_id"]), str(obj["config"]), copy.deepcopy(dict(obj["data"])))


def config_fingerprint(*parts: Any) -> str:
    """A short, stable hash of an env's construction arguments (``repr`` of plain values)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def check_state(state: Any, env_id: str, config: str) -> EnvState:
    """``state`` as an :class:`EnvState` of ``env_id`` built like this env.

    Raises:
        StateError: another type, version, env or configuration.
    """
    state = EnvState.from_json_data(state)
    if state.version != STATE_VERSION:
        raise StateError(f"expected an env state of version {STATE_VERSION}, got version {state.version!r}; "
                         "save the state again with this vmb_gym")
    if state.env_id != env_id:
        raise StateError(f"expected a state of {env_id}, got one of {state.env_id}: restore it into a {state.env_id}")
    if state.config != config:
        raise StateError(f"expected a state of a {env_id} built with the same arguments (config {config}), got "
                         f"config {state.config}: build the env with the arguments of the one that saved it")
    return state


#: What a malformed state's data raises while it is applied (turned into a StateError).
_MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, AssertionError)


def apply_or_roll_back(env: Any, data: Mapping[str, Any], apply: Callable[[dict[str, Any]], None]) -> None:
    """``apply(copy of data)``; when it fails, the env's state from before is applied again.

    Raises:
        StateError: ``apply`` refused the data, or the data were malformed (a missing key, a wrong type).
    """
    backup = env.get_state().data
    try:
        apply(copy.deepcopy(dict(data)))
    except StateError:
        apply(backup)
        raise
    except _MALFORMED as exc:
        apply(backup)
        raise StateError(f"expected a state as get_state() gives it, found a malformed one "
                         f"({type(exc).__name__}: {exc})") from exc


# ------------------------------------------------------------------------------------------ pieces
#: Integers of a generator state beyond this are kept as ``{"int": "<digits>"}`` (JSON parsers lose them).
_JSON_INT = 2**53


def _json_ints(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_ints(v) for k, v in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _JSON_INT:
        return {"int": str(value)}
    return value


def _python_ints(value: Any) -> Any:
    if isinstance(value, Mapping):
        if set(value) == {"int"}:
            return int(value["int"])
        return {k: _python_ints(v) for k, v in value.items()}
    return value


def rng_state(gen: Any) -> dict[str, Any] | None:
    """The bit-generator state of a numpy ``Generator`` as JSON-safe data (None for None)."""
    return None if gen is None else _json_ints(gen.bit_generator.state)


def set_rng_state(gen: Any, state: Mapping[str, Any] | None) -> None:
    """Put ``state`` (from :func:`rng_state`) into ``gen`` (nothing when either is None)."""
    if gen is not None and state is not None:
        gen.bit_generator.state = _python_ints(state)


def vehicle_state(sim: VehicleSimulator) -> dict[str, dict[str, Any]]:
    """The car: each touched module's fields (plain JSON-like values, copied)."""
    return {key: {name: copy_value(v) for name, v in sim.module(key).state.items()} for key in sim.touched_modules}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _same_shape(default: Any, value: Any) -> bool:
    """Whether ``value`` has the JSON kind of ``default`` (dicts: on their common keys too; None: anything)."""
    if default is None:
        return True
    if _kind(default) != _kind(value):
        return False
    if isinstance(default, dict):
        return all(_same_shape(default[k], value[k]) for k in default.keys() & value.keys())
    return True


def restore_vehicle(data: Mapping[str, Mapping[str, Any]]) -> VehicleSimulator:
    """A car with the modules of :func:`vehicle_state` (untouched modules start fresh).

    Raises:
        StateError: an unknown module, or fields that are not the module's (names, or the kind of a value).
    """
    sim = VehicleSimulator()
    for key, fields in data.items():
        mod = sim.module(key) if key in MODULES else None
        if mod is None:
            raise StateError(f"expected vehicle modules of the simulator, got {key!r}")
        defaults = mod.state
        if not isinstance(fields, Mapping) or fields.keys() != defaults.keys():
            raise StateError(f"expected the fields of vehicle module {key} ({sorted(defaults)[:6]}...), "
                             f"got {sorted(fields)[:6] if isinstance(fields, Mapping) else type(fields).__name__}")
        wrong = [name for name, v in fields.items() if not _same_shape(defaults[name], v)]
        if wrong:
            raise StateError(f"expected the values of vehicle module {key} to have their fields' kinds, got "
                             f"{wrong[0]}={fields[wrong[0]]!r:.60}")
        mod.state = {name: copy_value(v) for name, v in fields.items()}
    return sim


def stamp(t: datetime | None) -> str | None:
    """``t`` as ISO 8601 (None stays None)."""
    return None if t is None else t.isoformat()


def parse_stamp(s: str | None) -> datetime | None:
    """The datetime of :func:`stamp`."""
    return None if s is None else datetime.fromisoformat(s)


def hit_data(h: MemoryHit) -> dict[str, Any]:
    """A memory hit as plain data (every field)."""
    return {"entry_id": h.entry_id, "text": h.text, "score": float(h.score), "timestamp": stamp(h.timestamp),
            "line_ids": list(h.line_ids), "people": list(h.people), "layer": h.layer, "status": h.status}


def hit_from(d: Mapping[str, Any]) -> MemoryHit:
    """The :class:`MemoryHit` of :func:`hit_data`."""
    return MemoryHit(d["entry_id"], d["text"], d["score"], parse_stamp(d["timestamp"]), tuple(d["line_ids"]),
                     tuple(d["people"]), d["layer"], d["status"])


_COUNTERS = ("executions", "invalid", "actions", "unreadable", "failed_actions", "parse_errors")


def runtime_state(rt: Any) -> dict[str, Any]:
    """A :class:`~vmb_gym.envs.tool_runtime.ToolRuntime`'s session as plain data: the car, the
    discovered modules, the calls made, the counters, the QA answer and the memory accounting."""
    session = rt.memory_session
    return {
        "task_id": rt.query.task_id,
        "vehicle": vehicle_state(rt.sim),
        "discovered": sorted(rt.discovered),
        "pred_calls": [[c.name, copy.deepcopy(c.arguments)] for c in rt.pred_calls],
        "counters": {k: int(getattr(rt, k)) for k in _COUNTERS},
        "answer": None if rt.answer is None else [rt.answer.name, copy.deepcopy(rt.answer.arguments)],
        "memory": {"searches": session.searches, "tokens": session.tokens, "seconds": session.seconds,
                   "hits": [hit_data(h) for h in session.hits], "lines": list(session.lines)},
        "search_results": [{"hits": [hit_data(h) for h in r.hits], "text": r.text, "tokens": r.tokens}
                           for r in rt.search_results],
    }


def restore_runtime(rt: Any, data: Mapping[str, Any]) -> None:
    """Put :func:`runtime_state`'s session into a freshly built runtime of the same query."""
    rt.sim = restore_vehicle(data["vehicle"])
    rt.discovered = set(data["discovered"])
    rt.pred_calls = [ToolCall(name, copy.deepcopy(args)) for name, args in data["pred_calls"]]
    for k in _COUNTERS:
        setattr(rt, k, int(data["counters"][k]))
    answer = data["answer"]
    rt.answer = None if answer is None else ToolCall(answer[0], copy.deepcopy(answer[1]))
    mem = data["memory"]
    session = rt.memory_session
    session.searches, session.tokens, session.seconds = int(mem["searches"]), int(mem["tokens"]), float(mem["seconds"])
    session.hits = [hit_from(h) for h in mem["hits"]]
    session.lines = list(mem["lines"])
    rt.search_results = [SearchResult(tuple(hit_from(h) for h in r["hits"]), r["text"], int(r["tokens"]))
                         for r in data["search_results"]]
