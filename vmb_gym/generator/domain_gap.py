"""The domain gap between a generated benchmark and the official one, measured on history lines.

:func:`domain_gap` answers "could a reader tell our text from the real thing?" with four numbers:

* **AUC**: a bag-of-words line classifier (TF-IDF of word 1-2 grams, logistic regression) is
  cross-validated (5 folds; a text on both sides keeps its copies in one fold) on equal samples of generated and
  official lines; 0.5 means it cannot
  tell them apart, 1.0 that every line gives itself away. Timestamps and speaker names are cut off,
  and the household's names (full, first and last) and every number are masked in the text, so
  the classifier has to learn the *wording*, not who speaks or which value is said.
* **copy share**: the fraction of generated lines sharing any 8-word run with any official line
  (lower-cased, quotes and dashes normalised, names and numbers masked as above). Generated text
  must be our own: the issue's bar is < 0.5%.
* **turn length**: mean and median words per line on each side.
* **vocabulary**: type/token ratio on equally long token samples of both sides, the share of
  the generated vocabulary that occurs anywhere in the official lines, and the share of distinct
  (masked) lines in each sample (a generator that repeats its lines is easy to tell).

The classifier's strongest features each way (:attr:`DomainGap.top_generated`,
:attr:`DomainGap.top_official`) say what gives generated text away. Lines are sampled evenly
across files (round robin over shuffled files), so a long history does not dominate.
"""

from __future__ import annotations

import os
import random
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError

__all__ = ["COPY_RUN_WORDS", "DomainGap", "copy_share", "domain_gap", "history_folder", "mask_line", "masked_files",
           "read_history_lines", "sample_evenly"]

#: Words in a run that counts as copied.
COPY_RUN_WORDS = 8
#: Masks put in place of names and numbers (lower-case words the vectoriser keeps).
NAME_MASK = "xname"
NUMBER_MASK = "xnum"
#: Features listed each way.
TOP_FEATURES = 25
#: Generated lines that share a run, listed in the report.
COPY_EXAMPLES = 5

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*(?:st|nd|rd|th|%)?", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")
_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                             "\u2013": "-", "\u2014": "-", "\u2026": "..."})


