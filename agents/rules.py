"""A no-LLM reading baseline: keyword rules over the request and the memory module's hits.

:class:`RulesPolicy` shows what a memory module alone gives a policy that cannot reason. Per
episode it

1. reads the request: who speaks, who the setting is for, where that person sits, the
   conditions (night, rain, ...) and any relative change ("one level higher");
2. scores every vehicle function against the request with the vocabulary of
   :mod:`agents.vocabulary` (module words, field words, everyday synonyms);
3. searches the memory with the request and with "person + setting words" queries;
4. reads candidate values for the best functions out of the hits (numbers inside the
   parameter's range, enum words and their aliases, destinations), preferring lines by the
   person, later lines, and lines whose conditions match the request;
5. emits the call and ``finish``; when no value is found it takes the minimal action the
   official instructions ask for (switching the device on).

It uses only the request text, the scenario's history through the memory module and the
simulator vocabulary: never a task's gold calls or gold memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from agents.vocabulary import (
    API_WORDS,
    CONDITIONS,
    MODULE_DEFAULT,
    OPPOSITE,
    enable_api,
    enum_spellings,
    find_phrases,
    module_words,
    number_word,
    numbers_in,
    phrase_pattern,
    selector_param,
    value_param,
)
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ConfigError
from vmb_gym.memory import MemoryHit, MemoryModule, make_memory
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Scenario
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec

FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}

_SPEECH = (r"told|said|asked|mentioned|complained|muttered|groaned|replied|commanded|sighed|noted|explained|added"
           r"|shouted|whispered|remarked|instructed|called|says|tells|asks")
_SEAT_PHRASES = re.compile(r"\b(driver'?s?|passenger|back|rear|front)\s+seat\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i’m|my|me|mine|i've|i'd|i'll)\b", re.IGNORECASE)
_UP = r"higher|more|brighter|stronger|louder|warmer|up|further|bigger|hotter|faster|wider"
_DOWN = r"lower|less|dimmer|weaker|quieter|cooler|colder|down|softer|smaller|slower|darker"
_AMOUNT = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a bit|a little|a touch|slightly|a|an)"
_UNIT = r"(?:\s+(?:more\s+)?(?:levels?|units?|degrees?|percent|%|notch(?:es)?|steps?|points?|centimeters?|cm|clicks?))?"
_RELATIVE = re.compile(rf"\b{_AMOUNT}{_UNIT}\s+(?:more\s+|even\s+)?({_UP}|{_DOWN})\b", re.IGNORECASE)
_PREFER = re.compile(r"\b(prefer|like|love|want|need|set|switch|switched|change|changed|put|use|keep|always|"
                     r"favorite|favourite|back to|to|at|make it|there)\b", re.IGNORECASE)
_REJECT = re.compile(r"\b(too|not|hate|instead of|no more|than|don't|dont|can't|cannot|never|from)\b", re.IGNORECASE)
_MAX_WORDS = re.compile(r"\b(max|maxed|maximum|all the way up|highest|full blast|full|hurricane|strongest|"
                        r"brightest|loudest)\b", re.IGNORECASE)
_MIN_WORDS = re.compile(r"\b(minimum|lowest|all the way down|weakest|dimmest|softest)\b", re.IGNORECASE)
_ON = re.compile(r"\b(on|enable|enabled|activate|activated|turn on|switch on|engage|keep it on)\b", re.IGNORECASE)
_OFF = re.compile(r"\b(off|disable|disabled|deactivate|turn off|switch off|shut off|without)\b", re.IGNORECASE)


@dataclass
class Request:
    """What the rules read from one request text."""

    text: str
    quotes: list[str]
    target: str | None
    seat: str
    conditions: set[str]
    delta: int | None = None
    people: list[str] = field(default_factory=list)
    driver: str | None = None


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
        self._memory_searches = 0
        self._memory_hits = []
        self._calls = self.plan(info["request"], scenario, as_of)

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """All planned calls and ``finish`` in one action."""
        return [*self._calls, FINISH]

    # ------------------------------------------------------------------ planning
    def plan(self, request: str, scenario: Scenario, as_of: datetime | None) -> list[dict[str, Any]]:
        """The vehicle calls for ``request`` in ``scenario`` at time ``as_of`` (JSON call dicts)."""
        req = read_request(request, scenario.speakers)
        self._names = tuple(scenario.speakers)
        req_scores = score_apis(api_text(req))
        hits = self._search(req, req_scores, scenario, as_of)
        candidates = self._candidates(req, req_scores, hits)
        self.last = {"request": req, "request_scores": _top(req_scores, 5), "hits": hits, "candidates": candidates[:8]}
        best_req = max(req_scores.values(), default=0.0)
        if best_req >= 2.0:
            # the request names a function: read values for it (and close rivals) only
            candidates = [c for c in candidates if req_scores.get(c.api, 0.0) >= best_req - 1.0]
        if candidates:
            top = candidates[0]
            calls = [self._call(top.api, top.value, req)]
        elif best_req > 0:
            api = _top(req_scores, 1)[0][0]
            explicit = request_value(api, req)
            calls = [self._call(api, explicit, req)] if explicit is not None else self._minimal(api, req)
        else:
            calls = []
        self.last["calls"] = calls
        return calls

    def _search(self, req: Request, req_scores: dict[str, float], scenario: Scenario,
                as_of: datetime | None) -> list[MemoryHit]:
        if not getattr(self.memory, "provides_search", False) or as_of is None:
            return []
        if getattr(self.memory, "scenario_id", None) != scenario.scenario_id:
            self.memory.ingest(scenario)
        queries = [" ".join(req.quotes) or req.text]
        first = req.target.split()[0] if req.target else ""
        for api, _ in _top(req_scores, 3):
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

    def _candidates(self, req: Request, req_scores: dict[str, float], hits: list[MemoryHit]) -> list[Candidate]:
        if not hits:
            return []
        times = sorted({h.timestamp for h in hits if h.timestamp is not None})
        rank_of_time = {t: i / max(1, len(times) - 1) for i, t in enumerate(times)}
        out: list[Candidate] = []
        req_words = content_words(" ".join(req.quotes) + " " + req.text) - {w.lower() for p in req.people for w in p.split()}
        for h in hits:
            body = hit_body(h, self._names)
            hit_scores = score_apis(body)
            preference = bool(_PREFERENCE.search(body))
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
                elif req.target and _mentions(h, req.target):
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
        enabled = enable_api(api)
        if enabled is None:
            return []
        name, fixed = enabled
        args = dict(fixed)
        sel = selector_param(API_SPECS[name])
        if sel is not None:
            args[sel.name] = selector_value(API_SPECS[name], sel, req)
        return [{"name": name, "arguments": args}]


# ---------------------------------------------------------------------- request reading
def read_request(text: str, speakers: Sequence[str]) -> Request:
    """Quotes, target person, their seat, conditions and relative change of a request."""
    body = re.sub(r"^\s*At \d{1,2}:\d{2}\s*(AM|PM)?,?\s*", "", text, flags=re.IGNORECASE)
    quotes = _quotes(body)
    names = _name_forms(speakers)
    mentions = sorted((m.start(), full) for form, full in names for m in phrase_pattern(form).finditer(body))
    people = list(dict.fromkeys(full for _, full in mentions))
    target = None
    # "for Samuel's ..." inside a quote names the person the setting is for
    for q in quotes:
        for form, full in names:
            if re.search(rf"(?<!not )\b{re.escape(form)}(?:'s|’s)\b", q):
                target = full
                break
        if target:
            break
    driver = _driver(body, names)
    if target is None and quotes and re.search(r"\b(the )?passenger's\b", " ".join(quotes), re.IGNORECASE):
        others = [p for p in people if p != driver]
        target = others[0] if others else None
    if target is None:
        target = _speaker(body, names) or (people[0] if people else None)
    seat = _seat_of(body, target, driver, names)
    quote_text = " ".join(quotes) or body
    delta = None
    m = _RELATIVE.search(quote_text) or _RELATIVE.search(body)
    if m:
        amount = number_word(m.group(1)) or 1
        delta = amount if re.fullmatch(_UP, m.group(2).lower()) else -amount
    return Request(text=body, quotes=quotes, target=target, seat=seat, conditions=conditions_in(body),
                   delta=delta, people=people, driver=driver)


def _quotes(text: str) -> list[str]:
    out = []
    for m in re.finditer(r"[:,]\s*['‘\"“]", text):
        start = m.end()
        end = len(text)
        for j in range(start, len(text)):
            ch = text[j]
            if ch in "'’\"”":
                before = text[j - 1] if j > 0 else " "
                after = text[j + 1] if j + 1 < len(text) else " "
                if before.isalpha() and after.isalpha():
                    continue  # an apostrophe inside a word
                if after.isalpha():
                    continue
                end = j
                break
        out.append(text[start:end].strip())
    return [q for q in out if q]


def _name_forms(speakers: Sequence[str]) -> list[tuple[str, str]]:
    forms: list[tuple[str, str]] = []
    firsts = [s.split()[0] for s in speakers if s.strip()]
    for s in speakers:
        forms.append((s, s))
    for s in speakers:
        first = s.split()[0]
        if firsts.count(first) == 1:
            forms.append((first, s))
    return forms


def _driver(body: str, names: list[tuple[str, str]]) -> str | None:
    for form, full in names:
        f = re.escape(form)
        if re.search(rf"\b{f}\b[^.]{{0,40}}?\b(got into the driver|got in the driver|sat in the driver|drove\b|was driving|"
                     rf"is driving|driving\b|took the wheel|behind the wheel)", body):
            return full
        if re.search(rf"\bwith {f} driving\b|\bwhile {f} drove\b|\b{f} (?:was )?in the driver", body):
            return full
    return None


def _speaker(body: str, names: list[tuple[str, str]]) -> str | None:
    """The person whose first-person quote the request carries (else the last speaker)."""
    best: str | None = None
    for m in re.finditer(rf"({_SPEECH})\b[^:'‘\"“]{{0,40}}[:,]\s*['‘\"“]", body):
        before = body[: m.start()]
        cut = max(before.rfind(". "), before.rfind("! "), before.rfind("? "), before.rfind("' "))
        sentence = before[cut + 1:]
        who = _last_name(sentence, names)
        if who is None and re.search(r"\b(he|she)\s*$", sentence.strip(), re.IGNORECASE):
            prev_cut = max(before.rfind(". ", 0, max(cut, 0)), before.rfind("! ", 0, max(cut, 0)))
            who = _first_name_in(before[prev_cut + 1: cut + 1], names) if cut >= 0 else None
        quote = _quotes(body[m.end() - 2:])
        if who and quote and _FIRST_PERSON.search(quote[0]):
            return who
        best = who or best
    return best


def _last_name(text: str, names: list[tuple[str, str]]) -> str | None:
    who, pos = None, -1
    for form, full in names:
        for n in phrase_pattern(form).finditer(text):
            if n.start() > pos:
                pos, who = n.start(), full
    return who


def _first_name_in(text: str, names: list[tuple[str, str]]) -> str | None:
    who, pos = None, len(text) + 1
    for form, full in names:
        n = phrase_pattern(form).search(text)
        if n and n.start() < pos:
            pos, who = n.start(), full
    return who


def _seat_of(body: str, target: str | None, driver: str | None, names: list[tuple[str, str]]) -> str:
    if target is None:
        return "driver"
    forms = [re.escape(f) for f, full in names if full == target]
    near = "|".join(forms)
    if near and re.search(rf"\b({near})\b[^.]{{0,50}}\b(back seat|rear|in the back|back row)", body, re.IGNORECASE):
        return "rear_left"
    if near and re.search(rf"\b({near})\b[^.]{{0,50}}\bpassenger", body, re.IGNORECASE):
        return "passenger"
    if driver is not None and driver != target:
        return "passenger"
    return "driver"


def conditions_in(text: str) -> set[str]:
    """Condition groups (night, rain, hot, ...) whose words occur in ``text``."""
    return set(_conditions_cached(text))


@lru_cache(maxsize=200_000)
def _conditions_cached(text: str) -> frozenset[str]:
    return frozenset(_conditions_in(text))


def _conditions_in(text: str) -> set[str]:
    found = set()
    for group, words in CONDITIONS.items():
        if find_phrases(text, words):
            found.add(group)
    if re.search(r"\b(9|10|11|12):\d\d\s*PM|\b[6-8]:\d\d\s*PM", text) and "day" not in found:
        found.add("night")
    return found


# ---------------------------------------------------------------------- function scoring
def api_text(req: Request) -> str:
    text = " ".join(req.quotes) + " . " + req.text
    return _SEAT_PHRASES.sub(" ", text)


def score_apis(text: str) -> dict[str, float]:
    """How strongly ``text`` names each vehicle function (0 = not at all)."""
    return dict(_score_apis_cached(text))


@lru_cache(maxsize=200_000)
def _score_apis_cached(text: str) -> tuple[tuple[str, float], ...]:
    return tuple(_score_apis(text).items())


def _score_apis(text: str) -> dict[str, float]:
    module_score: dict[str, float] = {}
    for module in {s.module for s in API_SPECS.values()}:
        found = find_phrases(text, module_words(module))
        if found:
            module_score[module] = max(1.0 + 0.5 * (len(p.split()) - 1) for p, _ in found)
    scores: dict[str, float] = {}
    for api, spec in API_SPECS.items():
        mod = module_score.get(spec.module, 0.0)
        found = find_phrases(text, API_WORDS.get(api, ()))
        field_score = max((1.0 + 0.5 * (len(p.split()) - 1) for p, _ in found), default=0.0)
        if field_score == 0.0 and not (mod and MODULE_DEFAULT.get(spec.module) == api):
            continue
        if field_score and not mod:
            if all(len(_PHRASE_MODULES.get(p.lower(), ())) == 1 for p, _ in found):
                mod = 1.0  # a word only one device has ("headrest", "massage") names the device too
            elif field_score < 1.5:
                field_score *= 0.6  # a bare shared word ("brightness") without its device
        total = mod + field_score + (0.3 if mod and MODULE_DEFAULT.get(spec.module) == api else 0.0)
        if total > 0:
            scores[api] = total
    return scores


def _phrase_modules() -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for api, words in API_WORDS.items():
        for w in words:
            table.setdefault(w.lower(), set()).add(API_SPECS[api].module)
    for module in {s.module for s in API_SPECS.values()}:
        for w in module_words(module):
            table.setdefault(w.lower(), set()).add(module)
    return table


_PHRASE_MODULES = _phrase_modules()


def _top(scores: dict[str, float], n: int) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda kv: -kv[1])[:n]


# ---------------------------------------------------------------------- value reading
def extract_value(spec: ApiSpec, text: str, req: Request | None = None) -> Any:
    """The value of ``spec``'s setting stated in ``text`` (None when the text states none); see :func:`_extract`."""
    value = _extract_cached(spec.name, text)
    return dict(value) if isinstance(value, dict) else value


