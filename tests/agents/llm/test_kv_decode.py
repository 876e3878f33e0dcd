"""PrefixCacheDecoder: the same greedy tokens as ``generate``, with earlier turns' caches reused."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from vmb_agents.llm.kv_decode import PrefixCacheDecoder


@pytest.fixture(scope="module")
def tiny(sharp_tiny_lm):
    return sharp_tiny_lm(3)


def reference(model, ids, max_new, stops):
    out = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                         max_new_tokens=max_new, do_sample=False, eos_token_id=sorted(stops), pad_token_id=0)
    new = out[0, len(ids):].tolist()
    cut = next((k for k, t in enumerate(new) if t in stops), None)
    return new if cut is None else new[:cut + 1]


def test_batched_replies_equal_generate_and_later_turns_reuse_the_cache(tiny):
    model, tok = tiny
    stops = {tok.eos_token_id}
    dec = PrefixCacheDecoder(model, sorted(stops), pad_id=0)
    prompts = [tok.encode('<|im_start|>user\nset the seat heating', add_special_tokens=False),
               tok.encode('<|im_start|>system\nYou are the car assistant. List tools, then call them.',
                          add_special_tokens=False),
               tok.encode('{"name": "call_vehicle"}', add_special_tokens=False)]
    replies = dec.generate(prompts, max_new_tokens=12)
    assert replies == [reference(model, p, 12, stops) for p in prompts]
    assert dec.reused_tokens == 0 and dec.computed_tokens == sum(map(len, prompts))
    # turn 2: each conversation continues with its reply and a tool result
    more = tok.encode("<tool_response>\nok\n</tool_response>", add_special_tokens=False)
    turn2 = [p + r + more for p, r in zip(prompts, replies, strict=True)]
    computed = dec.computed_tokens
    replies2 = dec.generate(turn2, max_new_tokens=12)
    assert replies2 == [reference(model, p, 12, stops) for p in turn2]
    # everything but the reply's last token and the tool result came from the kept caches
    assert dec.computed_tokens - computed == sum(1 + len(more) for _ in prompts)
    assert dec.reused_tokens == sum(len(p) + len(r) - 1 for p, r in zip(prompts, replies, strict=True))
    assert len(dec.entries) == 3


def test_a_prompt_that_diverges_reuses_only_the_shared_part(tiny):
    model, tok = tiny
    dec = PrefixCacheDecoder(model, [tok.eos_token_id], pad_id=0, max_entries=2)
    a = tok.encode("<|im_start|>user\nopen the sunroof please", add_special_tokens=False)
    dec.generate([a], max_new_tokens=4)
    b = a[:5] + tok.encode(" close the window", add_special_tokens=False)
    reply = dec.generate([b], max_new_tokens=6)
    assert reply == [reference(model, b, 6, {tok.eos_token_id})]
    assert dec.reused_tokens == 5
    for _ in range(3):
        dec.generate([tok.encode("x y z", add_special_tokens=False)], max_new_tokens=2)
    assert len(dec.entries) <= 2
