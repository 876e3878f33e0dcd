"""Distractor planning of a scenario: unqueried preference chains, near misses and life stories.

:class:`DistractorPlanner` is a mixin of :class:`~vmb_gym.generator.scenario.ScenarioBuilder`: it
reads the builder's people, options and generators and appends :class:`Beat` records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmb_gym.generator import banks
from vmb_gym.generator.catalog import FIXED_LABELS, SEAT_LABELS, catalogue, primaries
from vmb_gym.generator.options import DEFAULT_VALUED_NEAR_MISSES
from vmb_gym.generator.records import Beat, QueryPlan, Slot, Utt, fill, pronouns

if TYPE_CHECKING:
    import random
    from collections.abc import Mapping, Sequence
    from typing import Any

    from vmb_gym.generator.options import GeneratorOptions
    from vmb_gym.generator.records import Person


class DistractorPlanner:
    """Plans the lines that share a query's words without being its evidence."""

    o: GeneratorOptions
    people: list[Person]
    beats: list[Beat]
    used_apis: set[str]
    r_pref: random.Random
    r_ph: random.Random

    def other(self, i: int, exclude: Sequence[int] = ()) -> int:  # provided by the builder
        raise NotImplementedError

    def days(self, k: int, lo: int = 0) -> list[int]:  # provided by the builder
        raise NotImplementedError

    def ack(self, speaker: int) -> Utt:  # provided by the builder
        raise NotImplementedError

    def pref_utt(self, speaker: int, listener: int, template: str, slot: Slot, value: Mapping[str, Any],
                 kind: str, tag: str | None = None, **kw: str) -> Utt:  # provided by the builder
        raise NotImplementedError

    # ------------------------------------------------------------------ distractors
    def plan_distractors(self, queried: list[tuple[Slot, QueryPlan]]) -> None:
        n_chains = round(self.o.distractor_ratio * self.o.queries_per_scenario)
        cat = catalogue()
        pool = [a for a in primaries() if a not in self.used_apis]
        for _ in range(n_chains):
            if not pool:
                break
            api = self.r_pref.choice(pool)
            st = cat[api]
            slot = Slot(st, self.r_pref.choice(list(FIXED_LABELS[st.fixed_param])) if st.fixed_param else None)
            p = self.r_pref.randrange(len(self.people))
            k = self.r_pref.randint(1, min(3, len(st.values)))
            vals = self.r_pref.sample(list(st.values), k)
            reasons = self.r_pref.sample(banks.REASONS, k)
            for i, d in enumerate(self.days(k)):
                listener = self.other(p)
                if i == 0:
                    u = self.pref_utt(p, listener, self.r_ph.choice(banks.STATE), slot, vals[i], "preference")
                else:
                    u = self.pref_utt(p, listener, self.r_ph.choice(banks.REVISE), slot, vals[i], "revision",
                                      reason=reasons[i][0])
                u.event["distractor"] = True  # type: ignore[index]
                self.beats.append(Beat(d, p, listener, [u, self.ack(listener)]))
        self.plan_near_misses(queried)

    def near_misses_per_query(self) -> int:
        """Near-miss mentions per queried setting: ``distractor_ratio`` per 150 history lines."""
        if self.o.distractor_ratio <= 0:
            return 0
        return max(1, round(self.o.distractor_ratio * self.o.history_length / 150))

    def near_miss_kind(self) -> str:
        """The kind of one near miss: ``"own"``, ``"other"``, ``"relative"`` (all state a value) or ``"mention"``
        (names the setting only); ``options.valued_near_misses`` sets the valued share (9 in 12 by default)."""
        share = self.o.valued_near_misses
        # the default keeps the integer weights: the same draws, so the embedded benchmark keeps its bytes
        weights = (
            (4, 3, 2, 3) if share == DEFAULT_VALUED_NEAR_MISSES else (4 * share, 3 * share, 2 * share, 9 * (1 - share))
        )
        return self.r_pref.choices(("own", "other", "relative", "mention"), weights)[0]

    def plan_near_misses(self, queried: list[tuple[Slot, QueryPlan]]) -> None:
        """Lines that share a queried setting's words but state no preference of the asker.

        Hypotheticals, other cars and other times from the asker; other people's cars and
        relatives; questions and complaints without a value. Each sits in its own short talk.
        """
        n = self.near_misses_per_query()
        if n == 0:
            return
        index = {p.full: i for i, p in enumerate(self.people)}
        for slot, plan in queried:
            p = index[plan.info["person"]]
            protected = plan.info.get("relative")
            for _ in range(n):
                kind = self.near_miss_kind()
                val = self.r_pref.choice(list(slot.st.values))
                if kind == "own":
                    speaker = p
                elif kind == "other":
                    speaker = self.other(p)
                else:
                    speaker = self.r_pref.randrange(len(self.people))
                listener = self.other(speaker)
                if kind == "relative":
                    rels = [r for r in self.people[speaker].relatives if r.name != protected]
                    if not rels:
                        kind = "other"
                    else:
                        rel = self.r_pref.choice(rels)
                        u = self.pref_utt(speaker, listener, self.r_ph.choice(banks.NEAR_MISS_REL), slot, val,
                                          "near_miss", rname=rel.name, relation=rel.relation, **pronouns(rel.gender))
                if kind == "own":
                    u = self.pref_utt(speaker, listener, self.r_ph.choice(banks.NEAR_MISS_OWN), slot, val, "near_miss")
                elif kind == "other":
                    u = self.pref_utt(speaker, listener, self.r_ph.choice(banks.NEAR_MISS), slot, val, "near_miss")
                elif kind == "mention":
                    text = fill(self.r_ph.choice(banks.MENTION), noun=slot.noun(self.r_ph))
                    u = Utt(speaker, text, event={"kind": "mention", "person": self.people[speaker].full,
                                                  "api": slot.st.api, "fixed": slot.fixed})
                u.event["distractor"] = True  # type: ignore[index]
                self.beats.append(Beat(self.r_pref.randrange(self.o.days), speaker, listener,
                                       [u, Utt(listener, self.r_ph.choice(banks.REPLIES))], wrap=1))
            if plan.rule is not None:  # someone else has a rule with the same condition for the same setting
                rule, barred = plan.rule
                others = [i for i in range(len(self.people)) if i not in barred]
                for _ in range(2 if others else 0):
                    speaker = self.r_pref.choice(others)
                    listener = self.other(speaker)
                    u = self.pref_utt(speaker, listener, self.r_ph.choice(banks.COND), slot,
                                      self.r_pref.choice(list(slot.st.values)), "near_miss", cond=rule)
                    u.event["distractor"] = True  # type: ignore[index]
                    self.beats.append(Beat(self.r_pref.randrange(self.o.days), speaker, listener,
                                           [u, Utt(listener, self.r_ph.choice(banks.REPLIES))], wrap=1))
            for text in plan.talk:  # the asker talks about reasons and conditions outside the car too
                listener = self.other(p)
                self.beats.append(Beat(self.r_pref.randrange(self.o.days), p, listener,
                                       [Utt(p, text), Utt(listener, self.r_ph.choice(banks.REPLIES))], wrap=1))
        for _ in range(n * len(queried) // 4):  # seats and destinations of query situations
            speaker = self.r_pref.randrange(len(self.people))
            listener = self.other(speaker)
            text = fill(self.r_ph.choice(banks.PLACE_TALK), dest=self.r_pref.choice(banks.DESTINATIONS),
                        seat=self.r_pref.choice(list(SEAT_LABELS.values())),
                        weekday=self.r_ph.choice(banks.FILL["weekday"]))
            self.beats.append(Beat(self.r_pref.randrange(self.o.days), speaker, listener,
                                   [Utt(speaker, text), Utt(listener, self.r_ph.choice(banks.REPLIES))], wrap=1))

    def plan_life(self) -> None:
        for p, person in enumerate(self.people):
            for story in self.r_pref.sample(banks.LIFE_STORIES, 2):
                for stage, d in zip(story, self.days(len(story)), strict=False):
                    listener = self.other(p)
                    text = fill(stage, weekday=self.r_ph.choice(banks.FILL["weekday"]),
                                district=self.r_ph.choice(banks.DISTRICTS))
                    ev = {"kind": "life", "person": person.full, "text": text}
                    self.beats.append(Beat(d, p, listener, [Utt(p, text, event=ev),
                                                            Utt(listener, self.r_ph.choice(banks.REPLIES))]))
