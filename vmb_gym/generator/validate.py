"""Validate a generated benchmark: oracle, memory-free baseline, coverage, balance, data checks.

The report answers: does replaying the gold give ESM 1.0 (via :func:`vmb_gym.scoring.score_task`)?
Does a policy without memory fail (the most frequent value per API and parameter, learned on a
generated train split, with the gold API names given for free, must stay below 20 ESM)? Which
modules and APIs do the gold answers cover? Are the reasoning types balanced? Does every gold
call succeed and change the state, do evidence lines state the value, is the QA answer the first
gold call? And, when a memory module is available, how well does it retrieve the evidence?
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vmb_gym.generator.catalog import render_value
from vmb_gym.generator.options import GeneratorOptions
from vmb_gym.types import REASONING_TYPES, Query, Scenario, ToolCall
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS, VehicleSimulator

#: The memory-free baseline (gold API names, learned argument values, seat and zone included) stays below this ESM.
BASELINE_THRESHOLD = 0.20
#: The API slot of :func:`learn_baseline`'s table rows keyed by parameter name alone.
ANY_API = "*"


def learn_baseline(options: GeneratorOptions) -> dict[tuple[str, str], Any]:
    """Most frequent value per (API, parameter), and per parameter name (``(ANY_API, name)``), over the
    gold calls of a generated split."""
    from vmb_gym.generator.scenario import ScenarioBuilder

    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for k in range(options.scenarios):
        # the gold calls are fixed by the plan: no need to render the dialogue
        b = ScenarioBuilder(options, options.first_scenario_id + k, k)
        b.plan()
        for plan in b.plans:
            for call in plan.calls:
                for name, value in call.to_json()["arguments"].items():
                    counts[(call.name, name)][json.dumps(value)] += 1
    by_name: dict[str, Counter[str]] = defaultdict(Counter)
    for (_, name), c in counts.items():
        by_name[name].update(c)
    table = {key: json.loads(c.most_common(1)[0][0]) for key, c in counts.items()}
    table.update({(ANY_API, name): json.loads(c.most_common(1)[0][0]) for name, c in by_name.items()})
    return table


def baseline_calls(query: Query, table: dict[tuple[str, str], Any]) -> list[ToolCall]:
    """The memory-free prediction: the gold API names, every argument at its most frequent value.

    An (API, parameter) the train split never set takes the parameter name's most frequent value
    over every API (``table[(ANY_API, name)]``); a name it never set at all is left out of the call.
    The gold value is never read: only which arguments the gold calls name.
    """
    out = []
    for c in query.gold_calls:
        args = {}
        for k in c.arguments:
            for key in ((c.name, k), (ANY_API, k)):
                if key in table:
                    args[k] = table[key]
                    break
        out.append(ToolCall(c.name, args))
    return out


def gold_changes_state(query: Query) -> bool:
    """Each gold call succeeds and changes the state of a car that ran the previous ones."""
    sim = VehicleSimulator()
    for c in query.gold_calls:
        r = sim.call(c.name, dict(c.arguments))
        if not r.get("success") or not r.get("current_state"):
            return False
    return bool(query.gold_calls)


def evidence_states_value(scenario: Scenario, query: Query) -> bool:
    """Some evidence line says the gold value of the first call (as the generator speaks it)."""
    first = query.gold_calls[0]
    spec = API_SPECS[first.name]
    from vmb_gym.generator.catalog import catalogue

    st = catalogue().get(first.name)
    if st is None:
        return False
    value = {p: first.arguments[p] for p in st.value_params if p in first.arguments}
    if not value:
        return False
    said = render_value(value, spec.name).lower()
    by_id = {line.line_id: line for line in scenario.lines}
    texts = [by_id[i].text.lower() for i in query.evidence_line_ids if i in by_id]
    return any(said in t for t in texts)


def validate(data: str | Path, out: str | Path, train: GeneratorOptions | None = None,
             memory: str | None = "bm25") -> dict[str, Any]:
    """Validate the benchmark in ``data`` and write ``out/report.md`` and ``out/report.json``.

    Args:
        data: a folder in the official layout with ``meta/`` sidecars (or ``"default"``).
        out: where to write the report.
        train: options of the split the baseline learns from (default: the manifest's train
            split, else the built-in one, limited to 100 scenarios for speed).
        memory: a registered memory module for the retrieval audit (``None`` skips it).

    Returns:
        The JSON report (``ok`` is True when every check passes).
    """
    from vmb_gym.data import load_scenarios
    from vmb_gym.generator.writer import split_options
    from vmb_gym.scoring import score_task

    scenarios = load_scenarios(str(data))
    queries = [q for sc in scenarios for q in sc.queries]
    if train is None:
        manifest_path = (Path(data) if str(data) != "default" else _default_dir()) / "manifest.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else None
        train = split_options("train", manifest)
        train = GeneratorOptions.from_json({**train.to_json(), "scenarios": min(train.scenarios, 100)})
    table = learn_baseline(train)

    oracle = [score_task(q, list(q.gold_calls)).exact_match for q in queries]
    base = [score_task(q, baseline_calls(q, table)).exact_match for q in queries]
    by_type_base: dict[str, list[bool]] = defaultdict(list)
    for q, ok in zip(queries, base, strict=True):
        by_type_base[q.reasoning_type].append(ok)
    apis = Counter(c.name for q in queries for c in q.gold_calls)
    modules = Counter(API_SPECS[a].module for a in apis.elements())
    types = Counter(q.reasoning_type for q in queries)
    checks = {
        "gold_changes_state": sum(gold_changes_state(q) for q in queries),
        "evidence_states_value": sum(evidence_states_value(sc, q) for sc in scenarios for q in sc.queries),
        "evidence_located": sum(bool(q.evidence_line_ids) for q in queries),
        "qa_matches_first_gold": sum(q.qa is not None and q.qa.answer.name == q.gold_calls[0].name
                                     and dict(q.qa.answer.arguments) == dict(q.gold_calls[0].arguments)
                                     for q in queries),
    }
    n = len(queries)
    report: dict[str, Any] = {
        "data": str(data),
        "scenarios": len(scenarios),
        "queries": n,
        "oracle_esm": sum(oracle) / n if n else 0.0,
        "baseline": {"name": "most frequent value per (API, parameter), gold API names given",
                     "train": train.to_json(), "esm": sum(base) / n if n else 0.0,
                     "by_reasoning_type": {t: sum(v) / len(v) for t, v in sorted(by_type_base.items())},
                     "threshold": BASELINE_THRESHOLD},
        "coverage": {"modules": len(modules), "modules_total": len(MODULE_KEYS),
                     "apis": len(apis), "apis_total": len(API_SPECS),
                     "missing_modules": [m for m in MODULE_KEYS if m not in modules],
                     "missing_apis": sorted(a for a in API_SPECS if a not in apis),
                     "calls_per_module": dict(sorted(modules.items()))},
        "reasoning_types": {t: types.get(t, 0) for t in REASONING_TYPES},
        "checks": {k: {"passed": v, "of": n} for k, v in checks.items()},
        "retrieval": _retrieval(scenarios, memory),
    }
    report["ok"] = bool(
        n and report["oracle_esm"] == 1.0 and report["baseline"]["esm"] < BASELINE_THRESHOLD
        and all(v == n for v in checks.values())
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "report.md").write_text(render_markdown(report), encoding="utf-8")
    return report


def _default_dir() -> Path:
    from vmb_gym.data import embedded_benchmark_dir

    return embedded_benchmark_dir()


def _retrieval(scenarios: Sequence[Scenario], memory: str | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    try:
        from vmb_gym.memory.audit import run_audit
        from vmb_gym.memory.registry import make_memory

        result = run_audit(scenarios, make_memory(memory), ks=(5, 10, 20))
    except Exception as exc:  # noqa: BLE001 - the audit is optional: report why it was skipped
        return {"memory": memory, "skipped": f"{type(exc).__name__}: {exc}"}
    return {"memory": memory, "overall": result["overall"], "by_reasoning_type": result["by_reasoning_type"]}


def render_markdown(r: dict[str, Any]) -> str:
    """The human-readable report."""
    cov = r["coverage"]
    lines = [
        "# Benchmark validation report", "",
        f"Data: `{r['data']}`: {r['scenarios']} scenarios, {r['queries']} queries. "
        f"Overall: **{'PASS' if r['ok'] else 'FAIL'}**.", "",
        "| check | value | target |", "|---|---|---|",
        f"| oracle ESM (gold replay through the scorer) | {r['oracle_esm']:.3f} | 1.000 |",
        f"| memory-free baseline ESM | {r['baseline']['esm']:.3f} | < {r['baseline']['threshold']:.2f} |",
        f"| modules covered | {cov['modules']}/{cov['modules_total']} | all |",
        f"| APIs covered | {cov['apis']}/{cov['apis_total']} | >= 90 |",
    ]
    for k, v in r["checks"].items():
        lines.append(f"| {k.replace('_', ' ')} | {v['passed']}/{v['of']} | all |")
    lines += ["", "## Reasoning types", "", "| type | queries | baseline ESM |", "|---|---|---|"]
    for t, c in r["reasoning_types"].items():
        lines.append(f"| {t} | {c} | {r['baseline']['by_reasoning_type'].get(t, 0):.3f} |")
    lines += ["", f"Baseline: {r['baseline']['name']}; learned on seed {r['baseline']['train']['seed']} "
              f"({r['baseline']['train']['scenarios']} scenarios).", ""]
    if cov["missing_apis"]:
        lines += ["APIs not covered: " + ", ".join(f"`{a}`" for a in cov["missing_apis"]), ""]
    ret = r.get("retrieval")
    if ret:
        lines += ["## Retrieval (memory audit)", ""]
        if "skipped" in ret:
            lines.append(f"Skipped ({ret['memory']}): {ret['skipped']}")
        else:
            o = ret["overall"]
            lines.append(f"`{ret['memory']}`, request text as the query: "
                         + ", ".join(f"{k} {v:.3f}" for k, v in o.items() if isinstance(v, float)))
        lines.append("")
    return "\n".join(lines)
