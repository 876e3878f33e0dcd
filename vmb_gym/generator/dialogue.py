"""Turn a planned scenario into dated dialogue lines, evidence and the event log.

Planned beats (preference statements, corrections, life updates) are wrapped in chit-chat and
filler conversations are added until the history reaches ``history_length`` lines. Conversations
are placed in 20-minute slots over the days of the history; lines advance by zero or one minute
(at most two lines share a minute), in the official ``[YYYY-MM-DD HH:MM] Full Name: text`` form.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from vmb_gym.generator import banks, talk, talk_query
from vmb_gym.generator.scenario import Beat, Person, ScenarioBuilder, Utt, fill, time12

_SLOTS: tuple[int, ...] = tuple(range(6 * 60 + 40, 23 * 60, 20))


@dataclass
class Line:
    """One rendered history line (``line_id`` is 1-based)."""

    line_id: int
    when: datetime
    speaker: int
    listener: int
    text: str
    utt: Utt | None = None

    def render(self, people: list[Person]) -> str:
        """The official history line."""
        return f"[{self.when:%Y-%m-%d %H:%M}] {people[self.speaker].full}: {self.text}"


@dataclass
class Rendered:
    """A rendered scenario: its lines and where each evidence tag ended up."""

    lines: list[Line]
    tags: dict[str, Line] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)


def chit_chat(rng: random.Random, people: list[Person], a: int, b: int, n: int) -> list[Utt]:
    """``n`` lines of small talk between people ``a`` and ``b`` (no vehicle settings)."""
    topic = rng.choice(sorted(banks.TOPIC_LINES))
    out: list[Utt] = []
    speaker = a
    for i in range(n):
        p = people[speaker]
        if i == 0 or rng.random() < 0.55:
            t = rng.choice(banks.TOPIC_LINES[topic])
            text = fill(t, work=rng.choice(p.work), workplace=p.workplace,
                        relative=rng.choice(p.relatives).relation if p.relatives else "cousin",
                        district=rng.choice(banks.DISTRICTS),
                        **{k: rng.choice(v) for k, v in banks.FILL.items()})
        else:
            text = rng.choice(banks.REPLIES)
        out.append(Utt(speaker, text))
        speaker = b if speaker == a else a
        if rng.random() < 0.15:
            topic = rng.choice(sorted(banks.TOPIC_LINES))
    return out


def _template_sessions(builder: ScenarioBuilder, rng: random.Random) -> list[tuple[int, int, int, list[Utt]]]:
    """The beats wrapped in template chit-chat, then filler talks up to ``history_length`` lines."""
    people = builder.people
    sessions: list[tuple[int, int, int, list[Utt]]] = []
    for beat in builder.beats:
        short = beat.wrap < 4  # a passing remark inside a short talk
        pre = chit_chat(rng, people, beat.a, beat.b, rng.randint(0, beat.wrap) if short else rng.randint(1, 4))
        post = chit_chat(rng, people, beat.b, beat.a, rng.randint(0, beat.wrap) if short else rng.randint(1, 3))
        sessions.append((beat.day, beat.a, beat.b, pre + beat.utts + post))
    _add_filler(builder, rng, sessions, (6, 14), chit_chat)
    return sessions


def _natural_sessions(builder: ScenarioBuilder, rng: random.Random) -> list[tuple[int, int, int, list[Utt]]]:
    """The beats reworded inside natural conversations, then filler conversations (some of them
    authored scenes, :mod:`vmb_gym.generator.talk_scenes`, none twice in the history)."""
    people = builder.people
    sessions: list[tuple[int, int, int, list[Utt]]] = []
    planned = []
    for beat in builder.beats:  # the talks' sizes first: the longest of them get the scenes
        short = beat.wrap < 4  # a passing remark inside a longer talk about something else
        n_pre, n_post = (rng.randint(1, 6), rng.randint(0, 5)) if short else (rng.randint(2, 8), rng.randint(0, 5))
        planned.append((beat, short, n_pre, n_post))
    scenes = talk.scene_draw(people, [n_pre + n_post for _, _, n_pre, n_post in planned])
    for beat, short, n_pre, n_post in planned:
        utts = talk.beat_utts(rng, people, beat)
        around = talk.chat(rng, people, beat.a, beat.b, n_pre + n_post, scenes)  # one talk, the beat inside it
        n_pre = min(n_pre, len(around) - 2) if len(around) >= 5 else n_pre  # before the goodbye
        while 1 < n_pre and around[n_pre - 1].text.endswith("?"):  # not between a question and its answer
            n_pre -= 1
        if short and utts and utts[0].tag is None and rng.random() < 0.3:  # "Oh, while we're in here." leads in
            utts[0] = replace(utts[0], text=f"{talk.aside(rng, beat.a, False).text} {utts[0].text}")
        sessions.append((beat.day, beat.a, beat.b, around[:n_pre] + utts + around[n_pre:]))
    _add_filler(builder, rng, sessions, (12, 34), partial(talk.chat, scenes=scenes))
    return sessions


def _add_filler(builder: ScenarioBuilder, rng: random.Random, sessions: list[tuple[int, int, int, list[Utt]]],
                size: tuple[int, int], talk_fn: Callable[..., list[Utt]]) -> None:
    total = sum(len(s[3]) for s in sessions)
    per_day = [0] * builder.o.days
    for s in sessions:
        per_day[s[0]] += 1
    while total < builder.o.history_length:
        n = min(rng.randint(*size), builder.o.history_length - total)
        n = max(n, 2)
        a, b = rng.sample(range(len(builder.people)), 2)
        free = [d for d in range(builder.o.days) if per_day[d] < len(_SLOTS)]
        d = rng.choice(free)
        per_day[d] += 1
        sessions.append((d, a, b, talk_fn(rng, builder.people, a, b, n)))
        total += n


def restyle_queries(builder: ScenarioBuilder) -> None:
    """Tell each planned query's situation in the official query style (natural renderer only).

    Uses its own generator, so the plan and the dialogue draw the same numbers as the template's.
    """
    rng = random.Random(f"vmb-gen/{builder.o.seed}/{builder.sid}/natural-query")
    for plan in builder.plans:
        others = [p.display for p in builder.people if p.full != plan.info.get("person")
                  and re.search(rf"\b{re.escape(p.display)}\b", plan.text)]
        plan.text = talk_query.restyle(plan.text, rng, others[0] if others else None)


def assemble(builder: ScenarioBuilder) -> Rendered:
    """Place the builder's beats and filler talk on the timeline and number the lines.

    With ``renderer="natural"`` the talk comes from :mod:`vmb_gym.generator.talk`, a
    conversation never starts before the previous one of the day has ended, and the query
    texts are restyled (:func:`restyle_queries`).
    """
    rng = builder.r_dia
    people = builder.people
    n_people = len(people)
    natural = builder.o.renderer == "natural"
    sessions = _natural_sessions(builder, rng) if natural else _template_sessions(builder, rng)
    if natural:
        restyle_queries(builder)
    by_day: dict[int, list[tuple[int, int, int, list[Utt]]]] = {}
    for s in sessions:
        by_day.setdefault(s[0], []).append(s)
    lines: list[Line] = []
    out = Rendered(lines)
    for day in sorted(by_day):
        group = by_day[day]
        rng.shuffle(group)
        starts = sorted(rng.sample(_SLOTS, min(len(group), len(_SLOTS))))
        base = datetime(builder.start.year, builder.start.month, builder.start.day) + timedelta(days=day)
        last = base
        for (_, a, b, utts), start in zip(group, starts, strict=False):
            t = base + timedelta(minutes=start + rng.randint(0, 5))
            if natural and t <= last:
                t = last + timedelta(minutes=rng.randint(2, 9))
            same = 0
            for i, u in enumerate(utts):
                if i > 0:
                    if same >= 1 or rng.random() < 0.55:
                        t += timedelta(minutes=1)
                        same = 0
                    else:
                        same += 1
                listener = b if u.speaker == a else a
                if listener == u.speaker:
                    listener = (u.speaker + 1) % n_people
                line = Line(len(lines) + 1, t, u.speaker, listener, u.text, u)
                last = t
                lines.append(line)
                if u.tag:
                    out.tags[u.tag] = line
                if u.event is not None:
                    ev = dict(u.event)
                    ev.update({"when": f"{t:%Y-%m-%dT%H:%M}", "line_id": line.line_id})
                    ev.pop("text", None)
                    out.events.append(ev)
    return out


def memory_line(line: Line, people: list[Person]) -> str:
    """The gold-memory form of an evidence line: ``[Month D, YYYY] At h:mm AM, narrative``."""
    w = line.when
    return (f"[{w:%B} {w.day}, {w.year}] At {time12(w.hour, w.minute)}, {people[line.speaker].full} said to "
            f"{people[line.listener].full}: \"{line.text}\"")


__all__ = ["Beat", "Line", "Rendered", "assemble", "chit_chat", "memory_line"]
