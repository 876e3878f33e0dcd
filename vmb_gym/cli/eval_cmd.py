"""``vmb eval``: run a policy over a benchmark and write a run directory.

The run directory gets ``config.json``, ``results.jsonl`` (appended and fsynced episode by
episode; ``--resume`` runs only what is missing), ``metric.json`` (official keys plus tool F1,
memory audit, MemoryScore, pass^k), ``report.md`` and PNG plots. See
:mod:`vmb_gym.evaluation` for the formats.

MemoryScore needs the same policy's run with ``--memory gold``: give it with ``--gold-run DIR``,
or put both runs under one parent folder (e.g. ``runs/oracle-bm25`` and ``runs/oracle-gold``):
a sibling directory whose ``config.json`` has memory ``gold`` and the same policy, data, files,
limit, schema and max steps is found automatically.

``--memory bm25,layered`` runs one evaluation per module into ``--out/bm25``, ``--out/layered``
(a ``gold`` among them runs first: it is every other run's MemoryScore sibling) and then prints
``vmb compare`` of them, written as ``comparison.md``/``comparison.json`` in ``--out``.
``--memory-llm openai:MODEL`` (or ``hf:PATH``) gives the ``summary`` and ``key_value`` memories
the chat model that builds them; it is saved in ``config.json`` as ``memory_kwargs.llm``.
A memory named in ``--policy-kwargs`` that differs from ``--memory`` is refused (see
:class:`~vmb_gym.evaluation.runner.EvalConfig`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from vmb_gym.outdir import OVERWRITE_HELP

HELP = "Evaluate a policy on the benchmark: results.jsonl, metric.json, report.md and plots in --out."
#: Env settings whose flags default to None: an ``sb3:`` checkpoint's sidecar fills them, else these.
EVAL_DEFAULTS = {"memory": "none", "max_steps": 20, "schema": "official"}


#: The ``--memory-kwargs`` example of the parse-error hint and the module that takes it (a BM25-only layered memory).
MEMORY_KWARGS_EXAMPLE_MODULE = "layered"
MEMORY_KWARGS_EXAMPLE = '{"semantic": false}'


def _json_object(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(
            f"expected a JSON object of the module's options such as '{MEMORY_KWARGS_EXAMPLE}' "
            f"(--memory {MEMORY_KWARGS_EXAMPLE_MODULE}), found {text!r} ({exc})"
        ) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, found {type(value).__name__}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb eval``."""
    parser.add_argument("--policy", required=True,
                        help="oracle, noop, random, rules, hf:PATH, openai:MODEL or sb3:CHECKPOINT")
    parser.add_argument("--memory", default=None,
                        help="memory module name (none, gold, bm25, ...; default none, for sb3:CHECKPOINT the "
                             "memory it was trained with); several, comma-separated (bm25,layered), "
                             "run one after the other into --out/NAME and are compared side by side")
    parser.add_argument("--memory-llm", default=None, metavar="SPEC",
                        help="chat model that builds the summary and key_value memories: openai:MODEL or hf:PATH")
    parser.add_argument("--memory-kwargs", type=_json_object, default={}, help="JSON object of memory-module options")
    parser.add_argument("--policy-kwargs", type=_json_object, default={},
                        help="JSON object of policy options (e.g. base_url, temperature); secrets are never saved")
    parser.add_argument("--data", default="default",
                        help="'default' (shipped set), 'official' ($VMB_OFFICIAL_DIR or "
                             "../shared/vehiclemembench), 'official:DIR' or a folder")
    parser.add_argument("--files", default=None, help="scenario numbers, e.g. '1-10' or '1,3,5' (default: all)")
    parser.add_argument("--trials", type=int, default=1, help="episodes per task (K); K > 1 reports pass^k")
    parser.add_argument("--workers", type=int, default=1, help="processes; each builds its own env and policy")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="torch CPU threads per process of an hf: or sb3: policy (default: half the physical "
                             "cores, 1 to 4; 1 per process with --workers 2 or more or --backend ray). More threads "
                             "than free cores make every step wait for the slowest: beside another busy job, fewer "
                             "run faster")
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where episodes run: this machine (--workers processes) or Ray tasks (pip install vmb_gym[ray])",
    )
    parser.add_argument("--address", default=None,
                        help="Ray cluster address for --backend ray (default: start a local Ray)")
    parser.add_argument("--out", required=True, help="run directory to write")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out: skip finished (task, trial) pairs, redo infrastructure errors")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--max-steps", type=int, default=None,
                        help="step limit of an episode (default 20; for sb3:CHECKPOINT its training limit)")
    parser.add_argument("--schema", choices=("official", "rich"), default=None,
                        help="tool-schema flavour (default official; for sb3:CHECKPOINT its training schema)")
    parser.add_argument("--limit", type=int, default=None, help="run only the first N tasks")
    parser.add_argument("--seed", type=int, default=0, help="base seed (per-episode seeds derive from it)")
    parser.add_argument("--gold-run", default=None,
                        help="run directory of the same policy with --memory gold, for MemoryScore "
                             "(default: a matching sibling of --out)")
    parser.add_argument("--compare", nargs="+", default=[], metavar="DIR",
                        help="other run directories to show in the plots")
    parser.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="let --policy sb3:PATH load a Stable-Baselines3 zip: a pickle, which runs any code its "
                             "author put in it (only for a file from a trusted source; see docs/trust.md)")


