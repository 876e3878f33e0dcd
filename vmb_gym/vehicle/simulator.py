"""``VehicleSimulator``: the 23 modules and the official executor semantics.

The simulator is the world model: it knows nothing of queries, memory or rewards. Calls are
executed with the official evaluation executor's semantics: an unknown function name or a
call that raises (a missing or unexpected keyword, a type error inside the function) gives
``{"success": false, "error": text}``; state changes made before the exception stay. No call
ever raises out of :meth:`VehicleSimulator.call`.

Modules are created lazily on first use, so a fresh simulator costs almost nothing and copying
or flattening only touches the modules that were used.

Example:
    >>> sim = VehicleSimulator()
    >>> sim.call("carcontrol_HUD_set_height_level", {"level": 7})["success"]
    True
    >>> sim.flatten()["HUD.value.height_level"]
    7
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vmb_gym.vehicle.api import ApiSpec
from vmb_gym.vehicle.module import VehicleModule
from vmb_gym.vehicle.modules import MODULE_CLASSES
from vmb_gym.vehicle.state import FlatState, copy_value

#: The 23 official module keys, in official order.
MODULE_KEYS: tuple[str, ...] = tuple(cls.KEY for cls in MODULE_CLASSES)
#: Module key -> module class.
MODULES: dict[str, type[VehicleModule]] = {cls.KEY: cls for cls in MODULE_CLASSES}
#: Function name -> ApiSpec, for all 111 official APIs (module order, then alphabetical).
API_SPECS: dict[str, ApiSpec] = {name: spec for cls in MODULE_CLASSES for name, spec in cls.APIS.items()}
_DISPATCH = {name: (spec.module, getattr(MODULES[spec.module], name)) for name, spec in API_SPECS.items()}


_CONTAINERS = frozenset((dict, list))


def _kind(result: Mapping[str, Any]) -> str:
    if "error" in result:
        return "error"
    return "ok" if result.get("success") else "fail"


class VehicleSimulator:
    """The simulated car: 23 modules, 111 APIs, no randomness and no clock."""

    __slots__ = ("_modules",)

    def __init__(self) -> None:
        self._modules: dict[str, VehicleModule] = {}

    # ------------------------------------------------------------------ modules
    def module(self, key: str) -> VehicleModule:
        """The module instance for ``key`` (created at its initial state on first use)."""
        mod = self._modules.get(key)
        if mod is None:
            mod = MODULES[key]()
            self._modules[key] = mod
        return mod

    @property
    def touched_modules(self) -> tuple[str, ...]:
        """Keys of the modules that have been used (only these can differ from a fresh car)."""
        return tuple(self._modules)

    # ------------------------------------------------------------------ calls
    def call(self, name: Any, arguments: Any = None, *, with_state: bool = True) -> dict[str, Any]:
        """Execute one vehicle function with official executor semantics; never raises.

        Args:
            name: the function name, e.g. ``"carcontrol_seat_set_heating_level"`` (exact, case-sensitive).
            arguments: keyword arguments as a mapping (``None`` means no arguments).
            with_state: add ``current_state`` (the changed fields, shown whole) to the result.

        Returns:
            ``{"success", "message", "current_state"}`` for a call the function handled, or
            ``{"success": False, "error": text}`` for an unknown function or a call that raised.
        """
        entry = _DISPATCH.get(name) if isinstance(name, str) else None
        if entry is None:
            return {"success": False, "error": f"Function {name} not found"}
        key, fn = entry
        if arguments is None:
            arguments = {}
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            return {
                "success": False,
                "error": f"arguments of {name} must be an object of keyword arguments, got {type(arguments).__name__}",
            }
        mod = self._modules.get(key) or self.module(key)
        before = mod.state.copy() if with_state else None  # a snapshot: values are copy-on-write
        try:
            if _CONTAINERS.isdisjoint(map(type, arguments.values())):
                result = fn(mod, **arguments)  # scalars only: nothing the call could keep a reference to
            else:  # a stored list or dict must not stay shared with the caller's object
                result = fn(mod, **{k: copy_value(v) if type(v) in _CONTAINERS else v for k, v in arguments.items()})
        except ValueError as exc:  # the official methods catch ValueError: a handled rejection
            result = {"success": False, "message": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the official executor catches everything else
            return {"success": False, "error": str(exc) or type(exc).__name__}
        if before is not None:
            result["current_state"] = mod.changed_fields(before)
        return result

    def call_kind(self, name: Any, arguments: Any = None) -> str:
        """Execute a call and return its outcome kind: ``"ok"``, ``"fail"`` or ``"error"``."""
        return _kind(self.call(name, arguments, with_state=False))

    def run(self, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
        """Execute ``(name, arguments)`` pairs in order and return their results."""
        return [self.call(n, a) for n, a in calls]

    # ------------------------------------------------------------------ state
    def flatten(self) -> FlatState:
        """The official 341-path flattening (``collect_values`` of ``to_dict``)."""
        out: FlatState = {}
        for key in MODULE_KEYS:
            mod = self._modules.get(key)
            if mod is None:
                out.update(_initial_module_flat(key))
            else:
                mod.flatten_into(out)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The official ``VehicleWorld.to_dict()`` shape."""
        return {
            key: {"value": self.module(key).to_dict(), "description": cls.DESCRIPTION, "type": cls.TYPE_NAME}
            for key, cls in MODULES.items()
        }

    def copy(self) -> VehicleSimulator:
        """An independent copy (only touched modules are copied)."""
        other = VehicleSimulator()
        for key, mod in self._modules.items():
            new = MODULES[key].__new__(MODULES[key])
            new.state = mod.state.copy()  # values are copy-on-write
            other._modules[key] = new
        return other


_INITIAL_FLAT: dict[str, FlatState] = {}


def _initial_module_flat(key: str) -> FlatState:
    flat = _INITIAL_FLAT.get(key)
    if flat is None:
        flat = {}
        MODULES[key]().flatten_into(flat)
        _INITIAL_FLAT[key] = flat
    return flat


_INITIAL_STATE: FlatState = {}


def initial_flat_state() -> FlatState:
    """The flattened state of a fresh car (built once and shared: read it, do not mutate it)."""
    if not _INITIAL_STATE:
        _INITIAL_STATE.update(VehicleSimulator().flatten())
    return _INITIAL_STATE
