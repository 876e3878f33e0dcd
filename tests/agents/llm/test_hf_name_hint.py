"""``hf:NAME`` names: a misspelt shipped name fails at once with a "did you mean", without the hub.

``vmb eval --policy hf:smollm2-vm`` used to wait about a minute on the Hugging Face Hub's retries and then
name no shipped model. Nothing here touches the network: the hub is offline and loading is replaced.
"""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from vmb_agents.llm import hf
from vmb_gym.errors import ConfigError


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No hub, no model loading, and a working folder without model folders in it."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)

    def no_load(*args, **kwargs):
        raise AssertionError("a misspelt shipped name must fail before any model is loaded")

    monkeypatch.setattr(hf, "_load", no_load)
    monkeypatch.setattr(hf, "convert_gguf", no_load)


def test_a_misspelt_shipped_name_fails_at_once_with_the_suggestion(offline) -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'smollm2-vmb'\?") as caught:
        hf.HFPolicy("smollm2-vm")
    for name in hf.NAMED_MODELS:
        assert name in str(caught.value)


def test_the_policy_factory_gives_the_same_hint(offline) -> None:
    import gymnasium as gym

    import vmb_gym  # noqa: F401  (registers the env)
    from vmb_agents import make_policy

    env = gym.make("VehicleMem-v0", files="1")
    with pytest.raises(ConfigError, match=r"did you mean 'smollm2-vmb'\?"):
        make_policy("hf:smollm2-vm", env)
    env.close()


@pytest.mark.parametrize("name", sorted(hf.NAMED_MODELS))
def test_a_shipped_name_still_resolves(offline, name: str) -> None:
    assert hf.named_model(name) is hf.NAMED_MODELS[name]


@pytest.mark.parametrize("name", ["HuggingFaceTB/SmolLM2-135M-Instruct", "org/smollm2-vm", "gpt2", "model.gguf"])
def test_hub_ids_paths_and_far_names_are_left_to_transformers(offline, name: str) -> None:
    assert hf.named_model(name) is None


def test_a_local_folder_with_a_close_name_is_loaded_as_a_folder(offline, tmp_path) -> None:
    (tmp_path / "smollm2-vm").mkdir()
    assert hf.named_model("smollm2-vm") is None


def test_a_model_that_does_not_load_names_the_shipped_names(monkeypatch) -> None:
    import transformers

    def missing(*args, **kwargs):
        raise OSError("not found")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", missing)
    with pytest.raises(ConfigError, match="could not load a causal LM") as caught:
        hf._load("some-unknown-model", None, device="cpu", dtype=None)
    for name in hf.NAMED_MODELS:
        assert name in str(caught.value)
