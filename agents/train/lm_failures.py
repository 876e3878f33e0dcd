"""Why a chat policy misses a task: each episode's transcript held against the task's gold calls.

    python -m vmb_agents.train.lm_failures --held-out 16 --official 16 --out runs/lm_failures
    python -m vmb_agents.train.lm_failures --policy-kwargs '{"guide": {"constrain_values": true}}' --out runs/lm_fail_cv
    python -m vmb_agents.train.lm_failures --held-out 40 --official 40 --rules --out runs/lm_rules   # the rules reader
    python -m vmb_agents.train.lm_failures --memory gold --out runs/lm_gold   # the evidence in the prompt (upper bound)
    python -m vmb_agents.train.lm_failures --train-split ~/.cache/vmb_gym/generated/train_200 --train 40 --held-out 40 \
        --official 0 --out runs/lm_fit   # the train split's tasks beside held-out ones: underfit or overfit?

The tasks are the first ``--held-out`` / ``--official`` of the trainer's seeded evaluation sets
(:func:`vmb_agents.train.lm.eval_sets`, the 40 + 40 of the README's table), so runs compare on the same
tasks. ``--train-split DIR --train N`` adds the first ``N`` tasks of ``vmb train lm``'s seeded shuffle of its
train split ``DIR`` (the tasks its teacher episodes were drawn from, in that order; see
:func:`vmb_agents.train.lm_data.train_order`): a model that scores no better there than held out has not fitted its own
training tasks. Every episode is written to ``episodes.jsonl`` (metrics, the transcript, the gold calls and
its class) and the counts per class to ``summary.json``.

A missed episode gets the first class that applies (:func:`classify`):

* ``malformed``: a reply could not be read as tool calls;
* ``no_vehicle_call``: the episode ended without a vehicle call;
* ``no_search`` / ``bad_search``: no memory search, or no query names the person the request is for;
* ``wrong_module``: a gold function's module was not called at all;
* ``wrong_function``: the right module, another function;
* ``wrong_place``: the right function, another seat / zone / window (:data:`PLACE_ARGUMENTS`);
* ``wrong_value_in_hits`` / ``wrong_value_not_in_hits``: the right function and place, another value,
  the gold value written in the memory hits the policy read or not (all of a search where the chat model was
  shown fewer of them than its line reader judged);
* ``extra_calls``: every gold call made, plus calls that change more state;
* ``other``: none of these (e.g. a boolean argument).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vmb_agents.llm.compact_view import full_name
from vmb_agents.train.lm_data import PLACE_ARGUMENTS

__all__ = ["CLASSES", "TRANSCRIPT_HIT_LINE", "classify", "gold_calls", "main", "model_calls", "rules_baseline", "run",
           "task_sets", "transcript_hits"]

#: The failure classes, in the order they are tried.
CLASSES = ("malformed", "no_vehicle_call", "no_search", "bad_search", "wrong_module", "wrong_function", "wrong_place",
           "wrong_value_in_hits", "wrong_value_not_in_hits", "extra_calls", "other")


def model_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Every tool call of the assistant turns of a compact-view transcript as (env name, arguments)."""
    out = []
    for m in messages:
        for tc in m.get("tool_calls") or [] if m.get("role") == "assistant" else []:
            fn = tc.get("function") or {}
            name, args = str(fn.get("name", "")), dict(fn.get("arguments") or {})
            if name == "call_vehicle":
                inner = args.get("arguments")
                out.append((full_name(str(args.get("name", ""))), dict(inner) if isinstance(inner, Mapping) else {}))
            else:
                out.append((name, args))
    return out


def _module(name: str) -> str:
    parts = name.split("_")
    return parts[1] if len(parts) > 2 else ""


#: A memory line of a saved transcript's ``search_memory`` message, ``3. [2025-02-27 13:24] Frank Yamada: text``
#: (group 1: ``Frank Yamada: text``).
TRANSCRIPT_HIT_LINE = re.compile(r"^\d+\. \[\d{4}-\d\d-\d\d \d\d:\d\d\] (.*)$")


def transcript_hits(messages: Sequence[Mapping[str, Any]]) -> str:
    """The memory lines a transcript's searches showed, without rank and time stamp, lower-cased: each message's
    whole search (its ``hits`` field) where the model was shown fewer, else its text.

    This reads saved text on purpose: a classified episode is the transcript the policy kept (written to
    ``episodes.jsonl``), whose ``tool`` messages hold what the model read, not the env's structured hits. No
    policy reads hits this way; the views render them from the step's ``info["memory_hits"]``
    (:func:`vmb_agents.llm.compact_view.render_search`).
    """
    text = "\n".join(str(m.get("hits") or m.get("content") or "") for m in messages
                     if m.get("role") == "tool" and m.get("name") == "search_memory")
    return "\n".join(m.group(1) if (m := TRANSCRIPT_HIT_LINE.match(line)) else line
                     for line in text.splitlines()).lower()


