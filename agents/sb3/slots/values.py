"""Value slots: the candidate values of one API read from the pooled hits, with the evidence for each.

:func:`value_slots` gathers an API's mentions (the rules candidates and the lines that share
the request's setting words), groups them by value and fills every :class:`ValueSlot` field the
features read; the learned priors add their fields (:func:`prior_features`, :func:`setting_features`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vmb_agents.reader import (
    OPPOSITE,
    Candidate,
    conditions_in,
    content_words,
    extract_value,
    hit_body,
    score_apis,
    spoken_text,
    value_param,
)
from vmb_agents.sb3.slots.layout import N_MEMORY_VALUES
from vmb_agents.sb3.slots.line_prior import GENUINE
from vmb_agents.sb3.slots.reading import (
    CONDITIONAL_RE,
    DEFAULT_LINE_RE,
    NOW,
    line_hash,
    prior_text,
    reason_words,
    said_by,
    stems,
)
from vmb_agents.sb3.slots.records import EvidencePool, ValueSlot
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import LINE_CUES

_UNCLEAN = ("hypothetical", "elsewhere", "question")


def api_mentions(pool: EvidencePool, api: str) -> list[Any]:
    """The rules candidates of ``api`` plus the values of lines that share the request's setting words.

    Lines the vocabulary does not tie to the function ("how far the frunk opens at 85 percent")
    join ranked below the rules' own. A free-text value that names another function's setting is dropped
    (:func:`names_another_setting`).
    """
    mine = [Candidate(c.api, trim_free_text(c.value), c.score, c.source) for c in pool.cands if c.api == api]
    used = {c.source for c in mine}
    floor = min((c.score for c in mine), default=2.0 * pool.req_scores.get(api, 0.0)) - 1.0
    for h in pool.hits:
        if h.render() in used or not pool.setting_words:
            continue
        body = hit_body(h, pool.speakers)
        overlap = len(pool.setting_words & content_words(body))
        if overlap == 0:
            continue
        value = extract_value(API_SPECS[api], body, pool.req)
        if value is not None:
            mine.append(Candidate(api, trim_free_text(value), floor + 0.3 * overlap, h.render()))
            used.add(h.render())
    if requested_api(pool) == api:
        mine.extend(bare_mentions(pool, api, used, floor - 0.5))
    return [c for c in mine if not names_another_setting(c.value, api)]


def names_another_setting(value: Any, api: str) -> bool:
    """Whether a free-text value read from a line names another function's setting better than ``api``'s: "bump the
    video quality down to 480p" is no destination, though "down to" reads like one."""
    param = value_param(API_SPECS[api])
    if not isinstance(value, str) or param is None or (param.constraint is not None and param.constraint.choices):
        return False  # only free text (a place, a title, a station): a choice is a choice
    scores = score_apis(value)
    best = max(scores.values(), default=0.0)
    return best >= 2.0 and scores.get(api, 0.0) < best


#: A free-text value's trailing replacement clause ("High Court instead of the District Court").
INSTEAD_RE = re.compile(r"[\s,;]*\binstead\b(?:\s+of\b.*)?$", re.IGNORECASE)


def trim_free_text(value: Any) -> Any:
    """A free-text value without its trailing "instead (of ...)": the place or title, not the swap."""
    if not isinstance(value, str):
        return value
    trimmed = INSTEAD_RE.sub("", value).strip(" ,.;:!")
    return trimmed or value


#: The least request score of the API whose bare values are read (the request names it, or the prior is sure).
BARE_REQUEST_SCORE = 1.0


def requested_api(pool: EvidencePool) -> str | None:
    """The API the request names most strongly (at least :data:`BARE_REQUEST_SCORE`), else None."""
    if not pool.req_scores:
        return None
    api, score = max(pool.req_scores.items(), key=lambda kv: (kv[1], kv[0]))
    return api if score >= BARE_REQUEST_SCORE else None


def bare_mentions(pool: EvidencePool, api: str, used: set[str], score: float) -> list[Any]:
    """Values of hit lines that name no setting at all, read for the requested API.

    People revise a setting without naming it again ("Ouch, that's too rough! Level 3 hurts.
    Level 1 is what I need.", "Okay, I'll bump it up to 22."): retrieval brings such a line
    beside the one that names the setting, or through the request's other words. A line the
    vocabulary ties to some function is that function's (the rules read it); a bare line gives
    the requested API its value, ranked below every named mention (``score``). So does a line
    that names only functions of the requested API's module none of which reads a value in it
    ("The navigation voice is too quiet ... crank this up to 90" for the navigation volume).
    """
    out = []
    module = API_SPECS[api].module
    for h in pool.hits:
        if h.render() in used or not h.people:
            continue
        body = hit_body(h, pool.speakers)
        named = score_apis(body)
        if any(API_SPECS[a].module != module or extract_value(API_SPECS[a], body, pool.req) is not None
               for a in named):
            continue
        value = extract_value(API_SPECS[api], body, pool.req)
        if value is not None:
            out.append(Candidate(api, value, score, h.render()))
    return out


