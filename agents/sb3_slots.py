"""The slot (pointer) design of the SB3 bridge: a small action space over *candidate* calls.

The actions name slots (the k-th candidate API of the request, the k-th candidate value read
from the memory hits for that API, the k-th seat or zone), resolved into a concrete call for the
episode at hand; per-slot features let one shared scorer learn which slot is right across
households. Candidates and their ranking come from the rules baseline (:mod:`agents.rules`,
:mod:`agents.vocabulary`), which is why this design lives in ``agents`` and not in the library:
``vmb_gym.wrappers`` keeps the scenario-free parts (the flat call catalogue, text features).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.api import ApiSpec
from vmb_gym.wrappers.catalogue import EpisodeText, call_key
from vmb_gym.wrappers.features import _WORD
from vmb_gym.wrappers.sb3 import _algo_class, _paths

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
N_MEMORY_VALUES = 8
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

#: Minutes within which a line by the same speaker continues the previous line's setting ("Too low. Make
#: it 35 percent instead." one minute after "Let's try the seat position at 15 percent.").
FOLLOW_MINUTES = 10
#: The follow-up query words that find a speaker's corrections of the line before.
CORRECTION_WORDS = "too low high much little instead actually make it bump dial back mistake meant"
#: Follow-up memory queries (second search round) and hits per follow-up query.
N_FOLLOWUPS = 6
FOLLOWUP_K = 8
#: Kinship and relation words a request uses for a person who is not a speaker ("my grandmother").
RELATIONS = ("grandmother", "grandfather", "grandma", "grandpa", "mother", "father", "mom", "mum", "dad", "sister",
             "brother", "aunt", "uncle", "cousin", "nephew", "niece", "son", "daughter", "wife", "husband", "partner",
             "best friend", "old roommate", "roommate", "friend", "colleague", "coworker", "neighbour", "neighbor",
             "boss", "godmother", "godfather", "godson", "goddaughter", "godchild", "stepmother", "stepfather",
             "mother-in-law", "father-in-law",
             "sister-in-law", "brother-in-law", "grandson", "granddaughter", "fiancé", "fiancee", "girlfriend",
             "boyfriend", "classmate", "teammate", "mentor", "flatmate", "landlord", "babysitter", "nanny")
_RELATION_RE = re.compile(r"\b(?:my|his|her|their|\w+'s|\w+’s)\s+((?:best |old )?(?:" +
                          "|".join(sorted({r.split()[-1] for r in RELATIONS}, key=len, reverse=True)) + r"))\b", re.I)
#: Hashed words of a value's representative line (one feature block of a value slot).
N_LINE_HASH = 32
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
    follows: bool = False  # some mention continues an earlier line by the same speaker (a correction)
    rep_target: bool = False  # the representative line is by the target person
    relative: bool = False  # some mention names the relative the request speaks of ("For Joanna, ...")
    request_overlap: float = 0.0  # content words (not setting words) shared with the request, best mention
    latest_clean_target: bool = False  # its latest clean target mention is the latest clean target mention
    latest_clean_any: bool = False  # ... the latest clean mention by anyone
    clean_target_mentions: int = 0
    names_passenger: bool = False  # some mention names another person of the request (a passenger)
    line_hash: Any = None  # hashed words of the representative line (np.ndarray)
    context_overlap: float = 0.0  # word stems shared with the request's situation (outside the quote), best mention
    conditional: bool = False  # some mention states a conditional rule ("when it rains", "one exception")
    cond_match: bool = False  # ... a conditional mention that shares a stem with the request's situation
    cond_miss: bool = False  # ... a conditional mention that shares none
    default_line: bool = False  # some mention states the everyday default ("on an ordinary drive")
    other_cond_match: bool = False  # another value of the API has a matching conditional mention
    # the learned line prior (agents.line_prior; 0 without one): P(a mention states a real preference)
    prior_target: float = 0.0  # best mention by the target person
    prior_other: float = 0.0  # best mention by someone else
    prior_latest_target: bool = False  # holds the target's latest genuine mention of the API
    prior_latest_any: bool = False  # ... the latest genuine mention by anyone
    prior_margin: float = 0.0  # prior_target minus the best prior_target of the API's other values
    # the learned API prior read on the value's lines: is the line about this setting at all? (retrieval
    # also brings "the head restraint height at 40" to a request for the foot support height)
    setting_prob: float = 0.0  # best P(this API | line) over the value's mentions by the target
    setting_latest_target: bool = False  # holds the target's latest genuine mention among lines about this API
    reason_overlap: float = 0.0  # the quote's reason words ("I've caught the flu again") in a target mention, above
    # the API's least overlapping mention (words every mention shares, the setting's name, cancel out)


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
    followups: list[str] = field(default_factory=list)  # the second search round's queries
    relatives: list[str] = field(default_factory=list)  # names of the relatives the request speaks of
    features: Any = field(default=None, repr=False, compare=False)  # the featuriser's cache of static rows
    calls: Any = field(default=None, repr=False, compare=False)  # resolved calls of the call slots (cache)


def parse_memory_text(text: str, speakers: Sequence[str] = ()) -> list[Any]:
    """``search_memory`` result text back into :class:`~vmb_gym.memory.MemoryHit` objects."""
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
        api_examples: ``(request wording, API)`` pairs of training tasks (see :meth:`examples_from_tasks`).
        companion_examples: ``(routine clause, API)`` pairs of training tasks (see
            :meth:`companion_examples_from_scenarios`).
        line_prior: a :class:`agents.line_prior.LinePrior` fitted on the training split (the ``prior_*``
            value features stay 0 without one).
        context: neighbouring lines each search shows around a hit (``search_memory``'s
            ``context``): a correction or an exception said right after the line that names the
            setting rarely names it again.
    """

    kind = "slots"

    def __init__(self, top_k: int = 20, n_queries: int = 4,
                 api_examples: Sequence[tuple[str, str]] | None = None, line_prior: Any = None,
                 companion_examples: Sequence[tuple[str, str]] | None = None, context: int = 0) -> None:
        self.top_k = top_k
        self.context = context
        self.line_prior = line_prior
        self.n_queries = n_queries
        self.n = N_SLOT_ACTIONS
        self._cache: dict[tuple[str, str], SlotAnalysis] = {}
        self._scores_cache: dict[str, dict[str, float]] = {}
        self.api_examples = [(str(t), str(a)) for t, a in (api_examples or ())]
        self.companion_examples = [(str(t), str(a)) for t, a in (companion_examples or ())]
        self._prior = _text_classifier(self.api_examples)
        self._companion_prior = _text_classifier(self.companion_examples)

    @staticmethod
    def companion_examples_from_scenarios(scenarios: Iterable[Any]) -> list[tuple[str, str]]:
        """``(routine clause, its gold API)`` pairs of training tasks ("the left indicator switched on").

        A task whose evidence lines hold exactly one routine clause ("Oh, and ... too") pairs it
        with its last gold call's function name; only training scenarios' gold names are used.
        """
        out = []
        for s in scenarios:
            by_id = {line.line_id: line for line in s.lines}
            for q in s.queries:
                if len(q.gold_calls) < 2:
                    continue
                clauses = [c for i in q.evidence_line_ids if i in by_id and (c := _companion_clause(by_id[i].text))]
                if len(clauses) == 1:
                    out.append((clauses[0], q.gold_calls[-1].name))
        return out

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
        """The function a short routine phrase names ("the sunroof lock locked").

        With companion examples, the learned classifier's answer when it is confident (at least
        :data:`COMPANION_CONFIDENCE`); otherwise only functions with a boolean value compete
        (routine add-ons are mostly switches), each scored by the vocabulary and by the stems it
        shares with its function and module names.
        """
        if self._companion_prior is not None:
            probs = self._companion_prior.predict_proba([phrase])[0]
            best = int(np.argmax(probs))
            if probs[best] >= COMPANION_CONFIDENCE:
                return str(self._companion_prior.classes_[best])
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
        from agents.rules import api_text, read_request, score_apis

        req = read_request(request, speakers)
        scores = dict(score_apis(api_text(req)))
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
        return {"kind": self.kind, "top_k": self.top_k, "n_queries": self.n_queries, "context": self.context,
                "layout": [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS], "api_examples": self.api_examples,
                "companion_examples": self.companion_examples,
                "line_prior": self.line_prior.to_json() if self.line_prior is not None else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SlotCatalogue:
        """Restore a catalogue written by :meth:`to_json`."""
        layout = list(data.get("layout", []))
        if layout != [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]:
            raise ConfigError(f"slot layout {layout} differs from this version's "
                              f"{[N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]}")
        from agents.line_prior import LinePrior

        prior = data.get("line_prior")
        return cls(top_k=int(data.get("top_k", 20)), n_queries=int(data.get("n_queries", 4)),
                   api_examples=[tuple(x) for x in data.get("api_examples", [])],
                   companion_examples=[tuple(x) for x in data.get("companion_examples", [])],
                   line_prior=LinePrior.from_json(prior) if prior else None, context=int(data.get("context", 0)))

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
        policy._memory_searches = 0  # the per-episode counters RulesPolicy.reset() sets
        policy._memory_hits = []
        req = read_request(request, speakers)
        scenario = _SpeakersOnly(speakers)
        policy._search(req, self.api_scores(request, speakers), scenario, as_of=_NOW)  # type: ignore[arg-type]
        return list(dict.fromkeys(rec.queries))[: self.n_queries]

    def search_action(self, episode: EpisodeText, speakers: Sequence[str]) -> list[dict[str, Any]]:
        """The search step: one ``search_memory`` call per query.

        The first round runs the rules baseline's queries (plus "my grandmother" when the request
        speaks of a relative); the second round runs the follow-up queries the first round's hits
        suggest (see :func:`_followup_queries`).
        """
        if search_rounds(episode) == 0:
            queries = self.search_queries(episode.request, speakers)
            rel = relation_words(episode.request)
            queries += [f"my {r}" for r in rel if f"my {r}" not in queries]
            return [self._search_call(q, self.top_k) for q in queries]
        analysis = self.analyse(episode, speakers)
        return [self._search_call(q, FOLLOWUP_K) for q in analysis.followups] or [
            self._search_call(episode.request, self.top_k)]

    def _search_call(self, query: str, top_k: int) -> dict[str, Any]:
        arguments: dict[str, Any] = {"query": query, "top_k": top_k}
        if self.context:
            arguments["context"] = self.context
        return {"name": "search_memory", "arguments": arguments}

    # ------------------------------------------------------------------ analysis
    def analyse(self, episode: EpisodeText, speakers: Sequence[str]) -> SlotAnalysis:
        """The slots of the episode's current state (cached per request and hits)."""
        key = (episode.request, "\n".join(episode.hits))
        cached = self._cache.get(key)
        if cached is None:
            cached = _analyse(episode.request, episode.hits, speakers, episode.searched,
                              self.api_scores(episode.request, speakers), self.classify,
                              followups=search_rounds(episode) == 1, line_prior=self.line_prior,
                              setting_prior=self._prior)
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
                if isinstance(value, dict) and v >= N_MEMORY_VALUES:
                    return None
                if v >= N_MEMORY_VALUES:  # the relative-change copy
                    if not (analysis.delta and vp is not None and vp.py_type is int and isinstance(value, int)
                            and not isinstance(value, bool)):
                        return None
                    from agents.rules import clamp_to_param

                    value = clamp_to_param(value + analysis.delta, vp)
            if isinstance(value, dict):
                args = dict(value)
                if name == "carcontrol_navigation_navigate_to" and "destination" not in args:
                    from agents.rules import request_destination

                    dest = request_destination(analysis.request)
                    if dest is None:
                        return None
                    args["destination"] = dest
            else:
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
        rounds = search_rounds(episode)
        if memory_search and (rounds == 0 or (rounds == 1 and analysis.followups)):
            mask[SLOT_SEARCH] = True
            return mask  # look before acting (and follow up what the first look found)
        mask[SLOT_FINISH] = True
        if analysis.calls is None:
            analysis.calls = [None, None] + [self.resolve(i, analysis) for i in range(2, self.n)]
            analysis.calls = [(c, call_key(c["name"], c["arguments"])) if c else None for c in analysis.calls]
        seen: set[str] = set()
        made_apis = set(episode.made_names)
        for i in range(2, self.n):
            entry = analysis.calls[i]
            if entry is None or entry[0]["name"] in made_apis:
                continue
            key = entry[1]
            if key in seen or key in episode.made:
                continue  # one index per distinct call
            seen.add(key)
            mask[i] = True
        return mask


class _SpeakersOnly:
    scenario_id = None

    def __init__(self, speakers: Sequence[str]) -> None:
        self.speakers = tuple(speakers)


_NOW = datetime(2100, 1, 1)


PRIOR_NEIGHBOURS = 3
PRIOR_WEIGHT = 3.0
#: The learned companion classifier's answer is taken from this probability on.
COMPANION_CONFIDENCE = 0.5


def _text_classifier(examples: Sequence[tuple[str, str]]) -> Any:
    """A TF-IDF (1-3 grams) logistic regression of ``(text, label)`` pairs; None with fewer than 2 labels."""
    if len({a for _, a in examples}) < 2:
        return None
    import warnings

    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, min_df=1),
                          LogisticRegression(C=20.0, max_iter=2000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # many classes, few examples each: sklearn warns
        model.fit([t for t, _ in examples], [a for _, a in examples])
    return model


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


@dataclass
class SlotEpisodeText(EpisodeText):
    """:class:`~vmb_gym.wrappers.catalogue.EpisodeText` that also counts the memory search rounds."""

    search_rounds: int = 0

    def on_reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start over (no search round yet)."""
        super().on_reset(observation, info)
        self.search_rounds = 0

    def on_step(self, observation: str, info: Mapping[str, Any]) -> None:
        """Record the step; a step with ``search_memory`` calls is one search round."""
        super().on_step(observation, info)
        if any(rec.get("name") == "search_memory" for rec in info.get("calls") or ()):
            self.search_rounds += 1


def search_rounds(episode: EpisodeText) -> int:
    """Memory search rounds of the episode so far (a plain EpisodeText knows only whether it searched)."""
    return int(getattr(episode, "search_rounds", int(episode.searched)))


def relation_words(request: str) -> list[str]:
    """Relations the request speaks of ("my grandmother", "Lena's sister"), lower case, in order."""
    from agents.rules import read_request

    body = read_request(request, ()).text
    return list(dict.fromkeys(m.group(1).lower() for m in _RELATION_RE.finditer(body)))


_NAME = r"([A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)"


def relative_names(relations: Sequence[str], hit_texts: Iterable[str], speakers: Sequence[str]) -> list[str]:
    """Names the hits give the request's relations ("Joanna, my grandmother, is visiting" -> Joanna)."""
    found: list[str] = []
    firsts = {p.split()[0] for p in speakers if p.split()}
    for rel in relations:
        r = re.escape(rel)
        pats = (re.compile(rf"{_NAME},\s+(?:my|our)\s+{r}\b"), re.compile(rf"\b(?:my|our)\s+{r},?\s+{_NAME}"))
        for text in hit_texts:
            for pat in pats:
                for m in pat.finditer(text):
                    name = m.group(1).split()[0]
                    if name not in firsts and name not in ("The", "My", "Our") and name not in found:
                        found.append(name)
    return found


def _line_hash(body: str) -> np.ndarray:
    """Hashed words and word pairs of a line (numbers and names masked), L2-normalised."""
    import zlib

    words = re.findall(r"[a-z']+|\d+|[?!]", re.sub(r"\d+", "0", body.lower()))
    vec = np.zeros(N_LINE_HASH, dtype=np.float32)
    for tok in [*words, *(a + " " + b for a, b in zip(words, words[1:]))]:
        h = zlib.crc32(tok.encode())
        vec[h % N_LINE_HASH] += 1.0 if (h >> 16) & 1 else -1.0
    n = float(np.linalg.norm(vec))
    return vec / n if n > 0 else vec


def _render_value(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values())
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value).replace("_", " ")


