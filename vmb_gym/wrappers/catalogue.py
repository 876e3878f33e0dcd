"""Masked ``Discrete`` action spaces for MaskablePPO: the slot catalogue (default) and the flat catalogue.

**Slot catalogue** (:class:`SlotCatalogue`, :class:`SlotActionWrapper`; the default of
``vmb train sb3``): a small, scenario-independent space. Its actions name *slots*: the k-th
candidate API of the request (vocabulary scorer of the rules baseline plus a learned prior), the
k-th candidate value read from the memory hits for that API (ranked by the rules heuristics:
person, recency, conditions; plus "relative change", "value the request states" and "minimal
action" slots) and the k-th seat/zone; plus ``search`` (the rules baseline's memory queries in one
step) and ``finish``. The wrapper resolves an index into a concrete call every step; the
features (:class:`~vmb_gym.wrappers.features.SlotFeaturizer`) describe each slot, so one policy
transfers across households. It imports the rules baseline's reading functions
(``vmb_agents.reader``) lazily.

**Flat catalogue** (:class:`Catalogue`, :class:`CatalogueActionWrapper`; ``--design catalogue``):

Every catalogue entry is one complete call: a vehicle API with concrete argument values,
``search_memory`` over the episode's request, ``list_module_tools`` for a module (gated envs)
or ``finish``. Argument values come from the API constraints (enum choices, booleans, narrow
integer ranges in full, wide ones as boundaries plus multiples of 10) plus the values given to
:meth:`Catalogue.build` (typically those of the training tasks' gold calls: free text and
integers). With the official training files this gives about 2,000 actions.

The mask (:meth:`Catalogue.mask`) depends on the episode, as an :class:`EpisodeText` sees it:

* ``finish`` is always allowed;
* ``search_memory`` is allowed once per episode, and only when the env's memory retrieves;
* a vehicle call is allowed when each of its *value-bearing* arguments is supported by the
  evidence text (the request, the memory context of the first observation and the memory hits
  found so far): integers that occur in the text (range boundaries are always allowed), enum
  values whose words occur in it (all choices when the text names none of them) and free-text
  values that occur in it verbatim (case-insensitive). *Target* arguments (which seat, door,
  zone ...) and booleans are never masked;
* a call already made in this episode is masked (no repeats);
* in a gated env, calls of a module are masked until ``list_module_tools`` loaded it.

The :class:`EpisodeText` is built from the env's text observations and ``info`` only, so the
same mask can be computed outside the wrapper (see :mod:`vmb_gym.wrappers.sb3`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
import orjson
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec

#: Hits of the flat catalogue's ``search_memory`` entry (its checkpoints record their own).
CATALOGUE_TOP_K = 10
#: Enum parameters that select *where* a call acts; never masked by the evidence.
TARGET_PARAMS = frozenset({"seat", "door", "light", "window", "zone", "position", "sunshade", "wiper", "side"})
#: Extra words that support an enum choice (the choice's own words always do).
CHOICE_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "max": ("maximum", "highest", "full"),
    "min": ("minimum", "lowest"),
    "close": ("off", "closed"),
    "highest": ("maximum", "max"),
    "lowest": ("minimum", "min"),
    "mute": ("muted", "silent"),
    "shuffle": ("random",),
}
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "half": 50,
}
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_TIME_NOISE = re.compile(
    rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[ T]\d{{2}}:\d{{2}}(?::\d{{2}})?)?|\d{{1,2}}:\d{{2}}(?:\s*[AaPp]\.?[Mm]\.?)?"
    rf"|(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,\s*\d{{4}})?|\b(?:19|20)\d{{2}}\b"
)
_INT = re.compile(r"(?<![\d.])\d+(?![\d])")
_WORD = re.compile(r"[a-z0-9]+")
#: Integer ranges at most this wide are enumerated in full; wider ones use the boundaries, the
#: multiples of 10 and the values given to :meth:`Catalogue.build`.
FULL_RANGE = 20
#: Sentinel token index that is always present (arguments that are never masked).
_ALWAYS = 0


def call_key(name: str, arguments: Mapping[str, Any]) -> str:
    return name + orjson.dumps(dict(arguments), option=orjson.OPT_SORT_KEYS).decode()


@dataclass
class EpisodeText:
    """What a policy has seen in one episode, read from text observations and ``info``.

    Attributes:
        request: the request of the episode (reset ``info["request"]``).
        context: the memory context the first observation carries (empty for most modules).
        hits: the ``memory_text`` of every successful ``search_memory`` call.
        last: the latest step observation (tool results).
        made: keys of the vehicle calls made so far (name + sorted JSON arguments).
        made_names: names of the vehicle calls made so far, in order.
        searched: whether a memory search ran.
        discovered: modules loaded with ``list_module_tools``.
        steps: steps taken.
        last_error: whether the latest step reported an ``action_error``.
    """

    request: str = ""
    context: str = ""
    hits: list[str] = field(default_factory=list)
    last: str = ""
    made: set[str] = field(default_factory=set)
    made_names: list[str] = field(default_factory=list)
    searched: bool = False
    discovered: set[str] = field(default_factory=set)
    steps: int = 0
    last_error: bool = False

    _CONTEXT_PREFIX = "User preference memory:\n"
    _CONTEXT_END = "\n\nYou are an intelligent in-car AI assistant."  # start of the env's role text

    def on_reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start over from a reset observation and info."""
        self.request = str(info.get("request") or "")
        self.context = ""
        if observation.startswith(self._CONTEXT_PREFIX):
            end = observation.find(self._CONTEXT_END)
            self.context = observation[len(self._CONTEXT_PREFIX): end if end >= 0 else None]
        self.hits = []
        self.last = ""
        self.made = set()
        self.made_names = []
        self.searched = False
        self.discovered = set()
        self.steps = 0
        self.last_error = False

    def on_step(self, observation: str, info: Mapping[str, Any]) -> None:
        """Record one step's observation and the calls it ran (``info["calls"]``)."""
        self.steps += 1
        self.last = observation
        self.last_error = bool(info.get("action_error"))
        for rec in info.get("calls") or ():
            name, args, result = rec.get("name"), rec.get("arguments") or {}, rec.get("result") or {}
            if name == "search_memory":
                self.searched = True
                if result.get("success") and result.get("memory_text"):
                    self.hits.append(str(result["memory_text"]))
            elif name == "list_module_tools":
                if result.get("success") and isinstance(args.get("module_name"), str):
                    self.discovered.add(args["module_name"])
            elif name and name != "finish":
                self.made.add(call_key(name, args))
                self.made_names.append(name)

    @property
    def evidence(self) -> str:
        """Request, memory context and memory hits: the text argument values must come from."""
        return "\n".join([self.request, self.context, *self.hits])


