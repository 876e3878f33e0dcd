"""Procedural scenario generator: households, preference chains, dialogue histories and queries.

``generate(GeneratorOptions(seed=..., scenarios=...), out)`` writes the official layout
(``history/``, ``qa_data/``) plus ``meta/`` sidecars with the structured truth;
``write_benchmark(dir)`` writes the default test split and its manifest; ``validate(dir, out)``
checks a set (oracle, memory-free baseline, coverage, balance); ``score_qa`` (from
:mod:`vmb_gym.scoring.qa`) scores the QA diagnostic track by exact match.
"""

from __future__ import annotations

from vmb_gym.generator.options import GENERATOR_VERSION, OFFICIAL_LIKE, GeneratorOptions
from vmb_gym.generator.writer import (
    DEFAULT_SPLITS,
    build_scenario,
    generate,
    split_options,
    verify_manifest,
    write_benchmark,
)
from vmb_gym.scoring.qa import answers_match, score_qa

__all__ = [
    "DEFAULT_SPLITS",
    "GENERATOR_VERSION",
    "GeneratorOptions",
    "OFFICIAL_LIKE",
    "answers_match",
    "build_scenario",
    "generate",
    "score_qa",
    "split_options",
    "verify_manifest",
    "write_benchmark",
]