@lru_cache(maxsize=400_000)
def _extract_cached(api: str, text: str) -> Any:
    return _extract(API_SPECS[api], text)


def _extract(spec: ApiSpec, text: str, req: Request | None = None) -> Any:
    """The value of ``spec``'s setting stated in ``text`` (None when the text states none).

    Most settings have one value parameter and the value is returned as is; a few carry two
    parameters read together, returned as a ``{param: value}`` dict: a song and its artist
    (``'Slow Rivers' by Nina Vale``) and a route type (``navigate_to``'s ``route_preference``; the
    destination comes from the request).
    """
    vp = value_param(spec)
    if vp is None:
        return None
    if spec.name == "carcontrol_music_play_song":
        return _song_value(text)
    if spec.name == "carcontrol_navigation_navigate_to":
        route = _route_value(spec, text)
        if route is not None:
            return route
    if spec.name == "carcontrol_radio_play_station":
        return _station_value(text)
    if vp.py_type is int and (vp.constraint is None or vp.constraint.maximum is None):
        big = _big_number(text)
        if big is not None:
            return big
    if vp.py_type is int:
        return _int_value(spec, vp, text)
    if vp.py_type is bool:
        return _bool_value(spec, text)
    c = vp.constraint
    if c is not None and c.choices:
        if spec.name == "carcontrol_airConditioner_set_air_direction":
            return _air_direction(text)
        return _enum_value(spec, vp, text)
    return _free_text(spec, vp, text)


