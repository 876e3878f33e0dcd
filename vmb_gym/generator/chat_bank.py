"""The chat bank: everyday conversations sampled once from a small language model, filtered.

``scripts/build_chat_bank.py`` samples the conversations (prompts in
:mod:`vmb_gym.generator.chat_bank_prompts`), calls :func:`build_bank` and :func:`write_bank`, and
:func:`bank_gap` says how far the bank's lines alone are from the official ones before anyone
uses them.

Measured (issue #17, SmolLM2-135M-Instruct, 384 prompts, 444 kept lines): the domain-gap
classifier tells the bank's lines from official lines 1-40 with AUC 0.951-0.958 (4 seeds), the
natural renderer's lines on the same 444 lines a side with 0.830-0.872 (4 households, seed
20250601). The small model's chat-bot register ("hey", "oh", "amazing", "sounds") is further
from the official release than the composed talk, so no bank ships and the natural renderer does
not read one; the tooling is kept for a larger ``--model``.

A bank file is gzip JSON lines: a header ``{"bank": "vmb-chat", "version": 1, "stats": {...}}``,
then one conversation per line ``{"key": "job:nurse", "turns": [[0, "text"], [1, "text"], ...]}``
(speaker 0 is the person the talk is about; ``{a}`` and ``{b}`` stand for the first names of
speakers 0 and 1). Every kept turn passed :func:`line_problem`: it names no vehicle setting, value
word or number (the simulator's vocabulary, :mod:`vmb_gym.vehicle.lexicon`), so small talk never
states a car preference; it is not broken, too short, too long or repeated; and, when the build
was given the official release, it shares no 8-word run with an official line.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError, DataError
from vmb_gym.generator.chat_bank_prompts import parse_reply

__all__ = ["DEFAULT_BANK", "MIN_TURNS", "bank_gap", "bank_lines", "build_bank", "line_problem", "load_bank",
           "vehicle_words", "write_bank"]

#: Where the build step writes a bank unless told otherwise (``runs/`` is not tracked).
DEFAULT_BANK = Path("runs/chat_bank/bank.jsonl.gz")
#: A conversation keeps at least this many turns after filtering (shorter ones are dropped).
MIN_TURNS = 3
_MIN_WORDS, _MAX_WORDS = 5, 45
#: Words about cars and driving besides the settings' own.
_CAR_WORDS = ("car", "cars", "vehicle", "drive", "driving", "drove", "driver", "passenger", "commute", "traffic",
              "road trip", "parking", "park the", "engine", "garage")
#: Marks of a reply that is not a conversation line (the model talking about the task, code, lists).
_BROKEN = re.compile(r"(?:https?:|www\.|\bassistant\b|\bconversation\b|\bdialogue\b|\bAI\b|#|\*|_|<|>|\\|=|\|"
                     r"|^\W|[^\x20-\x7e\u2018\u2019\u201c\u201d\u2014\u2013\u2026])")
_REPEAT = re.compile(r"\b(\w+(?:\W+\w+){0,2})\W+\1\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
#: Common Spanish, French, Italian and German words: two of them mark a turn the model wrote in another language.
_FOREIGN = re.compile(r"\b(?:de|que|por|el|la|es|para|muy|una|los|las|con|est|je|les|des|et|il|che|di|und|der|die|das"
                      r"|ist|nicht|ich)\b", re.IGNORECASE)


@cache
def vehicle_words() -> re.Pattern[str]:
    """One pattern matching any word of the simulator's vocabulary (settings, modules, values, car words)."""
    from vmb_gym.generator.catalog import catalogue, render_value
    from vmb_gym.vehicle.lexicon import MODULE_WORDS, SETTING_SYNONYMS, VALUE_SYNONYMS

    words = {w for ws in MODULE_WORDS.values() for w in ws} | {w for ws in SETTING_SYNONYMS.values() for w in ws}
    words |= {w for table in VALUE_SYNONYMS.values() for w in table} | set(_CAR_WORDS)
    for api, st in catalogue().items():
        words |= {re.sub(r"^the ", "", n.replace("{t}", "").strip()) for n in st.nouns}
        words |= {str(render_value(v, api)) for v in st.values}
    words = {w.lower() for w in words if len(w) > 2 and w.lower() not in ("off", "the")}
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def line_problem(text: str) -> str | None:
    """Why a sampled turn cannot go into the bank (``"vehicle"``, ``"number"``, ``"broken"``,
    ``"short"``, ``"long"``, ``"foreign"``, ``"repeat"``), or None when it can."""
    words = text.split()
    if len(words) < _MIN_WORDS:
        return "short"
    if len(words) > _MAX_WORDS:
        return "long"
    if _DIGIT.search(text):
        return "number"
    if _BROKEN.search(text.replace("{a}", "A").replace("{b}", "B")) or text.rstrip()[-1:] not in ".!?\"'\u2019\u201d":
        return "broken"
    if len(_FOREIGN.findall(text)) >= 2:
        return "foreign"
    if _REPEAT.search(text):
        return "repeat"
    if vehicle_words().search(text.replace("{a}", "").replace("{b}", "")):
        return "vehicle"
    return None


def _copied_runs(official: Iterable[str]) -> set[str]:
    from vmb_gym.generator.domain_gap import COPY_RUN_WORDS, _runs, _words

    return {r for text in official for r in _runs(_words(text), COPY_RUN_WORDS)}


