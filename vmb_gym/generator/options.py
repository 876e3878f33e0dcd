"""Options of the scenario generator (every knob the issue names, with the default set's values)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from vmb_gym.errors import ConfigError

#: Bumped whenever the same options and seed would produce different bytes.
GENERATOR_VERSION = "1.1.0"
#: The offline renderers (``GeneratorOptions.renderer``).
RENDERERS: tuple[str, ...] = ("template", "natural")


#: The near-miss mix of the embedded benchmark: 9 in 12 near misses state a value.
DEFAULT_VALUED_NEAR_MISSES = 0.75

#: Options measured to bring generated tasks close to official files 1-40 (``vmb validate-benchmark
#: --against official``): the share of whole-car climate and window calls (official: about 2 in 3), requests
#: that name only a situation or a reason (request-profile distance 0.058), near misses that state a value
#: (other values of the asked setting outside its evidence: official 1.5 per task) and the driver's seat
#: (nearly every official seat or zone request) and corrections that name the setting again (half of them: the rules
#: reader's wrong values on correction tasks whose function it gets right fall from 82% to 67%, official 67%).
#: ``vmb generate --like official`` and ``vmb train sb3 --generator-options official`` apply it.
OFFICIAL_LIKE: dict[str, float] = {"whole_car": 0.6, "indirect_requests": 0.7, "valued_near_misses": 0.1,
                                   "driver_seat": 0.9, "restated_corrections": 0.5}


@dataclass(frozen=True)
class GeneratorOptions:
    """What to generate.

    Attributes:
        seed: the master seed; each scenario and phase derives its own generator from it.
        scenarios: number of scenarios (households).
        queries_per_scenario: queries per scenario (the official data has 10).
        people: regular users per car (2-5).
        history_length: target number of dialogue lines per history (the official mean is ~2,700).
        distractor_ratio: unqueried (distractor) preference chains per queried chain, and near-miss
            lines per queried setting per 150 history lines (hypotheticals, other cars, other
            people, relatives' cars, questions, same-condition rules of others); 0 disables vehicle
            distractors (chit-chat stays).
        max_revision_depth: the longest revision chain of a state-shift query (1-5).
        companion_every: every k-th query (globally) adds a second "routine" call; 0 disables.
        days: number of days the history spans.
        first_scenario_id: id of the first scenario (files are numbered from it).
        renderer: how lines are worded: ``"template"`` (short fixed sentences, the embedded
            benchmark's wording) or ``"natural"`` (multi-turn conversations composed from a broad
            bank of topics, reactions and ways of stating a preference; same structured truth).
        whole_car: share of the queries on a cabin-wide setting (climate, windows, doors, reading
            lights, foot pedals: a seat/zone parameter that accepts ``"all"``; not the seats
            themselves) that set it for the whole car: the preference and the request say so ("the
            fan speed for everyone") and the gold call's target is ``"all"``. 0 (the default, the
            embedded benchmark's behaviour) plans every call at a person's seat.
        whole_car_words: share of those whole-car settings whose lines and request say so; the
            others are worded like a person's own setting (1, the default: always said).
        device_requests: share of the requests that name the device and not its setting ("Put my
            seat back the way I like it" for the seat's cushion length): which setting is meant is
            for the history to tell, as in many official requests. 0 (the default, the embedded
            benchmark's behaviour) names the setting.
        indirect_requests: share of the requests whose history gives a situation or a reason for the setting
            (a conditional rule that holds, a state-shift revision with its reason) that name neither the
            setting nor its device, only the situation or the reason ("My back is acting up again. Put things
            back the way I had them then."): the function is for the memory to tell, as in 30% of the
            official requests (:mod:`vmb_gym.generator.request_profile`). 0 (the default, the embedded benchmark's
            behaviour) names the setting.
        valued_near_misses: share of a queried setting's near-miss lines that state a value (a hypothetical,
            another car, another person's or a relative's setting); the others name the setting without one
            ("Who touched the fan again?"). 0.75 (the default, the embedded benchmark's behaviour). Official histories
            state a value for the asked setting outside its
            evidence in 1.5-2.4 lines per task, the default mix in 13-14 (the vocabulary or the rules reader's matcher)
            (:mod:`vmb_gym.generator.conflict_profile`).
        driver_seat: share of the queries on a person's seat or zone (not a relative's, not the whole car)
            planned at the driver's seat; the others go to the passenger and rear seats 4:1:1. ``None``
            (the default, the embedded benchmark's behaviour) draws all four 5:4:1:1 (driver about 45%).
            Nearly every official request on a seat or zone is the driver's (:mod:`vmb_gym.generator.request_profile`).
        restated_corrections: share of the error-correction queries whose correcting line names the setting again
            with both values ("Hmm, 3 is too much. Set the seat massage to level 1 from now on."); the others say only
            the values ("Too high. Make it level 1 instead."). 0 (the default, the embedded benchmark's behaviour).
            On single-call correction tasks whose function it gets right, the rules reader takes a wrong value or seat
            in 82% of the ``--like official`` validation split's (0.5: 67%) and in 67% of official files 1-40.
        returns_to_usual: share of the state-shift queries whose last revision was for a while only ("My back has been
            bothering me, so the seat backrest at 30 for the time being.") and whose request says that is over ("My
            back is fine again, so put the seat backrest back to my usual."): the gold value is the one before that
            revision. 0 (the default, the embedded benchmark's behaviour): the request asks for the latest revision or
            for one its reason names again. Official state-shift requests often return to the everyday setting after a
            temporary one ("My back is finally healed. Put the seat back to my normal angle.").
    """

    seed: int = 0
    scenarios: int = 50
    queries_per_scenario: int = 10
    people: int = 3
    history_length: int = 2000
    distractor_ratio: float = 1.0
    max_revision_depth: int = 5
    companion_every: int = 4
    days: int = 42
    first_scenario_id: int = 1
    renderer: str = "template"
    whole_car: float = 0.0
    whole_car_words: float = 1.0
    device_requests: float = 0.0
    indirect_requests: float = 0.0
    valued_near_misses: float = 0.75
    driver_seat: float | None = None
    restated_corrections: float = 0.0
    returns_to_usual: float = 0.0

    def __post_init__(self) -> None:
        if not 2 <= self.people <= 5:
            raise ConfigError(f"people must be 2-5 regular users per car, got {self.people}")
        if not 1 <= self.max_revision_depth <= 5:
            raise ConfigError(f"max_revision_depth must be 1-5, got {self.max_revision_depth}")
        if self.scenarios < 1 or self.queries_per_scenario < 1:
            raise ConfigError(f"scenarios and queries_per_scenario must be >= 1, got "
                              f"{self.scenarios} and {self.queries_per_scenario}")
        if self.queries_per_scenario > 40:
            raise ConfigError(
                f"queries_per_scenario must be <= 40 (distinct APIs per car), got {self.queries_per_scenario}"
            )
        if self.distractor_ratio < 0:
            raise ConfigError(f"distractor_ratio must be >= 0, got {self.distractor_ratio}")
        if self.history_length < 50:
            raise ConfigError(f"history_length must be >= 50 lines, got {self.history_length}")
        if self.renderer not in RENDERERS:
            raise ConfigError(f"renderer must be one of {list(RENDERERS)}, got {self.renderer!r}")
        for name in ("whole_car", "whole_car_words", "device_requests", "indirect_requests", "valued_near_misses",
                     "restated_corrections", "returns_to_usual"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be a share in [0, 1], got {getattr(self, name)}")
        if self.driver_seat is not None and not 0.0 <= self.driver_seat <= 1.0:
            raise ConfigError(f"driver_seat must be a share in [0, 1] or None, got {self.driver_seat}")
        if self.days < 7:
            raise ConfigError(f"days must be >= 7, got {self.days}")

    def to_json(self) -> dict[str, Any]:
        """The options as a JSON object (for manifests and sidecars).

        The template renderer, ``whole_car`` 0, ``whole_car_words`` 1, ``device_requests`` 0 and
        ``indirect_requests`` 0, ``valued_near_misses`` 0.75, ``driver_seat`` None, ``restated_corrections`` 0 and
        ``returns_to_usual`` 0 are left out, so sets made before the options
        existed keep their bytes.
        """
        out = asdict(self)
        if out["renderer"] == "template":
            del out["renderer"]
        if not out["whole_car"]:
            del out["whole_car"]
        if out["whole_car_words"] == 1.0:
            del out["whole_car_words"]
        for name in ("device_requests", "indirect_requests", "restated_corrections", "returns_to_usual"):
            if not out[name]:
                del out[name]
        if out["valued_near_misses"] == DEFAULT_VALUED_NEAR_MISSES:
            del out["valued_near_misses"]
        if out["driver_seat"] is None:
            del out["driver_seat"]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GeneratorOptions:
        """Rebuild options from :meth:`to_json` output (unknown keys are an error)."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown generator options {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)