def _clean_line(pool: EvidencePool, h: Any) -> bool:
    body = hit_body(h, pool.speakers)
    return not any(LINE_CUES[k].search(body) for k in _UNCLEAN)


def latest_times(pool: EvidencePool, mine: Sequence[Any]) -> dict[str, Any]:
    """The latest mention times of an API: by anyone, by the target, clean by anyone, clean by the target."""
    hits = [pool.by_render[c.source] for c in mine]
    target = pool.req.target
    return {
        "any": max((h.timestamp for h in hits if h.timestamp), default=None),
        "target": max((h.timestamp for h in hits if said_by(h, target) and h.timestamp), default=None),
        "clean_any": max((h.timestamp for h in hits if h.timestamp and _clean_line(pool, h)), default=None),
        "clean_target": max((h.timestamp for h in hits if target and h.timestamp and said_by(h, target)
                             and _clean_line(pool, h)), default=None),
    }


def _add_mention(pool: EvidencePool, slot: ValueSlot, c: Any, latest: Mapping[str, Any]) -> tuple[Any, ...]:
    """Count one mention into ``slot``; returns its ``(order, cues, source)`` for the representative choice."""
    req, h = pool.req, pool.by_render[c.source]
    is_target = said_by(h, req.target)
    slot.follows |= c.source in pool.follow_src
    slot.relative |= any(p.search(h.text) for p in pool.rel_pats)
    slot.names_passenger |= any(p.search(h.text.split(":", 1)[-1]) for p in pool.other_pats)
    slot.request_overlap = max(slot.request_overlap,
                               float(len(pool.req_words & content_words(hit_body(h, pool.speakers)))))
    slot.mentions += 1
    slot.sources.append(c.source)
    slot.target_mentions += is_target
    slot.other_mentions += bool(h.people) and not is_target
    if h.timestamp is not None:
        slot.recency = max(slot.recency, pool.rank_of_time.get(h.timestamp, 0.0))
        slot.latest_any |= h.timestamp == latest["any"]
        slot.latest_target |= is_target and h.timestamp == latest["target"]
    body = hit_body(h, pool.speakers)
    cond = conditions_in(body)
    if h.timestamp is not None and not cond & {"night", "day"}:
        cond.add("night" if h.timestamp.hour >= 19 or h.timestamp.hour < 5 else "day")
    slot.conditions = max(slot.conditions, float(len(req.conditions & cond)))
    slot.opposite = max(slot.opposite, float(len({OPPOSITE.get(x) for x in req.conditions} & cond)))
    cues = {k: float(bool(p.search(body))) for k, p in LINE_CUES.items()}
    unclean = cues["hypothetical"] or cues["elsewhere"] or cues["question"]
    if is_target and not unclean:
        slot.clean = True
        slot.clean_target_mentions += 1
        if h.timestamp is not None and h.timestamp == latest["clean_target"]:
            slot.latest_clean_target = True
    if h.timestamp is not None and h.timestamp == latest["clean_any"] and not unclean:
        slot.latest_clean_any = True
    # the representative mention: the latest by the target, else the latest
    return (is_target, h.timestamp or NOW.replace(year=1900)), cues, c.source


def group_slot(pool: EvidencePool, group: list[Any], latest: Mapping[str, Any]) -> ValueSlot:
    """The value slot of the mentions of one value (sorted best first here)."""
    group.sort(key=lambda c: -c.score)
    slot = ValueSlot(value=group[0].value, score=group[0].score, source=group[0].source)
    rep = None
    for c in group:
        cand = _add_mention(pool, slot, c, latest)
        if rep is None or cand[0] > rep[0]:
            rep = cand
    if rep is not None:
        slot.cues, slot.source = rep[1], rep[2]
        slot.rep_target = rep[0][0]
        slot.line_hash = line_hash(hit_body(pool.by_render[rep[2]], pool.speakers))
    return slot


