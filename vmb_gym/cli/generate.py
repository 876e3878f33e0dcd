"""``vmb generate``: write generated scenarios in the official layout (plus meta/ sidecars)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmb_gym.outdir import OVERWRITE_HELP

if TYPE_CHECKING:
    from vmb_gym.generator import GeneratorOptions

HELP = "Generate scenarios (history/, qa_data/, meta/); --split regenerates a split of the default benchmark."
#: What ``vmb generate`` writes into ``--out`` (removed first by ``--overwrite``).
OUTPUTS = ("history", "qa_data", "meta", "manifest.json", "render_manifest.json")
#: The offline renderer of ``vmb generate --out DIR`` without ``--renderer``. ``--split`` and
#: ``--benchmark`` keep their manifest's options (the template renderer), and so does every
#: training and evaluation path that generates data (they build their options themselves).
DEFAULT_RENDERER = "natural"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb generate``."""
    parser.add_argument("--out", help="output folder (default: vmb_data/<split> or vmb_data/seed_<S>): new or empty, "
                        "or an earlier vmb generate set with --overwrite")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    parser.add_argument("--split", choices=("test", "validation", "train"),
                        help="regenerate a split with the seeds and options of the manifest")
    parser.add_argument("--manifest", help="manifest.json to read the splits from (default: the shipped benchmark's)")
    parser.add_argument("--benchmark", action="store_true",
                        help="write the default test split and manifest.json into --out (default: benchmark/)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole set (one sub-seed per phase)")
    parser.add_argument("--scenarios", type=int, default=50, help="households (scenario files) to write")
    parser.add_argument("--queries-per-scenario", type=int, default=10, help="queries per household")
    parser.add_argument("--people", type=int, default=3, help="regular users per car (2-5)")
    parser.add_argument("--history-length", type=int, default=2000,
                        help="target dialogue lines per history (the official mean is ~2,700)")
    parser.add_argument("--distractor-ratio", type=float, default=1.0,
                        help="distractor preference chains (and near misses) per queried chain")
    parser.add_argument("--max-revision-depth", type=int, default=5, help="longest revision chain (1-5)")
    parser.add_argument("--days", type=int, default=42, help="days the history spans")
    parser.add_argument("--whole-car", type=float, default=0.0, metavar="SHARE",
                        help="share (0-1) of the queries on a cabin-wide setting (climate, windows, doors, reading "
                             "lights, foot pedals) that set it for the whole car: the lines and the request say so "
                             "and the gold target is \"all\"; 0 = every call at a person's seat, as in the embedded "
                             "benchmark (also with --split; recorded in the meta sidecars' options when set)")
    parser.add_argument("--whole-car-words", type=float, default=1.0, metavar="SHARE",
                        help="share (0-1) of the --whole-car settings whose lines and request say they are for the "
                             "whole car (\"for everyone\"); the others are worded like a person's own setting")
    parser.add_argument("--device-requests", type=float, default=0.0, metavar="SHARE",
                        help="share (0-1) of the requests that name the device and not its setting (\"Put my seat "
                             "back the way I like it\"): which setting is meant is for the history to tell, as in "
                             "many official requests; 0 = the request names the setting, as in the embedded "
                             "benchmark (also with --split; recorded in the meta sidecars' options when set)")
    parser.add_argument("--indirect-requests", type=float, default=0.0, metavar="SHARE",
                        help="share (0-1) of the requests whose history ties the setting to a situation or a reason "
                             "(a conditional rule that holds, a state-shift revision) that name neither the setting "
                             "nor its device, only the situation or the reason (\"My back is acting up again. Put "
                             "things back the way I had them then.\"): the function is for the memory to tell, as in "
                             "30%% of the official requests; 0 = the request names the setting (also with "
                             "--split; recorded in the meta sidecars' options when set)")
    parser.add_argument("--valued-near-misses", type=float, default=None, metavar="SHARE",
                        help="share (0-1) of a queried setting's near-miss lines (hypotheticals, other cars, other "
                             "people's settings) that state a value; the others name the setting without one "
                             "(default 0.75, as in the embedded benchmark: 13-14 lines per task state a value of the "
                             "asked setting outside its evidence, against 1.5-2.4 in the official files, by the "
                             "vocabulary or the rules reader's matcher)")
    parser.add_argument("--driver-seat", type=float, default=None, metavar="SHARE",
                        help="share (0-1) of the queries on a person's seat or zone planned at the driver's seat "
                             "(default: the embedded benchmark's draw, about 45%%; nearly every official seat or "
                             "zone request is the driver's)")
    parser.add_argument("--restated-corrections", type=float, default=None, metavar="SHARE",
                        help="share (0-1) of the error corrections whose correcting line names the setting again "
                             "with both values (\"Hmm, 3 is too much. Set the seat massage to level 1 from now "
                             "on.\"); the others say only the values (default 0, as in the embedded benchmark)")
    parser.add_argument("--returns-to-usual", type=float, default=None, metavar="SHARE",
                        help="share (0-1) of the state-shift queries whose last revision was for a while only (\"for "
                             "the time being\") and whose request says its reason is over (\"My back is fine again, "
                             "so put the seat backrest back to my usual.\"): the gold is the value before it "
                             "(default 0, as in the embedded benchmark)")
    parser.add_argument("--like", choices=["official"], default=None,
                        help="start from the options measured to bring generated tasks close to official files "
                             "1-40: --whole-car 0.6 --indirect-requests 0.7 --valued-near-misses 0.1 "
                             "--driver-seat 0.9 --restated-corrections 0.5 (the flags above override each one)")
    parser.add_argument("--renderer", default=None, metavar="template|natural|openai:MODEL|hf:PATH",
                        help="how lines are worded: an offline renderer (natural: conversations with authored "
                             "scenes, the default; template: the embedded benchmark's short fixed sentences, the "
                             "default of --split and --benchmark), or a chat model that "
                             "rewrites each conversation of the offline text and is verified against the sidecar "
                             "(openai:MODEL: any OpenAI-compatible endpoint, $OPENAI_BASE_URL and $OPENAI_API_KEY; "
                             "hf:PATH: a local transformers model); failed conversations keep the offline text, "
                             "counted in render_manifest.json")
    parser.add_argument("--render-base", choices=("template", "natural"), default=None,
                        help="offline renderer an LLM --renderer rewrites and falls back to (default: template)")
    parser.add_argument("--render-timeout", type=float, default=120.0, help="seconds per LLM renderer request")
    parser.add_argument("--render-retries", type=int, default=1,
                        help="re-renders of a conversation that fails verification before it falls back")
    parser.add_argument("--render-max-tokens", type=int, default=1024, help="reply budget of one LLM request")
    parser.add_argument("--render-cache", default=None,
                        help="cache folder of LLM replies (default: $VMB_CACHE_DIR/llm_render); reruns resume")


