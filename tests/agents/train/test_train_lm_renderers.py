"""``vmb train lm --renderers`` (teacher episodes from the template and the natural train splits) and
``--init-adapter`` with SFT (the adapter is trained further, not replaced)."""

from __future__ import annotations

import csv

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("peft")

from vmb_agents.train.lm import Args, _renderers, main
from vmb_gym.errors import ConfigError


def test_renderers_are_checked() -> None:
    assert _renderers("template, natural,template") == ["template", "natural"]
    with pytest.raises(ConfigError, match="--renderers"):
        _renderers("template,poetry")
    with pytest.raises(ConfigError, match="--renderers"):
        main(Args(out="unused", renderers=""))


def test_two_splits_then_the_adapter_trained_further(tmp_path, monkeypatch) -> None:
    from safetensors.torch import load_file

    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path / "cache"))
    first = Args(model="tiny", out=str(tmp_path / "a"), train_scenarios=2, train_tasks=4, gold_share=0.0,
                 renderers="template,natural", sft_epochs=1, grad_accum=2, lora_rank=2, lora_alpha=4, lora_layers=0,
                 eval_tasks=0, threads=1, max_length=8192)
    summary = main(first)
    assert summary["teacher_episodes"] == 4
    assert sorted(p.name for p in (tmp_path / "cache" / "generated").iterdir()) == ["train_2", "train_2_natural"]
    second = Args(**{**first.__dict__, "out": str(tmp_path / "b"), "renderers": "natural", "train_tasks": 4,
                     "init_adapter": str(tmp_path / "a" / "adapter"), "sft_lr": 1e-2})
    main(second)
    steps = list(csv.DictReader((tmp_path / "b" / "sft_log.csv").open()))
    assert [int(r["step"]) for r in steps] == [1, 2] and all(float(r["loss"]) > 0 for r in steps)  # step 1: warm-up
    before = load_file(str(tmp_path / "a" / "adapter" / "adapter_model.safetensors"))
    after = load_file(str(tmp_path / "b" / "adapter" / "adapter_model.safetensors"))
    assert set(before) == set(after)  # the same adapter (same layers), not a second one
    assert max(float((before[k] - after[k]).abs().max()) for k in before) > 0
