"""The fast path of the official state scoring: a task's gold reduced to what differs from a fresh car.

:class:`GoldReference` snapshots the reference final state once per task; :func:`score_against`
scores any number of predicted simulators against it with exactly the numbers (and difference
lines) of the reference :func:`~vmb_gym.scoring.state_diff.score_flat`. Only fields of touched
modules whose value differs (type-aware) from a fresh car are flattened; every other path of the
fresh car is, by construction, present and equal in all four worlds and counts as a negative TP.
A gold field that several tasks set to the same value is flattened and tallied once, and so is
the outcome of a predicted field value (per gold field, or per field the gold leaves alone): the
paths of two fields never overlap, so a score is the sum of its fields' outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import compress
from operator import is_not
from typing import Any

import orjson

from vmb_gym.scoring.state_diff import StateScore, Tally, diff_paths, unexpected_additions
from vmb_gym.vehicle.simulator import MODULE_KEYS, MODULES, VehicleSimulator, initial_flat_state
from vmb_gym.vehicle.state import FlatState, copy_value, exact_equal, flatten_field

__all__ = ["FieldKey", "GoldReference", "score_against", "score_sims"]

#: Scalar types for which ``==`` plus an identical type is exact equality.
_SCALAR_TYPES = (bool, int, float, str)
_INITIAL_BYTES: dict[tuple[str, str], bytes | None] = {}
_INITIAL_FIELD_FLAT: dict[tuple[str, str], FlatState] = {}
_MISSING = object()
_UNCHANGED = object()
FieldKey = tuple[str, str]


def _flatten_one(key: str, name: str, value: Any) -> FlatState:
    if value is _MISSING:
        return {}
    out: FlatState = {}
    flatten_field(key, name, value, MODULES[key].describe_field(name), out)
    return out


def _initial_field_flat(field: FieldKey) -> FlatState:
    cached = _INITIAL_FIELD_FLAT.get(field)
    if cached is None:
        cached = _flatten_one(field[0], field[1], MODULES[field[0]].initial_state().get(field[1], _MISSING))
        _INITIAL_FIELD_FLAT[field] = cached
    return cached


def _dumps(value: Any) -> bytes | None:
    """Type-revealing serialisation of a container value (``None`` when it cannot be serialised)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _same(value: Any, other: Any, other_bytes: bytes | None) -> bool:
    """Type-aware equality (``True != 1``, ``1 != 1.0``): equal values flatten identically.

    Containers are compared with ``==`` and then by their serialisation, which tells ``True``,
    ``1`` and ``1.0`` apart; a serialisation mismatch that is only a key-order difference falls
    back to the recursive check.
    """
    if value is other:
        return True
    if type(value) is not type(other):
        return False
    if isinstance(value, _SCALAR_TYPES):
        return bool(value == other)
    if not value == other:
        return False
    if other_bytes is not None and _dumps(value) == other_bytes:
        return True
    return exact_equal(value, other)


def _initial_bytes(field: FieldKey, initial: Any) -> bytes | None:
    if field in _INITIAL_BYTES:
        return _INITIAL_BYTES[field]
    data = None if isinstance(initial, _SCALAR_TYPES) else _dumps(initial)
    _INITIAL_BYTES[field] = data
    return data


_SCALAR_SET = frozenset(_SCALAR_TYPES)
_INITIAL_ITEMS: dict[str, tuple[tuple[str, Any, bytes | None], ...]] = {}


def _initial_items(key: str) -> tuple[tuple[str, Any, bytes | None], ...]:
    items = _INITIAL_ITEMS.get(key)
    if items is None:
        items = tuple(
            (name, init, _initial_bytes((key, name), init)) for name, init in MODULES[key].initial_state().items()
        )
        _INITIAL_ITEMS[key] = items
    return items


_INITIAL_COLUMNS: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {}