def memory_names(text: str) -> list[str]:
    """The memory names of ``--memory`` (comma-separated), canonical and without repeats.

    Raises:
        ConfigError: no name, or one that is not registered (with a "did you mean").
    """
    from vmb_gym.errors import ConfigError
    from vmb_gym.memory.registry import resolve_memory_name

    names = [n.strip() for n in str(text).split(",") if n.strip()]
    if not names:
        raise ConfigError(f"expected --memory NAME or NAME,NAME,..., found {text!r}")
    return list(dict.fromkeys(resolve_memory_name(n) for n in names))


def memory_kwargs(name: str, kwargs: dict[str, object], llm: str | None) -> dict[str, object]:
    """``--memory-kwargs`` plus ``llm=SPEC`` from ``--memory-llm`` for a memory that takes one.

    Checks the options before anything is built or written.

    Raises:
        ConfigError: an option the memory does not take, an LLM-built memory without an LLM,
            ``--memory-llm`` with a memory that takes none, or two different LLMs.
    """
    from vmb_gym.errors import ConfigError
    from vmb_gym.memory.chat_backends import check_chat_backend, resolve_llm
    from vmb_gym.memory.registry import check_memory, memory_options

    options = memory_options(name)
    if llm is None:
        check_memory(name, **kwargs)
        if options is not None and "llm" in options and "llm" not in kwargs:
            resolve_llm(None, name)  # raises: the message names --memory-llm
        return dict(kwargs)
    if options is not None and "llm" not in options:
        raise ConfigError(f"--memory-llm {llm!r} is for the memories built by an LLM (summary, key_value); "
                          f"memory {name!r} takes none; fix: drop --memory-llm or choose --memory summary")
    if "llm" in kwargs and kwargs["llm"] != llm:
        raise ConfigError(f"--memory-llm {llm!r} and --memory-kwargs llm {kwargs['llm']!r} disagree; give one")
    check_memory(name, **kwargs, llm=llm)
    check_chat_backend(llm)
    return {**kwargs, "llm": llm}


def run(args: argparse.Namespace) -> int:
    """Run the evaluation (one per memory of ``--memory``), write the outputs and print the table(s)."""
    from pathlib import Path

    from vmb_agents.factory import check_policy, eval_policy_factory, policy_kind

    kind, arg = policy_kind(args.policy)
    policy = f"{kind}:{arg}" if arg else kind
    check_policy(policy, args.policy_kwargs, trust_checkpoint=args.trust_checkpoint)
    processes = args.workers if args.backend == "local" else max(2, args.workers)  # Ray runs several tasks at once
    make_policy = eval_policy_factory(args.threads, processes, trust_checkpoint=args.trust_checkpoint)
    from vmb_agents.sb3.policies import eval_settings  # an sb3 checkpoint's training settings are the defaults

    settings = eval_settings(policy, {k: getattr(args, k) for k in EVAL_DEFAULTS}, EVAL_DEFAULTS)
    args = argparse.Namespace(**{**vars(args), **settings})
    names = memory_names(args.memory)
    if len(names) == 1:
        return run_one(args, policy, names[0], args.out, make_policy)
    outs = {name: str(Path(args.out) / name.replace(":", "-")) for name in names}
    for name in sorted(names, key=lambda n: n != "gold"):  # gold first: the others' MemoryScore divides by it
        print(f"== memory {name}: {outs[name]}")
        run_one(args, policy, name, outs[name], make_policy)
    return compare_side_by_side(args, list(outs.values()))


def run_one(args: argparse.Namespace, policy: str, memory: str, out: str, make_policy: Any) -> int:
    """One ``vmb eval`` run with memory ``memory`` into ``out`` (policies from ``make_policy``); prints its table."""
    from vmb_gym.data import parse_file_range
    from vmb_gym.evaluation.records import read_json
    from vmb_gym.evaluation.report import format_table, write_outputs
    from vmb_gym.evaluation.run import EVAL_OUTPUTS, run_evaluation
    from vmb_gym.evaluation.runner import EvalConfig
    from vmb_gym.outdir import claimed_out

    config = EvalConfig(
        policy=policy, memory=memory, data=args.data, files=parse_file_range(args.files) if args.files else None,
        trials=args.trials, workers=args.workers, max_steps=args.max_steps, schema=args.schema,
        limit=args.limit, seed=args.seed, memory_kwargs=memory_kwargs(memory, args.memory_kwargs, args.memory_llm),
        policy_kwargs=args.policy_kwargs, gold_run=args.gold_run, compare=list(args.compare),
    )
    with claimed_out(out, "vmb eval", overwrite=args.overwrite, resume=args.resume, outputs=EVAL_OUTPUTS):
        records = run_evaluation(config, out, make_policy, resume=args.resume, progress=not args.no_progress,
                                 backend=args.backend, address=args.address, lock=False, overwrite=args.overwrite)
        saved = read_json(f"{out}/config.json")
        metric = write_outputs(out, saved, records, plots=not args.no_plots)
    print(format_table(metric))
    print(f"wrote {out}/metric.json, results.jsonl and report.md")
    return 0


def compare_side_by_side(args: argparse.Namespace, outs: list[str]) -> int:
    """Print ``vmb compare`` of the runs in ``outs`` (the first is the reference) and write it in ``--out``."""
    from vmb_gym.cli import compare

    print(f"== comparison (vmb compare {' '.join(outs)} --out {args.out})")
    return compare.run(argparse.Namespace(runs=outs, against=None, out=args.out, resamples=10_000, seed=0,
                                          recall_k=10, no_plots=args.no_plots))
