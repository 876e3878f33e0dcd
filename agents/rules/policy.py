"""The rules baseline's policy: :class:`RulesPolicy` plans a request's calls from memory hits.

The reading itself lives beside it: :mod:`agents.rules.request` (the request),
:mod:`agents.rules.words` (which function a wording names), :mod:`agents.rules.values` (the value a
line states) and :mod:`agents.rules.hits` (a hit's text and person).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agents.rules.hits import content_words, hit_body, mentions_person, same_person
from agents.rules.params import clamp_to_param, enable_api, selector_param, value_param
from agents.rules.request import Request, api_text, read_request, request_destination
from agents.rules.values import extract_value, request_value, selector_value
from agents.rules.words import conditions_in, module_words, score_apis, top_scores
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError
from vmb_gym.memory import MemoryHit, MemoryModule, make_memory
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Scenario
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import API_WORDS, OPPOSITE, PREFERENCE_WORDS

FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}


@dataclass
class Candidate:
    """One possible call with the score that ranks it and the line it came from."""

    api: str
    value: Any
    score: float
    source: str


class RulesPolicy:
    """Rule-based reading baseline over a memory module (no language model).

    Args:
        memory: a memory module name (``"bm25"``, ``"layered"``, ...), a module instance, or
            ``"none"`` (no hits: the policy only picks the function and takes the minimal action).
        top_k: hits per memory search.
        source: where scenarios come from: an env (its ``unwrapped.tasks``), a
            :class:`~vmb_gym.envs.task_set.TaskSet` or a sequence of scenarios. May also be set
            later with :meth:`bind`. Only the scenario's history is read, never its gold answers.
        memory_kwargs: keyword arguments of the memory module (when given by name).

    Example:
        >>> env = gym.make("VehicleMem-v0", data="official:/path")            # doctest: +SKIP
        >>> policy = RulesPolicy("bm25", source=env)                          # doctest: +SKIP
        >>> run_episode(env, policy).metrics["exact_match"]                   # doctest: +SKIP
    """

    def __init__(
        self,
        memory: str | MemoryModule = "bm25",
        top_k: int = 10,
        source: Any = None,
        memory_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.memory: MemoryModule = make_memory(memory, **(memory_kwargs or {})) if isinstance(memory, str) else memory
        self.top_k = top_k
        self._scenarios: dict[int, Scenario] = {}
        self._memory_searches = 0
        self._memory_hits: list[MemoryHit] = []
        if source is not None:
            self.bind(source)
        self._calls: list[dict[str, Any]] = []
        self._names: tuple[str, ...] = ()
        #: The last decision, for inspection: request reading, candidates, chosen calls.
        self.last: dict[str, Any] = {}

    # ------------------------------------------------------------------ wiring
    def bind(self, source: Any) -> None:
        """Take scenarios from an env, a TaskSet or a sequence of scenarios."""
        tasks = getattr(getattr(source, "unwrapped", None), "tasks", None)
        if isinstance(tasks, TaskSet):
            source = tasks
        if isinstance(source, TaskSet):
            self._scenarios.update(source.scenarios)
        elif isinstance(source, Scenario):
            self._scenarios[source.scenario_id] = source
        else:
            for s in source:
                self._scenarios[s.scenario_id] = s

    def memory_figures(self) -> dict[str, Any]:
        """This episode's memory use inside the policy: searches, tokens read, and the hits."""
        text = "\n".join(h.render() for h in self._memory_hits)
        return {"memory_searches": self._memory_searches,
                "memory_tokens": count_tokens(text) if text else 0,
                "memory_hits": list(self._memory_hits)}

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Plan the episode's calls from the request in ``info`` and the memory."""
        scenario = self._scenarios.get(info.get("scenario_id", -1))
        if scenario is None:
            raise ConfigError(f"RulesPolicy has no scenario {info.get('scenario_id')!r}; pass source=env (or the "
                              "scenarios) to RulesPolicy or call bind()")
        as_of = datetime.fromisoformat(info["as_of"]) if info.get("as_of") else scenario.end_time
        self.clear_memory_figures()
        self._calls = self.plan(info["request"], scenario, as_of)

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
        self._memory_searches = 0
        self._memory_hits = []

    # ------------------------------------------------------------------ planning
    def plan(self, request: str, scenario: Scenario, as_of: datetime | None) -> list[dict[str, Any]]:
        """The vehicle calls for ``request`` in ``scenario`` at time ``as_of`` (JSON call dicts)."""
        req = read_request(request, scenario.speakers)
        self._names = tuple(scenario.speakers)
        req_scores = score_apis(api_text(req))
        hits = self.search(req, req_scores, scenario, as_of)
        candidates = self.candidates(req, req_scores, hits)
        self.last = {"request": req, "request_scores": top_scores(req_scores, 5), "hits": hits,
                     "candidates": candidates[:8]}
        best_req = max(req_scores.values(), default=0.0)
        if best_req >= 2.0:
            # the request names a function: read values for it (and close rivals) only
            candidates = [c for c in candidates if req_scores.get(c.api, 0.0) >= best_req - 1.0]
        if candidates:
            top = candidates[0]
            calls = [self._call(top.api, top.value, req)]
        elif best_req > 0:
            api = top_scores(req_scores, 1)[0][0]
            explicit = request_value(api, req)
            calls = [self._call(api, explicit, req)] if explicit is not None else self._minimal(api, req)
        else:
            calls = []
        self.last["calls"] = calls
        return calls

    def search(self, req: Request, req_scores: dict[str, float], scenario: Scenario,
               as_of: datetime | None) -> list[MemoryHit]:
        """Search the memory for ``req``: the request's quotes, then "person + setting words" for the
        three best-scored functions; the distinct hits, counted in :meth:`memory_figures`.

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
        seen: dict[str, MemoryHit] = {}
        for q in queries:
            for h in self.memory.search(q, as_of=as_of, top_k=self.top_k):
                seen.setdefault(h.entry_id, h)
        self._memory_searches += len(queries)
        self._memory_hits = list(seen.values())
        return self._memory_hits

    def candidates(self, req: Request, req_scores: dict[str, float], hits: list[MemoryHit]) -> list[Candidate]:
        """Every (function, value) the hits state, best first.

        A candidate's score adds the request's and the line's function scores, whether the line is
        by the target person, preference wording, matching (and opposite) conditions, how late the
        line is and the content words it shares with the request. Names in the lines are those of
        :attr:`names` (set by :meth:`plan`).
        """
        if not hits:
            return []
        times = sorted({h.timestamp for h in hits if h.timestamp is not None})
        rank_of_time = {t: i / max(1, len(times) - 1) for i, t in enumerate(times)}
        out: list[Candidate] = []
        req_words = content_words(" ".join(req.quotes) + " " + req.text) - {w.lower() for p in req.people for w in p.split()}
        for h in hits:
            body = hit_body(h, self._names)
            hit_scores = score_apis(body)
            preference = bool(PREFERENCE_WORDS.search(body))
            for api, hs in hit_scores.items():
                rs = req_scores.get(api, 0.0)
                if rs == 0.0 and hs < 2.0:
                    continue
                value = extract_value(API_SPECS[api], body, req)
                if value is None:
                    continue
                score = 2.0 * rs + hs
                if req.target and any(same_person(p, req.target) for p in h.people):
                    score += 1.5
                elif req.target and mentions_person(h, req.target):
                    score += 0.5
                elif req.target and h.people and not any(same_person(p, req.target) for p in h.people):
                    score -= 0.5
                if preference:
                    score += 0.7
                line_conditions = conditions_in(body)
                if h.timestamp is not None and not line_conditions & {"night", "day"}:
                    line_conditions.add("night" if h.timestamp.hour >= 19 or h.timestamp.hour < 5 else "day")
                score += 1.0 * len(req.conditions & line_conditions)
                score -= 1.0 * len({OPPOSITE.get(c) for c in req.conditions} & line_conditions)
                if h.timestamp is not None:
                    score += 0.5 * rank_of_time.get(h.timestamp, 0.0)
                score += min(1.5, 0.5 * len(req_words & content_words(body)))
                out.append(Candidate(api, value, score, h.render()))
        out.sort(key=lambda c: -c.score)
        return out

    def _call(self, api: str, value: Any, req: Request) -> dict[str, Any]:
        """The JSON call for ``api`` with ``value`` and its selector.

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
            args[sel.name] = selector_value(spec, sel, req)
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