def _is_copied(text: str, runs: set[str]) -> bool:
    from vmb_gym.generator.domain_gap import COPY_RUN_WORDS, _runs, _words

    return bool(runs) and not _runs(_words(text), COPY_RUN_WORDS).isdisjoint(runs)


def build_bank(records: Iterable[Mapping[str, Any]], official: Iterable[str] | None = None
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Filter raw replies (``{"a", "b", "key", "reply"}`` dicts) into bank conversations and their counts.

    A turn is dropped for a :func:`line_problem`, for repeating a turn already kept (anywhere in
    the bank) or, with ``official`` lines, for sharing an 8-word run with one of them; a
    conversation keeps its remaining turns in order when at least :data:`MIN_TURNS` are left
    and both people speak.
    """
    runs = _copied_runs(official) if official is not None else set()
    seen: set[str] = set()
    bank: list[dict[str, Any]] = []
    counts: dict[str, int] = {"replies": 0, "turns": 0, "kept_turns": 0, "duplicate": 0, "copied": 0}
    for rec in records:
        counts["replies"] += 1
        kept = []
        for speaker, text in parse_reply(rec["reply"], rec["a"], rec["b"]):
            counts["turns"] += 1
            problem = line_problem(text) or ("duplicate" if text.lower() in seen else None)
            problem = problem or ("copied" if _is_copied(text, runs) else None)
            if problem:
                counts[problem] = counts.get(problem, 0) + 1
                continue
            seen.add(text.lower())
            kept.append([speaker, text])
        if len(kept) >= MIN_TURNS and {s for s, _ in kept} == {0, 1}:
            bank.append({"key": rec["key"], "turns": kept})
            counts["kept_turns"] += len(kept)
    stats = {**counts, "conversations": len(bank), "official_checked": official is not None}
    return bank, stats


def write_bank(bank: Sequence[Mapping[str, Any]], path: Path, stats: Mapping[str, Any]) -> None:
    """Write a bank file (gzip JSON lines, header first; no name or time in the gzip header, so the bytes repeat)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = [json.dumps({"bank": "vmb-chat", "version": 1, "stats": dict(stats)})]
    body += [json.dumps(c, ensure_ascii=False) for c in bank]
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as f:
        f.write(("\n".join(body) + "\n").encode("utf-8"))
    tmp.replace(path)


def load_bank(path: str | Path) -> dict[str, tuple[tuple[tuple[int, str], ...], ...]]:
    """The bank's conversations by key (``job:nurse``, ``interest:chess``, ``everyday``), in file order.

    Raises:
        ConfigError: the file does not exist.
        DataError: the file is not a chat bank.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"chat bank {p} does not exist; fix: build it with scripts/build_chat_bank.py "
                          f"(sample, then build)")
    try:
        with gzip.open(p, "rt", encoding="utf-8") as f:
            header, *rows = (json.loads(line) for line in f if line.strip())
    except (OSError, ValueError) as exc:
        raise DataError(p, f"expected a chat bank in gzip JSON lines, could not read it ({exc}); "
                           "fix: rebuild it") from exc
    if not isinstance(header, dict) or header.get("bank") != "vmb-chat":
        raise DataError(p, "expected a chat bank header first, found none; "
                           "fix: rebuild it with scripts/build_chat_bank.py")
    out: dict[str, list[tuple[tuple[int, str], ...]]] = {}
    for row in rows:
        out.setdefault(row["key"], []).append(tuple((int(s), str(t)) for s, t in row["turns"]))
    return {k: tuple(v) for k, v in out.items()}


def bank_lines(path: str | Path) -> list[str]:
    """Every line of a bank, with the name placeholders masked as the domain gap masks names."""
    from vmb_gym.generator.domain_gap import NAME_MASK

    return [t.replace("{a}", NAME_MASK).replace("{b}", NAME_MASK)
            for convos in load_bank(path).values() for convo in convos for _, t in convo]


def bank_gap(path: str | Path, official: str | Path, compare: str | Path | None = None, lines: int = 4000,
             seed: int = 20250601) -> dict[str, Any]:
    """The domain-gap classifier's AUC of a bank's lines alone against official lines (and of ``compare``'s).

    Both (all three) sides get the same number of lines: ``lines`` or the bank's size when smaller.
    Official and ``compare`` lines are sampled evenly over files (:func:`~vmb_gym.generator.domain_gap.sample_evenly`)
    and masked per file; bank lines are sampled uniformly. Also the bank's copy share against
    every official line.
    """
    import random

    from vmb_gym.generator.domain_gap import _classifier_auc, copy_share, masked_files, mask_line, sample_evenly

    mine = [mask_line(t, None) for t in bank_lines(path)]
    off_files = masked_files(official)
    n = min(lines, len(mine))
    if n < 50:
        raise DataError(path, f"expected at least 50 chat bank lines to measure, found {len(mine)}")
    sample = random.Random(seed).sample(mine, n)
    off = sample_evenly(off_files, n, seed + 1)
    auc = statistics.fmean(_classifier_auc(sample, off, seed)[0])
    out: dict[str, Any] = {"lines_per_side": n, "bank_auc": round(auc, 4),
                           "bank_copy_share": copy_share(mine, (t for f in off_files for t in f))[0],
                           "bank_words_per_line": round(statistics.fmean(len(t.split()) for t in sample), 2)}
    if compare is not None:
        other = sample_evenly(masked_files(compare), n, seed)
        out["compare_auc"] = round(statistics.fmean(_classifier_auc(other, off, seed)[0]), 4)
    return out