@dataclass(frozen=True)
class DomainGap:
    """How far generated history lines are from official ones (see the module docstring)."""

    auc: float
    auc_folds: tuple[float, ...]
    lines_generated: int
    lines_official: int
    files_generated: int
    files_official: int
    copy_share: float
    copied_lines: int
    copy_checked_lines: int
    words_per_line: dict[str, dict[str, float]]
    type_token_ratio: dict[str, float]
    ttr_tokens: int
    vocabulary_seen_share: float
    distinct_share: dict[str, float]
    top_generated: tuple[tuple[str, float], ...] = ()
    top_official: tuple[tuple[str, float], ...] = ()
    copy_examples: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists)."""
        out = asdict(self)
        out["top_generated"] = [list(p) for p in self.top_generated]
        out["top_official"] = [list(p) for p in self.top_official]
        out["auc_folds"] = list(self.auc_folds)
        out["copy_examples"] = list(self.copy_examples)
        return out

    def render_markdown(self, features: int = 12) -> str:
        """The report section: a table of the numbers, then the top features each way."""
        w, t, d = self.words_per_line, self.type_token_ratio, self.distinct_share
        lines = [
            "## Domain gap (generated vs official history lines)", "",
            (f"{self.lines_generated} generated lines from {self.files_generated} files, "
            f"{self.lines_official} official lines from {self.files_official} files; names, numbers "
            "and timestamps masked."), "",
            "| measure | generated | official | target |", "|---|---|---|---|",
            f"| line classifier AUC (5-fold CV) | {self.auc:.3f} | | <= 0.95 |",
            (f"| {COPY_RUN_WORDS}-word copy share | {self.copy_share:.2%} ({self.copied_lines}/"
            f"{self.copy_checked_lines} lines) | | < 0.5% |"),
            f"| words per line, mean | {w['generated']['mean']:.1f} | {w['official']['mean']:.1f} | |",
            f"| words per line, median | {w['generated']['median']:.1f} | {w['official']['median']:.1f} | |",
            f"| type/token ratio ({self.ttr_tokens} tokens) | {t['generated']:.3f} | {t['official']:.3f} | |",
            f"| generated vocabulary seen officially | {self.vocabulary_seen_share:.1%} | | |",
            f"| distinct lines in the sample | {d['generated']:.1%} | {d['official']:.1%} | |", "",
            "Gives generated text away: " + ", ".join(f"`{f}`" for f, _ in self.top_generated[:features]),
            "",
            "Gives official text away: " + ", ".join(f"`{f}`" for f, _ in self.top_official[:features]),
            "",
        ]
        return "\n".join(lines)


def history_folder(spec: str | os.PathLike[str]) -> Path:
    """The folder a data spec names, checked to hold ``history/history_N.txt`` files.

    Raises:
        ConfigError: the spec names no folder (the paths tried are listed) or one without history files.
    """
    from vmb_gym.data.layout import scenario_ids
    from vmb_gym.data.spec import data_folder

    folder = Path(data_folder(spec))
    if not (folder / "history").is_dir() or not scenario_ids(folder):
        raise ConfigError(f"expected a benchmark folder with history/history_N.txt files, found none in "
                          f"{folder} (from {os.fspath(spec)!r}); fix: point to the folder that holds history/")
    return folder


def read_history_lines(spec: str | os.PathLike[str]) -> list[tuple[tuple[str, ...], list[str]]]:
    """Per history file of a folder (ascending number): its speakers and the text of its lines.

    Raises:
        ConfigError: ``spec`` names no folder with history files.
        DataError: a history file is malformed.
    """
    from vmb_gym.data.layout import scenario_ids, scenario_paths
    from vmb_gym.data.official import read_history

    folder = history_folder(spec)
    out = []
    for sid in scenario_ids(folder):
        lines, speakers = read_history(scenario_paths(folder, sid)[0])
        out.append((speakers, [line.text for line in lines]))
    return out


def _name_pattern(speakers: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern matching the household's full names and each of their parts, longest first."""
    names = set()
    for full in speakers:
        names.add(full)
        names.update(part for part in full.split() if len(part) > 1)
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})(?:'s|\u2019s)?\b")


def mask_line(text: str, names: re.Pattern[str] | None) -> str:
    """``text`` with the household's names and every number masked (see :data:`NAME_MASK`)."""
    if names is not None:
        text = names.sub(NAME_MASK, text)
    return _NUMBER.sub(NUMBER_MASK, text)


def masked_files(spec: str | os.PathLike[str]) -> list[list[str]]:
    """Every file's lines, masked with that file's household names."""
    return [[mask_line(t, _name_pattern(speakers)) for t in texts] for speakers, texts in read_history_lines(spec)]


def sample_evenly(files: Sequence[Sequence[str]], n: int, seed: int) -> list[str]:
    """Up to ``n`` lines drawn round robin from the shuffled files (short files run out first)."""
    rng = random.Random(seed)
    queues = []
    for lines in files:
        order = list(lines)
        rng.shuffle(order)
        queues.append(order)
    out: list[str] = []
    depth = 0
    while len(out) < n and any(depth < len(q) for q in queues):
        out.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    out = out[:n]
    rng.shuffle(out)
    return out


def _words(text: str) -> list[str]:
    return _WORD.findall(text.translate(_TYPOGRAPHY).lower())


def _runs(words: Sequence[str], k: int = COPY_RUN_WORDS) -> set[str]:
    return {" ".join(words[i:i + k]) for i in range(len(words) - k + 1)}


def copy_share(generated: Sequence[str], official: Iterable[str]) -> tuple[float, int, list[str]]:
    """Fraction of ``generated`` lines sharing a :data:`COPY_RUN_WORDS`-word run with any official line.

    Returns:
        ``(share, copied lines, up to COPY_EXAMPLES distinct copied lines)``; lines shorter than
        the run count as not copied.
    """
    seen: set[int] = set()
    for text in official:
        seen.update(hash(r) for r in _runs(_words(text)))
    copied = [t for t in generated if any(hash(r) in seen for r in _runs(_words(t)))]
    examples = list(dict.fromkeys(copied))[:COPY_EXAMPLES]
    return (len(copied) / len(generated) if generated else 0.0), len(copied), examples


def _classifier_auc(generated: Sequence[str], official: Sequence[str], seed: int
                    ) -> tuple[list[float], list[tuple[str, float]], list[tuple[str, float]]]:
    """5-fold cross-validated AUC of a TF-IDF word 1-2 gram logistic regression, and its top features.

    A text found on both sides keeps all its copies in one fold: a line is never scored by a model
    that saw the same text under the other label, so two identical sets give 0.5, not a memorised
    0. Repeats within one side stay spread over the folds: a generator that repeats its lines is
    told apart by them, as a reader would.
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedGroupKFold, cross_val_score
    from sklearn.pipeline import make_pipeline

    texts = list(generated) + list(official)
    y = np.array([1] * len(generated) + [0] * len(official))
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
                          LogisticRegression(C=4.0, max_iter=2000))
    folds = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=seed)
    shared = set(generated) & set(official)
    ids = {t: i for i, t in enumerate(sorted(shared))}
    groups = [ids[t] if t in ids else len(ids) + k for k, t in enumerate(texts)]
    scores = cross_val_score(model, texts, y, groups=groups, cv=folds, scoring="roc_auc")
    model.fit(texts, y)
    vocab = model[0].get_feature_names_out()
    coef = model[1].coef_[0]
    order = np.argsort(coef)
    top_gen = [(str(vocab[i]), round(float(coef[i]), 3)) for i in order[::-1][:TOP_FEATURES]]
    top_off = [(str(vocab[i]), round(float(coef[i]), 3)) for i in order[:TOP_FEATURES]]
    return [float(s) for s in scores], top_gen, top_off


def _length_stats(lines: Sequence[str]) -> dict[str, float]:
    counts = [len(t.split()) for t in lines] or [0]
    return {"mean": round(statistics.fmean(counts), 2), "median": float(statistics.median(counts))}


def domain_gap(generated_dir: str | os.PathLike[str], official_dir: str | os.PathLike[str],
               lines: int = 4000, seed: int = 0) -> DomainGap:
    """Measure how far the history lines of ``generated_dir`` are from those of ``official_dir``.

    Args:
        generated_dir: data spec or folder of the generated set (``"default"``, a path).
        official_dir: data spec or folder of the official release (``"official"``,
            ``"official:DIR"``, a path).
        lines: lines sampled per side for the classifier and the length and vocabulary
            statistics (fewer when a side has fewer; both sides get the same number).
        seed: the sampling and fold seed.

    Returns:
        The :class:`DomainGap`. The copy share checks every generated line against every
        official line, not the samples.

    Raises:
        ConfigError: a spec names no folder with history files (the paths tried are listed).
    """
    gen_files, off_files = masked_files(generated_dir), masked_files(official_dir)
    n = min(lines, sum(map(len, gen_files)), sum(map(len, off_files)))
    if n < 10:
        raise ConfigError(f"expected at least 10 history lines on each side to measure the domain gap, "
                          f"found {n}; fix: point to folders with longer histories")
    gen, off = sample_evenly(gen_files, n, seed), sample_evenly(off_files, n, seed + 1)
    folds, top_gen, top_off = _classifier_auc(gen, off, seed)
    all_gen = [t for f in gen_files for t in f]
    share, copied, examples = copy_share(all_gen, (t for f in off_files for t in f))
    gen_tokens = [w for t in gen for w in _words(t)]
    off_tokens = [w for t in off for w in _words(t)]
    k = min(len(gen_tokens), len(off_tokens))
    official_vocab = {w for f in off_files for t in f for w in _words(t)}
    gen_vocab = set(gen_tokens)
    return DomainGap(
        auc=round(statistics.fmean(folds), 4), auc_folds=tuple(round(s, 4) for s in folds),
        lines_generated=n, lines_official=n, files_generated=len(gen_files), files_official=len(off_files),
        copy_share=round(share, 5), copied_lines=copied, copy_checked_lines=len(all_gen),
        words_per_line={"generated": _length_stats(gen), "official": _length_stats(off)},
        type_token_ratio={"generated": round(len(set(gen_tokens[:k])) / max(k, 1), 4),
                          "official": round(len(set(off_tokens[:k])) / max(k, 1), 4)},
        ttr_tokens=k,
        vocabulary_seen_share=round(len(gen_vocab & official_vocab) / max(len(gen_vocab), 1), 4),
        distinct_share={"generated": round(len(set(gen)) / n, 4), "official": round(len(set(off)) / n, 4)},
        top_generated=tuple(top_gen), top_official=tuple(top_off), copy_examples=tuple(examples),
    )