#: A line that states a conditional rule, and one that states the everyday default.
_CONDITIONAL = re.compile(r"\b(when|whenever|if|unless|exception|except|different|on rainy|at night|after dark|"
                          r"in the rain|on the way|through|rides? with)\b", re.IGNORECASE)
_DEFAULT_LINE = re.compile(r"\b(ordinary|everyday|most of the time|usually|normally|default|regular|typical|"
                           r"by default|day to day|otherwise|in general|generally)\b", re.IGNORECASE)
_SITUATION_STOP = {"driv", "seat", "sat", "fron", "rear", "left", "righ", "pass", "said", "aske", "alon", "was",
                   "were", "with", "the", "and", "into", "from", "that", "this", "then", "car", "outs"}


#: Stems that name the same situation ("after dark" / "at night" / "in the evening").
_STEM_ALIAS = {"dark": "nigh", "even": "nigh", "dusk": "nigh", "toni": "nigh", "pour": "rain", "stor": "rain",
               "driz": "rain", "show": "rain", "dayl": "day", "sunn": "day", "brig": "day"}


def _stems(text: str) -> set[str]:
    """Four-letter stems of a text's content words ("raining" and "rain" share "rain")."""
    from agents.rules import content_words

    return {_STEM_ALIAS.get(w[:4], w[:4]) for w in content_words(text)}


