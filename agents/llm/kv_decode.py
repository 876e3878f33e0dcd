"""Greedy batched decoding that keeps each conversation's KV cache from one turn to the next.

An episode of the agent loop is a growing conversation: turn 2's prompt is turn 1's prompt, the
model's reply and a tool result. ``model.generate`` on the rendered prompts pays for the whole
prompt again every turn (prefill is most of the cost on a CPU), and in a left-padded batch every
row decodes until the longest reply ends. :class:`PrefixCacheDecoder` keeps, for each recent
token sequence (prompt + reply), the attention keys and values the model computed for it; a new
prompt that starts with a kept sequence computes only its new tokens (one forward per row), and
the replies of all rows are then decoded together in one batch whose caches are left-padded to
the same length (padding masked out, each row's positions its own).

Greedy by default (``argmax``): the result is the same tokens ``generate(do_sample=False)`` picks, up
to floating-point ties (tested against it). ``temperature > 0`` samples instead (GRPO rollouts,
:mod:`vmb_agents.train.lm_rollouts`); rows of one call with the same prompt (a GRPO group) share one
prefill. Works with any causal LM of transformers whose forward takes ``cache=`` (``DynamicCache``) and
``position_ids``: Llama, SmolLM2, Qwen, Mistral.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vmb_agents.llm.constrained import pick

__all__ = ["PrefixCacheDecoder"]

#: (keys, values) of every layer for one sequence, each ``[1, kv_heads, length, head_dim]``.
LayerKV = list[tuple[Any, Any]]


class PrefixCacheDecoder:
    """Greedy decoding of several prompts at once, reusing the KV cache of earlier turns.

    Args:
        model: a transformers causal LM in eval mode.
        stop_ids: token ids that end a reply (kept as the reply's last token).
        pad_id: the token fed to rows that already stopped.
        max_entries: most sequences whose cache is kept (least recently used dropped first); an
            entry that a longer prompt extends is replaced by the longer one.
    """

    def __init__(self, model: Any, stop_ids: Sequence[int], pad_id: int, *, max_entries: int = 16) -> None:
        self.model = model
        self.stop_ids = {int(i) for i in stop_ids}
        self.pad_id = int(pad_id)
        self.max_entries = int(max_entries)
        self.device = next(model.parameters()).device
        self.entries: list[tuple[tuple[int, ...], LayerKV]] = []
        #: prompt tokens computed and reused so far (the saving, for logs and the bench)
        self.computed_tokens = 0
        self.reused_tokens = 0

    def clear(self) -> None:
        """Forget every kept cache."""
        self.entries.clear()

    def generate(self, prompts: Sequence[Sequence[int]], max_new_tokens: int,
                 constraints: Sequence[Any | None] | None = None, *, temperature: float = 0.0,
                 generator: Any | None = None) -> list[list[int]]:
        """The reply tokens of each prompt (ending with a stop id when one was produced).

        ``constraints``: one per prompt, None or an object whose ``allowed(reply_ids)`` gives the
        token ids the next token must be among (None: any), e.g.
        :class:`vmb_agents.llm.constrained.NameConstraint`; the greedy pick is then the best allowed token.
        ``temperature``: 0 picks greedily; above 0 each token is drawn from ``softmax(logits / temperature)``
        with ``generator`` (a ``torch.Generator``; None: torch's global one); constraints then apply to greedy
        picks only.
        """
        import torch

        if not prompts:
            return []
        rules = list(constraints) if constraints is not None else [None] * len(prompts)
        if len(rules) != len(prompts):
            raise ValueError(f"expected one constraint per prompt ({len(prompts)}), found {len(rules)}")
        with torch.inference_mode():
            done: dict[tuple[int, ...], tuple[Any, LayerKV]] = {}
            for p in prompts:  # identical prompts (a GRPO group's first turn) share one prefill
                if tuple(p) not in done:
                    done[tuple(p)] = self._prefill(list(p))
            logits, caches = zip(*(done[tuple(p)] for p in prompts), strict=True)
            sampler = _Sampler(temperature, generator)
            firsts = [sampler.one(row, rule.allowed([]) if rule is not None else None)
                      for row, rule in zip(logits, rules, strict=True)]
            replies, kept = self._decode(firsts, list(caches), max_new_tokens, rules, sampler)
        for prompt, reply, kv in zip(prompts, replies, kept, strict=True):
            self._keep(tuple(prompt) + tuple(reply[:-1]), kv)
        return replies

    # -- one row's new prompt tokens ----------------------------------------------------------------
    def _prefill(self, prompt: list[int]) -> tuple[Any, LayerKV]:
        """The logits of the first reply token and the prompt's KV, computing only what no kept entry holds."""
        import torch
        from transformers import DynamicCache

        if not prompt:
            raise ValueError("an empty prompt has nothing to continue")
        reuse, kv = self._take_prefix(prompt)
        cache = DynamicCache(config=self.model.config)
        for layer, (k, v) in enumerate(kv):
            cache.update(k[:, :, :reuse], v[:, :, :reuse], layer)
        new = torch.tensor([prompt[reuse:]], dtype=torch.long, device=self.device)
        positions = torch.arange(reuse, len(prompt), dtype=torch.long, device=self.device)[None]
        mask = torch.ones(1, len(prompt), dtype=torch.long, device=self.device)
        out = self.model(input_ids=new, position_ids=positions, attention_mask=mask, cache=cache, use_cache=True,
                         logits_to_keep=1)
        self.computed_tokens += len(prompt) - reuse
        self.reused_tokens += reuse
        return out.logits[0, -1], [(layer.keys, layer.values) for layer in cache.layers]

    def _take_prefix(self, prompt: list[int]) -> tuple[int, LayerKV]:
        """(tokens reusable, their KV) from the kept entry sharing the longest prefix (removed)."""
        best, best_len = -1, 0
        for i, (ids, _) in enumerate(self.entries):
            n = _common_prefix(ids, prompt)
            if n > best_len:
                best, best_len = i, n
        if best < 0:
            return 0, []
        _, kv = self.entries.pop(best)
        # at least one prompt token must be computed to get the next token's logits
        return min(best_len, len(prompt) - 1), kv

    # -- all rows' replies together ------------------------------------------------------------------
    def _decode(self, firsts: list[int], caches: list[LayerKV], max_new_tokens: int,
                rules: list[Any | None], sampler: _Sampler) -> tuple[list[list[int]], list[LayerKV]]:
        """Greedy replies of every row from their first tokens, and each row's KV of prompt + fed reply tokens."""
        import torch
        from transformers import DynamicCache

        lengths = [kv[0][0].shape[2] for kv in caches]
        width = max(lengths)
        cache = DynamicCache(config=self.model.config)
        for layer in range(len(caches[0])):
            keys = torch.cat([_left_pad(kv[layer][0], width) for kv in caches])
            values = torch.cat([_left_pad(kv[layer][1], width) for kv in caches])
            cache.update(keys, values, layer)
        mask = torch.tensor([[0] * (width - n) + [1] * n for n in lengths], dtype=torch.long, device=self.device)
        replies = [[t] for t in firsts]
        done = [t in self.stop_ids for t in firsts]
        steps = 0
        while steps + 1 < max_new_tokens and not all(done):
            tokens = torch.tensor([[self.pad_id if d else r[-1]] for r, d in zip(replies, done, strict=True)],
                                  device=self.device)
            positions = torch.tensor([[n + steps] for n in lengths], device=self.device)
            mask = torch.cat([mask, mask.new_ones(len(lengths), 1)], dim=1)
            out = self.model(input_ids=tokens, position_ids=positions, attention_mask=mask, cache=cache, use_cache=True)
            steps += 1
            last = out.logits[:, -1]
            picks = sampler.rows(last)
            for i, rule in enumerate(rules):
                if rule is not None and not done[i]:
                    picks[i] = sampler.one(last[i], rule.allowed(replies[i]))
            for i, tok in enumerate(picks):
                if not done[i]:
                    replies[i].append(int(tok))
                    done[i] = tok in self.stop_ids
        # row i's cache holds its prompt, then the reply tokens that were fed (all but the last)
        kept = [[(layer.keys[i:i + 1, :, width - n:width + len(replies[i]) - 1],
                          layer.values[i:i + 1, :, width - n:width + len(replies[i]) - 1]) for layer in cache.layers]
                        for i, n in enumerate(lengths)]
        return replies, kept

    def _keep(self, ids: tuple[int, ...], kv: LayerKV) -> None:
        self.entries.append((ids, [(k.clone(), v.clone()) for k, v in kv]))
        del self.entries[:-self.max_entries]


class _Sampler:
    """The next token of logit rows: greedy at temperature 0, else drawn from ``softmax(logits / temperature)``."""

    def __init__(self, temperature: float, generator: Any | None) -> None:
        self.temperature = float(temperature)
        self.generator = generator

    def rows(self, logits: Any) -> list[int]:
        """One token per row of ``logits`` (``[rows, vocab]``)."""
        import torch

        if self.temperature <= 0:
            return logits.argmax(dim=-1).tolist()
        probs = torch.softmax(logits.float() / self.temperature, dim=-1)
        return torch.multinomial(probs, 1, generator=self.generator)[:, 0].tolist()

    def one(self, logits: Any, allowed: list[int] | None) -> int:
        """The token of one row (``[vocab]``), among ``allowed`` when given (then always greedy)."""
        if self.temperature <= 0 or allowed is not None:
            return pick(logits, allowed)
        return self.rows(logits[None])[0]


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _left_pad(t: Any, width: int) -> Any:
    """``t`` ([1, heads, n, dim]) with ``width - n`` zero positions in front."""
    import torch

    pad = width - t.shape[2]
    if pad == 0:
        return t
    return torch.cat([t.new_zeros(t.shape[0], t.shape[1], pad, t.shape[3]), t], dim=2)
