"""How often a history states a value for the asked setting outside the request's evidence.

A request's evidence lines say which value is right; every *other* line before the request that
names the same setting and states a value for it is one the memory must rank below the evidence
(a hypothetical, another car, another person's setting, a question with a number in it). A policy
trained where there are many such lines learns to distrust what it reads; one trained where there
are none never learns to choose. Official histories (files 1-40) have few: about 1.5 per task, and
none at all in most tasks. This module counts them per task on both sides, so the generator's
near-miss mix (``GeneratorOptions.valued_near_misses``) can be set to match.

For each query with a gold call, the lines up to the request's time that are not its evidence are
read for the first gold function: a line that names it (:func:`~vmb_gym.generator.render_verify.mentions`,
the simulator vocabulary) is a *mention*; a mention from which ``reader`` reads a value is a *valued
mention*. The default reader is :func:`~vmb_gym.generator.render_verify.vocabulary_reader` (catalogue
value words, no bare numbers); ``vmb validate-benchmark`` passes the rules reader's value matcher.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vmb_gym.generator.render_verify import ValueReader, mentions, vocabulary_reader

__all__ = ["ConflictProfile", "conflict_profile", "query_conflicts", "render_markdown"]


@dataclass(frozen=True)
class ConflictProfile:
    """Per-task counts of mentions and valued mentions of the asked setting outside its evidence."""

    mentions: tuple[int, ...]
    valued: tuple[int, ...]

    @property
    def tasks(self) -> int:
        return len(self.valued)

    def summary(self) -> dict[str, float]:
        """Mean mentions, mean and median valued mentions per task, and the share of tasks with any."""
        if not self.tasks:
            return {"mentions_mean": 0.0, "valued_mean": 0.0, "valued_median": 0.0, "valued_any": 0.0}
        return {"mentions_mean": round(statistics.mean(self.mentions), 3),
                "valued_mean": round(statistics.mean(self.valued), 3),
                "valued_median": float(statistics.median(self.valued)),
                "valued_any": round(sum(v > 0 for v in self.valued) / self.tasks, 4)}

    def to_json(self) -> dict[str, Any]:
        return {"tasks": self.tasks, **self.summary()}


def query_conflicts(scenario: Any, query: Any, reader: ValueReader = vocabulary_reader) -> tuple[int, int] | None:
    """``(mentions, valued mentions)`` of ``query``'s first gold function in ``scenario``'s lines up to the
    request, outside the query's evidence; None for a query without a gold call."""
    if not query.gold_calls:
        return None
    api = query.gold_calls[0].name
    evidence = {i for event in query.evidence for i in event.line_ids}
    named = valued = 0
    for line in scenario.lines:
        if query.as_of is not None and line.timestamp > query.as_of:
            break
        if line.line_id in evidence or not mentions(api, line.text):
            continue
        named += 1
        valued += reader(api, line.text) is not None
    return named, valued


def _profile(pairs: Iterable[tuple[int, int] | None]) -> ConflictProfile:
    kept = [p for p in pairs if p is not None]
    return ConflictProfile(mentions=tuple(p[0] for p in kept), valued=tuple(p[1] for p in kept))


def conflict_profile(spec: str | os.PathLike[str], reader: ValueReader = vocabulary_reader) -> ConflictProfile:
    """The profile of a data spec (``"default"``, ``"official:DIR"``, a folder).

    Raises:
        ConfigError, DataError: as :func:`vmb_gym.data.load_scenarios` (no such folder, malformed files).
    """
    from vmb_gym.data import load_scenarios

    return _profile(query_conflicts(s, q, reader) for s in load_scenarios(spec) for q in s.queries)


def render_markdown(generated: ConflictProfile, official: ConflictProfile) -> str:
    """The report section: both sides' counts side by side."""
    g, o = generated.summary(), official.summary()
    rows = (("lines naming the asked setting, per task", "mentions_mean", "{:.2f}"),
            ("... that state a value, per task", "valued_mean", "{:.2f}"),
            ("... median per task", "valued_median", "{:.0f}"),
            ("tasks with at least one", "valued_any", "{:.1%}"))
    lines = ["## Other values of the asked setting (generated vs official)", "",
             f"{generated.tasks} generated and {official.tasks} official tasks; lines before the request that are not "
             "its evidence (`vmb_gym.generator.conflict_profile`).", "",
             "| outside the evidence | generated | official |", "|---|---|---|"]
    lines += [f"| {label} | {fmt.format(g[key])} | {fmt.format(o[key])} |" for label, key, fmt in rows]
    lines += ["", "`vmb generate --valued-near-misses SHARE` sets how many near misses state a value.", ""]
    return "\n".join(lines)