def _written(value: Any, text: str) -> bool:
    return bool(re.search(rf"(?<![\w.]){re.escape(str(value).lower())}(?!\w)", text))


def _call_class(gold: Mapping[str, Any], vehicle: Sequence[tuple[str, dict[str, Any]]], hits: str) -> str | None:
    """The class of one gold call's miss, or None when a call matches it exactly."""
    name, args = gold["name"], dict(gold.get("arguments") or {})
    same = [a for n, a in vehicle if n == name]
    if not same:
        return "wrong_function" if any(_module(n) == _module(name) for n, _ in vehicle) else "wrong_module"
    if any(a == args for a in same):
        return None
    places = {k: v for k, v in args.items() if k in PLACE_ARGUMENTS}
    placed = [a for a in same if all(a.get(k) == v for k, v in places.items())]
    if not placed:
        return "wrong_place"
    values = {k: v for k, v in args.items() if k not in PLACE_ARGUMENTS}
    wrong = {k: v for k, v in values.items() if any(a.get(k) != v for a in placed)}
    if not wrong:
        return "other"
    return "wrong_value_in_hits" if all(_written(v, hits) for v in wrong.values()) else "wrong_value_not_in_hits"


def classify(row: Mapping[str, Any], gold: Sequence[Mapping[str, Any]], target: str = "") -> str:
    """The class of an episode: ``hit`` when the env scored it exact, else the first of :data:`CLASSES` that applies.

    Args:
        row: the episode's row (``exact_match``, ``parse_errors``, ``messages``).
        gold: the task's gold calls (``{"name", "arguments"}``, env names).
        target: the first name of the person the request is for ("" when unknown: the query is not checked).
    """
    if row.get("exact_match"):
        return "hit"
    messages = row.get("messages") or []
    calls = model_calls(messages)
    vehicle = [(n, a) for n, a in calls if n.startswith("carcontrol_")]
    if row.get("parse_errors"):
        return "malformed"
    if not vehicle:
        return "no_vehicle_call"
    queries = [str(a.get("query", "")) for n, a in calls if n == "search_memory"]
    if not queries:
        return "no_search"
    if target and not any(target.lower() in q.lower() for q in queries):
        return "bad_search"
    hits = transcript_hits(messages)
    for g in gold:
        found = _call_class(g, vehicle, hits)
        if found is not None:
            return found
    return "extra_calls"


def gold_calls(data: str, task_ids: Sequence[str]) -> dict[str, tuple[list[dict[str, Any]], str]]:
    """Task id -> (its gold calls, the first name of the person the request is for)."""
    import gymnasium as gym

    from vmb_agents.reader.request import read_request

    env = gym.make("VehicleMem-v0", data=data)
    tasks = env.unwrapped.tasks
    out = {}
    for task_id in task_ids:
        query = tasks.queries[tasks.index_of(task_id)]
        who = read_request(query.text, tasks.scenario_of(query).speakers).target or ""
        out[task_id] = ([c.to_json() for c in query.gold_calls], who.split()[0] if who else "")
    env.close()
    return out


