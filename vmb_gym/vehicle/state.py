"""The official flattening of the vehicle state and exact diffs over it.

The official scorer flattens a world with ``collect_values`` into dotted paths. A fresh world
has 341 paths: 215 state leaves plus 126 description/type metadata strings. This module
reproduces that walk exactly (including its quirks for raw-stored arguments) so that the
state metrics match the official numbers.

Walk rules (see the conformance README):

1. A map with both ``type`` and ``value`` keys is a *node*. Scalar types (int/str/bool/float)
   record the value; a list value walks its elements as ``path[i]``; a map value walks the
   node's own entries (``value``, ``description``, ``type``); anything else records nothing.
2. Any other map walks each entry as ``path.key``.
3. A bare list records its length at ``path`` and then walks ``path[i]``.
4. Anything else is recorded at ``path``.
"""

from __future__ import annotations

from typing import Any

_SCALAR_TYPES = frozenset({"int", "str", "bool", "float"})

FlatState = dict[str, Any]


def walk(path: str, obj: Any, out: FlatState) -> None:
    """Flatten ``obj`` below ``path`` into ``out`` with the official ``collect_values`` rules."""
    if isinstance(obj, dict):
        if "type" in obj and "value" in obj:
            type_name = obj["type"]
            if isinstance(type_name, str) and type_name in _SCALAR_TYPES:
                out[path] = obj["value"]
                return
            value = obj["value"]
            if isinstance(value, list):
                for i, element in enumerate(value):
                    walk(f"{path}[{i}]", element, out)
            elif isinstance(value, dict):
                for key, item in obj.items():
                    walk(f"{path}.{key}", item, out)
            return
        for key, item in obj.items():
            walk(f"{path}.{key}" if path else str(key), item, out)
    elif isinstance(obj, list):
        out[path] = len(obj)
        for i, element in enumerate(obj):
            walk(f"{path}[{i}]", element, out)
    else:
        out[path] = obj


def field_node(value: Any, description: str) -> dict[str, Any]:
    """The ``{value, description, type}`` node the official ``to_dict`` builds for one field."""
    return {"value": value, "description": description, "type": type(value).__name__}


def flatten_field(module_key: str, field: str, value: Any, description: str, out: FlatState) -> None:
    """Flatten one field of one module (all its paths start with ``module.value.field``)."""
    walk(f"{module_key}.value.{field}", field_node(value, description), out)


def exact_equal(a: Any, b: Any) -> bool:
    """Equality with JSON types kept apart: ``True != 1``, ``60 != 60.0``, case-sensitive strings."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(exact_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(exact_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def exact_diff(before: FlatState, after: FlatState) -> dict[str, list[Any]]:
    """Map each path whose value differs exactly to ``[before, after]`` (``None`` = absent)."""
    diff: dict[str, list[Any]] = {}
    for path, old in before.items():
        if path not in after:
            diff[path] = [old, None]
        elif not exact_equal(old, after[path]):
            diff[path] = [old, after[path]]
    for path, new in after.items():
        if path not in before:
            diff[path] = [None, new]
    return diff


_CONTAINER_TYPES = frozenset((dict, list))


def copy_value(value: Any) -> Any:
    """A fast deep copy for the JSON-like values the simulator stores."""
    if type(value) is dict and _CONTAINER_TYPES.isdisjoint(map(type, value.values())):
        return value.copy()  # the common case: a flat dict of scalars
    if isinstance(value, dict):
        return {k: copy_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_value(v) for v in value]
    return value
