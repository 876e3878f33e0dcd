"""Slot features: one row per slot action, in terms that mean the same thing in every household.

:class:`SlotFeaturizer` turns a :class:`~vmb_agents.sb3.slots.records.SlotAnalysis` and the episode
record into ``N_SLOT_ACTIONS`` rows (the static part is cached on the analysis; the per-step
columns are filled on each call).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from vmb_agents.sb3.slots.layout import (
    N_LINE_HASH,
    N_MEMORY_VALUES,
    N_SLOT_ACTIONS,
    N_TARGET_SLOTS,
    N_VALUE_SLOTS,
    VALUE_EXPLICIT,
    VALUE_MINIMAL,
    slot_index,
)
from vmb_gym.vehicle.lexicon import LINE_CUES
from vmb_agents.sb3.slots.records import search_rounds
from vmb_agents.reader import value_param
from vmb_gym.errors import ConfigError
from vmb_gym.vehicle import API_SPECS
from vmb_gym.wrappers.catalogue import EpisodeText

#: Per-action feature blocks of :class:`SlotFeaturizer` (see its docstring).
#: Widths of the kind, episode, API and target blocks of a row; extra value-slot columns.
BLOCK_KIND, BLOCK_GLOBAL, BLOCK_API, BLOCK_TARGET = 3, 8, 27, 16
#: Column of the API block set per step: the API was already called this episode.
API_CALLED = 13
VALUE_EXTRA = 25
_TARGET_NAMES = ("driver", "passenger", "rear_left", "rear_right", "front", "rear", "all", "left", "right", "both")
_ROUTINE = re.compile(r"\broutine\b", re.IGNORECASE)


class SlotFeaturizer:
    """Describes every action of the slot catalogue: ``Box(-1, 1, (N_SLOT_ACTIONS * D,))``.

    Row ``i`` (of ``D`` floats) describes action ``i`` in terms that mean the same thing in every
    household, so one small scorer shared by all rows (see
    :class:`~vmb_agents.sb3.slots.policy.SlotPointerPolicy`) can learn which slot is right:

    * kind: finish / search / call;
    * episode: searched, steps, calls made, relative change in the request, hit count, routine
      asked for, the request states a value, last step was an error;
    * API slot: rank, vocabulary + learned score of the request, best rules score in the hits,
      kept by the rules filter, the rules choice, stated with the chosen value ("companion"),
      value type; and against the episode's other API slots: whether the request names it most and
      by how much, whether the hits score it best and by how much, a clean mention by the target
      of one of its values (half when another slot has one too), whether a line by the target
      that gives the request's reason states one of its values, and whether the target's mentions,
      the line prior and the setting prior speak for it more than for the others (and by how much);
    * value slot: kind (memory value, memory value + relative change, request value, minimal
      action), rank, rules score and gap to the best, mentions (all / target person / others),
      recency rank, latest mention (any / target), condition match and opposite, a clean
      mention by the target, the rules' own choice, and the cue words of its representative line
      (preference, revision, correction, hypothetical, elsewhere, negation, first person, question),
      and the request's situation (outside the quote: rain, dark, a passenger, the route) against
      its lines: shared stems, a conditional rule that matches or misses it, an everyday default
      line, another value with a matching rule; and the learned line prior (:mod:`vmb_agents.sb3.slots.line_prior`):
      its best mention by the target and by others, whether it holds the latest genuine mention
      (by the target / by anyone) and its margin over the other values' best target mention; the
      request's reason words ("my back is acting up again") in a target mention; the learned API
      prior read on its target mentions (is the line about this setting at all) and whether it holds
      the latest genuine target mention about this setting; whether its line is
      the line of a value already set this episode (a routine clause belongs to the line it ends);
    * target slot: rank, none, which seat/zone, named in the request's quote ("the right mirror"), the
      seat the request puts the speaker in.

    Empty slots are all zeros (they are masked anyway).

    Args:
        drop: names of :meth:`feature_groups` set to zero in every row (an ablation: what a trained
            policy does without them; the shape stays the same).

    Raises:
        ConfigError: a name in ``drop`` that is not a feature group.
    """

    kind = "slots"

    def __init__(self, drop: Sequence[str] = ()) -> None:
        self._cues = tuple(LINE_CUES)
        self.value_width = 4 + N_MEMORY_VALUES + 13 + len(self._cues) + VALUE_EXTRA + N_LINE_HASH
        self.row = BLOCK_KIND + BLOCK_GLOBAL + BLOCK_API + self.value_width + BLOCK_TARGET
        #: column of the per-step feature "this value's line is the line of a value already set"
        #: (the last of the value block's extras, just before the line hash)
        self.same_line_column = BLOCK_KIND + BLOCK_GLOBAL + BLOCK_API + self.value_width - N_LINE_HASH - 1
        self.n_actions = N_SLOT_ACTIONS
        self.dim = self.n_actions * self.row
        groups = self.feature_groups()
        unknown = [name for name in drop if name not in groups]
        if unknown:
            raise ConfigError(f"drop_features: unknown feature group(s) {unknown}; expected some of "
                              f"{sorted(groups)}; fix: name groups of SlotFeaturizer.feature_groups()")
        self.drop = tuple(drop)
        self._dropped = np.array(sorted({c for name in self.drop for c in groups[name]}), dtype=np.int64)

    def feature_groups(self) -> dict[str, tuple[int, ...]]:
        """Named column groups of a row (for ablations; groups may overlap):

        ``episode``, ``api``, ``target`` (the blocks), and of the value block ``value_rank`` (its rank),
        ``value_scores`` (the 13 reading features: rules score, mentions, recency, conditions, clean, rules
        choice, type), ``recency`` (recency rank, latest mention by anyone / the target), ``rules_value`` (the
        rules' own choice), ``clean`` (clean mentions by the target), ``cues`` (its line's cue words),
        ``conditions`` (the request's situation against its lines), ``line_prior`` (the learned line prior's
        five features), ``setting_prior`` (the learned API prior on its target mentions), ``line_hash`` (hashed
        words of its line).
        """
        a0 = BLOCK_KIND + BLOCK_GLOBAL
        v0 = a0 + BLOCK_API
        scores = v0 + 4 + N_MEMORY_VALUES
        cues = scores + 13
        extra = cues + len(self._cues)
        hashed = extra + VALUE_EXTRA
        t0 = v0 + self.value_width

        def run(start: int, stop: int) -> tuple[int, ...]:
            return tuple(range(start, stop))

        return {
            "episode": run(BLOCK_KIND, a0), "api": run(a0, v0), "target": run(t0, t0 + BLOCK_TARGET),
            "value_rank": run(v0 + 4, scores), "value_scores": run(scores, cues),
            "recency": (scores + 5, scores + 6, scores + 7), "rules_value": (scores + 11,),
            "clean": (scores + 10, extra + 4, extra + 5, extra + 6), "cues": run(cues, extra),
            "conditions": run(extra + 10, extra + 16), "line_prior": run(extra + 16, extra + 21),
            "setting_prior": (extra + 22, extra + 23), "line_hash": run(hashed, hashed + N_LINE_HASH),
        }

    def config(self) -> dict[str, Any]:
        """``{"kind": "slots"}``, plus ``"drop"`` (the dropped groups) when any are dropped."""
        return {"kind": self.kind, **({"drop": list(self.drop)} if self.drop else {})}

    def features(self, analysis: Any, episode: EpisodeText) -> np.ndarray:
        """The flat feature vector of the episode's current state."""
        if analysis.features is None or analysis.features.shape != (self.n_actions, self.row):
            analysis.features = self._static(analysis)
        out = analysis.features.copy()
        g = np.array(
            [
                min(search_rounds(episode), 2) / 2.0,
                min(episode.steps, 5) / 5.0,
                min(len(episode.made_names), 3) / 3.0,
                float(bool(analysis.delta)),
                min(analysis.n_hits, 40) / 40.0,
                float(bool(_ROUTINE.search(episode.request))),
                float(any(a.explicit is not None for a in analysis.apis)),
                float(episode.last_error),
            ],
            dtype=np.float32,
        )
        out[:, BLOCK_KIND:BLOCK_KIND + BLOCK_GLOBAL] = g
        made = set(episode.made_names)
        if made:
            self._per_step(out, analysis, episode, made)
        if self._dropped.size:
            out[:, self._dropped] = 0.0
        return out.reshape(-1)

    def _per_step(self, out: np.ndarray, analysis: Any, episode: EpisodeText, made: set[str]) -> None:
        """The columns that follow the calls made so far (API already called, value's line already set)."""
        set_lines = cached_lines_of_set_values(analysis, episode.made)
        # the rows of API slot a are one run (value-major), those of its value slot v a run of N_TARGET_SLOTS
        api_rows = N_VALUE_SLOTS * N_TARGET_SLOTS
        for a, slot in enumerate(analysis.apis):
            if slot.api in made:
                start = slot_index(a, 0, 0)
                out[start:start + api_rows, BLOCK_KIND + BLOCK_GLOBAL + API_CALLED] = 1.0
            if not set_lines:
                continue
            for k, val in enumerate(slot.values):
                if not set_lines.isdisjoint([val.source, *val.sources]):
                    for v in (k, N_MEMORY_VALUES + k):
                        start = slot_index(a, v, 0)
                        out[start:start + N_TARGET_SLOTS, self.same_line_column] = 1.0

    def _static(self, analysis: Any) -> np.ndarray:
        """The rows that do not change within an analysis: kind, API, value and target blocks."""
        rows = np.zeros((self.n_actions, self.row), dtype=np.float32)
        rows[0, 0] = 1.0
        rows[1, 1] = 1.0
        a0 = BLOCK_KIND + BLOCK_GLOBAL
        v0 = a0 + BLOCK_API
        t0 = v0 + self.value_width
        quote = " ".join(analysis.request.quotes).lower().replace("_", " ")
        for a, slot in enumerate(analysis.apis):
            api_vec = api_block(a, slot, analysis.apis)
            value_vecs = self._value_blocks(slot, bool(analysis.relatives))
            for t, target in enumerate(slot.targets[:N_TARGET_SLOTS]):
                tvec = target_block(t, target, quote, analysis.request.seat)
                for v, vvec in value_vecs.items():
                    i = slot_index(a, v, t)
                    rows[i, 2] = 1.0
                    rows[i, a0:a0 + BLOCK_API] = api_vec
                    rows[i, v0:v0 + self.value_width] = vvec
                    rows[i, t0:t0 + BLOCK_TARGET] = tvec
        return rows

    def _value_blocks(self, slot: Any, relatives: bool) -> dict[int, np.ndarray]:
        """The value block of every value slot of an API slot (memory values, their shifted copies,
        the request's explicit value, the minimal call)."""
        best = slot.values[0].score if slot.values else 0.0
        out: dict[int, np.ndarray] = {}
        for k, val in enumerate(slot.values):
            vec = self._value_block(k, val, best, relatives)
            plain = vec.copy()
            plain[0] = 1.0
            out[k] = plain
            shifted = vec.copy()
            shifted[1] = 1.0
            out[N_MEMORY_VALUES + k] = shifted
        explicit = np.zeros(self.value_width, dtype=np.float32)
        explicit[2] = 1.0
        out[VALUE_EXPLICIT] = explicit
        minimal = np.zeros(self.value_width, dtype=np.float32)
        minimal[3] = 1.0
        out[VALUE_MINIMAL] = minimal
        return out

    def _value_block(self, k: int, val: Any, best: float, relatives: bool) -> np.ndarray:
        """The features of the ``k``-th memory value of an API slot (``best``: the slot's best score)."""
        vec = np.zeros(self.value_width, dtype=np.float32)
        vec[4 + k] = 1.0
        o = 4 + N_MEMORY_VALUES
        vec[o: o + 13] = [min(val.score, 20.0) / 20.0, min(best - val.score, 5.0) / 5.0,
                          min(val.mentions, 5) / 5.0, min(val.target_mentions, 5) / 5.0,
                          min(val.other_mentions, 5) / 5.0, val.recency, float(val.latest_any),
                          float(val.latest_target), min(val.conditions, 2.0) / 2.0,
                          min(val.opposite, 2.0) / 2.0, float(val.clean), float(val.rules_top),
                          float(isinstance(val.value, bool))]
        o2 = o + 13 + len(self._cues)
        vec[o + 13:o2] = [val.cues.get(c, 0.0) for c in self._cues]
        vec[o2:o2 + VALUE_EXTRA] = [
            float(val.follows), float(val.rep_target), float(val.relative),
            min(val.request_overlap, 3.0) / 3.0, float(val.latest_clean_target), float(val.latest_clean_any),
            min(val.clean_target_mentions, 3) / 3.0, float(val.names_passenger),
            float(isinstance(val.value, dict)), float(relatives),
            min(val.context_overlap, 3.0) / 3.0, float(val.conditional), float(val.cond_match),
            float(val.cond_miss), float(val.default_line), float(val.other_cond_match),
            val.prior_target, val.prior_other, float(val.prior_latest_target), float(val.prior_latest_any),
            val.prior_margin, min(val.reason_overlap, 3.0) / 3.0, val.setting_prob,
            float(val.setting_latest_target), 0.0]  # last: set per step
        if val.line_hash is not None:
            vec[o2 + VALUE_EXTRA:] = val.line_hash
        return vec


