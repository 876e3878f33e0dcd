"""Reading an experience hit of the ``layered`` memory: the extra calls of a person's routine.

A request that asks for a routine ("... and the rest of my usual routine with it") wants the
setting it names *and* the settings its person sets with it. The rules reader plans the named
setting from facts as before; :func:`routine_calls` reads the rest from the experience hits
(layer ``experience``): each quoted source line of a routine is split into clauses
(:data:`~vmb_gym.memory.experiences.CLAUSE_BREAK`: "... 85 percent. Oh, and the hazard lights
switched on too."), the clause after a routine break is a *companion* step, and a quote is used
only when one of its other clauses names the function already planned (the routine is the one of
that setting). A companion clause becomes the call of the best-named function whose value the
clause states (:func:`~vmb_agents.reader.values.extract_value`), with the seat/side the clause or the
request names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vmb_agents.reader.params import enable_api, selector_param, value_param
from vmb_agents.reader.request import Request
from vmb_agents.reader.values import extract_value
from vmb_agents.reader.words import score_apis
from vmb_gym.memory import MemoryHit
from vmb_gym.memory.experiences import CLAUSE_BREAK
from vmb_gym.vehicle import API_SPECS

#: Least function score for a clause to name the planned function.
NAMES_API = 1.5
_QUOTE = re.compile(r'^\s*"(.*)"\s*$')
#: A companion clause that switches something (the generator's and people's wording).
_SWITCH = re.compile(
    r"\b(?:switched on|switched off|turned on|turned off|locked|unlocked|open|opened|saved|folded flat|on|off)\b",
    re.IGNORECASE,
)
#: A device said in the plural ("the sunshades", "the side mirrors"): every one of them.
_PLURAL = re.compile(r"\b(?:sunshades|wipers|side mirrors|mirrors|windows)\b", re.IGNORECASE)
_OFF = re.compile(r"\b(?:switched off|turned off|unlocked|off|closed)\b", re.IGNORECASE)


def quote_clauses(text: str) -> list[tuple[str, bool]]:
    """``(clause, is_companion)`` of one utterance: a clause right after a routine break is a companion."""
    out: list[tuple[str, bool]] = []
    companion = False
    for part in CLAUSE_BREAK.split(text):
        if part is None or not part.strip():
            continue
        if CLAUSE_BREAK.fullmatch(part.strip()):
            companion = True
            continue
        out.append((part.strip(), companion))
        companion = False
    return out


def _stems(text: str) -> set[str]:
    """Lower-cased words of ``text`` (camelCase and ``_`` split), a plural ``s`` dropped."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z]+", spaced)}


_GENERIC = {"carcontrol", "set", "enabled", "switch", "is", "on", "state", "mode"}


def _switch_function(clause: str, scores: dict[str, float], exclude: set[str]) -> str | None:
    """The on/off function a switch clause names: the boolean functions of the best-named functions
    (or their "switch it on" functions, :func:`~vmb_agents.reader.params.enable_api`), best first, and
    the other boolean functions of the devices the clause names; one whose own name words the
    clause says ("hazard", "tail", "favourites") goes first."""
    order: list[str] = []
    for api, score in sorted(scores.items(), key=lambda t: (-t[1], t[0])):
        if score < 1.0:
            continue
        vp = value_param(API_SPECS[api])
        own = api if vp is not None and vp.py_type is bool else (enable_api(api) or (None,))[0]
        if own is not None and own not in order:
            order.append(own)
    modules = {API_SPECS[a].module for a, s in scores.items() if s >= 1.0}
    order += sorted(a for a in API_SPECS if API_SPECS[a].module in modules and a not in order
                    and (vp := value_param(API_SPECS[a])) is not None and vp.py_type is bool)
    words = _stems(clause) | ({"favorite"} if "favourite" in clause.lower() else set())

    def said(api: str) -> int:
        return len((_stems(api.split("_", 1)[1]) - _GENERIC - _stems(API_SPECS[api].module)) & words)

    ranked = sorted((a for a in order if a not in exclude), key=lambda a: (-said(a), order.index(a)))
    return ranked[0] if ranked else None


