"""What the learned memory writer sees of a streamed line: :class:`LineFeaturizer`.

Each line of a chunk becomes a row in [-1, 1]: a hashed bag of words and bigrams (the
``VehicleMem-v0`` :class:`~vmb_gym.wrappers.features.HashingFeaturizer` encoding), the numeric
features :data:`NUMERIC_NAMES` (simulator-vocabulary hits, a value found for a named setting,
whether the rule writer would keep the line, relation / other-vehicle / value words, condition
words, length, position in the chunk and the speaker), optionally the line cues :data:`CUE_NAMES`
(:data:`vmb_gym.vehicle.lexicon.LINE_CUES`: a standing preference, a revision, a correction, a
hypothetical, another car, a negation, first-person wording, a question; the cues the SB3 slot
design reads too; a condition clause, :data:`vmb_gym.vehicle.lexicon.CONDITION_CLAUSE`; another
household member named) and, optionally, the budget block
:data:`BUDGET_NAMES` (share of the budget left, the line's length, share of the timeline's chunks
already streamed).

``style_features=False`` zeroes the hashed text and the line-shape features (:data:`STYLE_NAMES`:
length, position, chunk size, speaker; and the budget block's ``line_tokens``): they describe *how* generated
text is written (its lines are half as long as real ones, its wording templated; see ``vmb validate-benchmark
--against``)
and do not carry to real conversations, so a writer trained on generated data reads only the
simulator-vocabulary features, which do.

:func:`cue_pattern` and :func:`masked_lines` say which lines a writer with ``mask_cues`` never keeps
(lines with some of the :data:`~vmb_gym.vehicle.lexicon.LINE_CUES`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vmb_agents.reader import conditions_in, score_apis
from vmb_agents.stream.writers import ELSEWHERE, RELATION, VALUE_WORDS, RuleWriter
from vmb_gym.envs.vehicle_mem_stream import stored_lines_text
from vmb_gym.errors import ConfigError
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.vehicle.lexicon import CONDITION_CLAUSE, LINE_CUES
from vmb_gym.wrappers.features import HashingFeaturizer

__all__ = ["BUDGET_NAMES", "CUE_NAMES", "NUMERIC_NAMES", "STYLE_NAMES", "LineFeaturizer", "cue_pattern", "line_tokens",
           "masked_lines"]

#: Names of the numeric features that follow the hashed text block.
NUMERIC_NAMES: tuple[str, ...] = (
    "vocab_score", "value_found", "rule_keep", "relation", "elsewhere", "value_words", "conditions",
    "length", "position", "chunk_size", "speaker_0", "speaker_1", "speaker_2", "speaker_3", "speaker_other",
)
#: Numeric features that describe the text's shape, not its vehicle content (zeroed without style features).
STYLE_NAMES: tuple[str, ...] = ("length", "position", "chunk_size", "speaker_0", "speaker_1", "speaker_2",
                                "speaker_3", "speaker_other")
#: Names of the line-cue features that follow the numeric block (``LineFeaturizer(cue_features=True)``).
CUE_NAMES: tuple[str, ...] = (*(f"cue_{name}" for name in LINE_CUES), "cue_condition_clause", "cue_other_person")
#: Names of the budget features that follow the numeric (and cue) block (``LineFeaturizer(budget_features=True)``).
BUDGET_NAMES: tuple[str, ...] = ("budget_left", "line_tokens", "progress")
_MAX_SPEAKERS = 4
_LINE_TOKEN_SCALE = 64.0
_WORDS = re.compile(r"\S+")
_LETTERS = re.compile(r"[a-z]+")


class LineFeaturizer:
    """Features of each line of a chunk: hashed text, :data:`NUMERIC_NAMES`, :data:`CUE_NAMES`, then
    :data:`BUDGET_NAMES` (all in [-1, 1]).

    :meth:`chunk` fills the text and numeric blocks; the budget block depends on the decisions
    taken so far and is written per line with :meth:`set_budget`.

    Args:
        hash_dim: slots of the hashed bag of words and bigrams.
        min_score: least :func:`vmb_agents.reader.score_apis` score for a line to name a setting
            (as :class:`vmb_agents.stream.writers.RuleWriter`).
        follow_up: lines after a setting line whose bare value still counts (as the rule writer).
        budget_features: append the :data:`BUDGET_NAMES` block (checkpoints from before it have none).
        style_features: fill the hashed text and :data:`STYLE_NAMES` (False: they stay 0; see the module doc).
        cue_features: append the :data:`CUE_NAMES` block (checkpoints from before it have none).
    """

    def __init__(self, hash_dim: int = 256, min_score: float = 1.0, follow_up: int = 2,
                 budget_features: bool = True, style_features: bool = True, cue_features: bool = False) -> None:
        if hash_dim < 8:
            raise ConfigError(f"hash_dim must be >= 8, got {hash_dim}")
        self.hash_dim = int(hash_dim)
        self.min_score = float(min_score)
        self.follow_up = int(follow_up)
        self.budget_features = bool(budget_features)
        self.style_features = bool(style_features)
        self.cue_features = bool(cue_features)
        self._cues = (*LINE_CUES.values(), CONDITION_CLAUSE) if self.cue_features else ()
        self._style_mask = np.array([name not in STYLE_NAMES or self.style_features for name in NUMERIC_NAMES],
                                    dtype=np.float32)
        self._budget_start = self.hash_dim + len(NUMERIC_NAMES) + (len(CUE_NAMES) if self.cue_features else 0)
        self.dim = self._budget_start + (len(BUDGET_NAMES) if self.budget_features else 0)
        self._hasher = HashingFeaturizer()
        self._rule = RuleWriter(min_score=min_score, follow_up=follow_up)
        self._score = score_apis
        self._conditions = conditions_in
        self._relation = RELATION
        self._elsewhere = ELSEWHERE
        self._value = VALUE_WORDS

    def config(self) -> dict[str, Any]:
        """Arguments that rebuild this featuriser."""
        return {"hash_dim": self.hash_dim, "min_score": self.min_score, "follow_up": self.follow_up,
                "budget_features": self.budget_features, "style_features": self.style_features,
                "cue_features": self.cue_features}

    def set_budget(self, row: np.ndarray, *, budget_left: float, line_tokens: int, progress: float) -> np.ndarray:
        """Write the budget block of one line's features in place (a no-op without it); returns ``row``.

        ``budget_left``: share of the budget still free (1 without a budget); ``line_tokens``: the
        line's tokens (scaled by 64, capped at 1; a line-shape feature: 0 without style features);
        ``progress``: share of the timeline's chunks streamed before this one.
        """
        if self.budget_features:
            start = self._budget_start
            row[start : start + len(BUDGET_NAMES)] = (
                float(np.clip(budget_left, 0.0, 1.0)),
                min(line_tokens / _LINE_TOKEN_SCALE, 1.0) if self.style_features else 0.0,
                float(np.clip(progress, 0.0, 1.0)),
            )
        return row

    def chunk(self, lines: Sequence[Mapping[str, Any]], speakers: Sequence[str]) -> np.ndarray:
        """``(len(lines), dim)`` float32 features of one chunk (the rule-keep flag needs the chunk)."""
        n = len(lines)
        out = np.zeros((n, self.dim), dtype=np.float32)
        last_kept = -10**9
        for pos, ln in enumerate(lines):
            text = str(ln["text"])
            scores = self._score(text)
            best = max(scores.values(), default=0.0)
            api = self._rule.setting_of(text) if best >= self.min_score else None
            relation = bool(self._relation.search(text))
            elsewhere = bool(self._elsewhere.search(text))
            value_words = bool(self._value.search(text))
            # the rule writer's decision, recomputed from the same parts
            if relation:
                keep = True
            elif elsewhere:
                keep = False
            elif api is None:
                keep = pos - last_kept <= self.follow_up and value_words
            else:
                keep = True
                last_kept = pos
            speaker = [0.0] * (_MAX_SPEAKERS + 1)
            who = str(ln.get("speaker", ""))
            idx = list(speakers).index(who) if who in speakers else -1
            speaker[idx if 0 <= idx < _MAX_SPEAKERS else _MAX_SPEAKERS] = 1.0
            numeric = [min(best, 3.0) / 3.0, float(api is not None), float(keep), float(relation), float(elsewhere),
                       float(value_words), float(bool(self._conditions(text))),
                       min(len(_WORDS.findall(text)), 50) / 50.0, pos / max(n - 1, 1), min(n, 100) / 100.0, *speaker]
            if self.style_features:
                out[pos, : self.hash_dim] = self._hasher.encode(text, self.hash_dim)
            out[pos, self.hash_dim:self.hash_dim + len(NUMERIC_NAMES)] = np.asarray(numeric) * self._style_mask
            if self.cue_features:
                start = self.hash_dim + len(NUMERIC_NAMES)
                words = set(_LETTERS.findall(text.lower()))
                other = any(p != who and p.split()[0].lower() in words for p in speakers if p)
                out[pos, start : start + len(CUE_NAMES)] = [
                    *(float(bool(c.search(text))) for c in self._cues),
                    float(other),
                ]
        return out


def cue_pattern(cues: Sequence[str]) -> re.Pattern[str] | None:
    """One pattern matching any of the :data:`~vmb_gym.vehicle.lexicon.LINE_CUES` named (None for none).

    Raises:
        ConfigError: for a name that is not a line cue.
    """
    unknown = sorted(set(cues) - set(LINE_CUES))
    if unknown:
        raise ConfigError(f"unknown line cue(s) {unknown}; expected names of LINE_CUES: {sorted(LINE_CUES)}")
    return re.compile("|".join(f"(?:{LINE_CUES[c].pattern})" for c in cues), re.IGNORECASE) if cues else None


def masked_lines(pattern: re.Pattern[str] | None, lines: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Per line, whether ``keep`` is masked for it: its text shows one of the masked cues.

    The cues a writer may mask (``mask_cues``) are lexicon cues of lines that state a setting without
    it being a preference for this car: a hypothetical ("I wonder what level 3 would feel like"),
    another vehicle ("in the rental"), a question.
    """
    return [pattern is not None and bool(pattern.search(str(ln["text"]))) for ln in lines]


def line_tokens(line: Mapping[str, Any]) -> int:
    """Tokens the env counts when the line is stored on its own (``"speaker: text"``)."""
    return count_tokens(stored_lines_text([(line["speaker"], line["text"])]))