def _run_llm_renderer(args: argparse.Namespace) -> Any:
    """The :class:`~vmb_gym.generator.llm_render.LLMRenderer` of ``--renderer openai:MODEL|hf:PATH``.

    A lazy ``_run_`` hook of ``run`` (it imports agents). The verifier reads values with the rules
    reader's matcher, asked only about lines that name the function.

    Raises:
        ConfigError: a bad spec or option.
    """
    import vmb_agents.factory  # noqa: F401  (registers the openai and hf chat backends)
    from vmb_agents.reader.values import extract_value
    from vmb_gym.generator.llm_render import LLMRenderer
    from vmb_gym.generator.render_cache import ReplyCache
    from vmb_gym.generator.render_verify import gated
    from vmb_gym.memory.chat_backends import check_chat_backend
    from vmb_gym.vehicle import API_SPECS

    kind, arg = check_chat_backend(args.renderer)
    if kind == "openai":
        from vmb_agents.llm.openai_compat import OpenAIClient

        backend: Any = OpenAIClient(arg, timeout=args.render_timeout, max_retries=1, max_tokens=args.render_max_tokens)
        model, endpoint = f"openai:{arg}", backend.base_url
    elif kind == "hf":
        from vmb_agents.llm.hf import HFPolicy

        backend = HFPolicy(arg, decoding={"max_new_tokens": args.render_max_tokens})
        model, endpoint = f"hf:{arg}", ""
    else:
        from vmb_gym.memory.chat_backends import make_chat_backend

        backend, model, endpoint = make_chat_backend(args.renderer), args.renderer, ""
    return LLMRenderer(
        backend,
        model,
        endpoint=endpoint,
        reader=gated(lambda api, text: extract_value(API_SPECS[api], text)),
        rerenders=args.render_retries,
        cache=ReplyCache(args.render_cache),
    )