def _initial_columns(key: str) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The field names and the default value objects of module ``key``, in field order."""
    cols = _INITIAL_COLUMNS.get(key)
    if cols is None:
        items = _initial_items(key)
        cols = (tuple(n for n, _, _ in items), tuple(v for _, v, _ in items))
        _INITIAL_COLUMNS[key] = cols
    return cols


def _changed_fields(sim: VehicleSimulator) -> dict[FieldKey, Any]:
    """``(module, field) -> value`` for every field of a touched module that differs from a fresh car.

    Equality is type-aware (see :func:`_same`). A field missing from the module (never the case
    for well-behaved modules) maps to ``_MISSING``; a field the module added is always included.
    Module state is copy-on-write, so a field still holding its default object is unchanged.
    """
    changed: dict[FieldKey, Any] = {}
    for key in sim.touched_modules:
        state = sim.module(key).state
        items = _initial_items(key)
        names, inits = _initial_columns(key)
        if tuple(state) == names:  # the usual layout: a C-level scan skips the default objects
            for name, init, init_bytes in compress(items, map(is_not, state.values(), inits)):
                value = state[name]
                if not _is_initial(value, init, init_bytes):
                    changed[(key, name)] = value
            continue
        for name, init, init_bytes in items:
            value = state.get(name, _MISSING)
            if value is not init and not _is_initial(value, init, init_bytes):
                changed[(key, name)] = value
        for name, value in state.items():  # fields a fresh module does not have
            if name not in names:
                changed[(key, name)] = value
    return changed


def _is_initial(value: Any, init: Any, init_bytes: bytes | None) -> bool:
    """Whether ``value`` equals the default ``init`` exactly (type-aware; ``_MISSING`` never does)."""
    kind = type(value)
    if kind is not type(init):
        return False
    if kind in _SCALAR_SET:
        return bool(value == init)
    return value == init and ((init_bytes is not None and _dumps(value) == init_bytes) or exact_equal(value, init))


def _field_tally(init: FlatState, gold: FlatState, pred: FlatState) -> Tally:
    t = Tally()
    diff_paths(dict.fromkeys([*init, *gold]), init, gold, init, pred, t)
    unexpected_additions(init, gold, init, pred, t)
    return t


@dataclass(frozen=True, slots=True, eq=False)
class _GoldField:
    """One field that the gold changed, with its outcomes for the two common predictions (computed on first use)."""

    value: Any
    value_bytes: bytes | None
    flat: FlatState
    init: FlatState  # the field's paths on a fresh car
    _tallies: dict[Any, Tally] = dataclass_field(default_factory=dict, init=False, repr=False)

    @property
    def if_untouched(self) -> Tally:
        """The outcome when the prediction left the field at its initial value."""
        found = self._tallies.get("if_untouched")
        if found is None:
            found = self._tallies["if_untouched"] = _field_tally(self.init, self.flat, self.init)
        return found

    @property
    def if_matched(self) -> Tally:
        """The outcome when the prediction holds exactly the gold value."""
        found = self._tallies.get("if_matched")
        if found is None:
            found = self._tallies["if_matched"] = _field_tally(self.init, self.flat, self.flat)
        return found

    def if_set(self, field: FieldKey, value: Any) -> Tally:
        """The outcome when the prediction set the field to ``value`` (another value than the gold's)."""
        return _bounded_get(self._tallies, _value_key(value), _FIELD_TALLIES_LIMIT,
                            lambda: _field_tally(self.init, self.flat, _flatten_one(field[0], field[1], value)))


#: Most cached outcomes per gold field, and of fields the gold leaves alone (then the cache starts over).
_FIELD_TALLIES_LIMIT = 256
_UNTOUCHED_TALLIES: dict[tuple[FieldKey, type, str], Tally] = {}
_UNTOUCHED_TALLIES_LIMIT = 1 << 16


_PLAIN_TYPES = frozenset((bool, int, float, str, type(None), dict, list, tuple))


def _plain(value: Any) -> bool:
    """Whether ``value`` is built of Python's own scalar and container types only (keys included)."""
    kind = type(value)
    if kind not in _PLAIN_TYPES:
        return False
    if kind is dict:
        return all(map(_plain, value)) and all(map(_plain, value.values()))
    if kind is list or kind is tuple:
        return all(map(_plain, value))
    return True


def _value_key(value: Any) -> tuple[type, str] | None:
    """A key telling apart values that flatten or print differently (type and ``repr``, as the gold
    fields use), or None when ``value`` holds another type (whose ``repr`` may not say its content)."""
    kind = type(value)
    if kind in _SCALAR_SET:
        return (kind, repr(value))
    return (kind, repr(value)) if _plain(value) else None


def _untouched_field_tally(field: FieldKey, value: Any) -> Tally:
    """The outcome when the prediction set a field the gold leaves at its default to ``value``."""
    def compute() -> Tally:
        init = _initial_field_flat(field)
        return _field_tally(init, init, _flatten_one(field[0], field[1], value))

    key = _value_key(value)
    return _bounded_get(_UNTOUCHED_TALLIES, (field, *key) if key is not None else None, _UNTOUCHED_TALLIES_LIMIT,
                        compute)


def _bounded_get(cache: dict[Any, Tally], key: Any, limit: int, compute: Callable[[], Tally]) -> Tally:
    """``cache[key]``, computed on a miss and kept (the cache starts over at ``limit``); a None key is never cached."""
    found = cache.get(key) if key is not None else None
    if found is None:
        found = compute()
        if key is not None:
            if len(cache) >= limit:
                cache.clear()
            cache[key] = found
    return found


#: Gold fields by (field, type and repr of the value): tasks that set a field to the same value share one.
_GOLD_FIELDS: dict[tuple[FieldKey, type, str], _GoldField] = {}
_GOLD_FIELDS_LIMIT = 1 << 16


def _gold_field(field: FieldKey, value: Any) -> _GoldField:
    """The :class:`_GoldField` of ``field`` set to ``value``, built once per distinct value.

    ``repr`` tells apart what ``==`` does not (``True``/``1``/``1.0``, lists/tuples, key order),
    so two values with one key flatten and score identically. The entries are never mutated.
    """
    key = (field, type(value), repr(value))
    found = _GOLD_FIELDS.get(key)
    if found is not None:
        return found
    value = copy_value(value) if value is not _MISSING else value
    found = _GoldField(
        value=value,
        value_bytes=None if isinstance(value, _SCALAR_TYPES) or value is _MISSING else _dumps(value),
        flat=_flatten_one(field[0], field[1], value),
        init=_initial_field_flat(field),
    )
    if len(_GOLD_FIELDS) >= _GOLD_FIELDS_LIMIT:
        _GOLD_FIELDS.clear()
    _GOLD_FIELDS[key] = found
    return found


@dataclass(frozen=True, slots=True, eq=False)
class GoldReference:
    """The reference final state of one task, reduced to what differs from a fresh car.

    Build it once per task with :meth:`from_sim` or :meth:`from_calls` and score any number of
    predictions against it with :func:`score_against`.
    """

    fields: Mapping[FieldKey, _GoldField]
    initial_paths: int
    _scores: dict[str, StateScore] = dataclass_field(default_factory=dict, init=False, repr=False)

    @property
    def if_untouched(self) -> StateScore:
        """The score of doing nothing (computed on first use)."""
        return self._score("if_untouched")

    @property
    def if_matched(self) -> StateScore:
        """The score of reaching exactly the gold state (computed on first use)."""
        return self._score("if_matched")

    def _score(self, outcome: str) -> StateScore:
        score = self._scores.get(outcome)
        if score is None:
            t = Tally()
            for gf in self.fields.values():
                t.merge(getattr(gf, outcome))
            extra = len(initial_flat_state()) - self.initial_paths
            score = self._scores[outcome] = t.finish(extra_negative_tp=extra)
        return score

    @classmethod
    def from_sim(cls, sim: VehicleSimulator) -> GoldReference:
        """Snapshot a simulator on which the gold calls have been executed."""
        return cls.from_fields(_changed_fields(sim).items())

    @classmethod
    def from_fields(cls, values: Iterable[tuple[FieldKey, Any]]) -> GoldReference:
        """A reference from the ``((module, field), value)`` pairs that :meth:`field_values` gives."""
        fields: dict[FieldKey, _GoldField] = {}
        initial_paths = 0
        for field, value in values:
            initial_paths += len(_initial_field_flat(field))
            fields[field] = _gold_field(field, value)
        return cls(fields=fields, initial_paths=initial_paths)

    def field_values(self) -> list[tuple[FieldKey, Any]]:
        """``((module, field), value)`` for every field the gold changed (a fresh car's value elsewhere)."""
        return [(field, gf.value) for field, gf in self.fields.items()]

    @classmethod
    def from_calls(cls, calls: Iterable[tuple[str, Any]]) -> GoldReference:
        """Execute ``(name, arguments)`` gold calls on a fresh car (failures ignored) and snapshot it."""
        sim = VehicleSimulator()
        for name, arguments in calls:
            sim.call(name, arguments, with_state=False)
        return cls.from_sim(sim)

    @property
    def is_noop(self) -> bool:
        """True when the reference final state equals a fresh car (no state change expected)."""
        return not self.fields

    def flat_state(self) -> FlatState:
        """The full flattened reference final world (w2), in official path order."""
        out: FlatState = {}
        for key in MODULE_KEYS:
            module = MODULES[key]
            initial = MODULES[key].initial_state()
            names = list(initial) + [n for (k, n) in self.fields if k == key and n not in initial]
            for name in names:
                gf = self.fields.get((key, name))
                out.update(_initial_field_flat((key, name)) if gf is None else gf.flat)
            out[f"{key}.description"] = module.DESCRIPTION
            out[f"{key}.type"] = module.TYPE_NAME
        return out


def score_against(gold: GoldReference, pred_sim: VehicleSimulator) -> StateScore:
    """Fast official scoring of a predicted final state against a cached gold reference.

    Only fields that differ from a fresh car in the gold or in the prediction are looked at; the
    remaining paths of the fresh car are negative TPs. A gold field that the prediction left
    untouched or set exactly to the gold value uses a precomputed outcome; any other field is
    flattened and diffed path by path. Gives exactly the numbers (and the difference lines) of
    :func:`score_flat`.

    Args:
        gold: the reference final state.
        pred_sim: a simulator that started fresh and has executed the predicted calls.
    """
    pred = _changed_fields(pred_sim)
    gold_fields = gold.fields
    if not pred:
        return gold.if_untouched
    if len(pred) == len(gold_fields):
        for field, value in pred.items():
            gf = gold_fields.get(field)
            if gf is None or not _same(value, gf.value, gf.value_bytes):
                break
        else:
            return gold.if_matched
    total = len(initial_flat_state())
    t = Tally()
    considered = gold.initial_paths
    for field, gf in gold_fields.items():
        value = pred.get(field, _UNCHANGED)
        if value is _UNCHANGED:
            t.merge(gf.if_untouched)
        elif _same(value, gf.value, gf.value_bytes):
            t.merge(gf.if_matched)
        else:
            t.merge(gf.if_set(field, value))
    for field, value in pred.items():
        if field not in gold_fields:
            considered += len(_initial_field_flat(field))
            t.merge(_untouched_field_tally(field, value))
    return t.finish(extra_negative_tp=total - considered)


def score_sims(gold_sim: VehicleSimulator, pred_sim: VehicleSimulator) -> StateScore:
    """Fast official scoring of two simulators that both started from a fresh car.

    Args:
        gold_sim: the reference simulator, after the gold calls.
        pred_sim: the predicted simulator, after the predicted calls.
    """
    return score_against(GoldReference.from_sim(gold_sim), pred_sim)
