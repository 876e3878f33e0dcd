"""Base class of the 23 vehicle modules and the validation helpers they share.

A module owns a plain dict of fields (``self.state``). Field values are **copy-on-write**: an
API never mutates a stored value in place, it stores a new one (:meth:`VehicleModule.update_field`
for the zone dicts, a new list for list fields). So a fresh module shares its defaults, a snapshot
is one shallow dict copy and a call's diff only compares the fields whose value object changed;
:func:`vmb_gym.vehicle.conformance.check_defaults_intact` verifies the rule after a run.

Each official API is a method decorated
with :func:`vmb_gym.vehicle.api.vehicle_api`; it validates its arguments the way the official
code does (``isinstance(v, int)`` plus a range, exact enum strings, ``bool(x)`` coercion) and
returns ``{"success": bool, "message": str}``. A handled rejection raises :class:`Rejected`
(the official ``ValueError`` path); anything else a method raises (a wrong keyword, ``"50" > 0``)
propagates to the simulator, which turns it into an ``error`` result as the official executor does.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from operator import is_not
from dataclasses import dataclass
from typing import Any, ClassVar

from vmb_gym.vehicle.api import ApiSpec, build_spec
from vmb_gym.vehicle.state import FlatState, copy_value, exact_equal, flatten_field


class Rejected(ValueError):
    """A handled rejection: the call returns ``success: false`` (state changes made so far stay)."""


@dataclass(frozen=True)
class Field:
    """One state field: its initial value and its official description."""

    default: Any
    description: str


Result = dict[str, Any]


class VehicleModule:
    """A vehicle module: a dict of fields plus the APIs that change them.

    Subclasses set ``KEY`` (the official attribute name, e.g. ``"airConditioner"``),
    ``TYPE_NAME`` (the official class name, which appears in the flattened state),
    ``DESCRIPTION`` (the official one-line module description) and ``FIELDS`` (in official order).
    """

    KEY: ClassVar[str]
    TYPE_NAME: ClassVar[str]
    DESCRIPTION: ClassVar[str]
    FIELDS: ClassVar[dict[str, Field]]
    APIS: ClassVar[dict[str, ApiSpec]]
    _DEFAULTS: ClassVar[dict[str, Any]]
    _PRISTINE: ClassVar[dict[str, Any]]

    __slots__ = ("state",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        apis: dict[str, ApiSpec] = {}
        for name in sorted(vars(cls)):  # alphabetical, like the official dir() order
            spec = build_spec(cls.KEY, getattr(cls, name))
            if spec is not None:
                apis[name] = spec
        cls.APIS = apis
        if "FIELDS" in vars(cls):
            cls._DEFAULTS = {name: f.default for name, f in cls.FIELDS.items()}
            cls._PRISTINE = copy.deepcopy(cls._DEFAULTS)

    def __init__(self) -> None:
        # Copy-on-write: the defaults' value objects are shared until an API replaces them.
        self.state: dict[str, Any] = self._DEFAULTS.copy()

    # ------------------------------------------------------------------ results
    @staticmethod
    def ok(message: str) -> Result:
        """A successful result."""
        return {"success": True, "message": message}

    # ------------------------------------------------------------------ state views
    def snapshot(self) -> dict[str, Any]:
        """The fields as they are now, for computing what a call changed.

        Values are copy-on-write (APIs replace them, never mutate them), so a shallow copy of
        the field dict is a faithful snapshot.
        """
        return self.state.copy()

    def changed_fields(self, before: Mapping[str, Any]) -> dict[str, Any]:
        """The official ``current_state`` diff: each changed field, shown whole (as a copy).

        A field whose value object is the one in ``before`` is unchanged (copy-on-write); a
        replaced value counts as changed when it differs in value or in type (``True`` vs ``1``).
        """
        state = self.state
        replaced: Iterable[str]
        if tuple(state) == tuple(before):  # same fields in the same order (the snapshot is a copy)
            replaced = compress(state, map(is_not, state.values(), before.values()))  # C-level scan
        else:
            replaced = (k for k, v in state.items() if before.get(k, _ABSENT) is not v)
        out: dict[str, Any] = {}
        for k in replaced:
            v, b = state[k], before.get(k, _ABSENT)
            if b is _ABSENT or b != v or type(b) is not type(v):
                out[k] = copy_value(v)
        return out

    def update_field(self, name: str, changes: Mapping[str, Any]) -> None:
        """Store a copy of the dict field ``name`` with ``changes`` applied (copy-on-write)."""
        self.state[name] = {**self.state[name], **changes}

    def to_dict(self) -> dict[str, Any]:
        """The official ``to_dict`` shape: ``{field: {value, description, type}}``."""
        return {
            name: {"value": copy_value(v), "description": self.describe_field(name), "type": type(v).__name__}
            for name, v in self.state.items()
        }

    @classmethod
    def describe_field(cls, name: str) -> str:
        """The official description of field ``name`` (the name itself for a field the module lacks)."""
        f = cls.FIELDS.get(name)
        return f.description if f is not None else name

    @classmethod
    def defaults_intact(cls) -> bool:
        """Whether the shared defaults still equal their import-time copy (types included).

        False means some code mutated a stored value in place, breaking copy-on-write.
        """
        return exact_equal(cls._DEFAULTS, cls._PRISTINE)

    @classmethod
    def initial_state(cls) -> dict[str, Any]:
        """The fields of a fresh module (a shared mapping: read it, do not mutate it)."""
        return cls._DEFAULTS

    def flatten_into(self, out: FlatState, fields: Sequence[str] | None = None) -> None:
        """Append this module's flattened paths (all fields, or only ``fields``) to ``out``."""
        key = self.KEY
        for name in self.state if fields is None else fields:
            flatten_field(key, name, self.state[name], self.describe_field(name), out)
        if fields is None:
            out[f"{key}.description"] = self.DESCRIPTION
            out[f"{key}.type"] = self.TYPE_NAME


