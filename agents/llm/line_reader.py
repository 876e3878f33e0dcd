"""The line reader: SmolLM2 with its own LoRA adapter judges which memory line a request's value comes from.

The fine-tuned chat model finds the function and the seat, but it chooses the value among the hits no
better than chance on generated households: the setting's line sits among vans, rentals, relatives' cars,
hypotheticals and other people's values for the same setting, and ``hf:smollm2-vmb`` copies one of those
as often as the person's own (:mod:`agents.train.lm_failures`: the right function and seat with another
value in 347 of 500 held-out episodes). The reader asks the same 135M model a short question about one
line at a time: the request, the line, and "does this line state the value this request wants set for
its person?", answered `` yes`` or `` no`` (one token). A question about one line is local (whose line,
said aside or meant, about this situation), so a supervised run on CPU learns it from a few thousand
short rows (:mod:`agents.train.lm_reader`, TRL's ``SFTTrainer`` and a peft LoRA adapter on the generated
train split). Asking it to point at one of 16 lettered lines instead did not learn (the answer's loss
stayed at the letters' base rate over 750 rows; README, Training).

:meth:`LineReader.pick` takes the line it answers `` yes`` for with the highest probability.
:class:`agents.llm.hf.HFPolicy` (``line_reader=...``) asks it about the hits that state a value for a function
the call may name, then lets the chat model write, for each function, only the value the picked line states
(read with the rules reader's value matcher, :func:`agents.rules.values.extract_value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.llm.compact_view import HIT_LINE

__all__ = ["ANSWERS", "MAX_LINES", "READER_DIR", "LineReader", "hit_lines", "line_body", "reader_prompt"]

#: The two answers (one token each in SmolLM2's vocabulary, with the leading space).
ANSWERS = (" yes", " no")

#: The most hit lines the reader judges per search.
MAX_LINES = 16

#: The shipped reader adapter (``line_reader="shipped"``).
READER_DIR = Path(__file__).resolve().parent / "adapters" / "smollm2-vmb-reader"


def hit_lines(memory_text: str) -> list[str]:
    """The hit lines of a ``search_memory`` tool message (``[time] Name: text``), in the order shown, at most
    :data:`MAX_LINES`; ``[]`` when the text is not a list of hits."""
    found = [m.group(1) for line in memory_text.splitlines() if (m := HIT_LINE.match(line))]
    return found[:MAX_LINES]


def line_body(line: str) -> str:
    """A hit line without its time stamp: ``Name: text``."""
    return line.split("] ", 1)[-1]


def reader_prompt(request: str, line: str) -> str:
    """The reader's question about one hit line (without its time stamp); the answer is one of :data:`ANSWERS`."""
    return (f"Request: {request.strip()}\nMemory line: {line_body(line)}\n"
            "Does this line state the value this request wants set for its person? Answer:")


class LineReader:
    """A causal LM with the reader adapter merged in; :meth:`pick` reads a batch of searches
    (:func:`agents.llm.hf.load_line_reader` loads SmolLM2 with an adapter).

    Args:
        model: the causal LM (eval mode).
        tokenizer: its tokenizer.

    Raises:
        ConfigError: the tokenizer does not spell each answer (`` yes``, `` no``) as one token of its own.
    """

    def __init__(self, model: Any, tokenizer: Any) -> None:
        encoded = [tokenizer.encode(a, add_special_tokens=False) for a in ANSWERS]
        if any(len(e) != 1 for e in encoded) or encoded[0] == encoded[1]:
            from vmb_gym.errors import ConfigError

            raise ConfigError(f"the line reader answers with one token; expected ' yes' and ' no' to be one token "
                              f"each in this tokenizer, found {[len(e) for e in encoded]} tokens. Use a tokenizer "
                              "with them (SmolLM2's, Llama's, Qwen's)")
        self.model = model
        self.tokenizer = tokenizer
        self.yes_id, self.no_id = encoded[0][0], encoded[1][0]

    def yes_probabilities(self, prompts: Sequence[str], batch: int = 32) -> list[float]:
        """P(`` yes``) against `` no`` as the answer to each prompt (left-padded batched forward passes)."""
        import torch

        tok = self.tokenizer
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        out: list[float] = []
        side, tok.padding_side = tok.padding_side, "left"
        try:
            for start in range(0, len(prompts), batch):
                enc = tok(list(prompts[start:start + batch]), return_tensors="pt", padding=True)
                with torch.no_grad():  # the last position's logits only (not [batch, length, vocab])
                    logits = self.model(**enc, logits_to_keep=1).logits[:, -1, :].float()
                pair = torch.log_softmax(logits[:, [self.yes_id, self.no_id]], dim=-1)
                out += pair[:, 0].exp().tolist()
        finally:
            tok.padding_side = side
        return out

    def pick(self, requests: Sequence[str], lines: Sequence[Sequence[str]]) -> list[int | None]:
        """For each request and its hit lines, the index of the line with the highest P(yes); None when there are
        no lines. (The latest line above 0.5 instead picked the gold line in 0.686 of 121 held-out searches, the
        highest in 0.810: ``vmb train reader``'s measurement.)"""
        prompts = [reader_prompt(r, line) for r, ls in zip(requests, lines, strict=True) for line in ls]
        probs = iter(self.yes_probabilities(prompts))
        picked: list[int | None] = []
        for ls in lines:
            p = [next(probs) for _ in ls]
            picked.append(max(range(len(p)), key=p.__getitem__) if p else None)
        return picked