def _check_renderer(spec: str | None) -> str | None:
    """``--renderer`` as given, an offline renderer's name matched ignoring case (``Natural``), or None.

    Raises:
        ConfigError: neither an offline renderer nor ``KIND:ARG`` (the message lists every form the
            generator takes, with a "did you mean"); an LLM spec is checked when its backend is built.
    """
    from vmb_gym.errors import ConfigError
    from vmb_gym.generator.options import RENDERERS
    from vmb_gym.names import did_you_mean, match_name

    if spec is None or ":" in spec:
        return spec
    found = match_name(spec, RENDERERS)
    if found is not None:
        return found
    forms = [*RENDERERS, "openai:MODEL", "hf:PATH"]
    hint = did_you_mean(spec, forms) or f"; fix: give one of {', '.join(forms)}"
    raise ConfigError(f"unknown --renderer {spec!r}; expected an offline renderer ({', '.join(RENDERERS)}) or an LLM "
                      f"one (openai:MODEL for an OpenAI-compatible endpoint, hf:PATH for a local transformers "
                      f"model){hint}")


def _offline_renderer(args: argparse.Namespace) -> str | None:
    """The offline renderer asked for: ``--renderer NAME``, ``--render-base`` under an LLM renderer, else
    :data:`DEFAULT_RENDERER` (None with ``--split``: the manifest's)."""
    if args.renderer is None:
        return None if args.split else DEFAULT_RENDERER
    return args.render_base if ":" in args.renderer else args.renderer


def _options(args: argparse.Namespace) -> tuple[GeneratorOptions, Path]:
    """The generator options and the output folder of a ``--split`` or a custom set, with the switches applied."""
    from vmb_gym.generator import OFFICIAL_LIKE, GeneratorOptions, split_options

    if args.split:
        manifest: dict[str, Any] | None = None
        default_manifest = Path(__file__).resolve().parents[2] / "benchmark" / "manifest.json"
        mpath = Path(args.manifest) if args.manifest else default_manifest
        if mpath.is_file():
            manifest = json.loads(mpath.read_text(encoding="utf-8"))
        opts = split_options(args.split, manifest)
        out = Path(args.out or f"vmb_data/{args.split}")
    else:
        opts = GeneratorOptions(seed=args.seed, scenarios=args.scenarios,
                                queries_per_scenario=args.queries_per_scenario, people=args.people,
                                history_length=args.history_length, distractor_ratio=args.distractor_ratio,
                                max_revision_depth=args.max_revision_depth, days=args.days)
        out = Path(args.out or f"vmb_data/seed_{args.seed}")
    if args.like:
        like: dict[str, Any] = dict(OFFICIAL_LIKE)  # each value goes to the field of its name
        opts = dataclasses.replace(opts, **like)
    if args.whole_car:
        opts = dataclasses.replace(opts, whole_car=args.whole_car, whole_car_words=args.whole_car_words)
    for name in ("valued_near_misses", "driver_seat", "restated_corrections", "returns_to_usual"):
        if getattr(args, name) is not None:
            opts = dataclasses.replace(opts, **{name: getattr(args, name)})
    if args.device_requests:
        opts = dataclasses.replace(opts, device_requests=args.device_requests)
    if args.indirect_requests:
        opts = dataclasses.replace(opts, indirect_requests=args.indirect_requests)
    offline = _offline_renderer(args)
    if offline is not None:
        opts = dataclasses.replace(opts, renderer=offline)
    return opts, out


#: The options that size and seed a set of your own; ``--benchmark`` and ``--split`` take theirs from the manifest.
SIZE_OPTIONS = ("seed", "scenarios", "queries_per_scenario", "people", "history_length", "distractor_ratio",
                "max_revision_depth", "days")