_CAP_RUN = re.compile(r"(?<![\w'’])((?:[A-Z][\w'’&-]*|\d[\w]*(?:\.\d+)?)(?:\s+(?:(?:of|the|and|de|la|in|on)\s+)?"
                      r"(?:[A-Z][\w'’&-]*|\d[\w]*(?:\.\d+)?|FM|AM))*)")
#: Capitalised words that start sentences or name things other than a value (lower case).
_NOT_VALUE = frozenset(
    "i i'm i've i'd i'll is imagine hypothetically the a an for my in at on it it's that this what when where who why "
    "how if but and so yes no not ok okay please remind honestly actually somebody someone funny hmm ugh wait sorry "
    "scratch perfect much much better note usually normally most by on one here keep forget since update new let's "
    "just you after whenever when we really ha years did does do can could would should put set play station radio "
    "fm am".split())


def _capitalised_phrases(text: str) -> list[tuple[int, str]]:
    """Runs of capitalised words or numbers ("Classic Rock 101"), without sentence-start filler words."""
    out = []
    for m in _CAP_RUN.finditer(text):
        words = m.group(1).split()
        start = m.start(1)
        while words and words[0].lower().strip(".'’") in _NOT_VALUE:
            start = text.find(words[0], start) + len(words[0])
            words = words[1:]
        while words and words[-1].lower() in ("of", "the", "and", "in", "on"):
            words = words[:-1]
        phrase = " ".join(words).rstrip(".")
        if phrase and phrase != "_" and not phrase.isdigit() and len(phrase) > 1:
            out.append((start, phrase))
    return out