def _situation_stems(request: str, speakers: Sequence[str], setting_words: set[str], target: str = "") -> set[str]:
    """Stems of the request's situation: its words outside the spoken quote, without the setting's words,
    the speaker prefix words and seat words (names of other people stay: "when Hugo rides with me")."""
    m = re.search(r"\b(?:said|asked|says|asks|told [A-Z]\w*)\s*:?\s*['\"‘“]", request)
    context = request[:m.start()] if m else ""
    own = {w.lower()[:4] for w in target.split()}  # the speaker's own name (a vocative in a line is no condition)
    return _stems(context) - {w[:4] for w in setting_words} - _SITUATION_STOP - own


def _analyse(request: str, hit_texts: Sequence[str], speakers: Sequence[str], searched: bool,
             req_scores: dict[str, float], classify: Any = None, followups: bool = False,
             line_prior: Any = None, setting_prior: Any = None) -> SlotAnalysis:
    """Read the request, pool the hits, rank APIs and values the way the rules baseline does.

    On top of the rules' reading: a line by the same speaker within :data:`FOLLOW_MINUTES` of a
    line that names a setting continues that setting (corrections rarely repeat the setting's
    name), and ``followups`` (after the first search round) asks for the second round's queries.
    ``line_prior`` (a :class:`agents.line_prior.LinePrior`) scores every mention for the value features;
    ``setting_prior`` (the catalogue's learned API prior) tells which setting each mention is about.
    """
    from agents.rules import (
        OPPOSITE,
        Candidate,
        RulesPolicy,
        content_words,
        hit_body,
        request_value,
        same_person,
        selector_value,
        conditions_in,
        extract_value,
        read_request,
    )
    from agents.vocabulary import enable_api, selector_param, value_param

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
    # conversation continuity: "Too low. Make it 35 percent instead." continues the line before it
    by_source: dict[str, list[Any]] = {}
    for c in cands:
        by_source.setdefault(c.source, []).append(c)
    timed = sorted((h for h in hits if h.timestamp is not None and h.people), key=lambda h: h.timestamp)
    follow_src: set[str] = set()
    extra: list[Any] = []
    for j, h in enumerate(timed):
        own = {c.api for c in by_source.get(h.render(), ())}
        for h0 in reversed(timed[:j]):
            dt = (h.timestamp - h0.timestamp).total_seconds()
            if dt > 60 * FOLLOW_MINUTES:
                break
            if dt <= 0 or h0.people != h.people:
                continue
            body = hit_body(h, speakers)
            for c0 in by_source.get(h0.render(), ()):
                if c0.api in own:
                    continue
                value = extract_value(API_SPECS[c0.api], body, req)
                if value is None:
                    continue
                own.add(c0.api)
                extra.append(Candidate(c0.api, value, c0.score + 0.5, h.render()))
                follow_src.add(h.render())
    if extra:
        cands = sorted(cands + extra, key=lambda c: -c.score)
    relations = relation_words(request)
    relatives = relative_names(relations, (h.text for h in hits), speakers) if relations else []
    rel_pats = [re.compile(rf"\b{re.escape(n)}\b") for n in relatives]
    others = [p for p in req.people if not (req.target and same_person(p, req.target))]
    other_pats = [re.compile(rf"\b{re.escape(p.split()[0])}\b") for p in others]
    req_words = content_words(req.text) - content_words(_prior_text(req)) - {
        w.lower() for p in speakers for w in p.split()}
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

    setting_words = content_words(_prior_text(req))
    situation = _situation_stems(request, speakers, setting_words, req.target or "")

    def value_slots(api: str) -> list[ValueSlot]:
        mine = [c for c in cands if c.api == api]
        # lines the vocabulary does not tie to the function but that share the request's setting words
        # ("how far the frunk opens at 85 percent"): their values join, ranked below the rules' own
        used = {c.source for c in mine}
        floor = min((c.score for c in mine), default=2.0 * req_scores.get(api, 0.0)) - 1.0
        for h in hits:
            if h.render() in used or not setting_words:
                continue
            body = hit_body(h, speakers)
            overlap = len(setting_words & content_words(body))
            if overlap == 0:
                continue
            value = extract_value(API_SPECS[api], body, req)
            if value is not None:
                mine.append(Candidate(api, value, floor + 0.3 * overlap, h.render()))
        latest_any = max((by_render[c.source].timestamp for c in mine if by_render[c.source].timestamp), default=None)
        target_times = [by_render[c.source].timestamp for c in mine
                        if _said_by(by_render[c.source], req.target)
                        and by_render[c.source].timestamp]
        latest_target = max(target_times, default=None)

        def clean_line(h: Any) -> bool:
            body = hit_body(h, speakers)
            return not any(LINE_CUES[k].search(body) for k in ("hypothetical", "elsewhere", "question"))

        clean_times = [by_render[c.source].timestamp for c in mine
                       if by_render[c.source].timestamp and clean_line(by_render[c.source])]
        latest_clean_any = max(clean_times, default=None)
        latest_clean_target = max((by_render[c.source].timestamp for c in mine
                                   if req.target and by_render[c.source].timestamp
                                   and _said_by(by_render[c.source], req.target)
                                   and clean_line(by_render[c.source])), default=None)
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
                is_target = _said_by(h, req.target)
                slot.follows |= c.source in follow_src
                slot.relative |= any(p.search(h.text) for p in rel_pats)
                slot.names_passenger |= any(p.search(h.text.split(":", 1)[-1]) for p in other_pats)
                slot.request_overlap = max(slot.request_overlap,
                                           float(len(req_words & content_words(hit_body(h, speakers)))))
                slot.mentions += 1
                slot.sources.append(c.source)
                slot.target_mentions += is_target
                slot.other_mentions += bool(h.people) and not is_target
                if h.timestamp is not None:
                    slot.recency = max(slot.recency, rank_of_time.get(h.timestamp, 0.0))
                    slot.latest_any |= h.timestamp == latest_any
                    slot.latest_target |= is_target and h.timestamp == latest_target
                body = hit_body(h, speakers)
                cond = conditions_in(body)
                if h.timestamp is not None and not cond & {"night", "day"}:
                    cond.add("night" if h.timestamp.hour >= 19 or h.timestamp.hour < 5 else "day")
                slot.conditions = max(slot.conditions, float(len(req.conditions & cond)))
                slot.opposite = max(slot.opposite, float(len({OPPOSITE.get(x) for x in req.conditions} & cond)))
                cues = {k: float(bool(p.search(body))) for k, p in LINE_CUES.items()}
                if is_target and not (cues["hypothetical"] or cues["elsewhere"] or cues["question"]):
                    slot.clean = True
                    slot.clean_target_mentions += 1
                    if h.timestamp is not None and h.timestamp == latest_clean_target:
                        slot.latest_clean_target = True
                if h.timestamp is not None and h.timestamp == latest_clean_any and not (
                        cues["hypothetical"] or cues["elsewhere"] or cues["question"]):
                    slot.latest_clean_any = True
                # the representative mention: the latest by the target, else the latest
                order = (is_target, h.timestamp or _NOW.replace(year=1900))
                if rep is None or order > rep[0]:
                    rep = (order, cues, c.source)
            if rep is not None:
                slot.cues, slot.source = rep[1], rep[2]
                slot.rep_target = rep[0][0]
                slot.line_hash = _line_hash(hit_body(by_render[rep[2]], speakers))
            values.append(slot)
        # the request's situation (outside the quote: weather, light, passengers, route, errand) against
        # each mention: conditional rules whose condition words occur in the situation
        for v in values:
            for src in v.sources:
                body = hit_body(by_render[src], speakers)
                shared = len(situation & _stems(body))
                v.context_overlap = max(v.context_overlap, float(shared))
                if _CONDITIONAL.search(body):
                    v.conditional = True
                    v.cond_match |= shared > 0
                    v.cond_miss |= shared == 0
                v.default_line |= bool(_DEFAULT_LINE.search(body))
        for v in values:
            v.other_cond_match = any(w.cond_match for w in values if w is not v)
        _reason_features(values, by_render, speakers, req)
        genuine = _prior_features(values, by_render, speakers, req.target, line_prior) \
            if line_prior is not None and values else None
        if setting_prior is not None and values:
            _setting_features(api, values, by_render, speakers, req.target, setting_prior, genuine)
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
            first = selector_value(spec, sel, req) if sel is not None else ""
        return ApiSlot(api=api, request_score=req_scores.get(api, 0.0), best_score=best_cand.get(api, 0.0),
                       passes=passes(api), rules_choice=api == rules_api, values=values,
                       targets=_selector_choices(spec, first, request, req.seat), explicit=request_value(api, req),
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
                    first = selector_value(cspec, sel, req)
                slot = comp[capi] = api_slot(capi, [], first, companion=True)
            if len(slot.values) < N_MEMORY_VALUES and all(v.value != cval for v in slot.values):
                slot.values.append(dataclasses.replace(val, value=cval, cues=dict(val.cues)))
        apis.extend(list(comp.values())[:N_COMPANION_SLOTS])
        for api in ranked[1:]:
            if len(apis) >= N_API_SLOTS:
                break
            if all(a.api != api for a in apis):
                apis.append(api_slot(api, value_slots(api)))
    queries = _followup_queries(req, apis, by_render, relatives, speakers) if followups else []
    return SlotAnalysis(request=req, apis=apis, delta=req.delta, n_hits=len(hits), searched=searched,
                        followups=queries, relatives=relatives)


#: Request wording that is no reason ("put it back to", "the way I had it back then").
_NO_REASON = re.compile(r"\bback (?:to|then|in)\b|\bthe way\b|\bat that time\b|\bfrom then\b", re.I)
_REQUEST_WORDS = frozenset("set way had old put used like likes right usual routine whole rest adjust fix sort get "
                           "can could you for the and with that what then from have let preference prefer prefers "
                           "level percent degrees how far high much know before here his her him she sits where "
                           "came along".split())


@functools.lru_cache(maxsize=1)
def _setting_stems() -> frozenset[str]:
    """Stems of every word the vocabulary uses to name a module or a function ("boot", "trunk", "opening")."""
    from agents.vocabulary import API_WORDS, MODULE_WORDS

    phrases = [p for group in (*API_WORDS.values(), *MODULE_WORDS.values()) for p in group]
    phrases += [re.sub(r"([a-z])([A-Z])", r"\1 \2", api[len("carcontrol_"):]).replace("_", " ") for api in API_SPECS]
    return frozenset(w[:4] for p in phrases for w in re.findall(r"[a-z]{3,}", p.lower()))


def _reason_words(text: str) -> set[str]:
    """Four-letter stems of the words of a text that give a reason ("flu", "back", "shoulder", "baby"):
    words of 3+ letters, without function words, request wording and the vocabulary's setting words."""
    from agents.rules import STOP_WORDS

    text = _NO_REASON.sub(" ", _RELATION_RE.sub(" ", text).lower())  # "my goddaughter" is who, not why
    words = {w for w in re.findall(r"[a-z]{3,}", text) if (w not in STOP_WORDS or w == "back") and w not in _REQUEST_WORDS}
    setting = _setting_stems()
    return {w[:4] for w in words if w == "back" or w[:4] not in setting}  # "my back" is a reason, "backrest" no


def _said_by(hit: Any, person: str | None) -> bool:
    """Whether a memory hit is a line of ``person`` (first names match: "Julian" is "Julian Abbott")."""
    from agents.rules import same_person

    return bool(person) and any(same_person(p, person) for p in hit.people)


def _reason_features(values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                     req: Any) -> None:
    """``reason_overlap``: a request that names why ("my back is acting up again") against each target mention."""
    from agents.rules import hit_body

    reason = _reason_words(_prior_text(req))
    if not reason or not values:
        return
    overlap: dict[str, int] = {}
    for v in values:
        for src in v.sources:
            overlap.setdefault(src, len(reason & _reason_words(hit_body(by_render[src], speakers))))
    floor = min(overlap.values())
    for v in values:
        for src in v.sources:
            h = by_render[src]
            if _said_by(h, req.target):
                v.reason_overlap = max(v.reason_overlap, float(overlap[src] - floor))


def _prior_features(values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                    target: str | None, line_prior: Any) -> dict[str, float]:
    """Fill the ``prior_*`` fields of an API's values from the line prior's score of each mention;
    returns the score of each mention (rendered line -> probability)."""
    from agents.line_prior import GENUINE
    from agents.rules import hit_body

    rows = []  # (value index, is target, timestamp, probability)
    hits = [(k, by_render[src]) for k, v in enumerate(values) for src in v.sources]
    probs = line_prior.many([hit_body(h, speakers) for _, h in hits])
    for (k, h), p in zip(hits, probs, strict=True):
        is_target = _said_by(h, target)
        rows.append((k, is_target, h.timestamp, p))
        v = values[k]
        if is_target:
            v.prior_target = max(v.prior_target, p)
        elif h.people:
            v.prior_other = max(v.prior_other, p)
    genuine = [r for r in rows if r[3] >= GENUINE and r[2] is not None]
    latest_any = max((r[2] for r in genuine), default=None)
    latest_target = max((r[2] for r in genuine if r[1]), default=None)
    for k, is_target, when, p in genuine:
        values[k].prior_latest_any |= when == latest_any
        values[k].prior_latest_target |= is_target and when == latest_target
    for v in values:
        rival = max((w.prior_target for w in values if w is not v), default=0.0)
        v.prior_margin = v.prior_target - rival
    return {h.render(): float(p) for (_, h), p in zip(hits, probs, strict=True)}


def _setting_features(api: str, values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                      target: str | None, setting_prior: Any, genuine: Mapping[str, float] | None) -> None:
    """Fill ``setting_prob`` and ``setting_latest_target``: the API prior (request wording -> API) read on
    each mention by the target, and the latest genuine one among the mentions it ties to ``api``
    (``genuine``: the line prior's score of each mention, from :func:`_prior_features`; None: all count)."""
    from agents.line_prior import GENUINE
    from agents.rules import hit_body

    classes = list(setting_prior.classes_)
    if api not in classes:
        return
    col = classes.index(api)
    hits = [(k, by_render[src]) for k, v in enumerate(values) for src in v.sources]
    hits = [(k, h) for k, h in hits if _said_by(h, target)]
    if not hits:
        return
    bodies = [hit_body(h, speakers) for _, h in hits]
    probs = setting_prior.predict_proba(bodies)
    latest: tuple[Any, int] | None = None
    for (k, h), row in zip(hits, probs, strict=True):
        p = float(row[col])
        values[k].setting_prob = max(values[k].setting_prob, p)
        real = genuine is None or genuine[h.render()] >= GENUINE
        if p >= 0.5 and real and h.timestamp is not None and (latest is None or h.timestamp > latest[0]):
            latest = (h.timestamp, k)
    if latest is not None:
        values[latest[1]].setting_latest_target = True


def _followup_queries(req: Any, apis: Sequence[ApiSlot], by_render: Mapping[str, Any], relatives: Sequence[str],
                      speakers: Sequence[str]) -> list[str]:
    """The second search round: the relatives' names with the setting words, the target's corrections
    ("Too low. Make it 35 percent instead." continues the line before it), and "speaker + value" of the
    target's lines for the best API (a correction names the value it corrects: "95 percent was too much")."""

    setting = " ".join(_prior_text(req).split()[:8])
    out = [f"{name} {setting}".strip() for name in relatives]
    if req.target:  # a correction that names neither the setting nor the old value ("Too low. Make it 35 instead.")
        out.append(f"{req.target} {CORRECTION_WORDS}")
    if apis:
        mentions = []
        for val in apis[0].values:
            for src in val.sources:
                h = by_render.get(src)
                if h is None or not h.people:
                    continue
                if req.target and not _said_by(h, req.target):
                    continue
                mentions.append((h.timestamp or _NOW, f"{h.people[0]} {_render_value(val.value)}"))
        for _, q in sorted(mentions, reverse=True):
            if q not in out:
                out.append(q)
    return out[:N_FOLLOWUPS]


class SlotActionWrapper(gym.Wrapper[Any, np.int64, Any, Any]):
    """``VehicleMem-v0`` with the slot action space: ``Discrete(N_SLOT_ACTIONS)`` plus ``action_masks()``.

    Observations stay the env's text; :class:`~vmb_gym.wrappers.features.SlotFeatureWrapper`
    turns them into slot features. ``self.analysis`` is the current :class:`SlotAnalysis`.

    Args:
        env: a ``VehicleMem-v0`` env.
        catalogue: the slot catalogue (default: no learned API prior).
        f1_weight: when set, the final reward is ``exact_match + f1_weight * f1_change`` (the
            env's own reward otherwise).
    """

    def __init__(self, env: gym.Env[Any, Any], catalogue: SlotCatalogue | None = None, *,
                 f1_weight: float | None = None) -> None:
        super().__init__(env)
        self.f1_weight = f1_weight
        base = env.unwrapped
        self._memory_search = bool(getattr(getattr(base, "memory", None), "provides_search", False))
        self.catalogue = catalogue or SlotCatalogue()
        self.action_space = spaces.Discrete(self.catalogue.n)
        self.episode = SlotEpisodeText()
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
        metrics = info.get("metrics")
        if self.f1_weight is not None and metrics is not None:
            # exact state match plus a little value-level F1: F1 alone pays for extra guesses
            reward = float(metrics.get("exact_match", 0.0)) + self.f1_weight * float(metrics.get("f1_change", 0.0))
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


# ============================================================================ slot features
#: Per-action feature blocks of :class:`SlotFeaturizer` (see its docstring).
_KIND, _GLOBAL, _API, _TARGET = 3, 8, 14, 16
_VALUE_EXTRA = 25
_TARGET_NAMES = ("driver", "passenger", "rear_left", "rear_right", "front", "rear", "all", "left", "right", "both")
_ROUTINE = re.compile(r"\broutine\b", re.IGNORECASE)


class SlotFeaturizer:
    """Describes every action of the slot catalogue: ``Box(-1, 1, (N_SLOT_ACTIONS * D,))``.

    Row ``i`` (of ``D`` floats) describes action ``i`` in terms that mean the same thing in every
    household, so one small scorer shared by all rows (see
    :class:`~vmb_gym.wrappers.sb3.SlotPointerPolicy`) can learn which slot is right:

    * kind: finish / search / call;
    * episode: searched, steps, calls made, relative change in the request, hit count, routine
      asked for, the request states a value, last step was an error;
    * API slot: rank, vocabulary + learned score of the request, best rules score in the hits,
      kept by the rules filter, the rules choice, stated with the chosen value ("companion"),
      value type;
    * value slot: kind (memory value, memory value + relative change, request value, minimal
      action), rank, rules score and gap to the best, mentions (all / target person / others),
      recency rank, latest mention (any / target), condition match and opposite, a clean
      mention by the target, the rules' own choice, and the cue words of its representative line
      (preference, revision, correction, hypothetical, elsewhere, negation, first person, question),
      and the request's situation (outside the quote: rain, dark, a passenger, the route) against
      its lines: shared stems, a conditional rule that matches or misses it, an everyday default
      line, another value with a matching rule; and the learned line prior (:mod:`agents.line_prior`):
      its best mention by the target and by others, whether it holds the latest genuine mention
      (by the target / by anyone) and its margin over the other values' best target mention; the
      request's reason words ("my back is acting up again") in a target mention; the learned API
      prior read on its target mentions (is the line about this setting at all) and whether it holds
      the latest genuine target mention about this setting; whether its line is
      the line of a value already set this episode (a routine clause belongs to the line it ends);
    * target slot: rank, none, which seat/zone, named in the request's quote ("the right mirror"), the
      seat the request puts the speaker in.

    Empty slots are all zeros (they are masked anyway).
    """

    kind = "slots"

    def __init__(self) -> None:

        self._cues = tuple(LINE_CUES)
        self.value_width = 4 + N_MEMORY_VALUES + 13 + len(self._cues) + _VALUE_EXTRA + N_LINE_HASH
        self.row = _KIND + _GLOBAL + _API + self.value_width + _TARGET
        #: column of the per-step feature "this value's line is the line of a value already set"
        #: (the last of the value block's extras, just before the line hash)
        self.same_line_column = _KIND + _GLOBAL + _API + self.value_width - N_LINE_HASH - 1
        self.n_actions = N_SLOT_ACTIONS
        self.dim = self.n_actions * self.row

    def config(self) -> dict[str, Any]:
        """``{"kind": "slots"}``."""
        return {"kind": self.kind}

    def features(self, analysis: Any, episode: EpisodeText) -> np.ndarray:
        """The flat feature vector of the episode's current state."""

        if analysis.features is None or analysis.features.shape != (self.n_actions, self.row):
            analysis.features = self._static(analysis)
        out = analysis.features.copy()
        g = np.array([min(search_rounds(episode), 2) / 2.0, min(episode.steps, 5) / 5.0, min(len(episode.made_names), 3) / 3.0,
                      float(bool(analysis.delta)), min(analysis.n_hits, 40) / 40.0,
                      float(bool(_ROUTINE.search(episode.request))),
                      float(any(a.explicit is not None for a in analysis.apis)), float(episode.last_error)],
                     dtype=np.float32)
        out[:, _KIND:_KIND + _GLOBAL] = g
        made = set(episode.made_names)
        set_lines = _lines_of_set_values(analysis, episode.made) if made else set()
        for a, slot in enumerate(analysis.apis):
            if slot.api in made:
                for v in range(N_VALUE_SLOTS):
                    for t in range(N_TARGET_SLOTS):
                        out[SlotCatalogue.index(a, v, t), _KIND + _GLOBAL + 13] = 1.0  # api already called
            for k, val in enumerate(slot.values):
                if set_lines and not set_lines.isdisjoint([val.source, *val.sources]):
                    for v in (k, N_MEMORY_VALUES + k):
                        for t in range(N_TARGET_SLOTS):
                            out[SlotCatalogue.index(a, v, t), self.same_line_column] = 1.0
        return out.reshape(-1)

    def _static(self, analysis: Any) -> np.ndarray:

        rows = np.zeros((self.n_actions, self.row), dtype=np.float32)
        rows[0, 0] = 1.0
        rows[1, 1] = 1.0
        a0 = _KIND + _GLOBAL
        v0 = a0 + _API
        t0 = v0 + self.value_width
        quote = " ".join(analysis.request.quotes).lower().replace("_", " ")
        for a, slot in enumerate(analysis.apis):
            api_vec = np.zeros(_API, dtype=np.float32)
            api_vec[a] = 1.0
            api_vec[4] = min(slot.request_score, 10.0) / 10.0
            api_vec[5] = min(slot.best_score, 20.0) / 20.0
            api_vec[6] = float(slot.passes)
            api_vec[7] = float(slot.rules_choice)
            api_vec[8] = float(slot.companion)
            api_vec[9] = float(bool(slot.values))
            api_vec[10] = _value_type(slot.api)
            api_vec[11] = float(slot.minimal is not None)
            api_vec[12] = float(slot.explicit is not None)
            best = slot.values[0].score if slot.values else 0.0
            value_vecs: dict[int, np.ndarray] = {}
            for k, val in enumerate(slot.values):
                vec = np.zeros(self.value_width, dtype=np.float32)
                vec[4 + k] = 1.0
                o = 4 + N_MEMORY_VALUES
                vec[o: o + 13] = [min(val.score, 20.0) / 20.0, min(best - val.score, 5.0) / 5.0,
                                  min(val.mentions, 5) / 5.0, min(val.target_mentions, 5) / 5.0,
                                  min(val.other_mentions, 5) / 5.0, val.recency, float(val.latest_any),
                                  float(val.latest_target), min(val.conditions, 2.0) / 2.0,
                                  min(val.opposite, 2.0) / 2.0, float(val.clean), float(val.rules_top),
                                  float(isinstance(val.value, bool))]
                o2 = o + 13 + len(self._cues)
                vec[o + 13:o2] = [val.cues.get(c, 0.0) for c in self._cues]
                vec[o2:o2 + _VALUE_EXTRA] = [
                    float(val.follows), float(val.rep_target), float(val.relative),
                    min(val.request_overlap, 3.0) / 3.0, float(val.latest_clean_target), float(val.latest_clean_any),
                    min(val.clean_target_mentions, 3) / 3.0, float(val.names_passenger),
                    float(isinstance(val.value, dict)), float(bool(analysis.relatives)),
                    min(val.context_overlap, 3.0) / 3.0, float(val.conditional), float(val.cond_match),
                    float(val.cond_miss), float(val.default_line), float(val.other_cond_match),
                    val.prior_target, val.prior_other, float(val.prior_latest_target), float(val.prior_latest_any),
                    val.prior_margin, min(val.reason_overlap, 3.0) / 3.0, val.setting_prob,
                    float(val.setting_latest_target), 0.0]  # last: set per step
                if val.line_hash is not None:
                    vec[o2 + _VALUE_EXTRA:] = val.line_hash
                plain = vec.copy()
                plain[0] = 1.0
                value_vecs[k] = plain
                shifted = vec.copy()
                shifted[1] = 1.0
                value_vecs[N_MEMORY_VALUES + k] = shifted
            explicit = np.zeros(self.value_width, dtype=np.float32)
            explicit[2] = 1.0
            value_vecs[VALUE_EXPLICIT] = explicit
            minimal = np.zeros(self.value_width, dtype=np.float32)
            minimal[3] = 1.0
            value_vecs[VALUE_MINIMAL] = minimal
            for t, target in enumerate(slot.targets[:N_TARGET_SLOTS]):
                tvec = np.zeros(_TARGET, dtype=np.float32)
                tvec[t] = 1.0
                if target is None:
                    tvec[3] = 1.0
                elif target in _TARGET_NAMES:
                    tvec[4 + _TARGET_NAMES.index(target)] = 1.0
                if target is not None:
                    tvec[14] = float(bool(re.search(rf"\b{target.replace('_', ' ')}\b", quote)))
                    tvec[15] = float(target == analysis.request.seat)
                for v, vvec in value_vecs.items():
                    i = SlotCatalogue.index(a, v, t)
                    rows[i, 2] = 1.0
                    rows[i, a0:a0 + _API] = api_vec
                    rows[i, v0:v0 + self.value_width] = vvec
                    rows[i, t0:t0 + _TARGET] = tvec
        return rows


def _lines_of_set_values(analysis: Any, made: Iterable[str]) -> set[str]:
    """The hit lines of the memory values (or routine companions) the episode's calls set (calls given as keys)."""
    lines: set[str] = set()
    for key in made:
        cut = key.find("{")
        name, args = key[:cut], json.loads(key[cut:])
        for slot in analysis.apis:
            if slot.api != name:
                continue
            for val in slot.values:
                if isinstance(val.value, dict):
                    hit = all(args.get(k) == x for k, x in val.value.items())
                else:
                    hit = any(type(x) is type(val.value) and x == val.value for x in args.values())
                if hit:
                    lines.update([val.source, *val.sources])
    return lines


def _value_type(api: str) -> float:
    """0 none, 0.25 bool, 0.5 int, 0.75 enum, 1 free text."""
    from agents.vocabulary import value_param
    from vmb_gym.vehicle import API_SPECS

    vp = value_param(API_SPECS[api])
    if vp is None:
        return 0.0
    if vp.py_type is bool:
        return 0.25
    if vp.py_type is int:
        return 0.5
    if vp.constraint is not None and vp.constraint.choices:
        return 0.75
    return 1.0


class SlotFeatureWrapper(gym.Wrapper[np.ndarray, Any, Any, Any]):
    """Slot features over a :class:`~vmb_gym.wrappers.catalogue.SlotActionWrapper` (``action_masks`` passes through)."""

    def __init__(self, env: gym.Env[Any, Any], featurizer: SlotFeaturizer | None = None) -> None:
        super().__init__(env)
        self.featurizer = featurizer or SlotFeaturizer()
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(self.featurizer.dim,), dtype=np.float32)

    def _obs(self) -> np.ndarray:
        inner = self.env
        return self.featurizer.features(inner.analysis, inner.episode)  # type: ignore[attr-defined]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset and describe the slots."""
        _, info = self.env.reset(seed=seed, options=options)
        return self._obs(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step and describe the slots."""
        _, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The inner wrapper's masks."""
        return self.env.action_masks()  # type: ignore[attr-defined]


def _load_slot_policy(zip_path: Path, meta: Mapping[str, Any], env: gym.Env[Any, Any] | None, *,
                      deterministic: bool) -> SlotSB3Policy:

    catalogue = SlotCatalogue.from_json(meta["catalogue"])
    slot_pointer_policy()  # the policy class the checkpoint names
    model = _algo_class(str(meta["algo"])).load(str(zip_path), device="cpu")
    expected = (catalogue.n, SlotFeaturizer().dim)
    found = (int(model.action_space.n), int(model.observation_space.shape[0]))
    if expected != found:
        raise ConfigError(f"{zip_path}: the model expects {found[0]} actions and {found[1]} features, "
                          f"the slot design has {expected[0]} and {expected[1]}")
    return SlotSB3Policy(model, catalogue, env, deterministic=deterministic)


# ============================================================================ slot (pointer) design
def make_slot_env(env: gym.Env[Any, Any] | None = None, *, catalogue: Any = None, f1_weight: float | None = None,
                  **make_kwargs: Any) -> Any:
    """An SB3-ready env with the slot design: ``Discrete(N_SLOT_ACTIONS)`` with masks, slot features.

    Args:
        env: a ``VehicleMem-v0`` env; when None, ``gym.make("VehicleMem-v0", **make_kwargs)``.
        catalogue: a :class:`~vmb_gym.wrappers.catalogue.SlotCatalogue` (default: no learned prior).
        f1_weight: final reward ``exact_match + f1_weight * f1_change`` (None: the env's reward).
    """

    if env is None:
        import vmb_gym  # noqa: F401

        env = gym.make("VehicleMem-v0", **make_kwargs)
    elif make_kwargs:
        raise ConfigError(f"pass either env or gym.make keyword arguments, not both (got {sorted(make_kwargs)})")
    return SlotFeatureWrapper(SlotActionWrapper(env, catalogue, f1_weight=f1_weight))


def _pointer_policy_class() -> Any:
    import torch as th
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn


    class PointerNet(nn.Module):
        """Scores every action row with one shared MLP (logits); the critic pools the rows."""

        def __init__(self, feature_dim: int, hidden: int = 64) -> None:
            super().__init__()
            self.n = N_SLOT_ACTIONS
            self.row = feature_dim // self.n
            self.body = nn.Sequential(nn.Linear(self.row, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
            self.head = nn.Linear(hidden, 1)
            nn.init.orthogonal_(self.head.weight, gain=0.01)
            nn.init.zeros_(self.head.bias)
            self.critic = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh())
            self.latent_dim_pi = self.n
            self.latent_dim_vf = hidden

        def _rows(self, features: th.Tensor) -> th.Tensor:
            return self.body(features.view(features.shape[0], self.n, self.row))

        def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            h = self._rows(features)
            return self.head(h).squeeze(-1), self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))

        def forward_actor(self, features: th.Tensor) -> th.Tensor:
            return self.head(self._rows(features)).squeeze(-1)

        def forward_critic(self, features: th.Tensor) -> th.Tensor:
            h = self._rows(features)
            return self.critic(th.cat([h.mean(1), h.max(1).values], dim=-1))

    class SlotPointerPolicy(MaskableActorCriticPolicy):
        """MaskablePPO policy whose logits are one shared scorer applied to every slot's features."""

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = PointerNet(self.features_dim)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            nn.init.orthogonal_(self.mlp_extractor.head.weight, gain=0.01)
            self.action_net = nn.Identity()  # the extractor's actor output already is the logits
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return SlotPointerPolicy


