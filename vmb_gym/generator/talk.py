"""The natural renderer: conversations people could have had, around the same planned content.

``GeneratorOptions(renderer="natural")`` words a scenario with this module instead of the short
template sentences. The plan (people, preference chains, queries, events) is the template
renderer's, unchanged; only the words and the talk around them differ:

* every planned utterance is said another way (:func:`reword`): a template of
  ``data/speech.json`` with the same placeholders, so an evidence line still
  states its value, setting, condition and relative in the words the matcher reads (an
  utterance whose new text lost any of them keeps its template text);
* the listener reacts, sometimes asks why and gets a reason (:func:`beat_utts`);
* each beat sits inside a conversation (:func:`chat`): an authored scene about the sharer's job,
  one of their interests or an everyday topic (:mod:`vmb_gym.generator.talk_scenes`; the
  household's scenes go to its longest talks, none twice in a history, :func:`scene_draw`), or a
  conversation composed from the parts of ``data/topics.json`` and
  ``data/chat.json`` (open, react, ask, answer, relate, suggest, plan,
  change the subject, say goodbye);
* most apostrophes are typeset curly, as in the official release.

All randomness comes from the generator passed in (the scenario's dialogue generator), so the
same seed gives the same bytes.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from vmb_gym.generator import banks, talk_car, talk_clauses, talk_close, talk_ideas, talk_scenes, talk_style
from vmb_gym.generator.bank_data import load
from vmb_gym.generator.records import Beat, Person, Utt, fill

__all__ = ["SCENE_MIN_LINES", "SCENE_SHARE", "aside", "bank_of", "beat_utts", "chat", "expand", "reword",
           "scene_chat", "scene_draw", "scene_line", "topics", "typeset"]

#: Planned content kinds the listener may ask "why?" about.
_WHY_KINDS = frozenset({"preference", "revision", "condition", "relative_preference"})
#: Fields that are spoken values: never re-typeset (the matcher reads them as generated).
_VALUE_FIELDS = frozenset({"val", "Val", "old", "Old", "cval", "Cval"})
#: Probability that a talk long enough is an authored scene (:mod:`vmb_gym.generator.talk_scenes`).
SCENE_SHARE = 1.0
#: Shortest talk that may be a scene (longer when the household has few scenes: :func:`scene_draw`).
SCENE_MIN_LINES = 5
#: Share of scene lines given a chance of a dash or ellipsis (authors already put some in).
SCENE_PUNCTUATE = 0.5
#: The open-ended conversation about one everyday thing (``data/generic.json``).
GENERIC = "generic"
#: How often a topic is picked for a conversation.
_TOPIC_WEIGHTS = {"work": 6, "family": 2, "food": 2, "home": 2, "health": 2, "hobby": 2, "weekend": 2, "friends": 2,
                  "interests": 4, "day": 3, GENERIC: 4, talk_ideas.SHOP: 14,
                  talk_ideas.PASSION: 8}
_YES_NO = re.compile(r"(?:Is|Are|Do|Does|Did|Will|Can|Could|Have|Has|Would|Was|Were)\b")
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")
_CHOICE = re.compile(r"\[([^\[\]]*)\]")


def topics() -> dict[str, dict[str, tuple[str, ...]]]:
    """Every small-talk topic: name -> parts (open, more, ask, relate, tip, plan)."""
    found: dict[str, dict[str, tuple[str, ...]]] = load("topics").TOPICS
    return found


@cache
def _synonym() -> re.Pattern[str]:
    words = sorted(map(re.escape, load("words").SYNONYMS), key=len, reverse=True)
    return re.compile(r"(?<![{\w])(?:" + "|".join(words) + r")(?![\w}])", re.IGNORECASE)


@cache
def bank_of() -> dict[str, str]:
    """Template text -> the name of the bank of :mod:`vmb_gym.generator.banks` it comes from (the first by name)."""
    out: dict[str, str] = {}
    for name, value in sorted(vars(load("banks")).items()):
        if name.isupper() and isinstance(value, tuple) and value and isinstance(value[0], str):
            for template in value:
                out.setdefault(template, name)
    return out


@cache
def _life() -> dict[str, tuple[str, ...]]:
    """A life-story stage of :data:`vmb_gym.generator.banks.LIFE_STORIES` -> its natural forms."""
    return {stage: natural for story, forms in zip(banks.LIFE_STORIES, load("speech").LIFE_STORIES, strict=True)
            for stage, natural in zip(story, forms, strict=True)}


def typeset(text: str, rng: random.Random, curly: float = 0.9) -> str:
    """``text`` with its in-word apostrophes set curly (with probability ``curly`` per text)."""
    if rng.random() < curly:
        return _APOSTROPHE.sub("\u2019", text)
    return text


def expand(template: str, rng: random.Random) -> str:
    """``template`` with each ``[a|b|c]`` replaced by one of its choices."""
    return _CHOICE.sub(lambda m: rng.choice(m.group(1).split("|")), template)


def vary(text: str, rng: random.Random, p: float = 0.35) -> str:
    """``text`` with some of its everyday words swapped for a synonym (placeholders are left alone)."""
    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        options = synonyms.get(word.lower())
        if not options or rng.random() >= p:
            return word
        new = rng.choice(options)
        return new[:1].upper() + new[1:] if word[:1].isupper() else new
    synonyms = load("words").SYNONYMS
    return _synonym().sub(swap, text)


def _say(template: str, rng: random.Random, fields: dict[str, str], synonyms: bool = False) -> str:
    """Expand and fill a template, typesetting all but the spoken values (kept as generated)."""
    curly = 1.0 if rng.random() < 0.9 else 0.0
    kept: dict[str, str] = {}
    kw: dict[str, str] = {}
    for k, v in fields.items():
        if k in _VALUE_FIELDS or k[:1].upper() + k[1:] in _VALUE_FIELDS:
            for key, value in ((k, v), (k[:1].upper() + k[1:], v[:1].upper() + v[1:])):
                kept[f"\x00{len(kept)}\x00"] = value
                kw[key] = list(kept)[-1]
        else:
            kw[k] = v
    text = expand(template, rng)
    text = vary(text, rng) if synonyms else text
    text = typeset(fill(text[:1].upper() + text[1:], **kw), rng, curly)
    for mark, value in kept.items():
        text = text.replace(mark, value)
    return text


def _placeholders(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


# ============================================================================ planned utterances
def reword(utt: Utt, rng: random.Random, listener_relative: str = "") -> str:
    """The natural text of a planned utterance (its template text when no natural form fits).

    A natural template is used only when the utterance's fields fill all its placeholders and
    every string the utterance must keep (``Utt.keep``: the spoken value, a relative's name)
    survives in the new text.
    """
    template = utt.src.template if utt.src is not None else utt.text
    bank = bank_of().get(template)
    fields = dict(utt.src.fields) if utt.src is not None else {}
    speech = load("speech")
    if bank == "ACKS":
        said = rng.choice(speech.ACKS) if rng.random() < 0.4 else talk_car.ack(rng)
        return _say(said, rng, {})
    if bank == "REPLIES":
        comment = rng.choice(speech.REPLY_COMMENTS) if rng.random() < 0.9 else ""
        return _say(f"{rng.choice(speech.REPLIES)} {comment}".strip(), rng,
                    {"relative": listener_relative or "cousin"})
    options = speech.NATURAL.get(bank or "") or _life().get(template)
    if not options:
        return typeset(utt.text, rng)
    known = set(fields) | {k[:1].upper() + k[1:] for k in fields}
    usable = [t for t in options if _placeholders(t) <= known]
    if not usable:
        return utt.text
    text = _say(talk_car.around(bank or "", rng.choice(usable), rng), rng, fields)
    if utt.comp_src is not None:
        comp = speech.NATURAL["COMPANION"]
        text += _say(rng.choice(comp), rng, dict(utt.comp_src.fields))
    low = text.lower()
    if any(k.lower() not in low for k in utt.keep):
        return utt.text
    return text


def beat_utts(rng: random.Random, people: Sequence[Person], beat: Beat) -> list[Utt]:
    """A beat's utterances reworded, with the listener's reactions (and now and then a why)."""
    out: list[Utt] = []
    utts = beat.utts
    for i, u in enumerate(utts):
        rel = people[beat.b if u.speaker == beat.a else beat.a].relatives  # "your {relative}" in a reply
        out.append(replace(u, text=reword(u, rng, rel[0].relation if rel else "")))
        kind = (u.event or {}).get("kind")
        nxt = utts[i + 1] if i + 1 < len(utts) else None
        if kind in _WHY_KINDS and nxt is not None and nxt.event is None and nxt.speaker != u.speaker \
                and rng.random() < 0.3:
            out.append(Utt(nxt.speaker, _say(talk_car.why(rng), rng, {})))
            out.append(Utt(u.speaker, _say(talk_car.because(rng), rng, {})))
    return out


# ============================================================================ small talk
def _conversation_fields(rng: random.Random, sharer: Person) -> dict[str, str]:
    """The fill-ins of one conversation (drawn once, so the talk stays on the same things)."""
    w, generic = load("words"), load("generic")
    subject, subject2 = rng.sample(w.SUBJECTS, 2)
    snag, snag2 = rng.sample(w.WORK_SNAGS, 2)
    rel = rng.choice(sharer.relatives) if sharer.relatives else None
    person = rng.choice(generic.PERSONS)
    he, him, his = ("he", "him", "his") if rel is not None and rel.gender == "m" else ("she", "her", "her")
    return {
        "work": rng.choice(sharer.work), "workplace": sharer.workplace,
        "relative": rel.relation if rel else "cousin", "rname": rel.name if rel else "Sam",
        "rhe": he, "rhim": him, "rhis": his,
        "district": rng.choice(banks.DISTRICTS), "weekday": rng.choice(banks.FILL["weekday"]),
        "weather": rng.choice(banks.FILL["weather"]), "grocery": rng.choice(banks.FILL["grocery"]),
        "food": rng.choice(w.FOODS), "place": rng.choice(w.PLACES), "hobby": rng.choice(w.HOBBIES),
        "event": rng.choice(w.EVENTS), "thing": rng.choice(w.THINGS), "show": rng.choice(w.SHOWS),
        "city": rng.choice(w.CITIES), "subject": subject, "subject2": subject2, "snag": snag, "snag2": snag2,
        "role": rng.choice(w.ROLES), "feeling": rng.choice(w.FEELINGS), "when": rng.choice(w.WHEN),
        "np": rng.choice(generic.NP), "person": person, "yperson": "your " + person.split(" ", 1)[1],
        "person2": rng.choice(generic.PERSONS), "time": rng.choice(generic.TIMES),
    }


def _pick_topic(rng: random.Random, avoid: str | None = None) -> str:
    names = [t for t in [*sorted(topics()), GENERIC, *talk_ideas.TOPICS] if t != avoid]
    return rng.choices(names, [_TOPIC_WEIGHTS.get(t, 1) for t in names])[0]


class _Talk:
    """One conversation being composed: who shares, which topic, which parts are still unused."""

    def __init__(self, rng: random.Random, people: Sequence[Person], a: int, b: int) -> None:
        self.rng, self.people = rng, people
        self.lines: list[Utt] = []
        self.start_topic(a, b, None)

    def start_topic(self, sharer: int, other: int, avoid: str | None, topic: str | None = None) -> None:
        self.sharer, self.other = sharer, other
        self.topic = topic or _pick_topic(self.rng, avoid)
        self.used: set[str] = set()
        self.fields = _conversation_fields(self.rng, self.people[sharer])
        if self.topic in talk_ideas.TOPICS:
            self.fields.update(talk_ideas.shop_fields(self.rng, self.people[sharer], self.people[other], self.topic))
        found = topics()
        parts = {k: list(v) for k, v in found.get(self.topic, found["day"]).items()}
        if self.topic == "work":  # the sharer's own job, then remarks anyone could make
            work = load("work")
            job = list(work.JOB_TALK.get(self.people[sharer].occupation, ()))
            parts["more"] += job
            parts["open"] += job + list(work.WORK_ASIDES)
        self.parts = {k: tuple(v) for k, v in parts.items()}
        self.pools = {k: self.rng.sample(v, len(v)) for k, v in parts.items()}

    def take(self, part: str) -> str:
        pool = self.pools[part]
        return pool.pop() if pool else self.rng.choice(self.parts[part])

    def maybe(self, bank: Sequence[str], p: float) -> str:
        return self.rng.choice(bank) if self.rng.random() < p else ""

    def generic(self, kind: str) -> str:
        """An open-ended line about the talk's everyday thing (``SAY``, ``ASK`` or ``REPLY``)."""
        g = load("generic")
        r = self.rng
        fills = {"adj": r.choice(g.ADJ), "adj_short": r.choice(g.ADJ_SHORT), "clause": r.choice(g.CLAUSE)}
        keep = {k: "{" + k + "}" for k in self.fields}
        keep.update({k[:1].upper() + k[1:]: "{" + k[:1].upper() + k[1:] + "}" for k in self.fields})
        return fill(r.choice(getattr(g, kind)), **keep, **fills)

    def thought(self, p: float) -> str:
        """Now and then a composed thought ("Sometimes it helps to take things one step at a time.")."""
        if self.rng.random() >= p:
            return ""
        c = load("chat")
        r = self.rng
        lead, clause, end = r.choice(c.THOUGHT_LEAD), r.choice(c.THOUGHT_CLAUSE), r.choice(c.THOUGHT_END)
        return f"{lead} {clause} {end}."

    def say(self, speaker: int, *pieces: str, fields: dict[str, str] | None = None, extend: bool = True) -> None:
        listener = self.other if speaker == self.sharer else self.sharer
        f = dict(fields or self.fields, name=self.people[listener].first)
        template = join(*pieces)
        template = talk_clauses.extend(template, self.rng) if extend else template
        text = _say(template, self.rng, f, synonyms=True)
        self.lines.append(Utt(speaker, talk_style.punctuate(text, self.rng)))

    def opening(self, shift: bool) -> None:
        r = self.rng
        chat = load("chat")
        lead = r.choice(chat.SHIFT) if shift else self.maybe(chat.GREET, 0.3)
        if self.topic in talk_ideas.TOPICS:
            body = talk_ideas.shop_line(r, "report" if r.random() < 0.2 else "open", reflect=0.2, topic=self.topic,
                                        used=self.used)
            self.say(self.sharer, lead, body)
            return
        body = self.generic("SAY") if self.topic == GENERIC else self.take("open")
        self.say(self.sharer, lead, body, self.maybe(chat.TAIL, 0.3))

    def exchange(self) -> None:
        """One turn of the listener and the sharer's answer."""
        r, a, b = self.rng, self.sharer, self.other
        chat = load("chat")
        if self.topic in talk_ideas.TOPICS:
            self.shop_exchange()
            return
        if self.topic == GENERIC:
            move = r.choices(("generic", "support", "back"), (6, 1, 1))[0]
        else:
            move = r.choices(("ask", "relate", "tip", "support", "back"), (5, 3, 2, 1, 1))[0]
        react = self.maybe(chat.REACT, 0.4)
        if move == "ask":
            follow = r.random() < 0.3
            question = r.choice(chat.FOLLOW) if follow else self.take("ask")
            self.say(b, react or r.choice(chat.REACT) if follow else react, question)
            yes_no = _YES_NO.match(question) is not None  # a yes/no question gets a yes/no first
            self.say(a, self.maybe(chat.HEDGE, 0.9 if yes_no else 0.3), self.take("more"),
                     self.maybe(chat.TAIL, 0.3) or self.thought(0.25))
        elif move == "relate":
            self.say(b, react, self.take("relate"), self.take("ask") if r.random() < 0.4 else "")
            self.say(a, r.choice(chat.AGREE), self.take("more") if r.random() < 0.5 else self.take("plan"))
        elif move == "tip":
            self.say(b, self.maybe(chat.HEDGE[:6], 0.2), self.take("tip"), self.thought(0.35))
            self.say(a, r.choice(chat.AGREE), self.take("plan"), self.maybe(chat.TAIL, 0.2))
        elif move == "support":
            self.say(b, r.choice(chat.SUPPORT), self.thought(0.5) or r.choice(chat.FOLLOW))
            self.say(a, self.generic("SAY") if self.topic == GENERIC else self.take("plan"), self.maybe(chat.TAIL, 0.4))
        elif move == "generic":  # open-ended talk about the conversation's everyday thing
            self.say(b, react if r.random() < 0.5 else "", self.generic("ASK"))
            self.say(a, self.maybe(chat.HEDGE, 0.4), self.generic("SAY"))
            if r.random() < 0.4:
                self.say(b, self.generic("REPLY"))
        else:  # ask back: the talk turns to the other person's work
            other_fields = _conversation_fields(r, self.people[b])
            plan = self.take("plan") if self.topic != GENERIC and r.random() < 0.5 else ""
            self.say(a, plan, r.choice(chat.ASK_BACK), fields=other_fields)
            self.start_topic(b, a, None, topic="work")
            self.say(self.sharer, self.maybe(chat.HEDGE, 0.5), self.take("more"), self.maybe(chat.TAIL, 0.3))


    def shop_exchange(self) -> None:
        """One turn of shop talk: a question and its answer, a comparison, a colleague's news or an offer."""
        r, a, b, topic, used = self.rng, self.sharer, self.other, self.topic, self.used

        def line(move: str, react: float = 0.0, reflect: float = 0.0) -> str:
            return talk_ideas.shop_line(r, move, react, reflect, topic=topic, used=used)
        move = r.choices(("ask", "relate", "report", "offer"), (5, 3, 1, 1))[0]
        if move == "ask":
            question, answer = talk_ideas.shop_qa(r, topic, react=0.4, reflect=0.3, used=used)
            self.say(b, question)
            self.say(a, answer)
        elif move == "relate":
            self.say(b, line("relate", react=0.5))
            self.say(a, line("thank") if r.random() < 0.4 else line("reflect"))
        elif move == "report":
            self.say(b, line("ask", react=0.4) if topic == talk_ideas.SHOP else line("relate", react=0.4))
            self.say(a, line("report", reflect=0.2))
        else:
            self.say(b, line("offer", react=0.3))
            self.say(a, line("thank"))


def chat(rng: random.Random, people: Sequence[Person], a: int, b: int, n: int,
         scenes: talk_scenes.SceneDraw | None = None) -> list[Utt]:
    """``n`` lines of conversation between ``a`` and ``b`` (no vehicle settings).

    With ``scenes`` (the history's draws from the scene bank, :func:`scene_draw`), a talk of
    ``scenes.min_lines`` lines or more is, with probability ``scenes.share``, an authored scene about ``a``'s job, one
    of their interests or an everyday topic (:func:`scene_chat`). Otherwise it is composed: five
    lines or more end with a goodbye; a long talk may change the subject. Without ``scenes`` no
    number is drawn for them, so the composed talk is the same as before scenes existed.
    """
    return _talk(rng, people, a, b, n, scenes, shift=False)


def scene_draw(people: Sequence[Person], sizes: Sequence[int]) -> talk_scenes.SceneDraw:
    """A history's draws from the scene bank, given the sizes of its planned talks.

    The household's scenes go to its longest talks: ``min_lines`` is the size of the n-th longest
    talk for a supply of n scenes (:meth:`~vmb_gym.generator.talk_scenes.SceneDraw.supply`), at
    least :data:`SCENE_MIN_LINES`; a small bank keeps its scenes whole, a large one reaches
    shorter talks too.
    """
    draw = talk_scenes.SceneDraw(SCENE_SHARE)
    supply = draw.supply(people, [talk_ideas.interests_of(p) for p in people])
    longest = sorted(sizes, reverse=True)
    if supply <= 0:
        draw.min_lines = 10**9
    elif supply <= len(longest):
        draw.min_lines = max(SCENE_MIN_LINES, longest[supply - 1])
    else:
        draw.min_lines = SCENE_MIN_LINES
    return draw


def _talk(rng: random.Random, people: Sequence[Person], a: int, b: int, n: int,
          scenes: talk_scenes.SceneDraw | None, shift: bool) -> list[Utt]:
    """:func:`chat`; ``shift``: the talk goes on from an earlier one (a composed one opens "Anyway, ...")."""
    if n <= 0:
        return []
    if scenes is not None and n >= scenes.min_lines:
        picked = scenes.pick(rng, people[a], people[b],
                             (talk_ideas.interests_of(people[a]), talk_ideas.interests_of(people[b])), n)
        if picked is not None:
            scene, mine = picked
            return scene_chat(rng, people, a if mine else b, b if mine else a, n, scene, scenes)
    return _composed(rng, people, a, b, n, shift)


def _composed(rng: random.Random, people: Sequence[Person], a: int, b: int, n: int, shift: bool) -> list[Utt]:
    """``n`` composed lines; ``shift`` opens with a change of subject ("Anyway, ...")."""
    t = _Talk(rng, people, a, b)
    t.opening(shift)
    goodbye = 2 if n >= 5 else 0
    turns = 0
    while len(t.lines) < n - goodbye:
        if turns >= 3 and rng.random() < 0.2 and n - len(t.lines) > 6:
            t.start_topic(t.other, t.sharer, t.topic)
            t.opening(True)
            turns = 0
            continue
        t.exchange()
        turns += 1
    del t.lines[n - goodbye:]
    if goodbye:
        _goodbye(t, a, b, 2)
    return t.lines


def _goodbye(t: _Talk, a: int, b: int, size: int) -> None:
    """A composed goodbye (``size`` 2) or its first line only (``size`` 1) at the end of ``t.lines``."""
    rng = t.rng
    first, second = talk_close.goodbye(rng)
    last = t.lines[-1].speaker if t.lines else b
    closer = last if t.lines and rng.random() < 0.3 else (b if last == a else a)
    t.say(closer, first, extend=False)
    if size > 1:
        t.say(b if closer == a else a, second, extend=False)


def _scene_cut(lines: Sequence[tuple[str, str]], n: int) -> int:
    """How many of a scene's lines fit a talk of ``n`` lines: all, or the first ``n`` less the last
    ones while they are questions (their answer would be cut off; a goodbye takes their place)."""
    if len(lines) <= n:
        return len(lines)
    k = n
    while k > max(2, n - 3) and lines[k - 1][1].rstrip("\"\u201d\u2019' ").endswith("?"):
        k -= 1
    return k


def scene_line(text: str, rng: random.Random, names: dict[str, str]) -> str:
    """A scene line as the renderer typesets it: names filled, most apostrophes curly, and now and
    then a dash or ellipsis (:mod:`vmb_gym.generator.talk_style`) where the author put none."""
    for mark, name in names.items():
        text = text.replace(mark, name)
    text = typeset(text, rng)
    if rng.random() < SCENE_PUNCTUATE and "\u2014" not in text and "\u2026" not in text:
        text = talk_style.punctuate(text, rng)
    return text


def scene_chat(rng: random.Random, people: Sequence[Person], a: int, b: int, n: int,
               scene: talk_scenes.Scene, scenes: talk_scenes.SceneDraw | None = None) -> list[Utt]:
    """``n`` lines from ``scene`` (A is ``a``, B is ``b``): cut before a goodbye when it is longer;
    when it is shorter the talk goes on (another scene drawn from ``scenes``, composed talk that
    changes the subject, or just a goodbye)."""
    who, names = {"A": a, "B": b}, {"{a}": people[a].first, "{b}": people[b].first}
    k = _scene_cut(scene.lines, n)
    out = [Utt(who[s], scene_line(text, rng, names)) for s, text in scene.lines[:k]]
    rest = n - k
    if rest <= 0:
        return out
    nxt = b if out[-1].speaker == a else a  # the one who did not speak last goes on
    if rest >= 3:
        return out + _talk(rng, people, nxt, a if nxt == b else b, rest, scenes, shift=True)
    t = _Talk(rng, people, nxt, a if nxt == b else b)
    t.lines = list(out)
    _goodbye(t, a, b, rest)
    return t.lines


def aside(rng: random.Random, speaker: int, back: bool) -> Utt:
    """A line that opens (or closes, ``back``) a passing remark inside a longer talk."""
    chat = load("chat")
    return Utt(speaker, _say(rng.choice(chat.ASIDE_OUT if back else chat.ASIDE_IN), rng, {}))


def join(*pieces: str) -> str:
    """Pieces of one line joined by spaces; a piece after a comma starts in lower case."""
    out = ""
    for p in pieces:
        if not p:
            continue
        if out.endswith(",") and not p.startswith(("I ", "I'", "{")):
            p = p[:1].lower() + p[1:]
        out = f"{out} {p}" if out else p
    return out