def _station_value(text: str) -> str | None:
    """A radio station name: a capitalised run after "at/on/to/choosing/for" (or the line's only one)."""
    phrases = _capitalised_phrases(text)
    best: tuple[float, str] | None = None
    for start, phrase in phrases:
        pre = text[max(0, start - 14): start].lower()
        score = start / 1000.0 + (1.0 if re.search(r"\b(at|on|to|choosing|with|play|tune in to)\s*$", pre) else 0.0)
        post = text[start + len(phrase): start + len(phrase) + 12]
        score += 0.8 if re.match(r"\s+(for|is|it is)\b|,", post) else 0.0
        score += 0.3 * min(2, len(phrase.split()) - 1)
        if _REJECT.search(text[max(0, start - 20): start]):
            score -= 1.5
        if best is None or score > best[0]:
            best = (score, phrase)
    return best[1] if best else None


def _song_value(text: str) -> Any:
    """``{"song_name", "artist"}`` of ```'Title' by Artist```, else the quoted title alone (as a string)."""
    m = re.search(r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])\s+by\s+([A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*)*)",
                  text)
    if m:
        return {"song_name": m.group(1).strip(), "artist": m.group(2).strip()}
    m = re.search(r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])", text)
    return m.group(1).strip() if m else None


def _route_value(spec: ApiSpec, text: str) -> dict[str, str] | None:
    """``{"route_preference": ...}`` when the text names a route type (fastest, toll-free, ...)."""
    rp = next((p for p in spec.params if p.name == "route_preference"), None)
    if rp is None:
        return None
    value = _enum_value(spec, rp, text)
    return {"route_preference": value} if value is not None else None


