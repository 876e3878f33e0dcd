"""The line reader: SmolLM2 with its own LoRA adapter judges which memory line a request's value comes from.

The fine-tuned chat model finds the function and the seat, but it chooses the value among the hits no
better than chance on generated households: the setting's line sits among vans, rentals, relatives' cars,
hypotheticals and other people's values for the same setting, and ``hf:smollm2-vmb`` copies one of those
as often as the person's own (:mod:`vmb_agents.train.lm_failures`: the right function and seat with another
value in 347 of 500 held-out episodes). The reader asks the same 135M model a short question about one
line at a time: the request, the line, and "does this line state the value this request wants set for
its person?", answered `` yes`` or `` no`` (one token). A question about one line is local (whose line,
said aside or meant, about this situation), so a supervised run on CPU learns it from a few thousand
short rows (:mod:`vmb_agents.train.lm_reader`, TRL's ``SFTTrainer`` and a peft LoRA adapter on the generated
train split). Asking it to point at one of 16 lettered lines instead did not learn (the answer's loss
stayed at the letters' base rate over 750 rows; README, Training).

:meth:`LineReader.pick` takes the line it answers `` yes`` for with the highest probability.
A guide's ``line_reader`` (:class:`~vmb_agents.llm.guide.RulesGuide`) asks it about the hits that state a value
for a function the call may name (the step's :class:`~vmb_agents.reader.reading.Reading`), then lets the chat
model write, for each function, only the value the picked line states (read with the rules reader's value
matcher, :func:`vmb_agents.reader.values.extract_value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ANSWERS", "MAX_LINES", "READER_DIR", "LineReader", "line_body", "line_part", "reader_prompt",
           "request_part"]

#: The two answers (one token each in SmolLM2's vocabulary, with the leading space).
ANSWERS = (" yes", " no")

#: The most hit lines the reader judges per search.
MAX_LINES = 16

#: The shipped reader adapter (``line_reader="shipped"``).
READER_DIR = Path(__file__).resolve().parent / "adapters" / "smollm2-vmb-reader"


def line_body(line: str) -> str:
    """A hit line without its time stamp: ``Name: text``."""
    return line.split("] ", 1)[-1]


def reader_prompt(request: str, line: str) -> str:
    """The reader's question about one hit line (without its time stamp); the answer is one of :data:`ANSWERS`."""
    return request_part(request) + line_part(line)


def request_part(request: str) -> str:
    """The start of :func:`reader_prompt`, the same for every line of a request (its keys and values are computed
    once per request: :meth:`LineReader.yes_probabilities_after`)."""
    return f"Request: {request.strip()}\nMemory line:"


def line_part(line: str) -> str:
    """The rest of :func:`reader_prompt`: the line and the question."""
    return f" {line_body(line)}\nDoes this line state the value this request wants set for its person? Answer:"


class LineReader:
    """A causal LM with the reader adapter merged in; :meth:`pick` reads a batch of searches
    (:func:`vmb_agents.llm.hf.load_line_reader` loads SmolLM2 with an adapter).

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

    def yes_probabilities_after(self, request: str, lines: Sequence[str]) -> list[float]:
        """P(`` yes``) against `` no`` for each of a request's lines, the request's part of the prompt computed once:
        its keys and values (:func:`request_part`) are repeated over the lines' batch, the lines' parts
        (:func:`line_part`) right-padded after them, and each line's answer read at its own last token. The same
        numbers as :meth:`yes_probabilities` on the whole prompts (up to float rounding) in about half the work."""
        import torch

        if not lines:
            return []
        tok = self.tokenizer
        head = tok(request_part(request), return_tensors="pt")
        tails = [tok.encode(line_part(line), add_special_tokens=False) for line in lines]
        width, n = max(len(t) for t in tails), len(tails)
        ids = torch.full((n, width), tok.pad_token_id if tok.pad_token_id is not None else 0, dtype=torch.long)
        mask = torch.zeros((n, head.input_ids.shape[1] + width), dtype=torch.long)
        mask[:, :head.input_ids.shape[1]] = 1
        for k, t in enumerate(tails):
            ids[k, :len(t)] = torch.tensor(t)
            mask[k, head.input_ids.shape[1]:head.input_ids.shape[1] + len(t)] = 1
        last = torch.tensor([len(t) - 1 for t in tails])
        keep = torch.unique(last)  # the positions whose logits are computed (not [n, width, vocab])
        with torch.no_grad():
            cache = self.model(**head, use_cache=True).cache
            cache.batch_repeat_interleave(n)
            logits = self.model(input_ids=ids, attention_mask=mask, cache=cache, logits_to_keep=keep).logits
        rows = logits[torch.arange(n), torch.searchsorted(keep, last)].float()
        pair = torch.log_softmax(rows[:, [self.yes_id, self.no_id]], dim=-1)
        return pair[:, 0].exp().tolist()

    def pick(self, requests: Sequence[str], lines: Sequence[Sequence[str]]) -> list[int | None]:
        """For each request and its hit lines, the index of the line with the highest P(yes); None when there are
        no lines (:meth:`yes_probabilities_after`, one request at a time). (The latest line above 0.5 instead
        picked the gold line in 0.686 of 121 held-out searches, the highest in 0.810: ``vmb train reader``'s
        measurement.)"""
        picked: list[int | None] = []
        for request, ls in zip(requests, lines, strict=True):
            p = self.yes_probabilities_after(request, ls)
            picked.append(max(range(len(p)), key=p.__getitem__) if p else None)
        return picked