_ABSENT = object()


# ---------------------------------------------------------------------- validation helpers
def require_int(value: Any, minimum: int, maximum: int | None, what: str) -> None:
    """Official integer check: ``isinstance(value, int)`` (bool passes) and an inclusive range."""
    if not isinstance(value, int):
        raise Rejected(f"{what} must be an integer, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f"-{maximum}"
        raise Rejected(f"{what} must be in range {minimum}{upper}, got {value!r}")


def require_choice(value: Any, choices: Sequence[str], what: str, aliases: Mapping[str, str] | None = None) -> str:
    """Official enum check: exact, case-sensitive match after optional alias lookup.

    An unhashable value (a list or a dict) makes the alias lookup raise ``TypeError``, which the
    simulator reports as an ``error`` result, as the official code does.
    """
    if aliases:
        value = aliases.get(value, value)
    if value not in choices:
        raise Rejected(f"{what} must be one of {', '.join(choices)}, got {value!r}")
    return value


ZONE_ALIASES = {
    "主驾": "driver",
    "副驾": "passenger",
    "左后": "rear_left",
    "右后": "rear_right",
    "前排": "front",
    "后排": "rear",
    "全部": "all",
}
FOUR_ZONES = ("driver", "passenger", "rear_left", "rear_right")
ZONE_GROUPS = {
    "driver": ("driver",),
    "passenger": ("passenger",),
    "rear_left": ("rear_left",),
    "rear_right": ("rear_right",),
    "front": ("driver", "passenger"),
    "rear": ("rear_left", "rear_right"),
    "all": FOUR_ZONES,
}


def require_hashable_choice(
    value: Any, choices: Sequence[str], what: str, aliases: Mapping[str, str] | None = None
) -> str:
    """Like :func:`require_choice`, but for official code that looks the value up in a dict or enum map.

    A list or dict argument raises ``TypeError`` (unhashable) even when there are no aliases, so the
    call becomes an ``error`` result instead of a handled ``fail``.
    """
    hash(value)
    return require_choice(value, choices, what, aliases)


def resolve_targets(
    target: Any,
    what: str,
    *,
    groups: Mapping[str, tuple[str, ...]] = ZONE_GROUPS,
    aliases: Mapping[str, str] = ZONE_ALIASES,
    default: str | None = "driver",
) -> tuple[str, ...]:
    """Resolve a multi-target argument (zone, seat, window, door, ...) to the member keys it names.

    Official behaviour: a falsy target (``None``, ``""``, ``0``, ``False``, ``[]``, ``{}``) becomes
    ``default`` (when ``default`` is not ``None``); the value is then mapped through ``aliases``
    (a dict lookup, so a non-empty list or dict raises ``TypeError``, an ``error`` result) and must
    name a key of ``groups`` exactly (case-sensitive, no trimming), else :class:`Rejected`.

    Args:
        target: the argument as given.
        what: the parameter name, for the message.
        groups: canonical target -> member keys, in official order.
        aliases: extra spellings (e.g. Chinese) -> canonical target.
        default: the target used for a falsy value, or ``None`` when a falsy value is rejected.

    Returns:
        The member keys the target names.
    """
    if default is not None and not target:
        target = default
    key = aliases.get(target, target)
    members = groups.get(key) if isinstance(key, str) else None
    if members is None:
        raise Rejected(f"{what} must be one of {', '.join(groups)}, got {target!r}")
    return members