def run(policy: Any, sets: Mapping[str, tuple[str, list[str]]], out: Path, *, batch: int = 8,
        memory: str = "bm25") -> dict[str, Any]:
    """Each set's episodes (with ``memory``) and their classes to ``out/episodes.jsonl``; per set: the counts and the
    summary."""
    from vmb_agents.train.lm_eval import evaluate_batched, summarise_episodes

    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {}
    with open(out / "episodes.jsonl", "w", encoding="utf-8") as f:
        for name, (data, ids) in sets.items():
            rows = evaluate_batched(policy, data, ids, memory=memory, batch=batch, desc=name, traces=True)
            gold = gold_calls(data, ids)
            for row in rows:
                row["set"], (row["gold"], target) = name, gold[row["task_id"]]
                row["class"] = classify(row, row["gold"], target)
                f.write(json.dumps(row, default=str) + "\n")
            summary[name] = {**summarise_episodes(rows), "classes": dict(Counter(r["class"] for r in rows))}
            print(name, json.dumps(summary[name]), flush=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def rules_baseline(sets: Mapping[str, tuple[str, list[str]]], memory: str = "bm25") -> dict[str, dict[str, float]]:
    """The rules reader (:class:`vmb_agents.reader.policy.RulesPolicy`) on the same tasks: ESM, F1, vehicle-call
    share."""
    import gymnasium as gym

    from vmb_agents.reader.policy import RulesPolicy
    from vmb_gym.policy import run_episode

    out = {}
    for name, (data, ids) in sets.items():
        env = gym.make("VehicleMem-v0", data=data, memory=memory)
        policy = RulesPolicy(memory, source=env)
        episodes = [run_episode(env, policy, task_id=task_id) for task_id in ids]
        n = max(1, len(episodes))
        out[name] = {"tasks": len(episodes),
                     "exact_match_rate": sum(float(e.metrics.get("exact_match", 0)) for e in episodes) / n,
                     "state_f1_change": sum(float(e.metrics.get("f1_change", 0)) for e in episodes) / n,
                     "vehicle_call_share": sum(any(str(c.get("name", "")).startswith("carcontrol_") for c in e.calls)
                                               for e in episodes) / n}
        env.close()
    return out


def task_sets(held_out: int, official: int, held_out_from: int = 0) -> dict[str, tuple[str, list[str]]]:
    """The tasks to run: name -> (data spec, task ids); a set asked for 0 tasks is left out. ``held_out_from`` K:
    the held-out tasks are the draw's K+1-th to K+``held_out``-th (a larger sample run in parts).

    Up to 40 each, the first of the README table's 40 + 40 (:func:`vmb_agents.train.lm.eval_sets`); more held-out
    tasks continue the same shuffle (the table's 40 come first), more official ones take every
    (400 // N)-th task of files 1-40 instead of every 10th.
    """
    from vmb_agents.train.lm import Args, eval_sets

    sets = eval_sets(Args(eval_tasks=max(40, held_out_from + held_out), official_tasks=max(40, official)))
    first = {"held_out": held_out_from, "official": 0}
    limits = {"held_out": held_out, "official": official}
    return {k: (spec, ids[first[k]:first[k] + limits[k]]) for k, (spec, ids) in sets.items() if limits[k] > 0}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The CLI (see the module docstring)."""
    from vmb_agents.llm.hf import HFPolicy
    from vmb_agents.threads import apply_threads

    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--policy", default="smollm2-vmb", help="a named model or a checkpoint folder")
    p.add_argument("--policy-kwargs", default="{}", help="JSON: HFPolicy arguments (adapter, decoding, guide, ...)")
    p.add_argument("--held-out", type=int, default=16, help="first N of the held-out evaluation tasks (the first 40 "
                   "are the README table's; more take the next ones of the same shuffle)")
    p.add_argument("--held-out-from", type=int, default=0, help="skip the first K tasks of the held-out draw (run a "
                   "larger sample in parts: --held-out 100 --held-out-from 100 is the second 100)")
    p.add_argument("--official", type=int, default=16, help="N of the official evaluation tasks: up to 40, the "
                   "first N of the README table's 40 (every 10th task of files 1-40); more, every (400 // N)-th task "
                   "(400: all)")
    p.add_argument("--train-split", default="", help="a generated train split folder (`vmb train lm` writes them "
                   "under ~/.cache/vmb_gym/generated/): with --train N, also run its first N tasks in the trainer's "
                   "seeded order, the ones an adapter trained on that split drew its teacher episodes from")
    p.add_argument("--train", type=int, default=0, help="tasks of --train-split to run (0: none)")
    p.add_argument("--seed", type=int, default=0, help="the trainer's --seed, which orders --train-split's tasks")
    p.add_argument("--batch", type=int, default=8, help="episodes decoded together")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--out", default="runs/lm_failures", help="folder for episodes.jsonl and summary.json")
    p.add_argument("--rules", action="store_true", help="only the rules reader on the same tasks (no model)")
    p.add_argument("--memory", default="bm25", help="the env's memory module (bm25, gold, ...; gold: the query's "
                   "evidence in the prompt, an upper bound)")
    ns = p.parse_args(argv)
    apply_threads(ns.threads)
    sets = task_sets(ns.held_out, ns.official, ns.held_out_from)
    if ns.train > 0:
        if not ns.train_split:
            p.error("--train N needs --train-split DIR (the generated train split the adapter was trained on)")
        from vmb_agents.train.lm_data import train_order
        from vmb_gym.errors import ConfigError

        split = str(Path(ns.train_split).expanduser())
        try:
            sets["train"] = (split, train_order(split, ns.seed)[:ns.train])
        except ConfigError as exc:
            p.error(f"--train-split: {exc}")
    if ns.rules:
        summary = {"rules": rules_baseline(sets, memory=ns.memory)}
        print(json.dumps(summary, indent=2))
        Path(ns.out).mkdir(parents=True, exist_ok=True)
        (Path(ns.out) / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        return summary
    policy = HFPolicy(ns.policy, **json.loads(ns.policy_kwargs))
    t0 = time.monotonic()
    summary = run(policy, sets, Path(ns.out), batch=ns.batch, memory=ns.memory)
    summary["memory"] = ns.memory
    summary["seconds"] = round(time.monotonic() - t0, 1)
    summary["policy"] = repr(policy)
    (Path(ns.out) / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


if __name__ == "__main__":
    main()
