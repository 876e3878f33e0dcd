"""The rules baseline's policy: :class:`RulesPolicy` plans a request's calls from memory lines.

The lines are the hits of its searches (a module with search) and the lines of the memory given
as context (a module with context: the gold memory's events, the history, a summary's lines).

The reading itself lives beside it: :mod:`vmb_agents.reader.request` (the request),
:mod:`vmb_agents.reader.words` (which function a wording names), :mod:`vmb_agents.reader.values` (the value a
line states) and :mod:`vmb_agents.reader.hits` (a hit's text and person).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vmb_agents.reader.hits import content_words, hit_body, mentions_person, revision_hits, said_aside, same_person
from vmb_agents.reader.params import clamp_to_param, enable_api, selector_param, value_param
from vmb_agents.reader.reading import Reading
from vmb_agents.reader.request import Request, api_text, request_destination
from vmb_agents.reader.routine import line_companions, routine_plan
from vmb_agents.reader.values import extract_value, request_value, selector_value
from vmb_agents.reader.words import conditions_in, module_words, score_apis, top_scores, unnamed_setting_modules
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError
from vmb_gym.memory import MemoryHit, MemoryModule, make_memory
from vmb_gym.memory.base import hits_from_context
from vmb_gym.memory.experiences import request_cues
from vmb_gym.memory.session import MemorySession
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query, Scenario
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import API_WORDS, OPPOSITE, PREFERENCE_WORDS

FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}
#: Hits per query of the reader's searches: it pools several queries (the request, person + setting words), each
#: searched this deep, deeper than a single call's :data:`~vmb_gym.memory.DEFAULT_TOP_K`. The stream writers' reader
#: uses it too.
READER_TOP_K = 10

log = logging.getLogger(__name__)


#: What a value said aside (:func:`~vmb_agents.reader.hits.said_aside`: a hypothetical, another car) loses in a
#: candidate's score.
ASIDE_PENALTY = 1.5


@dataclass
class Candidate:
    """One possible call with the score that ranks it and the line it came from."""

    api: str
    value: Any
    score: float
    source: str
    by_target: bool = False  # said by the person the request is for


class RulesPolicy:
    """Rule-based reading baseline over a memory module (no language model).

    Args:
        memory: a memory module name (``"bm25"``, ``"gold"``, ...), a module instance, ``"none"``
            (no lines: the policy only picks the function and takes the minimal action), or
            ``None``: the memory module of the env given as ``source`` (``"bm25"`` when ``source``
            is no env). A name equal to the env's memory name also reads the env's module; another
            module is the policy's own, and the choice is logged (a warning).
        top_k: hits per memory search.
        source: where scenarios come from: an env (its ``unwrapped.tasks``), a
            :class:`~vmb_gym.envs.task_set.TaskSet` or a sequence of scenarios. May also be set
            later with :meth:`bind`. Only the scenario's history (and, for a context module, the
            context it gives for the query) is read, never its gold answers.
        memory_kwargs: keyword arguments of the memory module (when given by name).

    Attributes:
        memory_session: the :class:`~vmb_gym.memory.session.MemorySession` that runs the searches
            and records the lines read (the episode's memory figures).

    Example:
        >>> env = gym.make("VehicleMem-v0", data="official:/path")            # doctest: +SKIP
        >>> policy = RulesPolicy("bm25", source=env)                          # doctest: +SKIP
        >>> run_episode(env, policy).metrics["exact_match"]                   # doctest: +SKIP
    """

    def __init__(
        self,
        memory: str | MemoryModule | None = None,
        top_k: int = READER_TOP_K,
        source: Any = None,
        memory_kwargs: dict[str, Any] | None = None,
    ) -> None:
        env_memory = _env_memory(source)
        self._shared = False  # the env's own module: the env counts its context tokens
        if memory is None:
            memory = env_memory if env_memory is not None else "bm25"
            self._shared = env_memory is not None
        elif env_memory is not None and memory_kwargs is None and memory in (env_memory, env_memory.name):
            memory, self._shared = env_memory, True
        elif env_memory is not None:
            log.warning("RulesPolicy reads its own memory %r, not the env's %r (pass memory=None to read the env's)",
                        memory if isinstance(memory, str) else memory.name, env_memory.name)
        self.memory = make_memory(memory, **(memory_kwargs or {})) if isinstance(memory, str) else memory
        self.top_k = top_k
        self._scenarios: dict[int, Scenario] = {}
        self._queries: dict[str, Query] = {}
        if source is not None:
            self.bind(source)
        self._calls: list[dict[str, Any]] = []
        self._names: tuple[str, ...] = ()
        #: The last decision, for inspection: request reading, candidates, chosen calls.
        self.last: dict[str, Any] = {}
        #: The episode's :class:`~vmb_agents.reader.reading.Reading` (read once at :meth:`reset`).
        self.reading: Reading | None = None

    # ------------------------------------------------------------------ wiring
    @property
    def memory(self) -> MemoryModule:
        """The memory module read (setting it starts a new :attr:`memory_session` on it)."""
        return self._memory

    @memory.setter
    def memory(self, module: MemoryModule) -> None:
        self._memory = module
        self.memory_session = MemorySession(module)

    def bind(self, source: Any) -> None:
        """Take scenarios (and the queries, for context memory) from an env, a TaskSet or scenarios."""
        tasks = getattr(getattr(source, "unwrapped", None), "tasks", None)
        if isinstance(tasks, TaskSet):
            source = tasks
        if isinstance(source, TaskSet):
            self._scenarios.update(source.scenarios)
            self._queries.update((q.task_id, q) for q in source.queries)
        elif isinstance(source, Scenario):
            self._scenarios[source.scenario_id] = source
        else:
            for s in source:
                self._scenarios[s.scenario_id] = s

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Plan the episode's calls from the request in ``info`` and the memory."""
        scenario = self._scenarios.get(info.get("scenario_id", -1))
        if scenario is None:
            raise ConfigError(f"RulesPolicy has no scenario {info.get('scenario_id')!r}; pass source=env (or the "
                              "scenarios) to RulesPolicy or call bind()")
        as_of = datetime.fromisoformat(info["as_of"]) if info.get("as_of") else scenario.end_time
        self.clear_memory_figures()
        self.reading = Reading.of(info["request"], scenario.speakers)
        self._calls = self.plan(self.reading, scenario, as_of, query=self._queries.get(info.get("task_id", "")))

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """All planned calls and ``finish`` in one action."""
        return [*self._calls, FINISH]

    @property
    def names(self) -> tuple[str, ...]:
        """The speakers of the scenario being planned (their names are blanked out of hit texts)."""
        return self._names

    @names.setter
    def names(self, speakers: tuple[str, ...]) -> None:
        """Set the speakers (the slot design sets them when it calls :meth:`candidates` directly)."""
        self._names = tuple(speakers)

    def clear_memory_figures(self) -> None:
        """Start a new episode's memory counts (what :meth:`reset` does before planning)."""
        self.memory_session.reset()

    # ------------------------------------------------------------------ planning
    def plan(self, request: str | Reading, scenario: Scenario, as_of: datetime | None,
             query: Query | None = None) -> list[dict[str, Any]]:
        """The vehicle calls for ``request`` (its text, or its :class:`~vmb_agents.reader.reading.Reading` with the
        scenario's speakers) in ``scenario`` at time ``as_of`` (JSON call dicts).

        ``query`` is the task, needed only to read a context module (:meth:`context_lines`).
        """
        reading = request if isinstance(request, Reading) else Reading.of(request, scenario.speakers)
        req = reading.request
        self._names = tuple(scenario.speakers)
        req_scores = dict(reading.settings)
        hits = self.search(req, req_scores, scenario, as_of) + self.context_lines(scenario, query)
        experiences = [h for h in hits if h.layer == "experience"]
        # facts and lines plan the named setting; a fact's revisions are read one by one
        hits = [r for h in hits if h.layer != "experience" for r in revision_hits(h)]
        candidates = self.candidates(req, req_scores, hits)
        self.last = {"request": req, "request_scores": top_scores(req_scores, 5), "hits": hits,
                     "candidates": candidates[:8]}
        best_req = max(req_scores.values(), default=0.0)
        if best_req >= 2.0:
            # the request names a function: read values for it (and close rivals) only
            candidates = named_candidates(candidates, req_scores, req)
        if candidates:
            top = candidates[0]
            calls = [self._call(top.api, top.value, req, top.source)]
        elif best_req > 0:
            api = top_scores(req_scores, 1)[0][0]
            explicit = request_value(api, req)
            calls = [self._call(api, explicit, req)] if explicit is not None else self._minimal(api, req)
        else:
            calls = []
        if calls and experiences:  # a routine: the settings its person sets with the named one
            routine = routine_plan(experiences, [c["name"] for c in calls], req)
            if routine.value is not None and request_cues(" ".join(req.quotes) or req.text)[0]:
                calls[0] = self._call(calls[0]["name"], routine.value, req)  # the routine as last stated
            calls += routine.calls
            self.last["routine"] = routine
        elif calls and candidates:  # the value's own line may say what goes with it ("Plus the sunroof locked")
            calls += line_companions(candidates[0].source, [c["name"] for c in calls], req)
        self.last["calls"] = calls
        return calls

    def search(self, req: Request, req_scores: dict[str, float], scenario: Scenario,
               as_of: datetime | None) -> list[MemoryHit]:
        """Search the memory for ``req``: the request's quotes, then "person + setting words" for the
        three best-scored functions; the distinct hits, counted by :attr:`memory_session`.

        Ingests ``scenario`` first when the module holds another one; returns ``[]`` for a module
        without search or when ``as_of`` is None.
        """
        if not getattr(self.memory, "provides_search", False) or as_of is None:
            return []
        if getattr(self.memory, "scenario_id", None) != scenario.scenario_id:
            self.memory.ingest(scenario)
        queries = [" ".join(req.quotes) or req.text]
        first = req.target.split()[0] if req.target else ""
        for api, _ in top_scores(req_scores, 3):
            spec = API_SPECS[api]
            words = " ".join([*API_WORDS.get(api, ())[:3], *module_words(spec.module)[:2]])
            queries.append(f"{first} {words}".strip())
        hits = list(self.memory_session.search_pooled(queries, as_of=as_of, top_k=self.top_k).hits)
        return hits + self.experience_search(req, as_of)

    def experience_search(self, req: Request, as_of: datetime) -> list[MemoryHit]:
        """The experience hits for a request that asks for a routine or "the usual", from a memory
        with an experience layer (``layered``): one more search, the request's quote said by its
        person (so the relevance gate knows whose routine), ``top_k`` 1; only its experience hits
        are kept (the one fact hit is read by the other searches). ``[]`` otherwise (no search)."""
        routine, usual, _ = request_cues(" ".join(req.quotes) or req.text)
        if not (routine or usual) or req.target is None or "experiences" not in getattr(self.memory, "layers", ()):
            return []
        query = f"{req.target} said: '{' '.join(req.quotes) or req.text}'"
        found = self.memory_session.search_pooled([query], as_of=as_of, top_k=1).hits
        return [h for h in found if h.layer == "experience"]

    def context_lines(self, scenario: Scenario, query: Query | None) -> list[MemoryHit]:
        """The lines of the memory given as context for ``query`` (``[]`` for a module without context).

        Read as hits (the module's ``context_hits``, else one per line of its ``context``) and
        recorded by :attr:`memory_session`; their tokens count here unless the module is the
        env's, whose first observation already counted them.

        Raises:
            ConfigError: a context module but no query (the policy was bound to bare scenarios).
        """
        if not getattr(self.memory, "provides_context", False):
            return []
        if query is None:
            raise ConfigError(f"RulesPolicy reads memory {self.memory.name!r} as context and needs the task's query; "
                              "found none; bind it to the env or a TaskSet (source=env), not bare scenarios")
        if getattr(self.memory, "scenario_id", None) != scenario.scenario_id:
            self.memory.ingest(scenario)
        reader = getattr(self.memory, "context_hits", None)
        hits = list(reader(query)) if callable(reader) else hits_from_context(self.memory.context(query))
        tokens = 0 if self._shared else count_tokens(self.memory.context(query))
        self.memory_session.add_context(tokens, hits)
        return hits

    def candidates(self, req: Request, req_scores: dict[str, float], hits: list[MemoryHit], *,
                   device_alike: bool = True) -> list[Candidate]:
        """Every (function, value) the hits state, best first.

        A candidate's score adds the request's and the line's function scores, whether the line is
        by the target person, preference wording, matching (and opposite) conditions, how late the
        line is and the content words it shares with the request. Names in the lines are those of
        :attr:`names` (set by :meth:`plan`). With ``device_alike``, a request that names a device
        without its setting ("Restore my HUD settings") scores every function of the device alike
        (:func:`~vmb_agents.reader.words.unnamed_setting_modules`); without it, the device's default
        function takes the request's score (the reading the shipped slot checkpoint was trained on).
        """
        if not hits:
            return []
        times = sorted({h.timestamp for h in hits if h.timestamp is not None})
        rank_of_time = {t: i / max(1, len(times) - 1) for i, t in enumerate(times)}
        out: list[Candidate] = []
        req_words = content_words(" ".join(req.quotes) + " " + req.text) - {
            w.lower() for p in req.people for w in p.split()
        }
        unnamed = unnamed_setting_modules(api_text(req)) if device_alike else {}  # "my HUD settings": lines tell
        # a place is rarely said with the navigation's words ("my meeting moved to the Grand Hall")
        places = {api: 0.0 for api, rs in req_scores.items() if rs >= 2.0 and _names_a_place(api)}
        for h in hits:
            body = hit_body(h, self._names)
            hit_scores = score_apis(body)
            preference = bool(PREFERENCE_WORDS.search(body))
            for api, hs in {**places, **hit_scores}.items():
                rs = unnamed.get(API_SPECS[api].module, req_scores.get(api, 0.0))
                if rs == 0.0 and hs < 2.0:
                    continue
                value = extract_value(API_SPECS[api], body, req)
                if value is None:
                    continue
                score = 2.0 * rs + hs
                by_target = bool(req.target and any(same_person(p, req.target) for p in h.people))
                if by_target:
                    score += 1.5
                elif req.target and mentions_person(h, req.target):
                    score += 0.5
                elif req.target and h.people and not any(same_person(p, req.target) for p in h.people):
                    score -= 0.5
                if preference:
                    score += 0.7
                if said_aside(body, value):
                    score -= ASIDE_PENALTY
                line_conditions = conditions_in(body)
                if h.timestamp is not None and not line_conditions & {"night", "day"}:
                    line_conditions.add("night" if h.timestamp.hour >= 19 or h.timestamp.hour < 5 else "day")
                score += 1.0 * len(req.conditions & line_conditions)
                score -= 1.0 * len({OPPOSITE.get(c) for c in req.conditions} & line_conditions)
                if h.timestamp is not None:
                    score += 0.5 * rank_of_time.get(h.timestamp, 0.0)
                score += min(1.5, 0.5 * len(req_words & content_words(body)))
                out.append(Candidate(api, value, score, h.render(), by_target))
        out.sort(key=lambda c: -c.score)
        return out

    def _call(self, api: str, value: Any, req: Request, line: str = "") -> dict[str, Any]:
        """The JSON call for ``api`` with ``value`` (read from the memory line ``line``) and its selector.

        A value the request states wins; a relative change ("two higher") moves an integer value.
        """
        spec = API_SPECS[api]
        args: dict[str, Any] = {}
        vp = value_param(spec)
        explicit = request_value(api, req)
        if explicit is not None:
            value = explicit
        elif vp is not None and vp.py_type is int and isinstance(value, int) and req.delta:
            value = clamp_to_param(value + req.delta, vp)
        if isinstance(value, dict):
            args.update(value)
            if api == "carcontrol_navigation_navigate_to" and "destination" not in args:
                dest = request_destination(req)
                if dest is None:
                    args.pop("route_preference", None)
                else:
                    args["destination"] = dest
        elif vp is not None and value is not None:
            args[vp.name] = value
        sel = selector_param(spec)
        if sel is not None:
            args[sel.name] = selector_value(spec, sel, req, line)
        return {"name": api, "arguments": args}

    def _minimal(self, api: str, req: Request) -> list[dict[str, Any]]:
        """The "switch it on" call for ``api``'s device (none when it has no such function)."""
        enabled = enable_api(api)
        if enabled is None:
            return []
        name, fixed = enabled
        args = dict(fixed)
        sel = selector_param(API_SPECS[name])
        if sel is not None:
            args[sel.name] = selector_value(API_SPECS[name], sel, req)
        return [{"name": name, "arguments": args}]

    # Old private spellings, kept until the SB3 slot design calls the public ones.
    _search = search
    _candidates = candidates


def named_candidates(candidates: list[Candidate], req_scores: dict[str, float], req: Request) -> list[Candidate]:
    """The candidates of the functions a request names (and their close rivals), for a request that names one.

    When none of them has a value in the hits and the request states none, the person's own
    lines about another setting of the same device: "Restore my driving position" names the
    backrest most strongly, and the person's lines may hold their leg support instead.
    """
    best = max(req_scores.values(), default=0.0)
    named = [c for c in candidates if req_scores.get(c.api, 0.0) >= best - 1.0]
    top = top_scores(req_scores, 1)[0][0]
    if named or request_value(top, req) is not None:
        return named
    modules = {API_SPECS[api].module for api, s in req_scores.items() if s >= best - 1.0}
    return [c for c in candidates if c.by_target and API_SPECS[c.api].module in modules]


def _names_a_place(api: str) -> bool:
    """Whether ``api``'s value is a destination (free text a line may state without naming the function)."""
    vp = value_param(API_SPECS[api])
    return vp is not None and vp.name == "destination"


def _env_memory(source: Any) -> MemoryModule | None:
    """The memory module of ``source`` when it is an env (``unwrapped.memory``), else None."""
    memory = getattr(getattr(source, "unwrapped", None), "memory", None)
    return memory if hasattr(memory, "provides_search") else None