def api_block(a: int, slot: Any, apis: Sequence[Any] = ()) -> np.ndarray:
    """The API block of the ``a``-th API slot: its position, what the rules reading says of it, and how it
    compares with the episode's other API slots ``apis`` (which the request names most, which the hits
    score best, which hold a clean mention by the target, which a line giving the request's reason names)."""
    vec = np.zeros(BLOCK_API, dtype=np.float32)
    vec[a if a < 4 else 14] = 1.0
    vec[4] = min(slot.request_score, 10.0) / 10.0
    vec[5] = min(slot.best_score, 20.0) / 20.0
    vec[6:13] = [float(slot.passes), float(slot.rules_choice), float(slot.companion), float(bool(slot.values)),
                 value_type(slot.api), float(slot.minimal is not None), float(slot.explicit is not None)]
    others = [o for o in apis if o is not slot]
    top_req = max((o.request_score for o in others), default=0.0)
    top_best = max((o.best_score for o in others), default=0.0)
    clean = clean_target(slot)
    vec[15:21] = [float(slot.request_score > top_req), float(np.clip((slot.request_score - top_req) / 5.0, -1.0, 1.0)),
                  float(slot.best_score > top_best), float(np.clip((slot.best_score - top_best) / 10.0, -1.0, 1.0)),
                  float(clean) - 0.5 * float(clean and any(clean_target(o) for o in others)),
                  float(slot.reason)]
    # the target's evidence for it against the other slots': mentions, the line prior, the setting prior
    for col, measure in ((21, target_mentions), (23, target_prior), (25, setting_prior)):
        mine, top = measure(slot), max((measure(o) for o in others), default=0.0)
        vec[col:col + 2] = [float(mine > top), float(np.clip(mine - top, -1.0, 1.0))]
    return vec