_POINTER: Any = None


def slot_pointer_policy() -> Any:
    """The :class:`SlotPointerPolicy` class (built on first use: torch and sb3-contrib load lazily)."""
    global _POINTER
    if _POINTER is None:
        _POINTER = _pointer_policy_class()
        _POINTER.__module__ = __name__
        _POINTER.__qualname__ = "SlotPointerPolicy"
        globals()["SlotPointerPolicy"] = _POINTER
    return _POINTER


def __getattr__(name: str) -> Any:  # module attribute for unpickling SlotPointerPolicy
    if name == "SlotPointerPolicy":
        return slot_pointer_policy()
    raise AttributeError(name)


class SlotSB3Policy:
    """A trained slot-design model acting on ``VehicleMem-v0`` text observations (the Policy protocol).

    Args:
        model: the MaskablePPO (or PPO) model.
        catalogue: the :class:`~vmb_gym.wrappers.catalogue.SlotCatalogue` it was trained with.
        env: the env it runs in (for the scenario speakers and whether memory retrieves).
        deterministic: most likely allowed action (else sample).
    """

    def __init__(self, model: Any, catalogue: Any, env: gym.Env[Any, Any] | None = None, *,
                 deterministic: bool = True) -> None:

        self.model, self.catalogue, self.env = model, catalogue, env
        self.featurizer = SlotFeaturizer()
        self.deterministic = deterministic
        self.masked = type(model).__name__ == "MaskablePPO"
        self.memory_search = True if env is None else bool(
            getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))
        self.episode = SlotEpisodeText()
        self.speakers: tuple[str, ...] = ()
        self._fresh = True

    def bind(self, env: gym.Env[Any, Any]) -> None:
        """Run in ``env`` (its task set names the speakers)."""
        self.env = env
        self.memory_search = bool(getattr(getattr(env.unwrapped, "memory", None), "provides_search", False))

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start a new episode from the reset observation and info."""

        self.episode.on_reset(observation, info)
        self.speakers = speakers_of(self.env, info) if self.env is not None else ()
        self._fresh = True

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """The env action of the model's slot choice."""

        if not self._fresh:
            self.episode.on_step(observation, info)
        self._fresh = False
        analysis = self.catalogue.analyse(self.episode, self.speakers)
        features = self.featurizer.features(analysis, self.episode)
        mask = self.catalogue.mask(analysis, self.episode, memory_search=self.memory_search)
        if self.masked:
            action, _ = self.model.predict(features, deterministic=self.deterministic, action_masks=mask)
        else:
            action, _ = self.model.predict(features, deterministic=self.deterministic)
        return slot_call(self.catalogue, int(np.asarray(action).item()), analysis, self.episode, self.speakers)


