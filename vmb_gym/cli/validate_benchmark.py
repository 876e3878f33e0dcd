"""``vmb validate-benchmark``: oracle, memory-free baseline, coverage and balance of a generated set.

With ``--against official:DIR`` it also measures the domain gap between the set's history lines
and the official ones (:func:`vmb_gym.generator.domain_gap.domain_gap`) and between what their
requests name and whose seat they are for (:mod:`vmb_gym.generator.request_profile`), and how often a
history states a value for the asked setting outside its evidence (:mod:`vmb_gym.generator.conflict_profile`);
prints them and adds them to the report (``report.json`` keys ``domain_gap``, ``request_profile`` and
``conflict_profile``, sections of ``report.md``).
"""

from __future__ import annotations

import argparse
from typing import Any

from vmb_gym.outdir import OVERWRITE_HELP

HELP = "Validate a generated benchmark (oracle ESM, memory-free baseline, coverage, balance, retrieval)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb validate-benchmark``."""
    parser.add_argument("--data", default="default", help="benchmark folder (default: the shipped benchmark/)")
    parser.add_argument("--out", required=True, help="folder for report.md and report.json: new, or holding no run "
                        "(your own files there stay), or an earlier vmb validate-benchmark report with --overwrite")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--memory", default="bm25", help="memory module for the retrieval audit ('none' skips it)")
    parser.add_argument("--train-scenarios", type=int, default=100,
                        help="train-split scenarios the baseline learns from")
    parser.add_argument(
        "--against",
        default=None,
        metavar="official:DIR",
        help="also measure the domain gap against this release ('official', 'official:DIR' "
        "or a folder with history/): cross-validated AUC of a line classifier telling "
        "generated from official lines (names, numbers, timestamps masked; 0.5 = "
        "indistinguishable), the 8-word copy share, words per line and vocabulary "
        "statistics, and what share of the requests name their setting, only its device or neither; "
        "printed and written into the report",
    )
    parser.add_argument("--gap-lines", type=int, default=4000,
                        help="history lines sampled per side for the domain gap (default 4000)")


def add_domain_gap(report: dict, out: str, data: str, against: str, lines: int) -> str:
    """Measure the gap of the history lines (:mod:`vmb_gym.generator.domain_gap`) and of what the requests name
    (:mod:`vmb_gym.generator.request_profile`), add both to ``report`` and to ``out/report.json`` / ``report.md``;
    their markdown."""
    import json
    from pathlib import Path

    from vmb_gym.errors import DataError
    from vmb_gym.generator import conflict_profile as cp
    from vmb_gym.generator import request_profile as rp
    from vmb_gym.generator.domain_gap import domain_gap

    gap = domain_gap(data, against, lines=lines)
    report["domain_gap"] = {"against": against, **gap.to_json()}
    try:
        gen, off = rp.request_profile(data), rp.request_profile(against)
        targets = rp.target_profile(data), rp.target_profile(against)
        conflicts = cp.conflict_profile(data, _run_value_reader()), cp.conflict_profile(against, _run_value_reader())
    except DataError as exc:  # histories without QA files: the lines still compare
        report["request_profile"] = {"against": against, "error": str(exc)}
        section = gap.render_markdown() + f"\nWhat the requests name: not measured ({exc}).\n"
    else:
        report["request_profile"] = {"against": against, "generated": gen.to_json(), "official": off.to_json(),
                                     "distance": gen.distance(off),
                                     "targets": {"generated": targets[0].to_json(), "official": targets[1].to_json(),
                                                 "distance": targets[0].distance(targets[1])}}
        report["conflict_profile"] = {"against": against, "generated": conflicts[0].to_json(),
                                      "official": conflicts[1].to_json()}
        section = (gap.render_markdown() + "\n" + rp.render_markdown(gen, off, targets) + "\n"
                   + cp.render_markdown(*conflicts))
    folder = Path(out)
    (folder / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md = folder / "report.md"
    md.write_text(md.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + section, encoding="utf-8")
    return section


def _run_value_reader() -> Any:
    """The rules reader's value matcher, asked only about lines that name the function (the reader the baselines
    read lines with; :func:`~vmb_gym.generator.render_verify.vocabulary_reader` when ``agents`` is not importable)."""
    try:
        from vmb_agents.reader.values import extract_value
    except ImportError:
        from vmb_gym.generator.render_verify import vocabulary_reader

        return vocabulary_reader
    from vmb_gym.generator.render_verify import gated
    from vmb_gym.vehicle import API_SPECS

    return gated(lambda api, text: extract_value(API_SPECS[api], text))


def run(args: argparse.Namespace) -> int:
    """Write the report and print its summary table; exit 1 when a check fails."""
    import json
    from pathlib import Path

    from vmb_gym.errors import VmbError
    from vmb_gym.generator import GeneratorOptions, split_options
    from vmb_gym.generator.validate import render_markdown, validate
    from vmb_gym.outdir import check_out, claim_out

    claim = {"overwrite": args.overwrite, "outputs": ("report.json", "report.md")}
    try:
        check_out(args.out, "vmb validate-benchmark", **claim)  # before the slow part
        data = args.data
        if args.against is not None:  # a bad folder fails before the slow part
            from vmb_gym.generator.domain_gap import history_folder

            history_folder(args.against)
        root = Path(data) if data != "default" else None
        if root is None:
            from vmb_gym.data import embedded_benchmark_dir

            root = embedded_benchmark_dir()
        mpath = root / "manifest.json"
        manifest = json.loads(mpath.read_text(encoding="utf-8")) if mpath.is_file() else None
        train = split_options("train", manifest)
        train = GeneratorOptions.from_json({**train.to_json(), "scenarios": args.train_scenarios})
        claim_out(args.out, "vmb validate-benchmark", **claim)
        report = validate(data, args.out, train=train, memory=None if args.memory == "none" else args.memory)
        gap = (add_domain_gap(report, args.out, data, args.against, args.gap_lines)
               if args.against is not None else "")
    except VmbError as exc:
        print(f"error: {exc}")
        return 2
    print(render_markdown(report))
    if gap:
        print(gap)
    return 0 if report["ok"] else 1
