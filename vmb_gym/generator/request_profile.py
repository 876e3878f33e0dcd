"""How a benchmark's requests name what they ask for: the setting, only its device, or neither.

The line classifier of :mod:`vmb_gym.generator.domain_gap` compares the *wording* of history lines;
this compares the *tasks*. A request that names its setting ("Set the seat heating the way I like
it") leaves the memory only the value to find; one that names the device ("Put my seat back") leaves
it the setting too; one that names neither ("My back is acting up again. Put things back the way I
had them then.") leaves it everything. A policy trained where nearly every request names its setting
never learns to read the function from the history, and 30% of the official requests (files 1-40)
name neither.

Each request's quoted words (its whole text when it quotes nobody) are matched, whole words and
case-insensitive, against the simulator vocabulary of :mod:`vmb_gym.vehicle.lexicon`: a phrase of the
first gold call's function (:data:`~vmb_gym.vehicle.lexicon.API_WORDS`) is ``"setting"``, else a
phrase of its module (:data:`~vmb_gym.vehicle.lexicon.MODULE_WORDS`) is ``"device"``, else
``"neither"``. Only the gold function's *name* is read, to know what to look for.

:func:`target_profile` measures *whose* seat the request is for: the first gold call's seat, zone or
side argument is the driver's, the whole car (``"all"``, ``"both"``), another seat or side, or the
function has none. Nearly every official request on a seat or zone is the driver's or the whole
car's; the embedded set spreads them over all four seats.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import API_WORDS, MODULE_WORDS, phrase_pattern

__all__ = ["NAMINGS", "TARGETS", "RequestProfile", "profile_of", "render_markdown", "request_naming",
           "request_profile", "target_of", "target_profile"]

#: What a request names, most to least.
NAMINGS: tuple[str, ...] = ("setting", "device", "neither")

#: Whose seat the first gold call sets (:func:`target_of`).
TARGETS: tuple[str, ...] = ("driver", "whole car", "other seat", "no seat")

_SEATS = frozenset({"driver", "passenger", "rear_left", "rear_right", "front", "rear", "left", "right", "all", "both"})

_QUOTE = re.compile(r"(?<![\w])['\u2018](.+?)['\u2019](?![\w])")


def request_naming(request: str, function: str) -> str:
    """``"setting"``, ``"device"`` or ``"neither"``: what ``request`` names of ``function`` (see the module
    docstring)."""
    quotes = _QUOTE.findall(request)
    said = " ".join(quotes) if quotes else request
    spec = API_SPECS.get(function)
    for naming, phrases in (("setting", API_WORDS.get(function, ())),
                            ("device", MODULE_WORDS.get(spec.module, ()) if spec is not None else ())):
        if any(phrase_pattern(p).search(said) for p in phrases if p.strip()):
            return naming
    return "neither"


def target_of(arguments: Mapping[str, Any]) -> str:
    """One of :data:`TARGETS`: whose seat a call with ``arguments`` sets (its first seat, zone or side value)."""
    seat = next((v for v in arguments.values() if isinstance(v, str) and v in _SEATS), None)
    if seat is None:
        return "no seat"
    if seat == "driver":
        return "driver"
    return "whole car" if seat in ("all", "both") else "other seat"


@dataclass(frozen=True)
class RequestProfile:
    """The shares of requests by ``kinds`` (:data:`NAMINGS` or :data:`TARGETS`), over ``queries`` requests with a
    gold call."""

    queries: int
    counts: dict[str, int]
    kinds: tuple[str, ...] = NAMINGS

    @property
    def shares(self) -> dict[str, float]:
        """Each kind's share of the requests (0 when there are none)."""
        return {k: round(self.counts.get(k, 0) / self.queries, 4) if self.queries else 0.0 for k in self.kinds}

    def distance(self, other: RequestProfile) -> float:
        """The total variation distance between the two profiles (0: the same shares, 1: disjoint)."""
        a, b = self.shares, other.shares
        return round(0.5 * sum(abs(a[k] - b.get(k, 0.0)) for k in self.kinds), 4)

    def to_json(self) -> dict[str, Any]:
        return {"queries": self.queries, "counts": {k: self.counts.get(k, 0) for k in self.kinds},
                "shares": self.shares}


def profile_of(pairs: Iterable[tuple[str, str]]) -> RequestProfile:
    """The profile of ``(request text, first gold function)`` pairs."""
    counts = Counter(request_naming(text, fn) for text, fn in pairs)
    return RequestProfile(queries=sum(counts.values()), counts=dict(counts))


def request_profile(spec: str | os.PathLike[str]) -> RequestProfile:
    """The profile of a data spec's requests (``"default"``, ``"official:DIR"``, a folder; its QA files; tasks
    without a gold call are left out).

    Raises:
        ConfigError: the spec names no folder with history files.
        DataError: a QA file is missing or malformed (:func:`~vmb_gym.data.qa_files.load_gold_queries`).
    """
    return profile_of((q.text, q.gold_calls[0].name) for q in _gold_queries(spec))


def target_profile(spec: str | os.PathLike[str]) -> RequestProfile:
    """The shares of a data spec's requests by :data:`TARGETS` (whose seat the first gold call sets); raises as
    :func:`request_profile`."""
    counts = Counter(target_of(q.gold_calls[0].arguments) for q in _gold_queries(spec))
    return RequestProfile(queries=sum(counts.values()), counts=dict(counts), kinds=TARGETS)


def _gold_queries(spec: str | os.PathLike[str]) -> list[Any]:
    from vmb_gym.data.qa_files import load_gold_queries
    from vmb_gym.generator.domain_gap import history_folder

    return [q for q in load_gold_queries(history_folder(spec)) if q.gold_calls]


def render_markdown(generated: RequestProfile, official: RequestProfile,
                    targets: tuple[RequestProfile, RequestProfile] | None = None) -> str:
    """The report section: the shares side by side and their distance (and those of ``targets``, generated and
    official :func:`target_profile`, when given)."""
    g, o = generated.shares, official.shares
    lines = ["## What the requests name (generated vs official)", "",
             f"{generated.queries} generated and {official.queries} official requests; the quoted words matched "
             "against the gold function's and its device's words (`vmb_gym.generator.request_profile`).", "",
             "| the request names | generated | official |", "|---|---|---|"]
    lines += [f"| {k} | {g[k]:.1%} | {o[k]:.1%} |" for k in NAMINGS]
    lines += ["", f"Total variation distance: {generated.distance(official):.3f} (0 = the same mix). "
              "`vmb generate --indirect-requests` and `--device-requests` move it.", ""]
    if targets is not None:
        tg, to = targets[0].shares, targets[1].shares
        lines += ["| the request is for | generated | official |", "|---|---|---|"]
        lines += [f"| {k} | {tg[k]:.1%} | {to[k]:.1%} |" for k in TARGETS]
        lines += ["", f"Total variation distance: {targets[0].distance(targets[1]):.3f}. "
                  "`vmb generate --driver-seat` and `--whole-car` move it.", ""]
    return "\n".join(lines)