def save_slot_checkpoint(model: Any, path: str | Path, *, algo: str, catalogue: Any,
                         extra: Mapping[str, Any] | None = None) -> Path:
    """Save a slot-design model as ``PATH.zip`` plus its ``PATH.vmb.json`` sidecar."""

    zip_path, side = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    side.write_text(json.dumps({"algo": algo, "design": "slots", "catalogue": catalogue.to_json(),
                                "featurizer": SlotFeaturizer().config(), **dict(extra or {})}), encoding="utf-8")
    return zip_path


def load_slot_policy(path: str | Path, env: gym.Env[Any, Any] | None = None, *,
                     deterministic: bool = True) -> SlotSB3Policy:
    """Load a checkpoint of :func:`save_slot_checkpoint` as a policy (``vmb eval --policy sb3:PATH``).

    Raises:
        ConfigError: the checkpoint or its sidecar is missing, unreadable, or not of the slot design.
    """
    zip_path, side = _paths(path)
    if not zip_path.is_file() or not side.is_file():
        raise ConfigError(f"expected an SB3 checkpoint {zip_path} and its sidecar {side}; write them with `vmb train sb3`")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{side}: not a vmb SB3 sidecar ({exc})") from exc
    if meta.get("design") != "slots":
        raise ConfigError(f"{side}: not a slot-design checkpoint; load it with vmb_gym.wrappers.sb3.load_sb3_policy")
    return _load_slot_policy(zip_path, meta, env, deterministic=deterministic)
