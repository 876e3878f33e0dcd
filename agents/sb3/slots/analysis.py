"""The slots of one episode: read the request, pool the hits, rank APIs and values the way the rules baseline does.

:func:`analyse` is the whole reading, in named steps: :func:`evidence_pool` (the request, the
hits, the rules candidates and the lines that continue a setting), :func:`rank_apis`, then the
API slots: the first API with its values, its companions, the other APIs; and after the first
search round the follow-up queries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vmb_agents.reader import (
    PERSONAL_SELECTORS,
    RulesPolicy,
    content_words,
    enable_api,
    hit_body,
    named_candidates,
    request_value,
    same_person,
    selector_param,
    selector_value,
)
from vmb_agents.reader.reading import Reading
from vmb_agents.reader.values import mirror_side
from vmb_agents.sb3.slots.companions import companion_slots
from vmb_agents.sb3.slots.hits import continuations, followup_queries, pool_hits
from vmb_agents.sb3.slots.layout import N_API_SLOTS, N_TARGET_SLOTS, TARGET_ORDER
from vmb_agents.sb3.slots.reading import (
    prior_text,
    reason_words,
    relation_words,
    relative_names,
    said_by,
    situation_stems,
)
from vmb_agents.sb3.slots.records import ApiSlot, EvidencePool, SlotAnalysis, ValueSlot
from vmb_agents.sb3.slots.values import requested_api, value_slots
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.api import ApiSpec


#: Words by which a request asks for a setting at every seat ("warm all the seats", "for everyone", "for the whole
#: car").
WHOLE_CAR_WORDS = re.compile(r"\b(all|every|everyone|everybody|everywhere|both|whole car|whole cabin|entire cabin)\b",
                             re.IGNORECASE)


def selector_choices(spec: ApiSpec, first: str, request: str = "", seat: str = "") -> list[str | None]:
    """The target slots of an API: the rules' own seat/zone first, the speaker's seat, then :data:`TARGET_ORDER`.

    A seat, a climate zone and a reading light are personal (:data:`vmb_agents.reader.PERSONAL_SELECTORS`): their
    ``"all"`` is offered only when the rules chose it (the climate's shared functions) or the request's words say
    every seat (:data:`WHOLE_CAR_WORDS`), as the generator's whole-car requests do.
    """
    sel = selector_param(spec)
    if sel is None or sel.constraint is None:
        return [None]
    choices = list(sel.constraint.choices)
    if sel.name in PERSONAL_SELECTORS and first != "all" and not WHOLE_CAR_WORDS.search(request):
        choices = [c for c in choices if c != "all"]
    if first == "rear_left" and "rear_right" in choices and re.search(r"\b(rear|back) right\b", request, re.IGNORECASE):
        first = "rear_right"
    own = [seat] if seat in choices and seat != first else []
    if first == "rear_left" and seat == "rear_left" and "rear_right" in choices:
        own = ["rear_right"]
    if seat == "rear_left" and re.search(r"\b(rear|back) right\b", request, re.IGNORECASE) and "rear_right" in choices:
        own = ["rear_right"] if first != "rear_right" else []
    order = [first] + own + [c for c in TARGET_ORDER if c in choices and c != first and c not in own] + [
        c for c in choices if c != first and c not in TARGET_ORDER]
    return order[:N_TARGET_SLOTS]


def rules_candidates(req: Any, req_scores: dict[str, float], hits: list[Any], speakers: Sequence[str],
                     device_alike: bool = False) -> list[Any]:
    """The rules baseline's value candidates in the hits (best first).

    ``device_alike`` (:meth:`vmb_agents.reader.RulesPolicy.candidates`) is a catalogue setting kept in the checkpoint:
    off for the shipped checkpoint, whose scorer learned on the candidate scores in which a device named without
    its setting gives its default function the request's score; read the rules' way, that checkpoint loses tasks.
    """
    if not hits:
        return []
    policy = RulesPolicy("none")
    policy.names = tuple(speakers)  # what RulesPolicy.plan() sets from the scenario
    return policy.candidates(req, req_scores, hits, device_alike=device_alike)


def evidence_pool(request: str | Reading, records: Sequence[Mapping[str, Any]], speakers: Sequence[str],
                  req_scores: dict[str, float],
                  line_prior: Any = None, setting_prior: Any = None,
                  device_alike: bool = False) -> tuple[EvidencePool, list[str]]:
    """The pooled evidence of an episode and the names of the relatives the request speaks of.

    ``records`` are the episode's search hits in the env's ``info["memory_hits"]`` form, in order
    (:attr:`~vmb_agents.sb3.slots.records.SlotEpisodeText.memory_hits`); ``device_alike``: see :func:`rules_candidates`.
    ``request``: its text, or the episode's :class:`~vmb_agents.reader.reading.Reading` (read with ``speakers``).
    """
    reading = request if isinstance(request, Reading) else Reading.of(request, speakers)
    req, request = reading.request, reading.text
    hits = pool_hits(records, speakers)
    cands = rules_candidates(req, req_scores, hits, speakers, device_alike)
    extra, follow_src = continuations(cands, hits, speakers, req)
    if extra:
        cands = sorted(cands + extra, key=lambda c: -c.score)
    relations = relation_words(request)
    relatives = relative_names(relations, (h.text for h in hits), speakers) if relations else []
    others = [p for p in req.people if not (req.target and same_person(p, req.target))]
    times = sorted({h.timestamp for h in hits if h.timestamp is not None})
    setting_words = content_words(prior_text(req))
    pool = EvidencePool(
        request=request, req=req, speakers=tuple(speakers), hits=hits, by_render={h.render(): h for h in hits},
        cands=cands, follow_src=follow_src, req_scores=req_scores, setting_words=setting_words,
        situation=situation_stems(request, speakers, setting_words, req.target or ""),
        rel_pats=[re.compile(rf"\b{re.escape(n)}\b") for n in relatives],
        other_pats=[re.compile(rf"\b{re.escape(p.split()[0])}\b") for p in others],
        req_words=content_words(req.text) - setting_words - {w.lower() for p in speakers for w in p.split()},
        rank_of_time={tm: i / max(1, len(times) - 1) for i, tm in enumerate(times)},
        line_prior=line_prior, setting_prior=setting_prior)
    return pool, relatives


#: The latest rank of the API the request names most strongly (:func:`~vmb_agents.sb3.slots.values.requested_api`)
#: and of the API of the target's line that gives the request's reason (the first of :func:`reason_apis` not ahead).
REQUESTED_RANK = 1
REASON_RANK = 3


@dataclass
class ApiRanking:
    """The APIs of an episode in slot order, with the rules filter and the best candidate score of each."""

    ranked: list[str]
    best_cand: dict[str, float]
    rules_api: str | None
    best_req: float
    reasons: tuple[str, ...] = ()  # :func:`reason_apis`: APIs of the target's lines that give the request's reason

    def passes(self, req_scores: dict[str, float], api: str) -> bool:
        """The rules filter: close to the request's best-named function."""
        return self.best_req < 2.0 or req_scores.get(api, 0.0) >= self.best_req - 1.0


def reason_apis(pool: EvidencePool) -> list[str]:
    """The APIs of candidate lines by the target that give one of the reasons the request's words give
    ("I'm wearing the work boots again" and "My new work boots have thick soles. My usual seat height of 87
    feels too cramped."), best-scored first, each once; ``[]`` when the request gives no reason or no target.

    A request that only gives its reason names no setting, so the request scores rank other APIs
    first; the target's line that gave the same reason names the setting.
    """
    words = reason_words(prior_text(pool.req))
    if not words or not pool.req.target:
        return []
    found: list[str] = []
    for c in pool.cands:  # best first
        if c.api in found:
            continue
        h = pool.by_render[c.source]
        if said_by(h, pool.req.target) and words & reason_words(hit_body(h, pool.speakers)):
            found.append(c.api)
    return found


def rank_apis(pool: EvidencePool) -> ApiRanking:
    """The rules choice first, then APIs with candidates that pass the filter, then by the request's score.

    The API the request names most strongly comes no later than :data:`REQUESTED_RANK`: with a
    weak request score every API passes the filter, and APIs that some hit names would push it
    out of the slots ("Restore my volume setting" behind the dashboard, the vents and the route).
    The API of the target's line that gives the request's reason (the first of :func:`reason_apis` not already
    ahead) comes no later than :data:`REASON_RANK`.
    """
    scores = pool.req_scores
    ranking = ApiRanking([], {}, None, max(scores.values(), default=0.0))
    for c in pool.cands:
        ranking.best_cand[c.api] = max(ranking.best_cand.get(c.api, -1e9), c.score)
    # the rules reader's function: the best candidate of a function the request names, else (a request that names
    # a function whose values no hit holds) the person's own line about another setting of the same device
    named = named_candidates(pool.cands, scores, pool.req) if ranking.best_req >= 2.0 else pool.cands
    ranking.rules_api = named[0].api if named else None
    best = ranking.best_cand

    def key(api: str) -> tuple[Any, ...]:
        kept = ranking.passes(scores, api) and api in best
        return (-(api == ranking.rules_api), -kept, -(best.get(api, -1e9) if kept else 2.0 * scores.get(api, 0.0)), api)

    ranked = sorted(set(scores) | set(best), key=key)
    ranking.reasons = tuple(reason_apis(pool))
    reason = next((api for api in ranking.reasons if api not in ranked[:REASON_RANK]), None)
    for api, rank in ((requested_api(pool), REQUESTED_RANK), (reason, REASON_RANK)):
        if api is not None and api in ranked[rank:]:
            ranked.remove(api)  # a slot even when the rules filter or the hits rank it lower
            ranked.insert(rank, api)
    ranking.ranked = ranked
    return ranking


def _side_line(pool: EvidencePool, values: Sequence[ValueSlot]) -> str:
    """The line of the best value that names a mirror's side, else its representative line ("" when none): the
    value's representative line may be a reply that states it again without the side."""
    if not values:
        return ""
    lines = [pool.by_render[src].text for src in (values[0].source, *values[0].sources) if src in pool.by_render]
    return next((line for line in lines if mirror_side(line)), lines[0] if lines else "")


def slot_maker(pool: EvidencePool, ranking: ApiRanking) -> Callable[..., ApiSlot]:
    """``make(api, values, first=None, companion=False)``: the :class:`ApiSlot` of ``api``."""
    req, scores = pool.req, pool.req_scores

    def make(api: str, values: list[ValueSlot], first: str | None = None, companion: bool = False) -> ApiSlot:
        spec = API_SPECS[api]
        sel = selector_param(spec)
        targets = None
        if first is None:  # the lines of the best value tell a mirror's side when the request does not
            first = selector_value(spec, sel, req, _side_line(pool, values)) if sel is not None else ""
            if spec.module == "rearviewMirror" and first in ("left", "right"):
                targets = [first]  # a side the request or the person's line names is the side, not a guess
        return ApiSlot(api=api, request_score=scores.get(api, 0.0), best_score=ranking.best_cand.get(api, 0.0),
                       passes=ranking.passes(scores, api), rules_choice=api == ranking.rules_api, values=values,
                       targets=targets or selector_choices(spec, first, pool.request, req.seat),
                       explicit=request_value(api, req), minimal=enable_api(api), companion=companion,
                       reason=api in ranking.reasons)

    return make


def analyse(request: str | Reading, records: Sequence[Mapping[str, Any]], speakers: Sequence[str], searched: bool,
            req_scores: dict[str, float], classify: Any = None, followups: bool = False,
            line_prior: Any = None, setting_prior: Any = None, device_alike: bool = False) -> SlotAnalysis:
    """Read the request, pool the hits, rank APIs and values the way the rules baseline does.

    ``records`` are the episode's search hits (``info["memory_hits"]`` form, see :func:`evidence_pool`).
    On top of the rules' reading: a line by the same speaker within ``FOLLOW_MINUTES`` of a
    line that names a setting continues that setting (corrections rarely repeat the setting's
    name), and ``followups`` (after the first search round) asks for the second round's queries.
    ``line_prior`` (a :class:`vmb_agents.sb3.slots.line_prior.LinePrior`) scores every mention for the
    value features; ``setting_prior`` (the catalogue's learned API prior) tells which setting each
    mention is about; ``device_alike``: see :func:`rules_candidates`.
    """
    pool, relatives = evidence_pool(request, records, speakers, req_scores, line_prior, setting_prior, device_alike)
    ranking = rank_apis(pool)
    make = slot_maker(pool, ranking)
    apis: list[ApiSlot] = []
    if ranking.ranked:
        apis.append(make(ranking.ranked[0], value_slots(pool, ranking.ranked[0])))
        apis.extend(companion_slots(apis[0], pool.by_render, pool.req, classify, make))
        for api in ranking.ranked[1:]:
            if len(apis) >= N_API_SLOTS:
                break
            if all(a.api != api for a in apis):
                apis.append(make(api, value_slots(pool, api)))
    queries = followup_queries(pool.req, apis, pool.by_render, relatives, speakers) if followups else []
    return SlotAnalysis(request=pool.req, apis=apis, delta=pool.req.delta, n_hits=len(pool.hits), searched=searched,
                        followups=queries, relatives=relatives)