def _big_number(text: str) -> int | None:
    """A large count (odometer readings: "56100", "56,100 km"), the last one in the text."""
    found = [int(m.group(0).replace(",", "")) for m in re.finditer(r"(?<![\w.:])\d{1,3}(?:,\d{3})+(?!\d)|(?<![\w.:])\d{4,7}(?!\d)", text)]
    found = [n for n in found if not 1900 <= n <= 2100] or found  # years are rarely readings
    return found[-1] if found else None


def _keyword_positions(spec: ApiSpec, text: str) -> list[int]:
    found = find_phrases(text, (*API_WORDS.get(spec.name, ()), *module_words(spec.module)))
    return [pos for _, pos in found]


def _int_value(spec: ApiSpec, vp: ParamSpec, text: str) -> int | None:
    c = vp.constraint
    lo = c.minimum if c and c.minimum is not None else 0
    hi = c.maximum if c and c.maximum is not None else 10**6
    if _MAX_WORDS.search(text) and hi < 10**6 and not numbers_in(text):
        return hi
    if _MIN_WORDS.search(text) and not numbers_in(text):
        return lo
    keys = _keyword_positions(spec, text)
    best: tuple[float, int] | None = None
    for n in numbers_in(text):
        if not lo <= n.value <= hi:
            continue
        if n.worded and n.value == 1 and re.match(r"one\b(?!\s*(level|notch|step))", text[n.start:], re.IGNORECASE):
            continue  # "one of", "this one"
        dist = min((abs(n.start - k) for k in keys), default=200)
        pre = text[max(0, n.start - 12): n.start].lower()
        score = -dist / 40.0 + (1.0 if re.search(r"\b(to|at|level|speed)\s*$", pre) else 0.0)
        score += n.start / 1000.0  # later in the line: the revised value
        post = text[n.start: n.start + 30].lower()
        if re.match(r"[\w\s°%]*?\b(?:(?:is|was|feels|felt)\s+(?:too|way too|overkill|a mistake|wrong|not it)\b"
                    r"|does nothing\b|isn't it\b|is not it\b)", post) \
                or re.match(r"[\d\s°c]*\)|[\d\s°c]*outside", post):
            score -= 2.0  # "level 3 is too strong", "20 degrees is overkill", "level 1 does nothing", "(20°C)"
        if best is None or score > best[0]:
            best = (score, n.value)
    if best is not None:
        return best[1]
    if _MAX_WORDS.search(text) and hi < 10**6:
        return hi
    if _MIN_WORDS.search(text):
        return lo
    return None


