"""``vmb memory-audit``: retrieval Recall@k of memory modules against the gold evidence lines."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vmb_gym.outdir import OVERWRITE_HELP

HELP = "Audit memory retrieval: event Recall@k of each module against the gold evidence lines."
#: What ``vmb memory-audit`` writes into ``--out`` (removed first by ``--overwrite``).
OUTPUTS = ("audit.json", "audit.png")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb memory-audit``."""
    parser.add_argument("--data", default="default",
                        help="'default' (shipped set), 'official' ($VMB_OFFICIAL_DIR or "
                             "../shared/vehiclemembench), 'official:DIR' or a folder")
    parser.add_argument("--memory", default="bm25,dense,hybrid,layered",
                        help="comma-separated module names; layered variants as layered:LAYER+LAYER "
                             "(layers: facts, experiences, changes), e.g. layered:facts+changes")
    parser.add_argument("--encoder", default=None,
                        help="comma-separated encoders of the modules that embed (dense, hybrid, layered): minilm "
                             "(the default encoder), cascade (the static model ranks, MiniLM re-ranks its 100 best) "
                             "and/or static (the shipped static model trained from MiniLM); each such module is "
                             "audited once per encoder, as NAME[ENCODER] (default: all three, MiniLM first so that "
                             "the cascade reads its cached embeddings; cascade and static only where tokenizers and "
                             "safetensors are installed)")
    parser.add_argument("--memory-llm", default=None, metavar="SPEC",
                        help="chat model that builds the key_value memory: openai:MODEL or hf:PATH")
    parser.add_argument("--k", default="5,10,20", help="comma-separated Recall@k cut-offs")
    parser.add_argument("--out", default="memory_audit", help="output folder (audit.json, audit.png): "
                        "new, or holding no run (your own files there stay), or an earlier vmb memory-audit "
                        "with --overwrite")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--limit", type=int, default=0, help="only the first N scenarios (0: all)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the audit, print tables, write ``audit.json`` and ``audit.png``."""
    from tqdm import tqdm

    from vmb_gym.cli.eval_cmd import memory_names
    from vmb_gym.data import load_scenarios
    from vmb_gym.errors import ConfigError
    from vmb_gym.memory import make_memory
    from vmb_gym.memory.audit import run_audit
    from vmb_gym.outdir import check_out, claim_out, write_atomic

    check_out(args.out, "vmb memory-audit", overwrite=args.overwrite, outputs=OUTPUTS)  # before any module is built
    try:
        ks = sorted({int(k) for k in str(args.k).split(",") if k.strip()})
    except ValueError:
        raise ConfigError(f"--k must be comma-separated integers, got {args.k!r}") from None
    names = memory_names(args.memory)
    if args.memory_llm:
        import vmb_agents.factory  # noqa: F401 - registers the openai and hf chat backends
    kwargs = llm_kwargs(names, args.memory_llm)
    scenarios = list(load_scenarios(args.data))
    if args.limit:
        scenarios = scenarios[: args.limit]
    out = claim_out(args.out, "vmb memory-audit", overwrite=args.overwrite, outputs=OUTPUTS)
    n_queries = sum(len(s.queries) for s in scenarios)
    report: dict[str, Any] = {"data": args.data, "ks": ks, "scenarios": len(scenarios), "queries": n_queries,
                              "modules": {}}
    for name, label, extra in audit_runs(names, args.encoder):
        memory = make_memory(name, **kwargs[name], **extra)
        if not memory.provides_search:
            print(f"{name}: provides no search; skipped")
            continue
        with tqdm(total=n_queries, desc=label, disable=args.no_progress) as bar:
            result = run_audit(scenarios, memory, ks, progress=bar.update)
        report["modules"][label] = result
        print(format_table(label, result, ks))
    write_atomic(out / "audit.json", json.dumps(report, indent=1, default=str))
    plot(report, out / "audit.png")
    print(f"wrote {out / 'audit.json'} and {out / 'audit.png'}")
    return 0 if all(r["violations"] == 0 for r in report["modules"].values()) else 1


def audit_runs(names: list[str], encoders: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    """``(module name, label, extra kwargs)`` per audited run: one per encoder for the modules that
    take one (label ``NAME[ENCODER]``), one plain run for the others.

    Raises:
        ConfigError: no encoder, or one that is not built in.
    """
    from vmb_gym.errors import ConfigError
    from vmb_gym.memory.registry import memory_options
    from vmb_gym.memory.retrieval import ENCODERS

    if encoders is None:  # all three, those with the static model where it can be built
        import importlib.util

        static = all(importlib.util.find_spec(m) is not None for m in ("tokenizers", "safetensors"))
        encoders = "minilm,cascade,static" if static else "minilm"
    chosen = list(dict.fromkeys(e.strip().lower() for e in str(encoders).split(",") if e.strip()))
    bad = [e for e in chosen if e not in ENCODERS]
    if not chosen or bad:
        raise ConfigError(f"--encoder takes a comma-separated list of {', '.join(ENCODERS)}, got {encoders!r}")
    runs: list[tuple[str, str, dict[str, Any]]] = []
    for name in names:
        if "encoder" in (memory_options(name) or ()):
            runs.extend((name, f"{name}[{enc}]", {"encoder": enc}) for enc in chosen)
        else:
            runs.append((name, name, {}))
    return runs


def llm_kwargs(names: list[str], llm: str | None) -> dict[str, dict[str, Any]]:
    """Per module of ``names``: ``{"llm": llm}`` for those built by an LLM, ``{}`` for the others.

    Raises:
        ConfigError: ``llm`` is given but no module of ``names`` takes one.
    """
    from vmb_gym.errors import ConfigError
    from vmb_gym.memory.registry import memory_options

    if llm is None:
        return {name: {} for name in names}
    takes = {name: "llm" in (memory_options(name) or ()) for name in names}
    if not any(takes.values()):
        raise ConfigError(f"--memory-llm {llm!r} is for the memories built by an LLM (key_value), and none of "
                          f"{', '.join(names)} is; fix: drop --memory-llm or add key_value to --memory")
    return {name: {"llm": llm} if takes[name] else {} for name in names}


def format_table(name: str, result: dict[str, Any], ks: list[int]) -> str:
    """A plain-text table: overall and per reasoning type, event/all-events recall per k."""

    def fmt(v: float | None) -> str:
        return " -- " if v is None else f"{v:.3f}"

    head = f"{'':24}{'n':>5} " + " ".join(f"{'R@' + str(k):>6} {'Rall@' + str(k):>7}" for k in ks) + f" {'MRR':>6}"
    title = (f"== {name}: latency p50 {result['latency_ms']['p50']:.2f} ms, p95 {result['latency_ms']['p95']:.2f} ms; "
             f"ingest {result['ingest_seconds']['total']:.1f} s; violations {result['violations']}")
    build = result.get("index_build") or {}
    if build.get("embedded") or build.get("cached"):
        title += (f"; dense index build {build['seconds_mean'] or 0:.2f} s per history ({build['embedded']} embedded, "
                  f"{build['cached']} from the disk cache)")
    rows = [title, head]
    groups = [("overall", result["overall"]), *result["by_reasoning_type"].items()]
    for label, agg in groups:
        cells = " ".join(f"{fmt(agg[f'recall@{k}']):>6} {fmt(agg[f'all_recall@{k}']):>7}" for k in ks)
        rows.append(f"{label:24}{agg['tasks']:>5} {cells} {fmt(agg['mrr']):>6}")
    return "\n".join(rows)


def plot(report: dict[str, Any], path: Path) -> None:
    """Event Recall@k per module (one line each), written as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vmb_gym.outdir import save_figure

    ks = report["ks"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, res in report["modules"].items():
        ax.plot(ks, [res["overall"][f"recall@{k}"] or 0 for k in ks], marker="o", label=name)
    ax.set_xlabel("k")
    ax.set_ylabel("event Recall@k")
    ax.set_ylim(0, 1)
    ax.set_title(f"memory audit ({report['queries']} queries)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=120)  # whole or not at all
    plt.close(fig)
