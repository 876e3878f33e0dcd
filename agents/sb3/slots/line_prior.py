"""A learned prior over history lines: how likely a line states a real, current setting of its speaker.

Households talk about settings in many ways that are *not* a preference for this car: a van at
work, a rental, a taxi, a relative's car, a hypothetical, a review read online, a complaint about
the manual. :class:`LinePrior` is a logistic regression over the line's words and word n-grams
(people's names and numbers masked, so it learns wording, not values) fitted on the training
split with one label per history line: "this line is gold evidence of some request". It feeds
the slot design's value features (:mod:`agents.sb3.slots`); only training scenarios' evidence
line ids are used, never a value or a held-out scenario.

The labels are positive-unlabelled: a genuine statement nobody asks about later is labelled 0.
Balanced class weights keep such lines well above the distractor templates, and the slot scorer
reads the probability as one feature among many, so only the ranking has to be right.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from vmb_gym.errors import ConfigError

#: Hashed feature space of the line words (1- to 3-grams).
N_FEATURES = 2 ** 14
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
#: A line is "genuine" for the slot features when its probability reaches this.
GENUINE = 0.5


def line_text(body: str) -> str:
    """The text the prior reads: numbers masked (names are masked by the caller, as in rules bodies)."""
    return _DIGITS.sub("0", body.lower())


def _vectorizer() -> Any:
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=N_FEATURES, ngram_range=(1, 3), alternate_sign=False, norm="l2",
                             token_pattern=r"(?u)\b\w+\b|[?!']")


class LinePrior:
    """``P(line is real evidence)`` for a line body (speaker prefix removed, names masked).

    Args:
        coef: the ``N_FEATURES`` weights of the logistic regression.
        intercept: its bias.
    """

    def __init__(self, coef: np.ndarray, intercept: float) -> None:
        coef = np.asarray(coef, dtype=np.float32).reshape(-1)
        if coef.shape != (N_FEATURES,):
            raise ConfigError(f"a line prior has {N_FEATURES} weights, found {coef.shape[0]}; "
                              "retrain it with this version (`vmb train sb3`)")
        self.coef = coef
        self.intercept = float(intercept)
        self._vec = _vectorizer()
        self._cache: dict[str, float] = {}

    @classmethod
    def fit(cls, examples: Iterable[tuple[str, bool]], *, c: float = 1.0, seed: int = 0) -> LinePrior:
        """Fit on ``(line body, is evidence)`` pairs (balanced class weights)."""
        from sklearn.linear_model import LogisticRegression

        texts, labels = [], []
        for body, label in examples:
            texts.append(line_text(body))
            labels.append(int(bool(label)))
        if len(set(labels)) < 2:
            raise ConfigError(f"a line prior needs evidence and other lines; found {sum(labels)} evidence lines "
                              f"among {len(labels)}: train on scenarios whose queries carry gold evidence")
        x = _vectorizer().transform(texts)
        model = LogisticRegression(C=c, class_weight="balanced", max_iter=1000, random_state=seed)
        model.fit(x, np.asarray(labels))
        return cls(model.coef_[0], float(model.intercept_[0]))

    @staticmethod
    def examples_from_scenarios(scenarios: Iterable[Any]) -> list[tuple[str, bool]]:
        """``(body, is evidence)`` for every history line of training scenarios (names masked)."""
        from agents.rules import hit_body_cached

        out = []
        for s in scenarios:
            evidence = {i for q in s.queries for i in q.evidence_line_ids}
            speakers = tuple(s.speakers)
            for line in s.lines:
                out.append((hit_body_cached(line.text, (line.speaker,), speakers), line.line_id in evidence))
        return out

    def __call__(self, body: str) -> float:
        """The probability that ``body`` states a real preference (cached per text)."""
        p = self._cache.get(body)
        if p is None:
            p = self.many([body])[0]
        return p

    def many(self, bodies: Sequence[str]) -> list[float]:
        """Probabilities of several bodies (one sparse product)."""
        todo = [b for b in dict.fromkeys(bodies) if b not in self._cache]
        if todo:
            x = self._vec.transform([line_text(b) for b in todo])
            z = np.asarray(x @ self.coef).reshape(-1) + self.intercept
            if len(self._cache) > 200_000:
                self._cache.clear()
            for b, p in zip(todo, 1.0 / (1.0 + np.exp(-z)), strict=True):
                self._cache[b] = float(p)
        return [self._cache[b] for b in bodies]

    def to_json(self) -> dict[str, Any]:
        """Weights as base64 float32 (about 90 kB)."""
        return {"n_features": N_FEATURES, "intercept": self.intercept,
                "coef_b64": base64.b64encode(self.coef.astype("<f4").tobytes()).decode("ascii")}

    @classmethod
    def from_json(cls, data: Any) -> LinePrior:
        """Restore :meth:`to_json` output."""
        try:
            coef = np.frombuffer(base64.b64decode(data["coef_b64"]), dtype="<f4")
            return cls(coef, float(data["intercept"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"not a line prior ({type(exc).__name__}: {exc}); expected the output of "
                              "LinePrior.to_json with coef_b64 and intercept") from exc
