"""The line prior's transfer table: each kind fitted on generated households, its AUC on other data.

``python -m vmb_agents.sb3.slots.prior_table --train DIR [--train DIR ...] [--train-files 1-80] --eval NAME=SPEC:FILES``
fits one :class:`~vmb_agents.sb3.slots.line_prior.LinePrior` per ``--kind`` on every line of the
training sets (generated data only: a spec that names official data is refused) and prints the
ROC AUC of gold evidence among the lines that state a setting value of each evaluation set
(:func:`~vmb_agents.sb3.slots.line_prior.line_prior_auc`). Reading the candidates of official 1-40
takes minutes (the value matcher reads every line).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from vmb_agents.sb3.slots.line_prior import EVERY_LINE_KINDS, LinePrior, labelled_candidates, line_prior_auc
from vmb_gym.errors import ConfigError


def training_scenarios(specs: Sequence[str], files: str | None = None) -> list[Any]:
    """The scenarios of the generated data sets ``specs`` (folders or ``default``), in order
    (``files``: only those scenario files of each, e.g. ``"1-80"``).

    Raises:
        ConfigError: a spec names official data (a learned part is never fitted on it).
    """
    from vmb_gym.envs.task_set import TaskSet

    out: list[Any] = []
    for spec in specs:
        if spec.startswith("official"):
            raise ConfigError(f"training data {spec!r} is official; fit the line prior on generated households "
                              "(`vmb generate --split train`, also with `--renderer natural`)")
        tasks = TaskSet.load(spec, files=files)
        out.extend(tasks.scenarios[i] for i in sorted(tasks.scenarios))
    return out


def fit_kind(scenarios: Sequence[Any], kind: str, *, seed: int = 0) -> LinePrior:
    """A prior of ``kind`` fitted on every line of ``scenarios`` (the candidate lines for the kinds that
    read only those, as :func:`~vmb_agents.sb3.slots.line_prior.fit_line_prior` does)."""
    examples = LinePrior.examples_from_scenarios(scenarios, candidates_only=kind not in EVERY_LINE_KINDS)
    return LinePrior.fit(examples, seed=seed, kind=kind)


def auc_table(priors: Mapping[str, LinePrior],
              candidates: Mapping[str, tuple[Sequence[str], Sequence[bool]]]) -> list[dict[str, Any]]:
    """One row per prior: its name, then the AUC on each set of :func:`labelled_candidates`."""
    return [{"prior": name, **{k: line_prior_auc(p, candidates=c) for k, c in candidates.items()}}
            for name, p in priors.items()]


def format_table(rows: Sequence[Mapping[str, Any]], sizes: Mapping[str, tuple[int, int]]) -> str:
    """A Markdown table of :func:`auc_table` rows (``sizes``: set -> candidate lines, gold ones)."""
    sets = list(sizes)
    head = "| prior | " + " | ".join(f"{s} ({n} lines, {g} gold)" for s, (n, g) in sizes.items()) + " |"
    body = ["| " + " | ".join([str(r["prior"]), *(f"{r[s]:.3f}" for s in sets)]) + " |" for r in rows]
    return "\n".join([head, "|" + "---|" * (len(sets) + 1), *body])


def parse_eval(text: str) -> tuple[str, str, str]:
    """``NAME=SPEC:FILES`` -> (name, spec, files); the files are after the last colon (``1-40``)."""
    name, sep, rest = text.partition("=")
    spec, colon, files = rest.rpartition(":")
    if not sep or not colon or not name or not spec or not files:
        raise ConfigError(f"--eval expects NAME=SPEC:FILES (e.g. official=official:DIR:1-40), got {text!r}")
    return name, spec, files


def main(argv: Sequence[str] | None = None) -> str:
    """Fit, measure and print the table (returned too)."""
    from vmb_gym.envs.task_set import TaskSet

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="append", required=True, help="generated data set (repeatable)")
    ap.add_argument("--train-files", help="scenario files of each training set (default: all)")
    ap.add_argument("--kind", action="append", help="line-prior kind (repeatable; default words and vocab)")
    ap.add_argument("--eval", action="append", required=True, help="NAME=SPEC:FILES (repeatable)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    scenarios = training_scenarios(args.train, args.train_files)
    priors = {kind: fit_kind(scenarios, kind, seed=args.seed) for kind in (args.kind or ["words", "vocab"])}
    candidates = {}
    for item in args.eval:
        name, spec, files = parse_eval(item)
        tasks = TaskSet.load(spec, files=files)
        candidates[name] = labelled_candidates([tasks.scenarios[i] for i in sorted(tasks.scenarios)])
    sizes = {k: (len(c[1]), sum(c[1])) for k, c in candidates.items()}
    table = format_table(auc_table(priors, candidates), sizes)
    print(f"fitted on {len(scenarios)} generated households ({', '.join(args.train)})\n{table}")
    return table


if __name__ == "__main__":
    main()