def target_mentions(slot: Any) -> float:
    """The most mentions by the request's target of one of the API slot's values (a fifth per mention, at most 1)."""
    return min(max((v.target_mentions for v in slot.values), default=0), 5) / 5.0


def target_prior(slot: Any) -> float:
    """The line prior's best score of a mention by the target of one of the API slot's values."""
    return max((float(v.prior_target) for v in slot.values), default=0.0)


def setting_prior(slot: Any) -> float:
    """The learned API prior's best P(this API | line) over the target's mentions of the slot's values."""
    return max((float(v.setting_prob) for v in slot.values), default=0.0)


def clean_target(slot: Any) -> bool:
    """Whether one of the API slot's values has a clean mention by the request's target."""
    return any(v.clean_target_mentions > 0 for v in slot.values)


def target_block(t: int, target: str | None, quote: str, seat: str) -> np.ndarray:
    """The target block of the ``t``-th seat/zone slot (``quote``: the request's quotes, lower case)."""
    vec = np.zeros(BLOCK_TARGET, dtype=np.float32)
    vec[t] = 1.0
    if target is None:
        vec[3] = 1.0
    elif target in _TARGET_NAMES:
        vec[4 + _TARGET_NAMES.index(target)] = 1.0
    if target is not None:
        vec[14] = float(bool(re.search(rf"\b{target.replace('_', ' ')}\b", quote)))
        vec[15] = float(target == seat)
    return vec