@dataclass(frozen=True)
class Entry:
    """One catalogue action: a call template and the value tokens its arguments need."""

    name: str
    arguments: Mapping[str, Any]
    tokens: tuple[int, ...]
    module: str | None


class Catalogue:
    """The flat action catalogue and its episode-dependent masks.

    Build one with :meth:`build`; save it with :meth:`to_json` and restore it with
    :meth:`from_json` (a trained policy must use the catalogue it was trained with).

    Args:
        calls: the vehicle calls, as ``(name, arguments)`` pairs.
        search: include ``search_memory`` over the request.
        gated: include ``list_module_tools`` per module and mask undiscovered modules.
        top_k: ``top_k`` of the catalogue's ``search_memory`` call.
    """

    def __init__(self, calls: Sequence[tuple[str, Mapping[str, Any]]], *, search: bool, gated: bool = False,
                 top_k: int = CATALOGUE_TOP_K) -> None:
        if not 1 <= top_k <= 20:
            raise ConfigError(f"top_k must be within 1-20, got {top_k}")
        self.search = search
        self.gated = gated
        self.top_k = top_k
        self._tokens: dict[tuple[Any, ...], int] = {("always",): _ALWAYS}
        entries = [Entry("finish", {}, (), None)]
        if search:
            entries.append(Entry("search_memory", {"top_k": top_k}, (), None))
        if gated:
            entries.extend(Entry("list_module_tools", {"module_name": m}, (), None) for m in MODULE_KEYS)
        for name, args in calls:
            spec = API_SPECS.get(name)
            if spec is None:
                raise ConfigError(f"catalogue call {name!r} is not a vehicle API")
            toks = tuple(t for t in (self._token(spec.param(k), v) for k, v in args.items()) if t != _ALWAYS)
            entries.append(Entry(name, dict(args), toks, spec.module))
        self.entries = entries
        self.n = len(entries)
        self.keys = [call_key(e.name, e.arguments) if e.module else "" for e in entries]
        width = max([len(e.tokens) for e in entries] + [1])
        self._req = np.zeros((self.n, width), dtype=np.int64)
        for i, e in enumerate(entries):
            self._req[i, : len(e.tokens)] = e.tokens
        self._index_of_key = {k: i for i, k in enumerate(self.keys) if k}
        modules = sorted({e.module for e in entries if e.module})
        self._module_rows = {m: np.array([e.module == m for e in entries]) for m in modules}
        self._vehicle_rows = np.array([e.module is not None for e in entries])
        self._token_list = sorted(self._tokens.items(), key=lambda kv: kv[1])
        self._present_cache: dict[str, np.ndarray] = {}
        self._mask_cache: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ construction
    def _token(self, param: ParamSpec, value: Any) -> int:
        """The token a value needs in the evidence (``_ALWAYS`` when it is never masked)."""
        c = param.constraint
        if isinstance(value, bool) or value is None:
            return _ALWAYS
        if c is not None and c.choices:
            kind = "target" if param.name in TARGET_PARAMS else "enum"
            key: tuple[Any, ...] = (kind, c.choices, value)
        elif isinstance(value, int):
            if c is not None and value in (c.minimum, c.maximum):
                return _ALWAYS
            key = ("int", value)
        else:
            key = ("str", str(value).lower())
        return self._tokens.setdefault(key, len(self._tokens))

    @classmethod
    def build(cls, *, search: bool, gated: bool = False, top_k: int = CATALOGUE_TOP_K,
              extra_values: Mapping[tuple[str, str], Iterable[Any]] | None = None,
              apis: Iterable[str] | None = None) -> Catalogue:
        """Enumerate the vehicle calls of ``apis`` (default: all 111).

        Args:
            search: include ``search_memory`` (the env's memory retrieves).
            gated: include ``list_module_tools`` (the env is gated).
            top_k: ``top_k`` of the search call.
            extra_values: values of ``(api, param)`` beyond the constraints: required for
                free-text parameters (an API whose required free-text parameter has none is
                left out) and added to wide integer ranges (see :data:`FULL_RANGE`).
            apis: the APIs to enumerate.
        """
        extra = {k: list(dict.fromkeys(v)) for k, v in (extra_values or {}).items()}
        calls: list[tuple[str, dict[str, Any]]] = []
        for name in sorted(apis if apis is not None else API_SPECS):
            spec = API_SPECS[name]
            options = [_param_values(spec, p, extra.get((name, p.name), [])) for p in spec.params]
            if any(not o for o in options):
                continue
            for combo in itertools.product(*options):
                calls.append((name, {p.name: v for p, v in zip(spec.params, combo, strict=True) if v is not _OMIT}))
        return cls(calls, search=search, gated=gated, top_k=top_k)

    @classmethod
    def values_from_tasks(cls, queries: Iterable[Any]) -> dict[tuple[str, str], list[Any]]:
        """Free-text and integer values of the gold calls of ``queries``."""
        out: dict[tuple[str, str], list[Any]] = {}
        for q in queries:
            for call in q.gold_calls:
                spec = API_SPECS.get(call.name)
                if spec is None:
                    continue
                for k, v in call.arguments.items():
                    try:
                        p = spec.param(k)
                    except KeyError:
                        continue
                    c = p.constraint
                    free_text = p.py_type is str and not (c and c.choices) and isinstance(v, str)
                    integer = p.py_type is int and isinstance(v, int) and not isinstance(v, bool)
                    if free_text or integer:
                        out.setdefault((call.name, k), [])
                        if v not in out[(call.name, k)]:
                            out[(call.name, k)].append(v)
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable description that :meth:`from_json` restores exactly."""
        return {"search": self.search, "gated": self.gated, "top_k": self.top_k,
                "calls": [[e.name, dict(e.arguments)] for e in self.entries if e.module]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Catalogue:
        """Restore a catalogue written by :meth:`to_json`."""
        return cls([(n, a) for n, a in data["calls"]], search=bool(data["search"]), gated=bool(data["gated"]),
                   top_k=int(data["top_k"]))

    # ------------------------------------------------------------------ use
    def decode(self, index: int, episode: EpisodeText) -> dict[str, Any]:
        """The call of catalogue entry ``index`` (``search_memory`` queries the request)."""
        e = self.entries[index]
        args = dict(e.arguments)
        if e.name == "search_memory":
            args["query"] = episode.request
        return {"name": e.name, "arguments": args}

    def index_of(self, name: str, arguments: Mapping[str, Any]) -> int | None:
        """The entry of a vehicle call, or None when the catalogue lacks it."""
        return self._index_of_key.get(call_key(name, arguments))

    def _present(self, request: str, evidence: str) -> np.ndarray:
        cached = self._present_cache.get(evidence)
        if cached is not None:
            return cached
        lowered = evidence.lower()
        words = set(_WORD.findall(lowered))
        request_words = set(_WORD.findall(request.lower()))
        numbers = {int(m) for m in _INT.findall(_TIME_NOISE.sub(" ", evidence)) if len(m) <= 7}
        numbers |= {v for w, v in _NUMBER_WORDS.items() if w in words}
        present = np.zeros(len(self._token_list), dtype=bool)
        named_groups: set[tuple[str, ...]] = set()
        for key, idx in self._token_list:
            kind = key[0]
            if kind == "always":
                present[idx] = True
            elif kind == "int":
                present[idx] = key[1] in numbers
            elif kind == "str":
                present[idx] = key[1] in lowered
            else:
                pool = request_words if kind == "target" else words
                choice = str(key[2]).lower()
                hit = all(w in pool for w in choice.split("_")) or any(
                    w in pool for w in CHOICE_SYNONYMS.get(choice, ())
                )
                present[idx] = hit
                if hit:
                    named_groups.add(key[:2])
        for key, idx in self._token_list:  # an enum the text does not name at all: every choice is allowed
            if key[0] in ("enum", "target") and key[:2] not in named_groups:
                present[idx] = True
        if len(self._present_cache) > 4096:
            self._present_cache.clear()
        self._present_cache[evidence] = present
        return present

    def _base_mask(self, request: str, evidence: str) -> np.ndarray:
        """Entries whose argument values the evidence supports (cached per evidence text)."""
        cached = self._mask_cache.get(evidence)
        if cached is not None:
            return cached
        # all(axis=1) of a 2-D array is an array (numpy's stubs allow a scalar bool)
        base = cast(np.ndarray, self._present(request, evidence)[self._req].all(axis=1))
        if len(self._mask_cache) > 1024:
            self._mask_cache.clear()
        self._mask_cache[evidence] = base
        return base

    def mask(self, episode: EpisodeText, *, memory_search: bool | None = None) -> np.ndarray:
        """The boolean mask of allowed entries in the episode's current state.

        Args:
            episode: what the episode has shown so far.
            memory_search: whether the env's memory retrieves (default: the catalogue's ``search``).
        """
        mask = self._base_mask(episode.request, episode.evidence).copy()
        for key in episode.made:
            i = self._index_of_key.get(key)
            if i is not None:
                mask[i] = False
        if self.gated:
            for module, rows in self._module_rows.items():
                if module not in episode.discovered:
                    mask &= ~rows
            for i, e in enumerate(self.entries):
                if e.name == "list_module_tools" and e.arguments["module_name"] in episode.discovered:
                    mask[i] = False
        if self.search:
            mask[1] = bool(memory_search if memory_search is not None else True) and not episode.searched
        mask[0] = True
        return mask


class _Omit:
    def __repr__(self) -> str:
        return "<omit>"


_OMIT: Any = _Omit()


def _param_values(spec: ApiSpec, p: ParamSpec, extra: list[Any]) -> list[Any]:
    """The catalogue values of one parameter (``_OMIT`` stands for leaving it out)."""
    c = p.constraint
    if c is not None and c.choices:
        values: list[Any] = list(c.choices)
    elif p.py_type is bool:
        values = [True, False]
    elif p.py_type is int:
        lo = c.minimum if c and c.minimum is not None else 0
        if c is not None and c.maximum is not None and c.maximum - lo <= FULL_RANGE:
            values = list(range(lo, c.maximum + 1))
        elif c is not None and c.maximum is not None:
            grid = set(range(lo, c.maximum + 1, 10)) | set(range(0, c.maximum + 1, 10))
            values = sorted({lo, c.maximum, *(v for v in grid if lo <= v),
                             *(v for v in extra if isinstance(v, int) and lo <= v <= c.maximum)})
        else:
            values = sorted({lo, *(v for v in extra if isinstance(v, int) and v >= lo)})
    else:
        values = [v for v in extra if isinstance(v, str)]
    if not p.required:
        values = [_OMIT, *values]
    return values


class CatalogueActionWrapper(gym.Wrapper[Any, np.int64, Any, Any]):
    """Turns ``VehicleMem-v0``'s structured calls into ``Discrete(N)`` catalogue actions.

    ``action_masks()`` (the method MaskablePPO looks up) returns the mask of
    :meth:`Catalogue.mask` for the current state. Any index is executed as its call (a plain
    PPO may pick masked entries: they run like any other call).

    Args:
        env: a ``VehicleMem-v0`` env (text observations, structured actions).
        catalogue: the catalogue; default: :meth:`Catalogue.build` for the env's memory and
            gating, with the free-text values of the env's own tasks.
        top_k: ``top_k`` of the search call of a default catalogue.
    """

    env: gym.Env[Any, Any]  # the inner env takes structured calls (gymnasium types it with the wrapper's types)

    def __init__(
        self, env: gym.Env[Any, Any], catalogue: Catalogue | None = None, *, top_k: int = CATALOGUE_TOP_K
    ) -> None:
        super().__init__(env)
        base: Any = env.unwrapped  # a VehicleMem-v0 env: its tasks, memory and gating
        self._memory_search = bool(getattr(getattr(base, "memory", None), "provides_search", False))
        if catalogue is None:
            catalogue = Catalogue.build(search=self._memory_search, gated=bool(getattr(base, "gated", False)),
                                        top_k=top_k, extra_values=Catalogue.values_from_tasks(base.tasks.queries))
        self.catalogue = catalogue
        self.action_space = spaces.Discrete(catalogue.n)
        self.episode = EpisodeText()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the episode record."""
        if seed is not None:
            self.action_space.seed(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode.on_reset(obs, info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run the call of catalogue entry ``action``."""
        index = int(action)
        if not 0 <= index < self.catalogue.n:
            raise ConfigError(f"action {index} is outside the catalogue (0-{self.catalogue.n - 1})")
        obs, reward, terminated, truncated, info = self.env.step(self.catalogue.decode(index, self.episode))
        self.episode.on_step(obs, info)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Allowed catalogue entries now (``finish`` always is)."""
        return self.catalogue.mask(self.episode, memory_search=self._memory_search)
