"""Write generated scenarios in the official layout plus structured sidecars, and the manifest.

Layout under ``out``::

    history/history_N.txt   [YYYY-MM-DD HH:MM] Full Name: utterance
    qa_data/qa_N.json       {"related_to_vehicle_preference": [{gold_memory, reasoning_type, query, new_answer}]}
    meta/meta_N.json        the structured truth (evidence line ids, QA form, people, events, generator)

The same options and seed give the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError, DataError
from vmb_gym.generator.dialogue import assemble, memory_line
from vmb_gym.generator.options import GENERATOR_VERSION, GeneratorOptions
from vmb_gym.generator.scenario import ScenarioBuilder
from vmb_gym.outdir import write_atomic

#: Seeds and sizes of the default splits (the test split is embedded in ``benchmark/``).
DEFAULT_SPLITS: dict[str, dict[str, int]] = {
    "test": {"seed": 20250601, "scenarios": 50},
    "validation": {"seed": 20250602, "scenarios": 50},
    "train": {"seed": 20250603, "scenarios": 200},
}


@dataclass(frozen=True)
class GeneratedScenario:
    """The three files of one scenario, as text."""

    scenario_id: int
    history: str
    qa: dict[str, Any]
    meta: dict[str, Any]


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def build_scenario(options: GeneratorOptions, ordinal: int) -> GeneratedScenario:
    """Generate scenario number ``options.first_scenario_id + ordinal`` in memory."""
    sid = options.first_scenario_id + ordinal
    b = ScenarioBuilder(options, sid, ordinal)
    b.plan()
    r = assemble(b)
    people = b.people
    history = "".join(line.render(people) + "\n" for line in r.lines)
    query_day = datetime(b.start.year, b.start.month, b.start.day) + timedelta(days=options.days)
    items, metas = [], []
    for i, plan in enumerate(b.plans):
        ev_lines = sorted({r.tags[t].line_id: r.tags[t] for t in plan.evidence_tags}.values(), key=lambda x: x.line_id)
        memory = [memory_line(line, people) for line in ev_lines]
        items.append({
            "gold_memory": "\n".join(memory),
            "reasoning_type": plan.reasoning_type,
            "query": plan.text,
            "new_answer": [c.to_python() for c in plan.calls],
        })
        as_of = query_day.replace(hour=plan.when[0], minute=plan.when[1])
        metas.append({
            "index": i,
            "as_of": f"{as_of:%Y-%m-%dT%H:%M}",
            "reasoning_type": plan.reasoning_type,
            "gold_calls": [c.to_json() for c in plan.calls],
            "evidence": [{"text": m, "when": f"{line.when:%Y-%m-%dT%H:%M}", "line_ids": [line.line_id]}
                         for m, line in zip(memory, ev_lines, strict=False)],
            "qa": {"question": plan.question, "answer": plan.answer.to_json()},
            "situation": plan.info,
        })
    meta = {
        "scenario_id": sid,
        "queries": metas,
        "people": [p.to_json() for p in people],
        "household_relations": [{"people": k.split("|"), "relation": v} for k, v in b.relations.items()],
        "events": r.events,
        "history_lines": len(r.lines),
        "generator": {"version": GENERATOR_VERSION, "seed": options.seed, "options": options.to_json(),
                      "paraphrased": False},  # True once an LLM renderer (llm_render) rewrote lines
    }
    return GeneratedScenario(sid, history, {"related_to_vehicle_preference": items}, meta)


def generate(options: GeneratorOptions, out: str | Path,
             render: Callable[[GeneratedScenario], GeneratedScenario] | None = None) -> list[Path]:
    """Generate ``options.scenarios`` scenarios under ``out``; returns the written files.

    ``render`` is a post-pass applied to each scenario before it is written (e.g. a
    :class:`~vmb_gym.generator.llm_render.LLMRenderer`).

    Raises:
        ConfigError: ``out`` exists and is a file.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out must be a directory, found a file at {out}")
    written: list[Path] = []
    for sub in ("history", "qa_data", "meta"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for k in range(options.scenarios):
        sc = build_scenario(options, k)
        if render is not None:
            sc = render(sc)
        n = sc.scenario_id
        for path, text in ((out / "history" / f"history_{n}.txt", sc.history),
                           (out / "qa_data" / f"qa_{n}.json", _dumps(sc.qa)),
                           (out / "meta" / f"meta_{n}.json", _dumps(sc.meta))):
            write_atomic(path, text, fsync=False)  # whole or not at all (a full disk leaves no half file)
            written.append(path)
    return written


def fingerprint(options: GeneratorOptions) -> str:
    """Hex sha256 of what a generated set depends on: ``options`` and the generator's own sources.

    A cached set whose fingerprint differs was written by other options or other code (e.g. the
    natural renderer's scene banks changed without a version bump) and must be written again.
    """
    h = hashlib.sha256(json.dumps(dataclasses.asdict(options), sort_keys=True, default=str).encode())
    for source in sorted(Path(__file__).resolve().parent.rglob("*.py")):
        h.update(source.name.encode())
        h.update(source.read_bytes())
    return h.hexdigest()


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def split_options(split: str, manifest: Mapping[str, Any] | None = None) -> GeneratorOptions:
    """The generator options of a named split (from a manifest, else the built-in defaults)."""
    splits = dict(manifest["splits"]) if manifest else {k: dict(v) for k, v in DEFAULT_SPLITS.items()}
    if split not in splits:
        raise ConfigError(f"unknown split {split!r}; known splits: {sorted(splits)}")
    base = dict(manifest["options"]) if manifest else GeneratorOptions().to_json()
    base.update({"seed": splits[split]["seed"], "scenarios": splits[split]["scenarios"]})
    return GeneratorOptions.from_json(base)


def write_benchmark(out: str | Path) -> dict[str, Any]:
    """Generate the default test split into ``out`` and write ``out/manifest.json``."""
    out = Path(out)
    opts = split_options("test")
    files = generate(opts, out)
    base = GeneratorOptions().to_json()
    for k in ("seed", "scenarios"):
        base.pop(k)
    manifest = {
        "name": "vmb_gym generated benchmark",
        "generator_version": GENERATOR_VERSION,
        "embedded_split": "test",
        "splits": DEFAULT_SPLITS,
        "options": base,
        "regenerate": "vmb generate --split {test|validation|train} --out DIR",
        "files": {p.relative_to(out).as_posix(): sha256(p) for p in sorted(files)},
    }
    write_atomic(out / "manifest.json", _dumps(manifest), fsync=False)
    return manifest


def verify_manifest(root: str | Path) -> list[str]:
    """Paths under ``root`` whose sha256 differs from ``manifest.json`` (empty when all match).

    Raises:
        DataError: the manifest is missing or unreadable.
    """
    root = Path(root)
    path = root / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(path, f"expected a readable manifest.json ({exc}); "
                              "regenerate with `vmb generate --benchmark`") from None
    bad = []
    for rel, digest in manifest["files"].items():
        p = root / rel
        if not p.is_file() or sha256(p) != digest:
            bad.append(rel)
    return bad