def cached_lines_of_set_values(analysis: Any, made: Iterable[str]) -> set[str]:
    """:func:`lines_of_set_values`, the lines of each call kept on the analysis (``analysis.set_lines``)."""
    kept = getattr(analysis, "set_lines", None)
    if kept is None:
        kept = analysis.set_lines = {}
    lines: set[str] = set()
    for key in made:
        found: frozenset[str] | None = kept.get(key)
        if found is None:
            found = kept[key] = frozenset(lines_of_set_values(analysis, (key,)))
        lines.update(found)
    return lines


def lines_of_set_values(analysis: Any, made: Iterable[str]) -> set[str]:
    """The hit lines of the memory values (or routine companions) the episode's calls set (calls given as keys)."""
    lines: set[str] = set()
    for key in made:
        cut = key.find("{")
        name, args = key[:cut], json.loads(key[cut:])
        for slot in analysis.apis:
            if slot.api != name:
                continue
            for val in slot.values:
                if isinstance(val.value, dict):
                    hit = all(args.get(k) == x for k, x in val.value.items())
                else:
                    hit = any(type(x) is type(val.value) and x == val.value for x in args.values())
                if hit:
                    lines.update([val.source, *val.sources])
    return lines


def value_type(api: str) -> float:
    """0 none, 0.25 bool, 0.5 int, 0.75 enum, 1 free text."""
    vp = value_param(API_SPECS[api])
    if vp is None:
        return 0.0
    if vp.py_type is bool:
        return 0.25
    if vp.py_type is int:
        return 0.5
    if vp.constraint is not None and vp.constraint.choices:
        return 0.75
    return 1.0


