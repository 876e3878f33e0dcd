"""A flat, masked catalogue of vehicle calls: ``Discrete(N)`` actions for MaskablePPO.

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

import dataclasses
import functools
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import orjson
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec

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


def _call_key(name: str, arguments: Mapping[str, Any]) -> str:
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
                self.made.add(_call_key(name, args))
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
                 top_k: int = 10) -> None:
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
        self.keys = [_call_key(e.name, e.arguments) if e.module else "" for e in entries]
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
    def build(cls, *, search: bool, gated: bool = False, top_k: int = 10,
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
        return self._index_of_key.get(_call_key(name, arguments))

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
                hit = all(w in pool for w in choice.split("_")) or any(w in pool for w in CHOICE_SYNONYMS.get(choice, ()))
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
        base = self._mask_cache.get(evidence)
        if base is None:
            base = self._present(request, evidence)[self._req].all(axis=1)
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

    def __init__(self, env: gym.Env[Any, Any], catalogue: Catalogue | None = None, *, top_k: int = 10) -> None:
        super().__init__(env)
        base = env.unwrapped
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

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
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


# ============================================================================ slot (pointer) catalogue
# A small, scenario-independent action space: the actions name *slots* (the k-th candidate API of
# the request, the k-th candidate value read from the memory hits for that API, the k-th seat or
# zone), and :class:`SlotCatalogue` resolves a slot into a concrete call for the episode at hand.
# The candidates and their ranking come from the rules baseline (agents.rules / agents.vocabulary);
# :class:`~vmb_gym.wrappers.features.SlotFeaturizer` describes every slot so that a policy learns
# which slot is right from features that mean the same thing in every household.

#: Candidate APIs per episode, memory values per API, target (seat/zone) choices per API.
N_API_SLOTS = 5
N_COMPANION_SLOTS = 2
N_MEMORY_VALUES = 6
N_TARGET_SLOTS = 3
#: Value slots: memory values 0..K-1, the same values with the request's relative change applied
#: (K..2K-1), the value the request states itself, and the minimal action (switch the device on).
VALUE_EXPLICIT = 2 * N_MEMORY_VALUES
VALUE_MINIMAL = 2 * N_MEMORY_VALUES + 1
N_VALUE_SLOTS = 2 * N_MEMORY_VALUES + 2
SLOT_FINISH, SLOT_SEARCH = 0, 1
N_SLOT_ACTIONS = 2 + N_API_SLOTS * N_VALUE_SLOTS * N_TARGET_SLOTS
#: Order in which other selector choices follow the rules' own choice in the target slots.
_TARGET_ORDER = ("driver", "passenger", "all", "rear_left", "rear_right", "front", "rear", "left", "right", "both")

_HIT_LINE = re.compile(r"^\s*\d+\.\s+\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}|-{10})\]\s(.*?)(\s\(superseded\))?$")
#: Cue words of a memory line (regexes, case-insensitive), each one feature of a value slot.
LINE_CUES: Mapping[str, re.Pattern[str]] = {
    "preference": re.compile(r"\b(usually|always|prefer|preferred|favou?rite|standard|normally|every time|whenever|"
                             r"i like|i love|my usual|remember|just right|should be|feels? (?:just )?right|perfect)\b", re.I),
    "revision": re.compile(r"\b(switched|switch(?:ed)? my|update[ds]?|going forward|from today|from now on|changed|"
                           r"change my|instead|anymore|no longer|new preference|these days|lately|let's make|"
                           r"i've decided|starting today|now on)\b", re.I),
    "correction": re.compile(r"\b(wrong|mistake|mistaken|meant|sorry|correct(?:ion)?|i said|misspoke|scratch that|"
                             r"not what i|actually)\b", re.I),
    "hypothetical": re.compile(r"\b(wonder|if we|if i|would feel|would be|maybe i'd|might try|probably awful|not now|"
                               r"sounds wrong|swears by|anyone know|how to change|redesigned|read that|couldn't find|"
                               r"someday|one day|imagine|trade this car)\b", re.I),
    "elsewhere": re.compile(r"\b(\w+'s car|work van|rental|taxi|dealership|demo(?:ed)?|car show|showroom|online|"
                            r"other car|my old car|uber|hotel|office|at home|friend's|her car|his car)\b", re.I),
    "negation": re.compile(r"\b(not|never|hate|don't|dont|too|no more|can't|cannot|awful|terrible|wrong)\b", re.I),
    "self": re.compile(r"\b(i|i'm|i've|i'd|my|me|mine)\b", re.I),
    "question": re.compile(r"\?"),
}


@dataclass
class ValueSlot:
    """One candidate value of an API slot, with the evidence that supports it."""

    value: Any
    score: float  # the rules score of its best mention
    mentions: int = 0
    target_mentions: int = 0
    other_mentions: int = 0
    recency: float = 0.0  # time rank of its latest mention among the API's mentions (0 oldest, 1 latest)
    latest_any: bool = False  # its latest mention is the API's latest mention
    latest_target: bool = False  # ... the latest mention by the target person
    conditions: float = 0.0  # condition words shared with the request (best mention)
    opposite: float = 0.0  # opposite conditions (best mention)
    cues: dict[str, float] = field(default_factory=dict)  # LINE_CUES of its representative mention
    clean: bool = False  # some mention by the target is free of hypothetical / elsewhere / question cues
    rules_top: bool = False  # the rules policy's own choice for this API
    source: str = ""
    sources: list[str] = field(default_factory=list)  # every line that states it (rendered)


@dataclass
class ApiSlot:
    """One candidate API of the episode and its value slots."""

    api: str
    request_score: float
    best_score: float  # best rules candidate score (0 when the hits hold no value)
    passes: bool  # the rules filter keeps it (close to the request's best-named function)
    rules_choice: bool
    values: list[ValueSlot]
    targets: list[str | None]  # selector values (None: the API has no selector)
    explicit: Any = None  # a value the request states itself
    minimal: tuple[str, dict[str, Any]] | None = None
    companion: bool = False  # stated in the same memory line as the rules choice's value


@dataclass
class SlotAnalysis:
    """Everything the slot catalogue knows about one episode: the request reading and the slots."""

    request: Any  # agents.rules.Request
    apis: list[ApiSlot]
    delta: int | None
    n_hits: int
    searched: bool


def parse_memory_text(text: str, speakers: Sequence[str] = ()) -> list[Any]:
    """``search_memory`` result text back into :class:`~vmb_gym.memory.MemoryHit` objects."""
    from datetime import datetime

    from vmb_gym.memory import MemoryHit

    hits = []
    for i, line in enumerate(text.splitlines()):
        m = _HIT_LINE.match(line)
        if not m:
            continue
        ts = None if m.group(1).startswith("-") else datetime.strptime(m.group(1), "%Y-%m-%d %H:%M")
        body = m.group(2)
        people = tuple(s for s in speakers if body.startswith(s + ":"))
        hits.append(MemoryHit(entry_id=f"T{i}:{m.group(1)}:{body[:40]}", text=body, score=0.0, timestamp=ts,
                              people=people))
    return hits


def _selector_choices(spec: ApiSpec, first: str, request: str = "", seat: str = "") -> list[str | None]:
    from agents.vocabulary import selector_param

    sel = selector_param(spec)
    if sel is None or sel.constraint is None:
        return [None]
    choices = list(sel.constraint.choices)
    if first == "rear_left" and "rear_right" in choices and re.search(r"\b(rear|back) right\b", request, re.I):
        first = "rear_right"
    own = [seat] if seat in choices and seat != first else []
    if first == "rear_left" and seat == "rear_left" and "rear_right" in choices:
        own = ["rear_right"]
    if seat == "rear_left" and re.search(r"\b(rear|back) right\b", request, re.I) and "rear_right" in choices:
        own = ["rear_right"] if first != "rear_right" else []
    order = [first] + own + [c for c in _TARGET_ORDER if c in choices and c != first and c not in own] + [
        c for c in choices if c != first and c not in _TARGET_ORDER]
    return order[:N_TARGET_SLOTS]


class SlotCatalogue:
    """The slot action space: ``finish``, ``search``, and API x value x target slots.

    Action ``2 + (a * N_VALUE_SLOTS + v) * N_TARGET_SLOTS + t`` calls the ``a``-th candidate API
    with its ``v``-th value slot at its ``t``-th target. ``search`` runs the rules baseline's
    memory queries (the request, then "person + setting words" for the best-named functions) in
    one step. The catalogue needs the scenario's speakers (read from the env's task set, like the
    rules baseline; never a gold answer).

    Args:
        top_k: hits per memory query.
        n_queries: memory queries of the search action (at most; the request is always one).
    """

    kind = "slots"

    def __init__(self, top_k: int = 15, n_queries: int = 4,
                 api_examples: Sequence[tuple[str, str]] | None = None) -> None:
        self.top_k = top_k
        self.n_queries = n_queries
        self.n = N_SLOT_ACTIONS
        self._cache: dict[tuple[str, str], SlotAnalysis] = {}
        self._scores_cache: dict[str, dict[str, float]] = {}
        self.api_examples = [(str(t), str(a)) for t, a in (api_examples or ())]
        self._prior: Any = None
        if len({a for _, a in self.api_examples}) > 1:
            from sklearn.feature_extraction.text import TfidfVectorizer
            from sklearn.linear_model import LogisticRegression
            from sklearn.pipeline import make_pipeline

            self._prior = make_pipeline(TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, min_df=1),
                                        LogisticRegression(C=20.0, max_iter=2000))
            self._prior.fit([t for t, _ in self.api_examples], [a for _, a in self.api_examples])

    @staticmethod
    def examples_from_tasks(queries: Iterable[Any], speakers_of: Any) -> list[tuple[str, str]]:
        """``(request wording, first gold API)`` pairs of training tasks: the learned API prior.

        The prior lets the API slots cover wordings the hand-written vocabulary lacks ("how far
        the boot opens"): a TF-IDF logistic regression over the request's words. Only the training
        tasks' gold *function names* are used, never their values.
        """
        from agents.rules import read_request

        out = []
        for q in queries:
            if q.gold_calls:
                req = read_request(q.text, speakers_of(q))
                out.append((_prior_text(req), q.gold_calls[0].name))
        return out

    def classify(self, phrase: str) -> str | None:
        """The on/off function a short routine phrase names ("the sunroof lock locked").

        Routine add-ons are switches, so only functions with a boolean value compete; each is
        scored by the vocabulary and by the stems it shares with its function and module names.
        """
        from agents.rules import score_apis
        from agents.vocabulary import module_words

        vocab = score_apis(phrase)
        stems = {w[:5] for w in _WORD.findall(phrase.lower()) if len(w) > 2}
        best: tuple[float, str] | None = None
        for api in _switch_apis():
            spec = API_SPECS[api]
            name_words = re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", api[len("carcontrol_"):]).lower())
            words = {w[:5] for w in name_words if w not in ("set", "enabled")}
            words |= {w[:5] for m in module_words(spec.module) for w in m.split()}
            score = vocab.get(api, 0.0) + len(stems & words)
            if score > 0 and (best is None or score > best[0]):
                best = (score, api)
        return best[1] if best else None

    def api_scores(self, request: str, speakers: Sequence[str]) -> dict[str, float]:
        """The vocabulary scores of the request's APIs plus the learned prior (3 x its probability)."""
        cached = self._scores_cache.get(request)
        if cached is not None:
            return cached
        from agents.rules import _api_text, read_request, score_apis

        req = read_request(request, speakers)
        scores = dict(score_apis(_api_text(req)))
        if self._prior is not None:
            probs = self._prior.predict_proba([_prior_text(req)])[0]
            for i in np.argsort(-probs)[:PRIOR_NEIGHBOURS]:
                if probs[i] >= 0.05:
                    api = str(self._prior.classes_[i])
                    scores[api] = scores.get(api, 0.0) + PRIOR_WEIGHT * float(probs[i])
        if len(self._scores_cache) > 20_000:
            self._scores_cache.clear()
        self._scores_cache[request] = scores
        return scores

    def to_json(self) -> dict[str, Any]:
        """The catalogue's settings (and the slot layout, checked on load)."""
        return {"kind": self.kind, "top_k": self.top_k, "n_queries": self.n_queries,
                "layout": [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS], "api_examples": self.api_examples}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SlotCatalogue:
        """Restore a catalogue written by :meth:`to_json`."""
        layout = list(data.get("layout", []))
        if layout != [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]:
            raise ConfigError(f"slot layout {layout} differs from this version's "
                              f"{[N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]}")
        return cls(top_k=int(data.get("top_k", 15)), n_queries=int(data.get("n_queries", 4)),
                   api_examples=[tuple(x) for x in data.get("api_examples", [])])

    # ------------------------------------------------------------------ index arithmetic
    @staticmethod
    def index(api_slot: int, value_slot: int, target_slot: int) -> int:
        """The action index of a (API, value, target) slot triple."""
        return 2 + (api_slot * N_VALUE_SLOTS + value_slot) * N_TARGET_SLOTS + target_slot

    @staticmethod
    def unpack(index: int) -> tuple[int, int, int]:
        """``(api_slot, value_slot, target_slot)`` of a call action (index >= 2)."""
        rest = index - 2
        return rest // (N_VALUE_SLOTS * N_TARGET_SLOTS), (rest // N_TARGET_SLOTS) % N_VALUE_SLOTS, rest % N_TARGET_SLOTS

    # ------------------------------------------------------------------ search
    def search_queries(self, request: str, speakers: Sequence[str]) -> list[str]:
        """The memory queries of the search action (the rules baseline's own queries)."""
        from agents.rules import RulesPolicy, read_request

        class _Recorder:  # a memory stand-in that records the rules policy's queries
            provides_search = True
            scenario_id = None

            def __init__(self) -> None:
                self.queries: list[str] = []

            def search(self, q: str, **_: Any) -> list[Any]:
                self.queries.append(q)
                return []

        rec = _Recorder()
        policy = RulesPolicy(rec)  # type: ignore[arg-type]
        req = read_request(request, speakers)
        scenario = _SpeakersOnly(speakers)
        policy._search(req, self.api_scores(request, speakers), scenario, as_of=_NOW)  # type: ignore[arg-type]
        return list(dict.fromkeys(rec.queries))[: self.n_queries]

    def search_action(self, episode: EpisodeText, speakers: Sequence[str]) -> list[dict[str, Any]]:
        """The search step: one ``search_memory`` call per query."""
        return [{"name": "search_memory", "arguments": {"query": q, "top_k": self.top_k}}
                for q in self.search_queries(episode.request, speakers)]

    # ------------------------------------------------------------------ analysis
    def analyse(self, episode: EpisodeText, speakers: Sequence[str]) -> SlotAnalysis:
        """The slots of the episode's current state (cached per request and hits)."""
        key = (episode.request, "\n".join(episode.hits))
        cached = self._cache.get(key)
        if cached is None:
            cached = _analyse(episode.request, episode.hits, speakers, episode.searched,
                              self.api_scores(episode.request, speakers), self.classify)
            if len(self._cache) > 20_000:
                self._cache.clear()
            self._cache[key] = cached
        return cached

    def resolve(self, index: int, analysis: SlotAnalysis) -> dict[str, Any] | None:
        """The concrete call of a call action (None when the slot is empty)."""
        from agents.vocabulary import selector_param, value_param

        a, v, t = self.unpack(index)
        if a >= len(analysis.apis):
            return None
        slot = analysis.apis[a]
        if t >= len(slot.targets):
            return None
        target = slot.targets[t]
        if v == VALUE_MINIMAL:
            if slot.minimal is None:
                return None
            name, fixed = slot.minimal
            args = dict(fixed)
        else:
            name = slot.api
            vp = value_param(API_SPECS[name])
            if v == VALUE_EXPLICIT:
                if slot.explicit is None and vp is not None:
                    return None
                value = slot.explicit
            else:
                k = v % N_MEMORY_VALUES
                if k >= len(slot.values):
                    return None
                value = slot.values[k].value
                if v >= N_MEMORY_VALUES:  # the relative-change copy
                    if not (analysis.delta and vp is not None and vp.py_type is int and isinstance(value, int)
                            and not isinstance(value, bool)):
                        return None
                    value = _clamp_param(value + analysis.delta, vp)
            args = {vp.name: value} if vp is not None and value is not None else {}
        sel = selector_param(API_SPECS[name])
        if sel is not None:
            if target is None:
                return None
            choices = sel.constraint.choices if sel.constraint else ()
            if target not in choices:
                return None
            args[sel.name] = target
        elif t > 0:
            return None  # no selector: only the first target slot
        return {"name": name, "arguments": args}

    def mask(self, analysis: SlotAnalysis, episode: EpisodeText, *, memory_search: bool = True) -> np.ndarray:
        """Allowed actions: search first (alone) when memory retrieves; then finish and every non-empty
        call slot whose function was not called yet."""
        mask = np.zeros(self.n, dtype=bool)
        if memory_search and not episode.searched:
            mask[SLOT_SEARCH] = True
            return mask  # look before acting
        mask[SLOT_FINISH] = True
        seen: set[str] = set()
        made_apis = set(episode.made_names)
        for i in range(2, self.n):
            call = self.resolve(i, analysis)
            if call is None or call["name"] in made_apis:
                continue
            key = _call_key(call["name"], call["arguments"])
            if key in seen or key in episode.made:
                continue  # one index per distinct call
            seen.add(key)
            mask[i] = True
        return mask


class _SpeakersOnly:
    scenario_id = None

    def __init__(self, speakers: Sequence[str]) -> None:
        self.speakers = tuple(speakers)


_NOW = __import__("datetime").datetime(2100, 1, 1)


def _clamp_param(value: int, vp: ParamSpec) -> int:
    c = vp.constraint
    if c is not None and c.minimum is not None:
        value = max(c.minimum, value)
    if c is not None and c.maximum is not None:
        value = min(c.maximum, value)
    return value


PRIOR_NEIGHBOURS = 3
PRIOR_WEIGHT = 3.0


def _prior_text(req: Any) -> str:
    """The words of a request that name its setting: the quotes (else the text) without names."""
    text = " ".join(req.quotes) or req.text
    for p in req.people:
        for part in p.split():
            text = re.sub(rf"\b{re.escape(part)}\b", " ", text)
    return text


_COMPANION = re.compile(r"(?:\bOh, and|\bAnd I like|\bPlus|\bSame routine:|\bAlso|\band also)\s+(.+?)"
                        r"(?:\s+too|\s+at the same time|,\s*always|\s+as well)?\s*[.!]?\s*$", re.I)


@functools.lru_cache(maxsize=1)
def _switch_apis() -> tuple[str, ...]:
    from agents.vocabulary import value_param

    out = []
    for name, spec in sorted(API_SPECS.items()):
        vp = value_param(spec)
        if vp is not None and vp.py_type is bool:
            out.append(name)
    return tuple(out)


def _companion_clause(text: str) -> str | None:
    """A second setting stated at the end of a line ("..., Plus the sunroof lock locked, always.")."""
    m = _COMPANION.search(text)
    return m.group(1) if m else None


def _analyse(request: str, hit_texts: Sequence[str], speakers: Sequence[str], searched: bool,
             req_scores: dict[str, float], classify: Any = None) -> SlotAnalysis:
    """Read the request, pool the hits, rank APIs and values the way the rules baseline does."""
    from agents.rules import (
        OPPOSITE,
        RulesPolicy,
        _hit_body,
        _request_value,
        _same_person,
        _selector_value,
        conditions_in,
        read_request,
    )
    from agents.vocabulary import enable_api, selector_param

    from agents.rules import extract_value
    from agents.vocabulary import value_param

    req = read_request(request, speakers)
    seen: dict[tuple[Any, str], Any] = {}
    for text in hit_texts:
        for h in parse_memory_text(text, speakers):
            seen.setdefault((h.timestamp, h.text), h)
    hits = list(seen.values())
    policy = RulesPolicy("none")
    policy._names = tuple(speakers)
    cands = policy._candidates(req, req_scores, hits) if hits else []
    by_render = {h.render(): h for h in hits}
    best_req = max(req_scores.values(), default=0.0)

    def passes(api: str) -> bool:
        return best_req < 2.0 or req_scores.get(api, 0.0) >= best_req - 1.0

    best_cand: dict[str, float] = {}
    for c in cands:
        best_cand[c.api] = max(best_cand.get(c.api, -1e9), c.score)
    rules_api = next((c.api for c in cands if passes(c.api)), None)
    ranked = sorted(set(req_scores) | set(best_cand), key=lambda api: (
        -(api == rules_api),
        -(passes(api) and api in best_cand),
        -(best_cand.get(api, -1e9) if passes(api) and api in best_cand else 2.0 * req_scores.get(api, 0.0)),
        api))
    times = sorted({h.timestamp for h in hits if h.timestamp is not None})
    rank_of_time = {tm: i / max(1, len(times) - 1) for i, tm in enumerate(times)}

    def value_slots(api: str) -> list[ValueSlot]:
        mine = [c for c in cands if c.api == api]
        latest_any = max((by_render[c.source].timestamp for c in mine if by_render[c.source].timestamp), default=None)
        target_times = [by_render[c.source].timestamp for c in mine
                        if req.target and any(_same_person(p, req.target) for p in by_render[c.source].people)
                        and by_render[c.source].timestamp]
        latest_target = max(target_times, default=None)
        groups: dict[str, list[Any]] = {}
        for c in mine:
            groups.setdefault(repr(c.value), []).append(c)
        values: list[ValueSlot] = []
        for group in groups.values():
            group.sort(key=lambda c: -c.score)
            slot = ValueSlot(value=group[0].value, score=group[0].score, source=group[0].source)
            rep = None
            for c in group:
                h = by_render[c.source]
                is_target = bool(req.target) and any(_same_person(p, req.target) for p in h.people)
                slot.mentions += 1
                slot.sources.append(c.source)
                slot.target_mentions += is_target
                slot.other_mentions += bool(h.people) and not is_target
                if h.timestamp is not None:
                    slot.recency = max(slot.recency, rank_of_time.get(h.timestamp, 0.0))
                    slot.latest_any |= h.timestamp == latest_any
                    slot.latest_target |= is_target and h.timestamp == latest_target
                body = _hit_body(h, speakers)
                cond = conditions_in(body)
                if h.timestamp is not None and not cond & {"night", "day"}:
                    cond.add("night" if h.timestamp.hour >= 19 or h.timestamp.hour < 5 else "day")
                slot.conditions = max(slot.conditions, float(len(req.conditions & cond)))
                slot.opposite = max(slot.opposite, float(len({OPPOSITE.get(x) for x in req.conditions} & cond)))
                cues = {k: float(bool(p.search(body))) for k, p in LINE_CUES.items()}
                if is_target and not (cues["hypothetical"] or cues["elsewhere"] or cues["question"]):
                    slot.clean = True
                # the representative mention: the latest by the target, else the latest
                order = (is_target, h.timestamp or _NOW.replace(year=1900))
                if rep is None or order > rep[0]:
                    rep = (order, cues, c.source)
            if rep is not None:
                slot.cues, slot.source = rep[1], rep[2]
            values.append(slot)
        values.sort(key=lambda s: -s.score)
        if values:
            values[0].rules_top = True
        # keep the clean mentions by the target first, then the rest by the rules score
        values.sort(key=lambda s: (not s.clean, -s.score))
        return values[:N_MEMORY_VALUES]

    def api_slot(api: str, values: list[ValueSlot], first: str | None = None, companion: bool = False) -> ApiSlot:
        spec = API_SPECS[api]
        sel = selector_param(spec)
        if first is None:
            first = _selector_value(spec, sel, req) if sel is not None else ""
        return ApiSlot(api=api, request_score=req_scores.get(api, 0.0), best_score=best_cand.get(api, 0.0),
                       passes=passes(api), rules_choice=api == rules_api, values=values,
                       targets=_selector_choices(spec, first, request, req.seat), explicit=_request_value(api, req),
                       minimal=enable_api(api), companion=companion)

    apis: list[ApiSlot] = []
    if ranked:
        apis.append(api_slot(ranked[0], value_slots(ranked[0])))
        # companions: a second setting stated in the line of a candidate value ("Plus the sunroof lock locked")
        comp: dict[str, ApiSlot] = {}
        pairs = [(val, src) for val in apis[0].values for src in dict.fromkeys([val.source, *val.sources])]
        for val, src in pairs:
            clause = _companion_clause(by_render[src].text if src in by_render else "")
            if not clause or classify is None:
                continue
            capi = classify(clause)
            if capi is None or capi == ranked[0]:
                continue
            cspec = API_SPECS[capi]
            cval = extract_value(cspec, clause, req)
            vp = value_param(cspec)
            if cval is None and vp is not None and vp.py_type is bool:
                cval = True
            if cval is None:
                continue
            slot = comp.get(capi)
            if slot is None:
                sel = selector_param(cspec)
                first = next((c for c in (sel.constraint.choices if sel and sel.constraint else ())
                              if re.search(rf"\b{c.replace('_', ' ')}\b", clause, re.I)), None) if sel else ""
                if first is None and sel is not None:
                    first = _selector_value(cspec, sel, req)
                slot = comp[capi] = api_slot(capi, [], first, companion=True)
            if len(slot.values) < N_MEMORY_VALUES and all(v.value != cval for v in slot.values):
                slot.values.append(dataclasses.replace(val, value=cval, cues=dict(val.cues)))
        apis.extend(list(comp.values())[:N_COMPANION_SLOTS])
        for api in ranked[1:]:
            if len(apis) >= N_API_SLOTS:
                break
            if all(a.api != api for a in apis):
                apis.append(api_slot(api, value_slots(api)))
    return SlotAnalysis(request=req, apis=apis, delta=req.delta, n_hits=len(hits), searched=searched)


class SlotActionWrapper(gym.Wrapper[Any, np.int64, Any, Any]):
    """``VehicleMem-v0`` with the slot action space: ``Discrete(N_SLOT_ACTIONS)`` plus ``action_masks()``.

    Observations stay the env's text; :class:`~vmb_gym.wrappers.features.SlotFeatureWrapper`
    turns them into slot features. ``self.analysis`` is the current :class:`SlotAnalysis`.

    Args:
        env: a ``VehicleMem-v0`` env.
        catalogue: the slot catalogue (default: no learned API prior).
    """

    def __init__(self, env: gym.Env[Any, Any], catalogue: SlotCatalogue | None = None) -> None:
        super().__init__(env)
        base = env.unwrapped
        self._memory_search = bool(getattr(getattr(base, "memory", None), "provides_search", False))
        self.catalogue = catalogue or SlotCatalogue()
        self.action_space = spaces.Discrete(self.catalogue.n)
        self.episode = EpisodeText()
        self.speakers: tuple[str, ...] = ()
        self.analysis: SlotAnalysis | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env, the episode record and the slots."""
        if seed is not None:
            self.action_space.seed(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode.on_reset(obs, info)
        self.speakers = speakers_of(self.env, info)
        self.analysis = self.catalogue.analyse(self.episode, self.speakers)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Run the call the action's slots resolve to (an empty slot runs as ``finish``)."""
        index = int(action)
        if not 0 <= index < self.catalogue.n:
            raise ConfigError(f"action {index} is outside the slot catalogue (0-{self.catalogue.n - 1})")
        assert self.analysis is not None
        call = slot_call(self.catalogue, index, self.analysis, self.episode, self.speakers)
        obs, reward, terminated, truncated, info = self.env.step(call)
        self.episode.on_step(obs, info)
        self.analysis = self.catalogue.analyse(self.episode, self.speakers)
        info["slot_call"] = call
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Allowed slot actions now (``finish`` always is)."""
        assert self.analysis is not None
        return self.catalogue.mask(self.analysis, self.episode, memory_search=self._memory_search)


def speakers_of(env: gym.Env[Any, Any], info: Mapping[str, Any]) -> tuple[str, ...]:
    """The speakers of the episode's scenario (from the env's task set; never its gold answers)."""
    tasks = getattr(env.unwrapped, "tasks", None)
    scenario = getattr(tasks, "scenarios", {}).get(info.get("scenario_id")) if tasks is not None else None
    return tuple(getattr(scenario, "speakers", ()) or ())


def slot_call(catalogue: SlotCatalogue, index: int, analysis: SlotAnalysis, episode: EpisodeText,
              speakers: Sequence[str]) -> Any:
    """The env action of slot action ``index``: finish, the search calls, or the resolved call."""
    if index == SLOT_FINISH:
        return {"name": "finish", "arguments": {}}
    if index == SLOT_SEARCH:
        return catalogue.search_action(episode, speakers)
    call = catalogue.resolve(index, analysis)
    return call if call is not None else {"name": "finish", "arguments": {}}