def situation_features(pool: EvidencePool, values: Sequence[ValueSlot]) -> None:
    """The request's situation (weather, light, passengers, route) against each mention: conditional rules.

    The overlap reads the line with people's names ("When Ursula rides with me" against "Ursula sat in the front
    passenger seat"): a passenger rule is about who rides.
    """
    for v in values:
        for src in v.sources:
            hit = pool.by_render[src]
            body = hit_body(hit, pool.speakers)
            shared = len(pool.situation & stems(spoken_text(hit, pool.speakers)))
            v.context_overlap = max(v.context_overlap, float(shared))
            if CONDITIONAL_RE.search(body):
                v.conditional = True
                v.cond_match |= shared > 0
                v.cond_miss |= shared == 0
            v.default_line |= bool(DEFAULT_LINE_RE.search(body))
    for v in values:
        v.other_cond_match = any(w.cond_match for w in values if w is not v)


def value_slots(pool: EvidencePool, api: str) -> list[ValueSlot]:
    """The value slots of ``api``: clean mentions by the target first, then by the rules score (at most
    :data:`N_MEMORY_VALUES`)."""
    mine = api_mentions(pool, api)
    latest = latest_times(pool, mine)
    groups: dict[str, list[Any]] = {}
    for c in mine:
        groups.setdefault(repr(c.value), []).append(c)
    values = [group_slot(pool, group, latest) for group in groups.values()]
    situation_features(pool, values)
    reason_features(values, pool.by_render, pool.speakers, pool.req)
    genuine = prior_features(values, pool.by_render, pool.speakers, pool.req.target, pool.line_prior) \
        if pool.line_prior is not None and values else None
    if pool.setting_prior is not None and values:
        setting_features(api, values, pool.by_render, pool.speakers, pool.req.target, pool.setting_prior, genuine)
    values.sort(key=lambda s: -s.score)
    if values:
        values[0].rules_top = True
    values.sort(key=lambda s: (not s.clean, -s.score))
    return values[:N_MEMORY_VALUES]


def reason_features(values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                     req: Any) -> None:
    """``reason_overlap``: a request that names why ("my back is acting up again") against each target mention."""

    reason = reason_words(prior_text(req))
    if not reason or not values:
        return
    overlap: dict[str, int] = {}
    for v in values:
        for src in v.sources:
            overlap.setdefault(src, len(reason & reason_words(hit_body(by_render[src], speakers))))
    floor = min(overlap.values())
    for v in values:
        for src in v.sources:
            h = by_render[src]
            if said_by(h, req.target):
                v.reason_overlap = max(v.reason_overlap, float(overlap[src] - floor))


def prior_features(values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                    target: str | None, line_prior: Any) -> dict[str, float]:
    """Fill the ``prior_*`` fields of an API's values from the line prior's score of each mention;
    returns the score of each mention (rendered line -> probability)."""

    rows = []  # (value index, is target, timestamp, probability)
    hits = [(k, by_render[src]) for k, v in enumerate(values) for src in v.sources]
    probs = line_prior.many([hit_body(h, speakers) for _, h in hits])
    for (k, h), p in zip(hits, probs, strict=True):
        is_target = said_by(h, target)
        rows.append((k, is_target, h.timestamp, p))
        v = values[k]
        if is_target:
            v.prior_target = max(v.prior_target, p)
        elif h.people:
            v.prior_other = max(v.prior_other, p)
    genuine = [r for r in rows if r[3] >= GENUINE and r[2] is not None]
    latest_any = max((r[2] for r in genuine), default=None)
    latest_target = max((r[2] for r in genuine if r[1]), default=None)
    for k, is_target, when, _ in genuine:
        values[k].prior_latest_any |= when == latest_any
        values[k].prior_latest_target |= is_target and when == latest_target
    for v in values:
        rival = max((w.prior_target for w in values if w is not v), default=0.0)
        v.prior_margin = v.prior_target - rival
    return {h.render(): float(p) for (_, h), p in zip(hits, probs, strict=True)}


def setting_features(api: str, values: Sequence[ValueSlot], by_render: Mapping[str, Any], speakers: Sequence[str],
                      target: str | None, setting_prior: Any, genuine: Mapping[str, float] | None) -> None:
    """Fill ``setting_prob`` and ``setting_latest_target``: the API prior (request wording -> API) read on
    each mention by the target, and the latest genuine one among the mentions it ties to ``api``
    (``genuine``: the line prior's score of each mention, from :func:`prior_features`; None: all count)."""

    classes = list(setting_prior.classes_)
    if api not in classes:
        return
    col = classes.index(api)
    hits = [(k, by_render[src]) for k, v in enumerate(values) for src in v.sources]
    hits = [(k, h) for k, h in hits if said_by(h, target)]
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

