"""Train the line reader (:mod:`vmb_agents.llm.line_reader`): SmolLM2-135M + a LoRA adapter, TRL's ``SFTTrainer``.

    vmb train reader --train-scenarios 200 --tasks 1000 --depth 16 --out runs/reader

For each task of the generated *train* split, the memory is searched as the teacher episode searches it
(the person's first name and the function's words, :func:`vmb_agents.train.lm_data.teacher_query`), ``--depth``
hits deep, oldest first as the compact view shows them. The line the gold value comes from is the latest
hit that is one of the task's evidence lines and states the gold value (read with
:func:`vmb_agents.llm.constrained.stated_value`); a task whose hits hold no such line is left out (nothing to
read). Each kept task gives that line answered `` yes`` and up to ``--negatives`` other hits answered
`` no``, those that state some value for the function first (another person's, an aside, an earlier one).
The rows are prompt-completion pairs, so ``SFTTrainer`` puts the loss on the answer only. The adapter and
``reader.json`` (the settings, the loss log and the measured pick) go to ``--out/adapter``, the loss curve to
``--out/reader_loss.png``. The pick
(:meth:`~vmb_agents.llm.line_reader.LineReader.pick`) is measured on the tasks with a readable line among the
first ``--eval-tasks`` of the default benchmark's seeded draw, searched the same way: the share whose line
the reader picks.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from vmb_gym.outdir import OVERWRITE_HELP, claim_out

__all__ = ["add_arguments", "line_rows", "main", "pick_accuracy", "reader_row", "reader_rows"]


def _value_of(spec: Any, arguments: dict[str, Any]) -> Any:
    from vmb_agents.reader.params import value_param

    vp = value_param(spec)
    return arguments.get(vp.name) if vp is not None else None


def reader_row(env: Any, task_id: str, depth: int) -> dict[str, Any] | None:
    """The reader's view of ``task_id`` of ``env`` (a ``VehicleMem-v0`` with a searchable memory): the request,
    the hit lines, the index of the line the gold value comes from and the function's value in each line
    (None where it states none); None when the task has no gold value to read or no hit states it."""
    from vmb_agents.llm.compact_view import CompactView, full_name
    from vmb_agents.llm.constrained import stated_value
    from vmb_agents.llm.line_reader import MAX_LINES
    from vmb_agents.reader.reading import Reading
    from vmb_agents.train.lm_data import teacher_query
    from vmb_gym.vehicle import API_SPECS

    tasks = env.unwrapped.tasks
    query = tasks.queries[tasks.index_of(task_id)]
    scenario = tasks.scenario_of(query)
    for call in (c.to_json() for c in query.gold_calls):
        spec = API_SPECS.get(full_name(call["name"]))
        value = _value_of(spec, call["arguments"]) if spec is not None else None
        if value is not None and not isinstance(value, dict):
            break
    else:
        return None
    obs, info = env.reset(options={"task_id": task_id})
    view = CompactView()
    request = view.start(obs, info)[0][1]["content"]
    q = teacher_query(query.text, scenario.speakers, spec.name)
    _, _, _, _, info = env.step([{"name": "search_memory", "arguments": {"query": q, "top_k": depth}}])
    hits = Reading.of(request, scenario.speakers).with_step(info).search_lines(-1, MAX_LINES)  # oldest first
    lines = [line for line, _ in hits]
    evidence = {f"{ln.speaker}: {ln.text}" for ln in scenario.lines if ln.line_id in set(query.evidence_line_ids)}
    values = [stated[1] if (stated := stated_value(spec.name, body)) else None for _, body in hits]
    label = None
    for i, (_, body) in enumerate(hits):
        if body in evidence and values[i] == value:
            label = i  # the latest such line (the hits are oldest first)
    if label is None:
        return None
    return {"task_id": task_id, "request": request, "hits": lines, "label": label, "values": values}


def line_rows(task: dict[str, Any], negatives: int, rng: random.Random) -> list[dict[str, str]]:
    """The prompt-completion rows of one task (:func:`reader_row`): its line answered `` yes`` and up to
    ``negatives`` other lines answered `` no``, lines that state a value for the function first."""
    from vmb_agents.llm.line_reader import ANSWERS, reader_prompt

    others = [i for i in range(len(task["hits"])) if i != task["label"]]
    rng.shuffle(others)
    others.sort(key=lambda i: task["values"][i] is None)  # stable: the valued lines first, shuffled among them
    picked = [task["label"], *others[:negatives]]
    return [{"prompt": reader_prompt(task["request"], task["hits"][i]),
             "completion": ANSWERS[0] if i == task["label"] else ANSWERS[1]} for i in picked]


def reader_rows(data: str, task_ids: Sequence[str], *, depth: int = 16, memory: str = "bm25", limit: int | None = None,
                progress: bool = True) -> list[dict[str, Any]]:
    """:func:`reader_row` of each of ``task_ids`` of ``data`` that has one (at most ``limit``), with a progress bar."""
    import gymnasium as gym
    from tqdm.auto import tqdm

    import vmb_gym  # noqa: F401

    env = gym.make("VehicleMem-v0", data=data, memory=memory, max_steps=4)
    rows: list[dict[str, Any]] = []
    for task_id in tqdm(task_ids, desc=f"reader rows ({data})", disable=not progress, leave=False):
        row = reader_row(env, task_id, depth)
        if row is not None:
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
    env.close()
    return rows


def pick_accuracy(reader: Any, tasks: Sequence[dict[str, Any]]) -> dict[str, float]:
    """How often the reader's line is the gold value's line, over ``tasks`` (:func:`reader_row`): the line with the
    highest P(yes) (``argmax``, :meth:`~vmb_agents.llm.line_reader.LineReader.pick`'s rule) and the latest line with
    P(yes) >= 0.5, else the highest (``latest_yes``: a later statement replacing an earlier one, measured against)."""
    from vmb_agents.llm.line_reader import reader_prompt

    probs = iter(reader.yes_probabilities([reader_prompt(t["request"], line) for t in tasks for line in t["hits"]]))
    right = {"argmax": 0, "latest_yes": 0}
    for t in tasks:
        p = [next(probs) for _ in t["hits"]]
        best = max(range(len(p)), key=p.__getitem__)
        sure = [i for i, v in enumerate(p) if v >= 0.5]
        right["argmax"] += best == t["label"]
        right["latest_yes"] += (sure[-1] if sure else best) == t["label"]
    return {k: round(v / max(1, len(tasks)), 4) for k, v in right.items()}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The reader trainer's options (``vmb train reader --help``)."""
    p.add_argument("--train-scenarios", type=int, default=200, help="households of the generated train split "
                   "(the one `vmb train lm` writes; generated once under the vmb_gym cache)")
    p.add_argument("--tasks", type=int, default=1000, help="tasks to train on (drawn in a seeded order; each gives "
                   "1 + --negatives rows)")
    p.add_argument("--negatives", type=int, default=3, help="lines answered ' no' per task")
    p.add_argument("--depth", type=int, default=16, help="hits per search (at most 16)")
    p.add_argument("--epochs", type=float, default=1.0, help="passes over the rows")
    p.add_argument("--lr", type=float, default=5e-4, help="LoRA learning rate")
    p.add_argument("--batch", type=int, default=4, help="rows per optimiser step")
    p.add_argument("--lora-rank", type=int, default=16, help="LoRA rank")
    p.add_argument("--lora-layers", type=int, default=10, help="LoRA on the top N blocks (0: all)")
    p.add_argument("--eval-tasks", type=int, default=200, help="default-benchmark tasks to measure the pick on")
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    p.add_argument("--seed", type=int, default=0, help="orders the train tasks and seeds the trainer")
    p.add_argument("--out", default="runs/reader", help="output folder (the adapter goes to OUT/adapter)")
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Build the rows, train the adapter, measure the pick's accuracy; returns the summary."""
    p = argparse.ArgumentParser(prog="vmb train reader", description=(__doc__ or "").splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(p)
    args = p.parse_args(argv)
    if not 1 <= args.depth <= 16:
        from vmb_gym.errors import ConfigError

        raise ConfigError(f"--depth takes 1-16 hits; found {args.depth}")
    import gymnasium as gym

    from vmb_agents.llm.hf import _load, convert_gguf
    from vmb_agents.llm.line_reader import LineReader
    from vmb_agents.threads import apply_threads
    from vmb_agents.train.common import generated_train
    from vmb_agents.train.lm_plots import plot_sft
    from vmb_agents.train.lm_sft import sft_train

    apply_threads(args.threads)
    out = claim_out(args.out, "vmb train reader", overwrite=args.overwrite, outputs=("adapter", "reader_loss.png"))
    split = generated_train(SimpleNamespace(train_scenarios=args.train_scenarios, cache_dir=""))
    ids = [q.task_id for q in gym.make("VehicleMem-v0", data=str(split)).unwrapped.tasks.queries]
    random.Random(args.seed).shuffle(ids)
    t0 = time.time()
    tasks = reader_rows(str(split), ids, depth=args.depth, limit=args.tasks)
    rng = random.Random(args.seed)
    rows = [row for task in tasks for row in line_rows(task, args.negatives, rng)]
    held_ids = ids_default()
    random.Random(args.seed).shuffle(held_ids)  # the draw of `vmb train lm`'s held-out evaluation
    held = reader_rows("default", held_ids[:args.eval_tasks], depth=args.depth)
    print(f"{len(tasks)} train tasks ({len(rows)} rows), {len(held)} held-out tasks with a readable line "
          f"({time.time() - t0:.0f} s)", flush=True)
    model, tok = _load(str(convert_gguf()), None, device="cpu", dtype=None)
    before = pick_accuracy(LineReader(model, tok), held)
    print(f"held-out pick accuracy before training: {before}", flush=True)
    settings = SimpleNamespace(out=str(out), sft_epochs=args.epochs, sft_lr=args.lr, sft_batch=args.batch, grad_accum=1,
                               max_length=1024, lora_rank=args.lora_rank, lora_alpha=2 * args.lora_rank,
                               lora_layers=args.lora_layers, seed=args.seed, device="cpu", sft_save_steps=100)
    t1 = time.time()
    peft_model, log = sft_train(model, tok, [{"prompt": r["prompt"], "completion": r["completion"]} for r in rows],
                                settings)
    peft_model.save_pretrained(out / "adapter")
    plot_sft(out / "reader_loss.png", log, f"line reader SFT: {len(rows)} rows of {len(tasks)} train tasks, "
             f"lr {args.lr}, LoRA r{args.lora_rank} on the top {args.lora_layers} blocks")
    peft_model.eval()
    after = pick_accuracy(LineReader(peft_model, tok), held)
    summary = {"tasks": len(tasks), "rows": len(rows), "negatives": args.negatives, "held_out_tasks": len(held),
               "depth": args.depth, "epochs": args.epochs, "lr": args.lr,
               "lora_rank": args.lora_rank, "lora_layers": args.lora_layers, "seed": args.seed,
               "train_scenarios": args.train_scenarios, "seconds": round(time.time() - t1, 1),
               "pick_accuracy_before": before, "pick_accuracy_after": after, "loss": log}
    (out / "adapter" / "reader.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"held-out pick accuracy after training: {after} ({summary['seconds']:.0f} s of training)", flush=True)
    return summary


def ids_default() -> list[str]:
    """The task ids of the embedded default benchmark."""
    import gymnasium as gym

    import vmb_gym  # noqa: F401

    return [q.task_id for q in gym.make("VehicleMem-v0", data="default").unwrapped.tasks.queries]


if __name__ == "__main__":
    main()
