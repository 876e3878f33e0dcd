"""Fixtures for the model-backed policies: a tiny Llama and a byte-level BPE tokenizer, built offline.

The tokenizer is trained here on a few hundred strings (tool-call JSON, requests, schema text) and
saved with a ChatML chat template; two variants exist, one whose template renders ``tools`` and
one that does not. The model is a 2-layer Llama with hidden size 32 and random weights: it makes
valid but meaningless text, which is all the policy plumbing needs.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

CHATML_NO_TOOLS = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

CHATML_TOOLS = (
    "{% if tools %}{{ '<|im_start|>system\n' }}"
    "{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] + '\n\n' }}{% endif %}"
    "{{ '# Tools\n<tools>' }}{% for tool in tools %}{{ '\n' + (tool | tojson) }}{% endfor %}"
    "{{ '\n</tools><|im_end|>\n' }}"
    "{% elif messages[0]['role'] == 'system' %}"
    "{{ '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}"
    "{% elif message['role'] == 'assistant' and message.get('tool_calls') %}"
    "{{ '<|im_start|>assistant\n' + (message['content'] or '') }}"
    "{% for tc in message['tool_calls'] %}"
    "{{ '\n<tool_call>\n{\"name\": \"' + tc['function']['name'] + '\", \"arguments\": ' "
    "+ (tc['function']['arguments'] | tojson) + '}\n</tool_call>' }}{% endfor %}{{ '<|im_end|>\n' }}"
    "{% elif message['role'] == 'tool' %}"
    "{{ '<|im_start|>user\n<tool_response>\n' + message['content'] + '\n</tool_response><|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

SPECIALS = ["<pad>", "<|im_start|>", "<|im_end|>"]


def _corpus() -> list[str]:
    from vmb_gym.vehicle.schema import all_vehicle_schemas

    lines = []
    for tool in all_vehicle_schemas("official")[:60]:
        lines.append(json.dumps(tool))
        name = tool["function"]["name"]
        lines.append(f'<tool_call>\n{{"name": "{name}", "arguments": {{}}}}\n</tool_call>')
        lines.append(f'{name}(level=2, seat="driver", is_on=true)')
    for i in range(100):
        lines.append(f"At {i % 12 + 1}:{i % 60:02d} AM, Gary got into the driver's seat and said: "
                     f"'make it warm, level {i % 5}'.")
        lines.append(f'{{"success": true, "message": "Loaded {i} tools from seat module", "count": {i}}}')
    lines.append('<tool_response> </tool_response> list_module_tools finish search_memory module_name query top_k')
    return lines


def build_tokenizer(template: str):
    """A byte-level BPE tokenizer trained on the corpus, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                   bos_token="<|im_start|>")
    fast.chat_template = template
    return fast


def build_model(vocab_size: int, eos_id: int, pad_id: int):
    """A 2-layer Llama with hidden size 32 and fixed random weights."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16384,
                      eos_token_id=eos_id, pad_token_id=pad_id, bos_token_id=None, tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = eos_id
    model.generation_config.pad_token_id = pad_id
    model.eval()
    return model


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny checkpoint (model + tokenizer with a tools-aware template)."""
    folder = tmp_path_factory.mktemp("tiny_llama")
    tok = build_tokenizer(CHATML_TOOLS)
    model = build_model(len(tok), tok.eos_token_id, tok.pad_token_id)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_parts(tiny_dir: Path):
    """(model, tokenizer with tools template, tokenizer without tools template), loaded from ``tiny_dir``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny_dir)
    model.eval()
    tok_tools = AutoTokenizer.from_pretrained(tiny_dir)
    tok_plain = AutoTokenizer.from_pretrained(tiny_dir)
    tok_plain.chat_template = CHATML_NO_TOOLS
    return model, tok_tools, tok_plain


def small_scenarios():
    """One hand-made scenario: a short history and two seat-heating requests with gold calls."""
    from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario, ToolCall

    t = datetime(2025, 4, 10, 9, 0)
    lines = (
        HistoryLine(1, t, "Gary Allen", "I like my seat heating on level 2 in the mornings."),
        HistoryLine(2, t.replace(hour=10), "Patricia Garcia", "Let's go to the museum next weekend."),
        HistoryLine(3, t.replace(day=12), "Gary Allen", "Actually make the seat heating level 3 from now on."),
        HistoryLine(4, t.replace(day=20), "Gary Allen", "The seat heating should be level 1 next month."),
    )
    gold = (ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3}),)
    queries = (
        Query("1_0", 1, 0, "At 8:00 AM, Gary got into the driver's seat: 'warm my seat the way I like'.",
              "state_shift", gold, (gold[0].to_python(),), "Gary prefers seat heating level 3",
              (EvidenceEvent("seat heating level 3", t.replace(day=12), (3,)),), datetime(2025, 4, 15, 8, 0)),
        Query("1_1", 1, 1, "Patricia asks to play some music.", "preference_conflict",
              (ToolCall("carcontrol_music_play", {}),), ("carcontrol_music_play()",), "",
              (), datetime(2025, 4, 25, 8, 0)),
    )
    return [Scenario(1, ("Gary Allen", "Patricia Garcia"), lines, queries, source="test")]


@pytest.fixture()
def scenarios():
    """The hand-made scenarios (see :func:`small_scenarios`)."""
    return small_scenarios()


@pytest.fixture(scope="session")
def sharp_tiny_lm():
    """A builder of the trainer's tiny model (``build_tiny_model(seed)``) with its output head scaled x8.

    Sharper logits than the random init, so greedy picks are not near-ties; returns ``(model.eval(), tok)``.
    """
    torch = pytest.importorskip("torch")
    from vmb_agents.train.lm import build_tiny_model

    def build(seed: int):
        model, tok = build_tiny_model(seed=seed)
        with torch.no_grad():
            model.lm_head.weight.mul_(8.0)
        return model.eval(), tok

    return build