def companion_call(clause: str, exclude: set[str], req: Request) -> dict[str, Any] | None:
    """The call a companion clause states (a function not in ``exclude``), or ``None``.

    A switch wording ("switched on", "locked", "open", "saved", "folded flat"; "switched off",
    "unlocked") calls the on/off function it names (:func:`_switch_function`) with ``True`` or
    ``False``; otherwise the best-named function whose value the clause states. The seat/side is
    the one the clause names, else the request's seat when the function takes it, else its first
    choice.
    """
    scores = score_apis(clause)
    value: Any = None
    api: str | None = None
    if _SWITCH.search(clause):
        api = _switch_function(clause, scores, exclude)
        value = not _OFF.search(clause)
    else:
        for name, score in sorted(scores.items(), key=lambda t: (-t[1], t[0])):
            if score >= 1.0 and name not in exclude and value_param(API_SPECS[name]) is not None:
                value = extract_value(API_SPECS[name], clause, req)
                if value is not None:
                    api = name
                    break
    if api is None:
        return None
    spec = API_SPECS[api]
    vp = value_param(spec)
    args: dict[str, Any] = dict(value) if isinstance(value, dict) else {vp.name if vp else "value": value}
    sel = selector_param(spec)
    if sel is not None:
        choices = [str(c) for c in (sel.constraint.choices if sel.constraint else ())]
        said = [c for c in choices if re.search(rf"\b{re.escape(c)}\b", clause, re.IGNORECASE)]
        every = [c for c in ("all", "both") if c in choices] if _PLURAL.search(clause) else []
        args[sel.name] = said[0] if len(said) == 1 else every[0] if every else req.seat if req.seat in choices else (
            choices[0] if choices else req.seat)
    return {"name": api, "arguments": args}


@dataclass
class RoutinePlan:
    """What the routine experiences say for a planned function: its value (``None``: they state
    none) and the companion calls."""

    value: Any = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    #: The id of the experience the value was read from ("" when none).
    value_from: str = ""


def routine_plan(hits: Sequence[MemoryHit], planned: Sequence[str], req: Request) -> RoutinePlan:
    """The routine of the ``planned`` functions in the experience hits of ``hits``.

    An experience hit is read when one of its quotes' non-companion clauses names a planned
    function (score at least :data:`NAMES_API`; "Actually, dial it back to 30" names none, the
    quote before it does); of it, the quotes with a companion clause are the routine. The value is
    the one the first planned function's own clauses state in the newest such quote of the first
    hit that states one (the routine as its person last said it); each companion function is
    called once (first quote wins), never one already planned.
    """
    plan = RoutinePlan()
    done = set(planned)
    main = API_SPECS[planned[0]] if planned else None
    for h in hits:
        if h.layer != "experience":
            continue
        quotes = [quote_clauses(m.group(1)) for line in h.text.splitlines()[1:] if (m := _QUOTE.match(line))]
        if not any(score_apis(c).get(api, 0.0) >= NAMES_API
                   for clauses in quotes for c, comp in clauses if not comp for api in planned):
            continue
        value = None
        for clauses in quotes:
            if not any(comp for _, comp in clauses):
                continue
            own = " ".join(c for c, comp in clauses if not comp)
            said = extract_value(main, own, req) if main is not None and own else None
            value = said if said is not None else value
            plan.calls += _companion_calls(clauses, done, req)
        if value is not None and plan.value is None:
            plan.value, plan.value_from = value, h.entry_id
    return plan


def _companion_calls(clauses: Sequence[tuple[str, bool]], done: set[str], req: Request) -> list[dict[str, Any]]:
    """The call of each companion clause (:func:`companion_call`), none of a function in ``done``, which each call
    joins (so a function is called once)."""
    calls = []
    for clause, companion in clauses:
        call = companion_call(clause, done, req) if companion else None
        if call is not None:
            done.add(call["name"])
            calls.append(call)
    return calls


def line_companions(line: str, planned: Sequence[str], req: Request) -> list[dict[str, Any]]:
    """The companion calls a memory line states after its value ("... the window opening at 30 percent. Plus the
    sunroof lock locked, always."), never a ``planned`` function and each function once. A ``[time] speaker:``
    prefix may stay: only a clause after a routine break is read."""
    return _companion_calls(quote_clauses(line), set(planned), req)


def routine_calls(hits: Sequence[MemoryHit], planned: Sequence[str], req: Request) -> list[dict[str, Any]]:
    """The companion calls of :func:`routine_plan`."""
    return routine_plan(hits, planned, req).calls


__all__ = ["NAMES_API", "RoutinePlan", "companion_call", "line_companions", "quote_clauses", "routine_calls",
           "routine_plan"]