def _bool_value(spec: ApiSpec, text: str) -> bool | None:
    on = [m.start() for m in _ON.finditer(text)]
    off = [m.start() for m in _OFF.finditer(text)]
    if not on and not off:
        return None
    keys = _keyword_positions(spec, text)
    d_on = min((abs(a - k) for a in on for k in keys), default=999)
    d_off = min((abs(a - k) for a in off for k in keys), default=999)
    if d_on == d_off == 999:
        return bool(on) and not off
    return d_on <= d_off


def _enum_value(spec: ApiSpec, vp: ParamSpec, text: str) -> str | None:
    table = enum_spellings(spec, vp)
    mentions = []
    for phrase, canon in table.items():
        for m in phrase_pattern(phrase).finditer(text):
            mentions.append((m.start(), m.end(), canon))
    if not mentions:
        return None
    best: tuple[float, str] | None = None
    for start, end, canon in mentions:
        pre = text[max(0, start - 30): start]
        post = text[end: end + 12]
        score = start / 1000.0
        if _PREFER.search(pre):
            score += 1.0
        if _REJECT.search(pre) or re.match(r"\s+is\s+too\b", post):
            score -= 1.5
        if best is None or score > best[0]:
            best = (score, canon)
    return best[1] if best else None


def _air_direction(text: str) -> str | None:
    parts = []
    for part, words in (("face", ("face", "faces", "chest", "upper body")), ("feet", ("feet", "foot", "floor", "legs")),
                        ("window", ("window", "windows", "windshield", "windscreen"))):
        if find_phrases(text, words):
            parts.append(part)
    return "_".join(parts) if parts else None


def _free_text(spec: ApiSpec, vp: ParamSpec, text: str) -> str | None:
    if vp.name == "destination":
        m = re.search(r"\b(?:navigate|take me|take us|drive|go|head|heading|directions|route|going)\s+(?:back\s+)?to\s+"
                      r"(?:the\s+)?([^.,!?;'\"]{3,60})", text, re.IGNORECASE)
        if m:
            return m.group(1).strip()
        return None
    if vp.name in ("video_name", "song_name", "name"):
        m = re.search(r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])", text)
        if m:
            return m.group(1).strip()
        m = re.search(r"\b(?:play|watch|put on)\s+(?:the\s+|some\s+|a\s+|my\s+)?([A-Za-z][\w\s'-]{1,40}?)(?=[.,!?]|$| on\b| at\b| in\b)",
                      text, re.IGNORECASE)
        if m and m.group(1).strip().lower() not in ("video", "music", "song", "it", "that", "this"):
            return m.group(1).strip()
    return None


def request_destination(req: Request) -> str | None:
    """Where the request says the car is going ("was driving to Oakwood Stadium")."""
    m = re.search(r"\b(?:driving|drive|heading|going|on the way|on our way|on his way|on her way|taking \w+)\s+"
                  r"(?:back\s+)?to\s+(?:the\s+)?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)", req.text)
    return m.group(1).strip() if m else None


