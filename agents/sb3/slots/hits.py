"""Hit pooling and follow-ups: the memory hits an episode has seen, the lines that continue a setting, and
the second search round's queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import re

from vmb_agents.reader import Candidate, extract_value, hit_body
from vmb_agents.sb3.slots.layout import CORRECTION_WORDS, FOLLOW_MINUTES, N_FOLLOWUPS
from vmb_agents.sb3.slots.reading import NOW, prior_text, render_value, said_by
from vmb_agents.sb3.slots.records import ApiSlot
from vmb_gym.memory import MemoryHit
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.lexicon import LEVEL_WORDING, LINE_CUES, PREFERENCE_WORDING

def shown_hit(record: Mapping[str, Any], speakers: Sequence[str] = ()) -> MemoryHit:
    """One ``info["memory_hits"]`` hit (:func:`vmb_gym.envs.tool_runtime.hit_record`) as the slot design reads it.

    The slot design reads a hit the way the policy's observation shows it: the time to the
    minute, the first line of the text, ``people`` the speakers whose ``"Name:"`` opens the line,
    and the status active (a superseded tag is not a separate line). The entry id is kept; it
    feeds no feature.
    """
    ts = record.get("timestamp")
    when = datetime.fromisoformat(ts) if ts else None
    if when is not None:
        when = datetime(when.year, when.month, when.day, when.hour, when.minute)
    lines = str(record.get("text") or "").splitlines()
    body = lines[0] if lines else ""
    people = tuple(s for s in speakers if body.startswith(s + ":"))
    return MemoryHit(entry_id=str(record.get("entry_id", "")), text=body, score=0.0, timestamp=when, people=people)


def pool_hits(records: Sequence[Mapping[str, Any]], speakers: Sequence[str]) -> list[MemoryHit]:
    """Every distinct hit of the episode's searches (first seen first; one per time and text)."""
    seen: dict[tuple[Any, str], MemoryHit] = {}
    for record in records:
        h = shown_hit(record, speakers)
        seen.setdefault((h.timestamp, h.text), h)
    return list(seen.values())


def continuations(cands: Sequence[Any], hits: Sequence[MemoryHit], speakers: Sequence[str],
                  req: Any) -> tuple[list[Any], set[str]]:
    """Candidates of lines that continue a setting, and those lines (rendered).

    "Too low. Make it 35 percent instead." continues the line before it: a line by the same
    speaker within :data:`FOLLOW_MINUTES` of a line that names a setting gives a value for it.
    """
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
            if not continues_a_setting(body):
                break  # the same line for every earlier line
            for c0 in by_source.get(h0.render(), ()):
                if c0.api in own:
                    continue
                value = extract_value(API_SPECS[c0.api], body, req)
                if value is None:
                    continue
                own.add(c0.api)
                extra.append(Candidate(c0.api, value, c0.score + 0.5, h.render()))
                follow_src.add(h.render())
    return extra, follow_src


def continues_a_setting(body: str) -> bool:
    """Whether a line can carry on the setting of the speaker's line before it: no question, and an amount
    ("Make it 35 percent", "Level 1 is what I need"), an instruction ("make it green"), a reaction to the
    setting ("Too low", "That's better") or a correction ("I meant", "sorry, I misspoke"). Chat by the same
    speaker a minute later ("I've got at least four consults today", "talking gear instead of equations",
    "that's actually a nice spot") continues nothing: the line cues "instead" and "actually" alone are not
    enough."""
    low = body.lower()
    if LINE_CUES["question"].search(low):
        return False
    return bool(LEVEL_WORDING.search(low) or PREFERENCE_WORDING.search(low) or INSTRUCTION.search(low)
                or CORRECTION.search(low))


#: An instruction about the setting just named ("make it green", "turn that down", "bump it up").
INSTRUCTION = re.compile(r"\b(?:make|set|turn|put|switch|bump|dial|lower|raise|keep|change|leave) (?:it|that|this)\b"
                         r"|\b(?:bump|dial|crank|knock) (?:up|down|back)\b")
#: A correction of what the speaker just said (``LINE_CUES["correction"]`` without its chatty "actually").
CORRECTION = re.compile(r"\b(?:wrong|mistake|mistaken|meant|sorry|misspoke|scratch that|not what i)\b")


def followup_queries(req: Any, apis: Sequence[ApiSlot], by_render: Mapping[str, Any], relatives: Sequence[str],
                      speakers: Sequence[str]) -> list[str]:
    """The second search round: the relatives' names with the setting words, the target's corrections
    ("Too low. Make it 35 percent instead." continues the line before it), and "speaker + value" of the
    target's lines for the best API (a correction names the value it corrects: "95 percent was too much")."""

    setting = " ".join(prior_text(req).split()[:8])
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
                if req.target and not said_by(h, req.target):
                    continue
                mentions.append((h.timestamp or NOW, f"{h.people[0]} {render_value(val.value)}"))
        for _, q in sorted(mentions, reverse=True):
            if q not in out:
                out.append(q)
    return out[:N_FOLLOWUPS]

