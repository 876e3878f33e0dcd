"""Build one generated scenario: people, preference chains, dialogue and queries.

Each scenario is generated from its own seeded generators, one per phase (people,
preferences, dialogue, queries, phrasing), all derived from ``(seed, scenario_id, phase)``, so a
scenario does not depend on the randomness consumed by another. Gold calls are checked on a
fresh :class:`~vmb_gym.vehicle.VehicleSimulator` while the query is planned: each must succeed
and change the state, or the plan is redrawn. The records it plans with live in
:mod:`vmb_gym.generator.records`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.generator import banks
from vmb_gym.generator.catalog import (
    COMPANION_ONLY_AFTER,
    FIXED_LABELS,
    PREREQUISITES,
    SEAT_LABELS,
    SlotType,
    catalogue,
    companions,
    primaries,
    render_value,
)
from vmb_gym.generator.distractors import DistractorPlanner
from vmb_gym.generator.options import GeneratorOptions
from vmb_gym.generator.records import (
    PHASES,
    Beat,
    Person,
    QueryPlan,
    Relative,
    Slot,
    Utt,
    cap,
    fill,
    make_people,
    phase_rng,
    pronouns,
    time12,
)
from vmb_gym.types import REASONING_TYPES, ToolCall
from vmb_gym.vehicle import API_SPECS, VehicleSimulator

__all__ = ["PHASES", "Beat", "Person", "QueryPlan", "Relative", "ScenarioBuilder", "Slot", "Utt",
           "cap", "fill", "make_people", "phase_rng", "pronouns", "time12"]

def _gold_ok(calls: Sequence[ToolCall]) -> bool:
    sim = VehicleSimulator()
    for c in calls:
        r = sim.call(c.name, dict(c.arguments))
        if not r.get("success") or not r.get("current_state"):
            return False
    return True


def _companion_phrase(st: SlotType, value: Mapping[str, Any]) -> str:
    v = next(iter(value.values()))
    api = st.api.lower()
    if v is True:
        if "lock" in api and "child" not in api:
            return "locked"
        if "open" in api or api.endswith("trunk_switch"):
            return "open"
        if "folded" in api:
            return "folded flat"
        if "favorite" in api:
            return "saved"
        return "switched on"
    if v is False:
        return "unlocked" if "lock" in api else "switched off"
    return "set to " + render_value(value, st.api)


# ============================================================================ the scenario builder
class ScenarioBuilder(DistractorPlanner):
    """Plans and renders one scenario.

    Args:
        options: the generator options.
        scenario_id: the file number of this scenario.
        ordinal: 0-based position of the scenario in the generated set (drives API coverage).
    """

    def __init__(self, options: GeneratorOptions, scenario_id: int, ordinal: int) -> None:
        self.o = options
        self.sid = scenario_id
        self.ordinal = ordinal
        self.r_people = phase_rng(options.seed, scenario_id, "people")
        self.r_pref = phase_rng(options.seed, scenario_id, "preferences")
        self.r_dia = phase_rng(options.seed, scenario_id, "dialogue")
        self.r_q = phase_rng(options.seed, scenario_id, "queries")
        self.r_ph = phase_rng(options.seed, scenario_id, "phrasing")
        self.r_target = phase_rng(options.seed, scenario_id, "targets")
        self.r_device = phase_rng(options.seed, scenario_id, "devices")  # drawn only with device_requests
        self.r_indirect = phase_rng(options.seed, scenario_id, "indirect")  # drawn only with indirect_requests
        self.r_restate = phase_rng(options.seed, scenario_id, "restate")  # drawn only with restated_corrections
        self.r_return = phase_rng(options.seed, scenario_id, "return")  # drawn only with returns_to_usual
        self.people, self.relations = make_people(self.r_people, options.people)
        start = date(2025, 1, 6) + timedelta(days=self.r_people.randrange(0, 200))
        self.start = start
        self.beats: list[Beat] = []
        self.plans: list[QueryPlan] = []
        self.used_apis: set[str] = set()
        self.used_times: set[tuple[int, int]] = set()
        self._tag = 0
        self.cur_dest = banks.DESTINATIONS[0]

    # ------------------------------------------------------------------ helpers
    def new_tag(self) -> str:
        self._tag += 1
        return f"e{self._tag}"

    def other(self, i: int, exclude: Sequence[int] = ()) -> int:
        return self.r_pref.choice([j for j in range(len(self.people)) if j != i and j not in exclude])

    def days(self, k: int, lo: int = 0) -> list[int]:
        return sorted(self.r_pref.sample(range(lo, self.o.days), k))

    def ack(self, speaker: int) -> Utt:
        return Utt(speaker, self.r_ph.choice(banks.ACKS))

    def pref_utt(self, speaker: int, listener: int, template: str, slot: Slot, value: Mapping[str, Any],
                 kind: str, tag: str | None = None, **kw: str) -> Utt:
        val = render_value(value, slot.st.api)
        text = fill(template, noun=slot.noun(self.r_ph), val=val, listener=self.people[listener].first, **kw)
        event = {"kind": kind, "person": self.people[speaker].full, "api": slot.st.api,
                 "value": dict(value), "fixed": slot.fixed}
        return Utt(speaker, text, tag, (val,), event)

    def add_companion(self, utt: Utt, comp: tuple[Slot, Mapping[str, Any]] | None) -> None:
        if comp is None:
            return
        cslot, cval = comp
        clause = fill(self.r_ph.choice(banks.COMPANION), cnoun=cslot.noun(self.r_ph),
                      cval=_companion_phrase(cslot.st, cval))
        utt.text += clause
        utt.comp_src = clause  # type: ignore[assignment]
        if utt.event is not None:
            utt.event["companion"] = {"api": cslot.st.api, "value": dict(cval), "fixed": cslot.fixed}

    def pick_time(self, night: bool | None) -> tuple[int, int]:
        for _ in range(100):
            if night:
                h = self.r_q.randint(20, 23)
            elif night is False:
                h = self.r_q.randint(7, 17)
            else:
                h = self.r_q.randint(7, 19)
            t = (h, self.r_q.choice(range(0, 60, 5)))
            if t not in self.used_times:
                self.used_times.add(t)
                return t
        return t

    def whole_car(self, slot: Slot, rtype: str) -> Slot:
        """``slot`` set for the whole car for a share ``options.whole_car`` of the cabin-wide settings
        (:func:`whole_car_api`), its words drawn (said for a share ``options.whole_car_words``); not for a
        relative's seat (coreference). Draws from its own generator, and only with the option on, so sets
        without it keep their bytes."""
        if not self.o.whole_car or rtype == "coreference_resolution" or not whole_car_api(slot.st):
            return slot
        if self.r_target.random() >= self.o.whole_car:
            return slot
        words = self.r_target.choice(banks.WHOLE_CAR)
        said = self.o.whole_car_words >= 1.0 or self.r_target.random() < self.o.whole_car_words
        return Slot(slot.st, slot.fixed, words if said else "", whole=True)

    def seat_for(self, slot: Slot, allow_rear: bool = True, prefer: str | None = None) -> str | None:
        if slot.whole:
            return "all"
        if slot.st.seat_param is None:
            return prefer
        choices = [s for s in slot.st.seat_choices if allow_rear or not s.startswith("rear")]
        if prefer in choices:
            return prefer
        weights = {"driver": 5, "passenger": 4, "rear_left": 1, "rear_right": 1}
        share = self.o.driver_seat
        if share is not None and "driver" in choices:  # its own generator: sets without the option keep their bytes
            if self.r_target.random() < share or choices == ["driver"]:
                return "driver"
            choices = [c for c in choices if c != "driver"]
            return self.r_target.choices(choices, [weights[c] for c in choices])[0]
        return self.r_q.choices(choices, [weights[c] for c in choices])[0]

    def situation(self, asker: int, asker_seat: str | None, others: list[int], night: bool | None,
                  extra: str = "", purpose: str | None = None, rel: Relative | None = None,
                  rel_seat: str | None = None) -> tuple[str, tuple[int, int]]:
        """Narrate who sits where, when, and why (no preference values)."""
        h, m = self.pick_time(night)
        names = self.people
        seats: dict[int, str] = {asker: asker_seat if asker_seat in SEAT_LABELS else "driver"}
        taken = {seats[asker]} | ({rel_seat or "passenger"} if rel is not None else set())
        for o in others:
            s = next(x for x in SEAT_LABELS if x not in taken)
            seats[o] = s
            taken.add(s)
        purpose = purpose or f"to {self.cur_dest}"
        driver = next((i for i, s in seats.items() if s == "driver"), None)
        parts = [f"At {time12(h, m)},"]
        if driver is None:
            sep = "" if purpose.startswith(",") else " "
            parts.append(f"a friend was driving {names[asker].display}{sep}{purpose}.")
        else:
            alone = len(seats) == 1 and rel is None
            sep = "" if purpose.startswith(",") else " "
            parts.append(f"{names[driver].display} was driving{sep}{purpose}{', alone' if alone else ''}.")
        for i, s in seats.items():
            if i != driver:
                parts.append(f"{names[i].display} sat in the {SEAT_LABELS[s]}.")
        if rel is not None:
            pr = pronouns(rel.gender)
            parts.append(f"{names[asker].display}'s {rel.relation} came along and {pr['he']} sat in the "
                         f"{SEAT_LABELS[rel_seat or 'passenger']}.")
        if extra:
            parts.append(extra)
        return " ".join(parts), (h, m)

    # ------------------------------------------------------------------ query kinds
    def plan_conflict(self, slot: Slot, comp: Any) -> QueryPlan | None:
        p = self.r_pref.randrange(len(self.people))
        q = self.other(p)
        v_p, v_q = self.r_pref.sample(list(slot.st.values), 2)
        asker, other = (p, q) if self.r_pref.random() < 0.5 else (q, p)
        seat = self.seat_for(slot, allow_rear=False)
        calls = [slot.call(v_p if asker == p else v_q, seat, self.cur_dest)]
        calls += self.companion_calls(comp, seat)
        if not _gold_ok(calls):
            return None
        t1, t2 = self.new_tag(), self.new_tag()
        u1 = self.pref_utt(p, q, self.r_ph.choice(banks.STATE), slot, v_p, "preference", t1)
        u2 = self.pref_utt(q, p, self.r_ph.choice(banks.CONFLICT_REPLY), slot, v_q, "preference", t2)
        self.add_companion(u1 if asker == p else u2, comp)
        if self.r_pref.random() < 0.5:
            (d,) = self.days(1)
            if self.r_ph.random() < 0.6:  # a reply that does not repeat the setting's name
                u2.retext(fill(self.r_ph.choice(banks.CONFLICT_REPLY_SHORT),
                                val=render_value(v_q, slot.st.api), listener=self.people[p].first))
                self.add_companion(u2, comp if asker == q else None)
            self.beats.append(Beat(d, p, q, [u1, u2, self.ack(p)]))
        else:
            d1, d2 = self.days(2)
            u2.retext(fill(self.r_ph.choice(banks.STATE), noun=slot.noun(self.r_ph),
                            val=render_value(v_q, slot.st.api), listener=self.people[p].first))
            self.add_companion(u2, comp if asker == q else None)
            self.beats.append(Beat(d1, p, q, [u1, self.ack(q)]))
            self.beats.append(Beat(d2, q, p, [u2, self.ack(p)]))
        text, when = self.situation(asker, seat, [other], None)
        noun = self.request_noun(slot)
        text += f" {self.people[asker].display} said: '{self.request(noun, comp)}'"
        return QueryPlan("preference_conflict", text, calls, [t1, t2],
                         self.question(f"What {slot.noun()} does {self.people[asker].display} want", seat),
                         calls[0], when, {"person": self.people[asker].full, "seat": seat})

    def plan_conditional(self, slot: Slot, comp: Any) -> QueryPlan | None:
        p = self.r_pref.randrange(len(self.people))
        v0, vc = self.r_pref.sample(list(slot.st.values), 2)
        kinds = ["night", "rain", "district", "passenger", "activity"]
        if slot.st.situational:  # the destination must stay in the situation text
            kinds.remove("activity")
        kind = self.r_pref.choice(kinds)
        holds = self.r_pref.random() < 0.7
        r_other = self.other(p)
        night: bool | None = False
        extra = ""
        purpose = None
        others: list[int] = []
        if kind == "night":
            rule = self.r_ph.choice(["at night", "after dark", "when it's dark out"])
            night = holds
            extra = "It was already dark outside." if holds else "It was broad daylight."
            q_cond = "at night" if holds else "during the day"
        elif kind == "rain":
            rule = self.r_ph.choice(["when it rains", "in the rain", "on rainy days"])
            extra = "It was raining heavily." if holds else "The roads were dry and it was sunny."
            q_cond = "in the rain" if holds else "on a dry day"
        elif kind == "district":
            d1, d2 = self.r_pref.sample(banks.DISTRICTS, 2)
            rule = f"when I drive through {d1}"
            purpose = f"to {self.cur_dest} through {d1 if holds else d2}"
            q_cond = f"while driving through {d1 if holds else d2}"
        elif kind == "passenger":
            rule = f"when {self.people[r_other].first} rides with me"
            others = [r_other] if holds else []
            q_cond = (f"with {self.people[r_other].display} in the car" if holds
                      else f"without {self.people[r_other].display} in the car")
        else:
            a1, a2 = self.r_pref.sample(banks.ACTIVITIES, 2)
            rule = a1[0]
            purpose = ", " + (a1[1] if holds else a2[1])
            q_cond = ("when " + a1[1]) if holds else ("when " + a2[1])
        seat = self.seat_for(slot)
        value = vc if holds else v0
        calls = [slot.call(value, seat, self.cur_dest)] + self.companion_calls(comp, seat)
        if not _gold_ok(calls):
            return None
        listener = self.other(p)
        t0, tc = self.new_tag(), self.new_tag()
        u0 = self.pref_utt(p, listener, self.r_ph.choice(banks.BASE), slot, v0, "preference", t0)
        uc = self.pref_utt(p, listener, self.r_ph.choice(banks.COND), slot, vc, "condition", tc, cond=rule)
        uc.event["condition"] = {"kind": kind, "text": rule}  # type: ignore[index]
        self.add_companion(uc if holds else u0, comp)
        if self.r_pref.random() < 0.4:
            (d,) = self.days(1)
            if self.r_ph.random() < 0.6:  # the condition right after the base: no need to repeat the noun
                uc.retext(fill(self.r_ph.choice(banks.COND_SHORT), val=render_value(vc, slot.st.api), cond=rule))
                self.add_companion(uc, comp if holds else None)
            self.beats.append(Beat(d, p, listener, [u0, uc, self.ack(listener)]))
        else:
            d1, d2 = self.days(2)
            self.beats.append(Beat(d1, p, listener, [u0, self.ack(listener)]))
            self.beats.append(Beat(d2, p, self.other(p), [uc, self.ack(listener)]))
        wk = self.r_ph.choice(banks.FILL["weekday"])
        talk = [fill(t, d=rule.rsplit(" ", 1)[-1] if kind != "district" else rule[len("when I drive through "):],
                     weekday=wk, name=self.people[r_other].first,
                     act=(a1[1] if kind == "activity" else ""))
                for t in self.r_ph.sample(banks.CONDITION_TALK[kind], 2)]
        text, when = self.situation(p, seat, others, night, extra=extra, purpose=purpose)
        req = self.request(self.request_noun(slot), comp)
        if holds:  # the situation names the rule's condition; without it the request must name the setting
            req = self.indirect(slot, req, comp, banks.REQUEST_SITUATION)
        text += f" {self.people[p].display} said: '{req}'"
        return QueryPlan("conditional_constraint", text, calls, [t0, tc],
                         self.question(f"What {slot.noun()} does {self.people[p].display} want {q_cond}", seat),
                         calls[0], when, {"person": self.people[p].full, "seat": seat, "condition": kind,
                                          "condition_holds": holds}, talk=talk,
                         rule=(rule, (p, r_other) if kind == "passenger" else (p,)))

    def plan_state_shift(self, slot: Slot, comp: Any) -> QueryPlan | None:
        p = self.r_pref.randrange(len(self.people))
        depth = self.r_pref.randint(2, max(2, min(self.o.max_revision_depth, len(slot.st.values))))
        vals = self.r_pref.sample(list(slot.st.values), depth)
        reasons = self.r_pref.sample(banks.REASONS, depth)
        target = depth - 1
        if depth >= 3 and self.r_pref.random() < 0.4:
            target = self.r_pref.randint(1, depth - 2)
        # the last revision was for a while only and the request says its reason is over: the value before it applies
        returning = bool(self.o.returns_to_usual) and self.r_return.random() < self.o.returns_to_usual
        if returning:
            target = depth - 2
        seat = self.seat_for(slot)
        calls = [slot.call(vals[target], seat, self.cur_dest)] + self.companion_calls(comp, seat)
        if not _gold_ok(calls):
            return None
        tags = [self.new_tag() for _ in range(depth)]
        ds = self.days(depth)
        for k in range(depth):
            listener = self.other(p)
            if k == 0:
                u = self.pref_utt(p, listener, self.r_ph.choice(banks.STATE), slot, vals[k], "preference", tags[k])
            else:
                bank = banks.REVISE_FOR_NOW if returning and k == depth - 1 else banks.REVISE
                u = self.pref_utt(p, listener, self.r_ph.choice(bank), slot, vals[k], "revision", tags[k],
                                  reason=reasons[k][0])
                u.event["reason"] = reasons[k][0]  # type: ignore[index]
            if k == target:
                self.add_companion(u, comp)
            self.beats.append(Beat(ds[k], p, listener, [u, self.ack(listener)]))
        text, when = self.situation(p, seat, [], None)
        noun = self.request_noun(slot)
        if returning:
            over = reasons[depth - 1][3]
            bank = banks.REQUEST_STANDARD if self.r_ph.random() < 0.25 else banks.REQUEST_OVER
            req = fill(self.r_ph.choice(bank), again=over, noun=noun)
            req += self.r_ph.choice(banks.COMPANION_REQ) if comp else ""
            req = self.indirect(slot, req, comp, banks.REQUEST_REASON_OVER, again=over)
            ev = [tags[target], tags[target + 1]]
            q = f"What {slot.noun()} did {self.people[p].display} use before {reasons[depth - 1][1]}"
        elif target == depth - 1:
            req = self.request(noun, comp)
            req = self.indirect(slot, req, comp, banks.REQUEST_REASON_NOW, again=reasons[target][2])
            ev = [tags[target - 1], tags[target]]
            q = f"What {slot.noun()} does {self.people[p].display} want now"
        else:
            req = fill(self.r_ph.choice(banks.REQUEST_PAST), again=reasons[target][2], noun=noun)
            req += self.r_ph.choice(banks.COMPANION_REQ) if comp else ""
            req = self.indirect(slot, req, comp, banks.REQUEST_REASON_PAST, again=reasons[target][2])
            ev = [tags[target], tags[target + 1]]
            q = f"What {slot.noun()} did {self.people[p].display} use back when {reasons[target][1]}"
        text += f" {self.people[p].display} said: '{req}'"
        return QueryPlan("state_shift", text, calls, ev, self.question(q, seat), calls[0], when,
                         {"person": self.people[p].full, "seat": seat, "depth": depth, "target_revision": target,
                          **({"reason_over": reasons[depth - 1][0]} if returning else {})},
                         talk=[fill(self.r_ph.choice(banks.REASON_TALK), reason=r[0],
                                    relative=self.r_ph.choice(self.people[p].relatives).relation)
                               for r in reasons[1:]])

    def plan_correction(self, slot: Slot, comp: Any) -> QueryPlan | None:
        p = self.r_pref.randrange(len(self.people))
        v1, v2 = self.r_pref.sample(list(slot.st.values), 2)
        seat = self.seat_for(slot)
        calls = [slot.call(v2, seat, self.cur_dest)] + self.companion_calls(comp, seat)
        if not _gold_ok(calls):
            return None
        listener = self.other(p)
        t1, t2 = self.new_tag(), self.new_tag()
        u1 = self.pref_utt(p, listener, self.r_ph.choice(banks.TRY), slot, v1, "attempt", t1)
        down = slot.st.numeric and next(iter(v2.values())) < next(iter(v1.values()))
        tmpl = self.r_ph.choice(banks.CORRECT_DOWN if down else banks.CORRECT_UP if slot.st.numeric
                                else banks.CORRECT_SWAP)
        # the plain template is drawn either way, so the phrasing stream (and every later line) keeps its bytes
        if self.o.restated_corrections and self.r_restate.random() < self.o.restated_corrections:
            tmpl = self.r_restate.choice(banks.CORRECT_DOWN_NAMED if down else banks.CORRECT_UP_NAMED
                                         if slot.st.numeric else banks.CORRECT_SWAP_NAMED)
        u2 = self.pref_utt(p, listener, tmpl, slot, v2, "correction", t2, old=render_value(v1, slot.st.api))
        self.add_companion(u2, comp)
        utts = [u1, self.ack(listener), u2]
        if self.r_pref.random() < 0.5:
            utts.append(self.pref_utt(p, listener, self.r_ph.choice(banks.CORRECT_KEEP), slot, v2, "confirm"))
        ds = self.days(2 if self.o.max_revision_depth > 1 and self.r_pref.random() < 0.5 else 1)
        if len(ds) == 2:  # an older, superseded statement before the try
            olds = [v for v in slot.st.values if v not in (v1, v2)]
            if olds:
                v0 = self.r_pref.choice(olds)
                self.beats.append(Beat(ds[0], p, listener, [
                    self.pref_utt(p, listener, self.r_ph.choice(banks.STATE), slot, v0, "preference"),
                    self.ack(listener)]))
        self.beats.append(Beat(ds[-1], p, listener, utts))
        text, when = self.situation(p, seat, [], None)
        text += f" {self.people[p].display} said: '{self.request(self.request_noun(slot), comp)}'"
        return QueryPlan("error_correction", text, calls, [t1, t2],
                         self.question(f"After correcting the first try, what {slot.noun()} does "
                                       f"{self.people[p].display} want", seat), calls[0], when,
                         {"person": self.people[p].full, "seat": seat})

    def plan_coreference(self, slot: Slot, comp: Any) -> QueryPlan | None:
        p = self.r_pref.randrange(len(self.people))
        rel = self.r_pref.choice(self.people[p].relatives)
        (value,) = self.r_pref.sample(list(slot.st.values), 1)
        rel_seat = self.seat_for(slot, prefer="passenger" if self.r_pref.random() < 0.6 else "rear_right")
        if rel_seat == "driver":
            rel_seat = "passenger"
        calls = [slot.call(value, rel_seat, self.cur_dest)] + self.companion_calls(comp, rel_seat)
        if not _gold_ok(calls):
            return None
        pr = pronouns(rel.gender)
        t1, t2 = self.new_tag(), self.new_tag()
        l1, l2 = self.other(p), self.other(p)
        intro = Utt(p, fill(self.r_ph.choice(banks.REL_INTRO), relation=rel.relation, rname=rel.name, **pr), t1,
                    (rel.name, rel.relation), {"kind": "relative", "person": self.people[p].full,
                                              "relative": rel.name, "relation": rel.relation})
        u2 = self.pref_utt(p, l2, self.r_ph.choice(banks.REL_PREF), slot, value, "relative_preference", t2,
                           rname=rel.name, **pr)
        u2.keep = u2.keep + (rel.name,)
        u2.event["for"] = rel.name  # type: ignore[index]
        self.add_companion(u2, comp)
        # a near miss: another regular's relative with the same relation word likes something else
        d1, d2 = self.days(2)
        self.beats.append(Beat(d1, p, l1, [intro, self.ack(l1)]))
        self.beats.append(Beat(d2, p, l2, [u2, self.ack(l2)]))
        text, when = self.situation(p, "driver", [], None, rel=rel, rel_seat=rel_seat)
        req = fill(self.r_ph.choice(banks.REQUEST_REL), noun=self.request_noun(slot), relation=rel.relation, **pr)
        req += self.r_ph.choice(banks.COMPANION_REQ) if comp else ""
        text += f" {self.people[p].display} said: '{req}'"
        return QueryPlan("coreference_resolution", text, calls, [t1, t2],
                         self.question(f"What {slot.noun()} does {self.people[p].display}'s {rel.relation} want",
                                       rel_seat), calls[0], when,
                         {"person": self.people[p].full, "relative": rel.name, "seat": rel_seat})

    # ------------------------------------------------------------------ query text pieces
    def request_noun(self, slot: Slot) -> str:
        """How the request names ``slot``: its noun, or for a share ``options.device_requests`` its device
        (:data:`banks.DEVICE_NOUNS`; not for a whole-car setting or one the request states a value of).

        The noun is drawn from the phrasing stream either way, so sets without the option keep their bytes.
        """
        noun = slot.noun(self.r_ph)
        devices = banks.DEVICE_NOUNS.get(slot.st.module)
        if not self.o.device_requests or devices is None or slot.whole_words or slot.st.situational:
            return noun
        if self.r_device.random() >= self.o.device_requests:
            return noun
        return self.r_device.choice(devices)

    def indirect(self, slot: Slot, req: str, comp: Any, bank: tuple[str, ...], again: str = "") -> str:
        """``req``, or for a share ``options.indirect_requests`` a request from ``bank`` that names neither the
        setting nor its device, only the situation or the reason (``again``) a line of the history ties to it.

        Not for a whole-car setting or one the request states a value of. Drawn from its own stream after
        ``req``, so sets without the option keep their bytes.
        """
        if not self.o.indirect_requests or slot.whole_words or slot.st.situational:
            return req
        if self.r_indirect.random() >= self.o.indirect_requests:
            return req
        out = fill(self.r_indirect.choice(bank), again=again)
        return out + (self.r_indirect.choice(banks.COMPANION_REQ) if comp else "")

    def request(self, noun: str, comp: Any) -> str:
        req = fill(self.r_ph.choice(banks.REQUEST), noun=noun)
        return req + (self.r_ph.choice(banks.COMPANION_REQ) if comp else "")

    @staticmethod
    def question(stem: str, seat: str | None) -> str:
        where = " for the whole car" if seat == "all" else f" for the {SEAT_LABELS[seat]}" if seat else ""
        return f"{stem}{where}? Answer with the vehicle function and its argument values."

    def companion_calls(self, comp: Any, seat: str | None) -> list[ToolCall]:
        if comp is None:
            return []
        cslot, cval = comp
        out = []
        pre = PREREQUISITES.get(cslot.st.api)
        if pre:
            out.append(ToolCall(pre[0], dict(pre[1])))
        cs = seat if seat in cslot.st.seat_choices or seat == "all" and whole_car_api(cslot.st) else (
            cslot.st.seat_choices[0] if cslot.st.seat_choices else None)
        out.append(cslot.call(cval, cs))
        return out

    # ------------------------------------------------------------------ plan everything
    def plan(self) -> None:
        """Plan the queries (with their evidence beats) and the distractors."""
        q = self.o.queries_per_scenario
        prim = _primary_sequence(self.o.seed)
        comps = _companion_sequence(self.o.seed)
        cat = catalogue()
        planners = {
            "preference_conflict": self.plan_conflict, "conditional_constraint": self.plan_conditional,
            "coreference_resolution": self.plan_coreference, "state_shift": self.plan_state_shift,
            "error_correction": self.plan_correction,
        }
        queried: list[tuple[Slot, QueryPlan]] = []
        for j in range(q):
            g = self.ordinal * q + j
            rtype = REASONING_TYPES[g % len(REASONING_TYPES)]
            plan = None
            for attempt in range(len(prim)):
                api = prim[(g + attempt * 7) % len(prim)]
                if api in self.used_apis:
                    continue
                st = cat[api]
                slot = Slot(st, self.r_pref.choice(list(FIXED_LABELS[st.fixed_param])) if st.fixed_param else None)
                slot = self.whole_car(slot, rtype)
                comp = self.pick_companion(g, api, comps)
                for _ in range(4):
                    self.cur_dest = self.r_q.choice(banks.DESTINATIONS)
                    n_beats = len(self.beats)
                    tag_state = self._tag
                    plan = planners[rtype](slot, comp)
                    if plan is not None:
                        break
                    del self.beats[n_beats:]
                    self._tag = tag_state
                    comp = None
                if plan is not None:
                    self.used_apis.add(api)
                    queried.append((slot, plan))
                    break
            if plan is None:
                raise ConfigError(f"scenario {self.sid}: could not plan query {j} ({rtype})")
            plan.info.update({"api": plan.calls[0].name, "companion": [c.name for c in plan.calls[1:]]})
            self.plans.append(plan)
        self.plan_distractors(queried)
        self.plan_life()

    def pick_companion(self, g: int, primary: str, comps: list[str]) -> tuple[Slot, Mapping[str, Any]] | None:
        cat = catalogue()
        want = self.o.companion_every and g % self.o.companion_every == 0
        if primary == "carcontrol_music_play_song" and self.r_pref.random() < 0.7:
            st = cat["carcontrol_music_set_favorite"]
            return Slot(st, None), st.companion_value
        if not want:
            return None
        k = g // self.o.companion_every
        for i in range(len(comps)):
            api = comps[(k + i) % len(comps)]
            after = COMPANION_ONLY_AFTER.get(api)
            if after and after != primary or api in self.used_apis:
                continue
            st = cat[api]
            if st.module == cat[primary].module and self.r_pref.random() < 0.5:
                continue
            fixed = self.r_pref.choice(list(FIXED_LABELS[st.fixed_param])) if st.fixed_param else None
            return Slot(st, fixed), st.companion_value
        return None


def whole_car_api(st: SlotType) -> bool:
    """Whether a setting can be set for the whole car: its seat/zone parameter accepts ``"all"`` and it
    is a cabin-wide device (climate, windows, doors, reading lights, foot pedals), not a seat."""
    if st.seat_param is None or st.module == "seat":
        return False
    c = API_SPECS[st.api].param(st.seat_param).constraint
    return c is not None and "all" in c.choices


def _cycle(items: list[str], seed: int, name: str, light: set[str]) -> list[str]:
    rng = random.Random(f"vmb-gen/{seed}/global/{name}")
    out: list[str] = []
    for k in range(4):
        chunk = [a for a in items if a not in light or k % 2 == 0]
        rng.shuffle(chunk)
        out += chunk
    return out


_SEQ_CACHE: dict[tuple[int, str], list[str]] = {}


def _primary_sequence(seed: int) -> list[str]:
    """The order in which primary APIs are assigned to queries (global, so the set covers them all).

    APIs with three values or fewer appear in every other round, which keeps the
    most-frequent-value baseline low.
    """
    key = (seed, "primary")
    if key not in _SEQ_CACHE:
        cat = catalogue()
        light = {a for a in primaries() if len(cat[a].values) <= 3}
        _SEQ_CACHE[key] = _cycle(primaries(), seed, "primary", light)
    return _SEQ_CACHE[key]


def _companion_sequence(seed: int) -> list[str]:
    key = (seed, "companion")
    if key not in _SEQ_CACHE:
        _SEQ_CACHE[key] = _cycle(companions(), seed, "companion", set())
    return _SEQ_CACHE[key]
