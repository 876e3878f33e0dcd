"""Declarative description of the vehicle APIs.

Each of the 111 ``carcontrol_*`` functions is a method of a vehicle module decorated with
:func:`vehicle_api`. The decorator records an :class:`ApiSpec` built from the method's own
signature and docstring plus the constraints given to the decorator (ranges, allowed values,
aliases, units). Both tool-schema flavours (see :mod:`vmb_gym.vehicle.schema`) are rendered
from that spec, so the schema can never drift from the code that validates the call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

_PY_TO_JSON = {int: "integer", bool: "boolean", str: "string", float: "number"}


@dataclass(frozen=True)
class Constraint:
    """What a parameter accepts, for the rich schema and for generators.

    Attributes:
        minimum: smallest allowed integer (inclusive), if any.
        maximum: largest allowed integer (inclusive), if any.
        choices: allowed string values (the canonical spelling the simulator stores).
        aliases: extra spellings the official code accepts (e.g. Chinese), mapped to the canonical value.
        unit: a unit for the rich schema ("percent", "level", "celsius").
        note: a short free-text note for the rich schema.
    """

    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    unit: str | None = None
    note: str | None = None


def IntRange(minimum: int, maximum: int | None = None, unit: str | None = None) -> Constraint:
    """An integer range constraint (``maximum=None`` means unbounded above)."""
    return Constraint(minimum=minimum, maximum=maximum, unit=unit)


def OneOf(*choices: str, aliases: Mapping[str, str] | None = None, note: str | None = None) -> Constraint:
    """A closed set of string values, with optional aliases."""
    return Constraint(choices=tuple(choices), aliases=dict(aliases or {}), note=note)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a vehicle API."""

    name: str
    py_type: type
    required: bool
    default: Any
    constraint: Constraint | None

    @property
    def json_type(self) -> str:
        """The JSON-schema type name of the parameter."""
        return _PY_TO_JSON.get(self.py_type, "string")


@dataclass(frozen=True)
class ApiSpec:
    """Everything known about one vehicle API, derived from its code."""

    name: str
    module: str
    description: str
    doc: str
    params: tuple[ParamSpec, ...]
    kind: str  # "WRITE" for setters; every official API changes state

    @property
    def required(self) -> tuple[str, ...]:
        """Names of the parameters without a default."""
        return tuple(p.name for p in self.params if p.required)

    def param(self, name: str) -> ParamSpec:
        """Return the parameter called ``name`` (KeyError if absent)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


_API_ATTR = "__vmb_api__"


def vehicle_api(**constraints: Constraint) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a module method as an official vehicle API.

    Keyword arguments map parameter names to :class:`Constraint` objects. The module key and
    the full spec are filled in when the module class is created (see ``VehicleModule``).
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        unknown = set(constraints) - set(inspect.signature(fn).parameters)
        if unknown:
            raise TypeError(f"{fn.__name__}: constraints given for unknown parameters {sorted(unknown)}")
        setattr(fn, _API_ATTR, dict(constraints))
        return fn

    return mark


def build_spec(module_key: str, fn: Callable[..., Any]) -> ApiSpec | None:
    """Build the :class:`ApiSpec` of a decorated method, or ``None`` if it is not an API."""
    constraints = getattr(fn, _API_ATTR, None)
    if constraints is None:
        return None
    sig = inspect.signature(fn)
    hints = inspect.get_annotations(fn, eval_str=True)
    params = []
    for p in sig.parameters.values():
        if p.name == "self":
            continue
        ann = hints.get(p.name, str)
        py_type = _base_type(ann)
        params.append(
            ParamSpec(
                name=p.name,
                py_type=py_type,
                required=p.default is inspect.Parameter.empty,
                default=None if p.default is inspect.Parameter.empty else p.default,
                constraint=constraints.get(p.name),
            )
        )
    doc = inspect.getdoc(fn) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else fn.__name__
    return ApiSpec(
        name=fn.__name__,
        module=module_key,
        description=first,
        doc=doc,
        params=tuple(params),
        kind="WRITE",
    )


def _base_type(annotation: Any) -> type:
    """Reduce ``Optional[str]``/``str | None`` and friends to the base Python type."""
    if isinstance(annotation, type):
        return annotation
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    if args and isinstance(args[0], type):
        return args[0]
    return str