def request_value(api: str, req: Request) -> Any:
    """A value the request itself states for ``api`` ("at 1080p", "set it to 22", "take me to X")."""
    spec = API_SPECS[api]
    vp = value_param(spec)
    if vp is None:
        return None
    quote = " ".join(req.quotes) or req.text
    if vp.py_type is int:
        if req.delta is not None:
            return None
        m = re.search(r"\b(?:to|at)\s+(\d{1,3})\b(?!:)", quote)
        c = vp.constraint
        if m and c is not None and (c.minimum is None or int(m.group(1)) >= c.minimum) and (
                c.maximum is None or int(m.group(1)) <= c.maximum):
            return int(m.group(1))
        return None
    if vp.py_type is bool:
        return not (_OFF.search(quote) and not _ON.search(quote))
    if vp.constraint is not None and vp.constraint.choices:
        if spec.name == "carcontrol_airConditioner_set_air_direction":
            return None
        spell = enum_spellings(spec, vp)
        found = [(m.start(), canon) for phrase, canon in spell.items() for m in phrase_pattern(phrase).finditer(quote)]
        if len(found) == 1 or len({c for _, c in found}) == 1:
            return found[0][1]
        return None
    if vp.name == "destination" and not re.search(r"\b(usual|mentioned|that|same|again|last time|my)\b", quote):
        return _free_text(spec, vp, quote)
    if vp.name == "video_name":
        m = re.search(r"\bto watch (?:a |an |the |some )?([a-z][\w -]{1,30}?)(?=[.,]|$)", req.text)
        if m:
            return m.group(1).strip()
    return None


def selector_value(spec: ApiSpec, sel: ParamSpec, req: Request) -> str:
    choices = sel.constraint.choices if sel.constraint else ()
    quote = " ".join(req.quotes).lower()
    for word, canon in (("all", "all"), ("both", "both"), ("everyone", "all"), ("front", "front"), ("rear", "rear")):
        if canon in choices and re.search(rf"\b{word}\b", quote):
            return canon
    shared = ("_set_circulation", "_set_temperature", "airConditioner_set_mode", "_set_fan_speed", "_set_child_lock",
              "_set_auto_close_on_lock", "door_set_locked")
    if "all" in choices and spec.name.endswith(shared):
        return "all"
    if spec.module == "rearviewMirror":
        return "both"
    if req.seat in choices:
        return req.seat
    if req.seat.startswith("rear") and "rear" in choices:
        return "rear"
    return choices[0] if choices else "driver"


def clamp_to_param(value: int, vp: ParamSpec) -> int:
    """``value`` moved into the parameter's allowed integer range."""
    c = vp.constraint
    if c is not None and c.minimum is not None:
        value = max(c.minimum, value)
    if c is not None and c.maximum is not None:
        value = min(c.maximum, value)
    return value


def _mentions(hit: MemoryHit, person: str) -> bool:
    if any(same_person(p, person) for p in hit.people):
        return True
    return bool(re.search(rf"\b{re.escape(person.split()[0])}\b", hit.text))


_PREFERENCE = re.compile(r"\b(usually|always|prefer|preferred|favorite|favourite|standard|normally|every time|whenever|"
                         r"i like|i love|my usual|remember)\b", re.IGNORECASE)


def hit_body(hit: MemoryHit, speakers: Sequence[str]) -> str:
    """A hit's text without the speaker prefix and without people's names ("Kimberly Green" is no colour)."""
    return hit_body_cached(hit.text, tuple(hit.people), tuple(speakers))


@lru_cache(maxsize=200_000)
def hit_body_cached(text: str, people: tuple[str, ...], speakers: tuple[str, ...]) -> str:
    hit = MemoryHit(entry_id="", text=text, score=0.0, timestamp=None, people=people)
    for name in (*hit.people, *speakers):
        if text.startswith(name + ":"):
            text = text[len(name) + 1:]
            break
    for name in speakers:
        for part in name.split():
            text = re.sub(rf"\b{re.escape(part)}\b", "_", text)
    return text


STOP_WORDS = frozenset(
    "the and that this with for you your have what when then than there they them their about just like want need "
    "make keep told said asked car back again usual time last setting settings please could would should into from "
    "driving drove driver seat passenger got going were was been being it's i'm let's also some more very really "
    "today tonight morning evening".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased words of 4+ letters that are not function words (for overlap scores)."""
    return {w for w in re.findall(r"[a-z][a-z'’]{3,}", text.lower()) if w not in STOP_WORDS}


def same_person(a: str, b: str) -> bool:
    return a.lower() == b.lower() or a.split()[0].lower() == b.split()[0].lower()
