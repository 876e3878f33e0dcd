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
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import API_WORDS, MODULE_WORDS, phrase_pattern

__all__ = ["NAMINGS", "RequestProfile", "profile_of", "render_markdown", "request_naming", "request_profile"]

#: What a request names, most to least.
NAMINGS: tuple[str, ...] = ("setting", "device", "neither")

_QUOTE = re.compile(r"(?<![\w])['\u2018](.+?)['\u2019](?![\w])")


def request_naming(request: str, function: str) -> str:
    """``"setting"``, ``"device"`` or ``"neither"``: what ``request`` names of ``function`` (see the module docstring)."""
    quotes = _QUOTE.findall(request)
    said = " ".join(quotes) if quotes else request
    spec = API_SPECS.get(function)
    for naming, phrases in (("setting", API_WORDS.get(function, ())),
                            ("device", MODULE_WORDS.get(spec.module, ()) if spec is not None else ())):
        if any(phrase_pattern(p).search(said) for p in phrases if p.strip()):
            return naming
    return "neither"


@dataclass(frozen=True)
class RequestProfile:
    """The shares of requests by :data:`NAMINGS`, over ``queries`` requests with a gold call."""

    queries: int
    counts: dict[str, int]

    @property
    def shares(self) -> dict[str, float]:
        """Each naming's share of the requests (0 when there are none)."""
        return {k: round(self.counts.get(k, 0) / self.queries, 4) if self.queries else 0.0 for k in NAMINGS}

    def distance(self, other: RequestProfile) -> float:
        """The total variation distance between the two profiles (0: the same shares, 1: disjoint)."""
        a, b = self.shares, other.shares
        return round(0.5 * sum(abs(a[k] - b[k]) for k in NAMINGS), 4)

    def to_json(self) -> dict[str, Any]:
        return {"queries": self.queries, "counts": {k: self.counts.get(k, 0) for k in NAMINGS}, "shares": self.shares}


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
    from vmb_gym.data.qa_files import load_gold_queries
    from vmb_gym.generator.domain_gap import history_folder

    queries = load_gold_queries(history_folder(spec))
    return profile_of((q.text, q.gold_calls[0].name) for q in queries if q.gold_calls)


def render_markdown(generated: RequestProfile, official: RequestProfile) -> str:
    """The report section: the shares side by side and their distance."""
    g, o = generated.shares, official.shares
    lines = ["## What the requests name (generated vs official)", "",
             f"{generated.queries} generated and {official.queries} official requests; the quoted words matched "
             "against the gold function's and its device's words (`vmb_gym.generator.request_profile`).", "",
             "| the request names | generated | official |", "|---|---|---|"]
    lines += [f"| {k} | {g[k]:.1%} | {o[k]:.1%} |" for k in NAMINGS]
    lines += ["", f"Total variation distance: {generated.distance(official):.3f} (0 = the same mix). "
              "`vmb generate --indirect-requests` and `--device-requests` move it.", ""]
    return "\n".join(lines)