def _check_size_options(args: argparse.Namespace) -> None:
    """Refuse size options (:data:`SIZE_OPTIONS`) given away from their defaults with ``--benchmark`` or ``--split``.

    Raises:
        ConfigError: such an option, which the manifest's split would otherwise override without a word.
    """
    from vmb_gym.errors import ConfigError

    if not (args.benchmark or args.split):
        return
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = vars(parser.parse_args([]))
    given = [f"--{name.replace('_', '-')}" for name in SIZE_OPTIONS if getattr(args, name) != defaults[name]]
    if given:
        which = "--benchmark" if args.benchmark else f"--split {args.split}"
        raise ConfigError(f"{which} writes a set whose size and seed its manifest fixes, so {', '.join(given)} would "
                          f"be ignored; fix: drop {', '.join(given)}, or write a set of your own with --out DIR "
                          "(no --benchmark or --split)")


def run(args: argparse.Namespace) -> int:
    """Generate and print a one-line summary."""
    from vmb_gym.errors import ConfigError
    from vmb_gym.generator import generate, split_options, write_benchmark
    from vmb_gym.outdir import DiskFull, claim_out, is_disk_full, write_atomic

    t0 = time.perf_counter()
    renderer = None
    out: Path | None = None
    planned: int | None = None  # scenarios of the set being written
    args.renderer = _check_renderer(args.renderer)  # a misspelt one: one error line with a "did you mean"
    _check_size_options(args)
    try:
        if args.renderer and ":" in args.renderer:
            if args.benchmark:
                raise ConfigError("--benchmark writes the offline benchmark; an LLM --renderer goes with --out DIR")
            renderer = _run_llm_renderer(args)
        if args.benchmark and (args.whole_car or args.device_requests or args.indirect_requests or args.like
                               or args.valued_near_misses is not None or args.driver_seat is not None
                               or args.restated_corrections is not None or args.returns_to_usual is not None):
            raise ConfigError("--benchmark writes the embedded benchmark; --whole-car, --device-requests, "
                              "--indirect-requests, --valued-near-misses, --driver-seat, --restated-corrections, "
                              "--returns-to-usual and --like go with --out DIR")
        if args.benchmark:
            out = Path(args.out) if args.out else Path(__file__).resolve().parents[2] / "benchmark"
            planned = split_options("test").scenarios
            claim_out(out, "vmb generate", overwrite=args.overwrite, outputs=OUTPUTS)
            manifest = write_benchmark(out)
            print(f"wrote {len(manifest['files'])} files and manifest.json to {out} "
                  f"in {time.perf_counter() - t0:.1f}s")
            return 0
        opts, out = _options(args)
        planned = opts.scenarios
        claim_out(out, "vmb generate", overwrite=args.overwrite, outputs=OUTPUTS)
        files = generate(opts, out, render=renderer)
    except OSError as exc:  # a VmbError goes on to vmb_gym.cli.main: one line on stderr, exit status 2
        if out is None or not is_disk_full(exc) or isinstance(exc, DiskFull):
            raise
        written = len(list((out / "meta").glob("meta_*.json"))) if (out / "meta").is_dir() else 0
        raise DiskFull(exc, out, detail=f"{written} of {planned} scenarios were written whole to {out}, "
                                        "an incomplete set") from exc
    if renderer is not None:
        summary = {"renderer": renderer.model, "scenarios": opts.scenarios, **renderer.stats.to_json()}
        write_atomic(out / "render_manifest.json", json.dumps(summary, indent=2) + "\n")
        s = renderer.stats
        print(f"LLM renderer {summary['renderer']}: {s.conversations} conversations, {s.rendered} rendered, "
              f"{s.re_rendered} re-rendered, {s.fallback} fell back to the offline text "
              f"({s.requests} requests, {s.cached_replies} cached replies, {s.endpoint_errors} endpoint errors)")
    print(f"wrote {opts.scenarios} scenarios ({len(files)} files) to {out} in {time.perf_counter() - t0:.1f}s "
          f"(seed {opts.seed})")
    return 0
