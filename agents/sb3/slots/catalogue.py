"""The slot catalogue: the slot action space (finish, search, API x value x target) and its resolver.

:class:`SlotCatalogue` holds what is learned on the training split (the API prior, the companion
classifier, the line prior), runs the search action's queries, analyses an episode's state into
slots (:func:`vmb_agents.sb3.slots.analysis.analyse`, cached), resolves a slot into a concrete call and
masks the allowed actions.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from vmb_agents.reader.reading import Reading
from vmb_agents.reader import (
    RulesPolicy,
    api_text,
    clamp_to_param,
    read_request,
    request_destination,
    score_apis,
    unnamed_setting_modules,
)
from vmb_agents.sb3.slots.analysis import analyse
from vmb_agents.sb3.slots.layout import (
    FOLLOWUP_K,
    N_API_SLOTS,
    N_MEMORY_VALUES,
    N_SLOT_ACTIONS,
    N_TARGET_SLOTS,
    N_VALUE_SLOTS,
    SLOT_FINISH,
    SLOT_SEARCH,
    VALUE_EXPLICIT,
    VALUE_MINIMAL,
    is_relative_value,
    slot_index,
    unpack_slot,
)
from vmb_agents.sb3.slots.line_prior import LinePrior
from vmb_agents.sb3.slots.reading import NOW, companion_clause, prior_text, relation_words
from vmb_agents.sb3.slots.records import ApiSlot, SlotAnalysis, SlotEpisodeText, hits_key, search_rounds
from vmb_agents.reader import module_words, selector_param, value_param
from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS
from vmb_gym.wrappers.catalogue import EpisodeText, call_key
from vmb_gym.wrappers.features import WORD_RE


def device_alike_scores(scores: Mapping[str, float], text: str) -> dict[str, float]:
    """``scores`` with every function of a device that ``text`` names without its setting at the device's best score.

    "Restore my HUD settings" names the HUD and none of its settings, so neither the vocabulary nor the learned
    prior can tell which HUD function is meant; the prior still ranks one first from the wordings it was fitted
    on (the brightness, 2.6 against 0.8 for the height), and the rules filter then drops the others before the
    memory is read. Scored alike, the lines decide, as in the rules' candidates
    (:func:`vmb_agents.reader.words.unnamed_setting_modules`).
    """
    out = dict(scores)
    for module in unnamed_setting_modules(text):
        apis = [api for api, spec in API_SPECS.items() if spec.module == module]
        best = max((out.get(api, 0.0) for api in apis), default=0.0)
        if best > 0:
            out.update({api: best for api in apis})
    return out


#: Hits per search of the slot design (each of its ``n_queries`` searches); its checkpoints record their own.
SLOT_TOP_K = 20


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
        line_prior: a :class:`vmb_agents.sb3.slots.line_prior.LinePrior` fitted on the training split (the ``prior_*``
            value features stay 0 without one).
        context: neighbouring lines each search shows around a hit (``search_memory``'s
            ``context``): a correction or an exception said right after the line that names the
            setting rarely names it again.
        device_alike: a request that names a device without its setting scores each of its functions alike, in
            the rules' candidates (:func:`vmb_agents.sb3.slots.analysis.rules_candidates`) and in the request scores
            (:func:`device_alike_scores`); off for checkpoints trained before it existed (their sidecars lack it).
    """

    kind = "slots"

    def __init__(self, top_k: int = SLOT_TOP_K, n_queries: int = 4,
                 api_examples: Sequence[tuple[str, str]] | None = None, line_prior: Any = None,
                 companion_examples: Sequence[tuple[str, str]] | None = None, context: int = 0,
                 device_alike: bool = False) -> None:
        self.top_k = top_k
        self.context = context
        self.device_alike = bool(device_alike)
        self.line_prior = line_prior
        self.n_queries = n_queries
        self.n = N_SLOT_ACTIONS
        self._cache: OrderedDict[tuple[str, bytes], SlotAnalysis] = OrderedDict()
        self._scores_cache: dict[str, dict[str, float]] = {}
        self._queries_cache: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        self.api_examples = [(str(t), str(a)) for t, a in (api_examples or ())]
        self.companion_examples = [(str(t), str(a)) for t, a in (companion_examples or ())]
        self._prior = text_classifier(self.api_examples)
        self._companion_prior = text_classifier(self.companion_examples)

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
                clauses = [c for i in q.evidence_line_ids if i in by_id and (c := companion_clause(by_id[i].text))]
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
        out = []
        for q in queries:
            if q.gold_calls:
                req = read_request(q.text, speakers_of(q))
                out.append((prior_text(req), q.gold_calls[0].name))
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
        vocab = score_apis(phrase)
        stems = {w[:5] for w in WORD_RE.findall(phrase.lower()) if len(w) > 2}
        best: tuple[float, str] | None = None
        for api in switch_apis():
            spec = API_SPECS[api]
            name_words = re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", api[len("carcontrol_"):]).lower())
            words = {w[:5] for w in name_words if w not in ("set", "enabled")}
            words |= {w[:5] for m in module_words(spec.module) for w in m.split()}
            score = vocab.get(api, 0.0) + len(stems & words)
            if score > 0 and (best is None or score > best[0]):
                best = (score, api)
        return best[1] if best else None

    def api_scores(self, request: str | Reading, speakers: Sequence[str]) -> dict[str, float]:
        """The vocabulary scores of the request's APIs (its text, or its reading with ``speakers``) plus the learned
        prior (3 x its probability); cached per request."""
        text = request.text if isinstance(request, Reading) else request
        cached = self._scores_cache.get(text)
        if cached is not None:
            return cached
        reading = request if isinstance(request, Reading) else Reading.of(request, speakers)
        req = reading.request
        scores = dict(reading.settings)
        if self._prior is not None:
            probs = self._prior.predict_proba([prior_text(req)])[0]
            for i in np.argsort(-probs)[:PRIOR_NEIGHBOURS]:
                if probs[i] >= 0.05:
                    api = str(self._prior.classes_[i])
                    scores[api] = scores.get(api, 0.0) + PRIOR_WEIGHT * float(probs[i])
        if self.device_alike:
            scores = device_alike_scores(scores, api_text(req))
        if len(self._scores_cache) > 20_000:
            self._scores_cache.clear()
        self._scores_cache[text] = scores
        return scores

    def to_json(self) -> dict[str, Any]:
        """The catalogue's settings (and the slot layout, checked on load)."""
        return {"kind": self.kind, "top_k": self.top_k, "n_queries": self.n_queries, "context": self.context,
                "layout": [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS], "api_examples": self.api_examples,
                "companion_examples": self.companion_examples,
                "line_prior": self.line_prior.to_json() if self.line_prior is not None else None,
                **({"device_alike": True} if self.device_alike else {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SlotCatalogue:
        """Restore a catalogue written by :meth:`to_json`."""
        layout = list(data.get("layout", []))
        if layout != [N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]:
            raise ConfigError(f"slot layout {layout} differs from this version's "
                              f"{[N_API_SLOTS, N_VALUE_SLOTS, N_TARGET_SLOTS]}")
        prior = data.get("line_prior")
        return cls(top_k=int(data.get("top_k", SLOT_TOP_K)), n_queries=int(data.get("n_queries", 4)),
                   api_examples=[tuple(x) for x in data.get("api_examples", [])],
                   companion_examples=[tuple(x) for x in data.get("companion_examples", [])],
                   line_prior=LinePrior.from_json(prior) if prior else None, context=int(data.get("context", 0)),
                   device_alike=bool(data.get("device_alike", False)))

    # ------------------------------------------------------------------ index arithmetic
    @staticmethod
    def index(api_slot: int, value_slot: int, target_slot: int) -> int:
        """The action index of a (API, value, target) slot triple (:func:`~vmb_agents.sb3.slots.layout.slot_index`)."""
        return slot_index(api_slot, value_slot, target_slot)

    @staticmethod
    def unpack(index: int) -> tuple[int, int, int]:
        """``(api_slot, value_slot, target_slot)`` of a call action (index >= 2)."""
        return unpack_slot(index)

    # ------------------------------------------------------------------ search
    def search_queries(self, request: str | Reading, speakers: Sequence[str]) -> list[str]:
        """The memory queries of the search action (the rules baseline's own queries; cached per request) for the
        request's text or its reading with ``speakers``."""
        key = (request.text if isinstance(request, Reading) else request, tuple(speakers))
        cached = self._queries_cache.get(key)
        if cached is None:
            if len(self._queries_cache) > 20_000:
                self._queries_cache.clear()
            reading = request if isinstance(request, Reading) else Reading.of(request, speakers)
            cached = self._queries_cache[key] = self._rules_queries(reading, speakers)
        return list(cached)

    def _rules_queries(self, reading: Reading, speakers: Sequence[str]) -> list[str]:
        """The queries the rules baseline's search plan sends for the request of ``reading``."""
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
        policy.clear_memory_figures()  # the per-episode counters RulesPolicy.reset() clears
        scenario = _SpeakersOnly(speakers)
        policy.search(reading.request, self.api_scores(reading, speakers), scenario,  # type: ignore[arg-type]
                      as_of=NOW)
        return list(dict.fromkeys(rec.queries))[: self.n_queries]

    def search_action(self, episode: SlotEpisodeText, speakers: Sequence[str]) -> list[dict[str, Any]]:
        """The search step: one ``search_memory`` call per query.

        The first round runs the rules baseline's queries (plus "my grandmother" when the request
        speaks of a relative); the second round runs the follow-up queries the first round's hits
        suggest (see :func:`followup_queries`).
        """
        if search_rounds(episode) == 0:
            queries = self.search_queries(episode.read(speakers), speakers)
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
    def analyse(self, episode: SlotEpisodeText, speakers: Sequence[str]) -> SlotAnalysis:
        """The slots of the episode's current state (cached per request and the hits' text).

        The slots read the structured hits (``episode.memory_hits``); the text the searches
        returned is their rendering, so its digest (:func:`~vmb_agents.sb3.slots.records.hits_key`) keys the
        cache. The cache keeps the
        :data:`ANALYSIS_CACHE` most recently used analyses (each holds its feature rows, about
        150 KB): a call step finds its episode's analysis, a repeated task (of the last few hundred)
        its whole episode.
        """
        key = (episode.request, hits_key(episode))
        cached = self._cache.get(key)
        if cached is None:
            reading = episode.read(speakers)
            cached = analyse(reading, episode.memory_hits, speakers, episode.searched,
                             self.api_scores(reading, speakers), self.classify,
                             followups=search_rounds(episode) == 1, line_prior=self.line_prior,
                             setting_prior=self._prior, device_alike=self.device_alike)
            self._cache[key] = cached
            if len(self._cache) > ANALYSIS_CACHE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return cached

    def resolve(self, index: int, analysis: SlotAnalysis) -> dict[str, Any] | None:
        """The concrete call of a call action (None when the slot is empty)."""
        a, v, t = self.unpack(index)
        if a >= len(analysis.apis):
            return None
        slot = analysis.apis[a]
        if t >= len(slot.targets):
            return None
        target = slot.targets[t]
        args: dict[str, Any] | None
        if v == VALUE_MINIMAL:
            if slot.minimal is None:
                return None
            name, fixed = slot.minimal
            args = dict(fixed)
        else:
            name = slot.api
            vp = value_param(API_SPECS[name])
            found, value = _slot_value(v, slot, analysis, vp)
            args = _value_args(name, value, vp, analysis.request) if found else None
            if args is None:
                return None
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
        """Allowed actions: search first (alone) when memory retrieves; then every non-empty call slot whose
        function was not called yet, and finish once a call was made (or when no call slot is left). The request's
        relative change goes to one call: once a call took it, no other function's relative-change slot is allowed.
        A switch the request asks for takes the state the request says, not another remembered one
        (:func:`_overrules_the_request`).

        Every request of the benchmark asks for at least one change, so finishing before any call
        scores zero whatever the memory held; the policy's first act after looking is a call.
        """
        mask = np.zeros(self.n, dtype=bool)
        rounds = search_rounds(episode)
        if memory_search and (rounds == 0 or (rounds == 1 and analysis.followups)):
            mask[SLOT_SEARCH] = True
            return mask  # look before acting (and follow up what the first look found)
        made_apis = set(episode.made_names)
        distinct = self.distinct_calls(analysis)
        # the request's relative change ("one level lower than last time") is for one setting: once a call took
        # it, no other function gets it too
        changed = bool(analysis.delta_keys) and any(key in analysis.delta_keys for key in episode.made)
        for i, name, key in distinct:
            if changed and is_relative_value(unpack_slot(i)[1]):
                continue
            if name not in made_apis and key not in episode.made:
                mask[i] = True
        mask[SLOT_FINISH] = bool(made_apis) or not mask.any()
        return mask

    def distinct_calls(self, analysis: SlotAnalysis) -> list[tuple[int, str, str]]:
        """``(index, function name, call key)`` of the first call slot (in :func:`dedup_order`) of each distinct
        resolved call.

        Computed once per analysis (with ``analysis.calls``, every slot's resolved call and key):
        slots that resolve to the same call share its name and key, so the first of them is the one
        index the mask allows for that call, and its features speak for the call. A slot that gives a requested switch
        another state than the request says is left out (:func:`_overrules_the_request`);
        ``analysis.delta_keys`` gets the keys of the relative-change slots.
        """
        if analysis.calls is None:
            calls = [None, None] + [self.resolve(i, analysis) for i in range(2, self.n)]
            analysis.calls = [(c, call_key(c["name"], c["arguments"])) if c else None for c in calls]
        if analysis.distinct_calls is None:
            first: dict[str, tuple[int, str, str]] = {}
            for i in dedup_order(self.n, analysis):
                entry = analysis.calls[i]
                if entry is not None and entry[1] not in first and not _overrules_the_request(i, analysis):
                    first[entry[1]] = (i, entry[0]["name"], entry[1])
            analysis.distinct_calls = list(first.values())
            analysis.delta_keys = {analysis.calls[i][1] for i in range(2, self.n)
                                   if analysis.calls[i] is not None and is_relative_value(unpack_slot(i)[1])}
        return analysis.distinct_calls  # type: ignore[no-any-return]


def dedup_order(n: int, analysis: SlotAnalysis) -> list[int]:
    """The call slots ``2..n-1`` in the order :meth:`SlotCatalogue.distinct_calls` keeps the first of each call.

    Slot order, except that for a request with a relative change ("one level lower than last time") the
    relative-change slots come first: when a remembered value with the change applied equals another
    remembered value (3 lowered by one is the 2 someone once tried), the call is the change of the value
    the request means, and the relative slot's features say so; the plain slot of the other value would
    describe the 2's own weak evidence instead.
    """
    order = list(range(2, n))
    if analysis.delta:
        order.sort(key=lambda i: not is_relative_value(unpack_slot(i)[1]))
    return order


def _overrules_the_request(index: int, analysis: SlotAnalysis) -> bool:
    """Whether call action ``index`` sets a switch the request asks for (not a routine companion) to a remembered
    state other than the one the request says: on, unless it says off (``request_value``). For a switch the
    request's word wins, as in the rules reader: "I want to sing along again" turns the lyrics on even when the
    person's last line about them turned them off."""
    a, v, _ = unpack_slot(index)
    slot = analysis.apis[a]
    if slot.companion or slot.explicit is None or v >= VALUE_EXPLICIT:
        return False
    vp = value_param(API_SPECS[slot.api])
    return vp is not None and vp.py_type is bool and slot.values[v % N_MEMORY_VALUES].value != slot.explicit


def _slot_value(v: int, slot: ApiSlot, analysis: SlotAnalysis, vp: Any) -> tuple[bool, Any]:
    """``(found, value)`` of value action ``v`` of a call slot: the request's explicit value, or a remembered
    one (its relative-change copy shifts an integer by the request's delta). ``found`` is False for an empty slot."""
    if v == VALUE_EXPLICIT:
        return not (slot.explicit is None and vp is not None), slot.explicit
    k = v % N_MEMORY_VALUES
    if k >= len(slot.values):
        return False, None
    value = slot.values[k].value
    if not is_relative_value(v):
        return True, value
    # the relative-change copy
    if isinstance(value, dict) or not (analysis.delta and vp is not None and vp.py_type is int
                                       and isinstance(value, int) and not isinstance(value, bool)):
        return False, None
    return True, clamp_to_param(value + analysis.delta, vp)


def _value_args(name: str, value: Any, vp: Any, request: Any) -> dict[str, Any] | None:
    """The arguments a value gives function ``name`` (a dict value is the arguments themselves; a navigation
    without a destination takes the request's); None when there is none to take."""
    if not isinstance(value, dict):
        return {vp.name: value} if vp is not None and value is not None else {}
    args = dict(value)
    if name == "carcontrol_navigation_navigate_to" and "destination" not in args:
        dest = request_destination(request)
        if dest is None:
            return None
        args["destination"] = dest
    return args


class _SpeakersOnly:
    scenario_id = None

    def __init__(self, speakers: Sequence[str]) -> None:
        self.speakers = tuple(speakers)


#: Analyses :meth:`SlotCatalogue.analyse` keeps (least recently used dropped first): more than the live
#: episodes of a 100-env training run (3 analyses each), about 150 MB at most.
ANALYSIS_CACHE = 1024
PRIOR_NEIGHBOURS = 3
PRIOR_WEIGHT = 3.0
#: The learned companion classifier's answer is taken from this probability on.
COMPANION_CONFIDENCE = 0.5


def text_classifier(examples: Sequence[tuple[str, str]]) -> Any:
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


@functools.lru_cache(maxsize=1)
def switch_apis() -> tuple[str, ...]:
    out = []
    for name, spec in sorted(API_SPECS.items()):
        vp = value_param(spec)
        if vp is not None and vp.py_type is bool:
            out.append(name)
    return tuple(out)


