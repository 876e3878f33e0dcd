"""Checkpoints load without unpickling: safetensors + JSON for the project's own (shipped and trained), an SB3 zip (a
pickle, which can run code) only with ``trust_checkpoint``; a save -> load round trip acts identically."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import cloudpickle
import torch

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from tests.agents.sb3.tiny_models import TinyEnv, tiny_model
from vmb_agents.sb3.checkpoint import (
    FORMAT_VERSION,
    convert_checkpoint,
    load_checkpoint,
    read_sidecar,
    save_checkpoint,
    sidecar_path,
)
from vmb_gym.errors import ConfigError


def no_pickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on in the test, every unpickling entry point SB3 and torch use raises (called after training: SB3's
    own learn may pickle)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a checkpoint was unpickled")

    for module, name in ((pickle, "loads"), (pickle, "load"), (cloudpickle, "loads"), (cloudpickle, "load"),
                         (torch, "load")):
        monkeypatch.setattr(module, name, refuse)


def _obs(model: Any, n: int = 12) -> torch.Tensor:
    rng = np.random.default_rng(1)
    return torch.as_tensor(rng.uniform(-1, 1, size=(n, *model.observation_space.shape)).astype(np.float32))


def _same_outputs(a: Any, b: Any) -> None:
    """Identical logits, values and greedy masked actions on the same observations."""
    obs = _obs(a)
    with torch.no_grad():
        assert torch.equal(a.policy.get_distribution(obs).distribution.logits,
                           b.policy.get_distribution(obs).distribution.logits)
        assert torch.equal(a.policy.predict_values(obs), b.policy.predict_values(obs))
    masks = np.ones((len(obs), int(a.action_space.n)), dtype=bool)
    masks[:, 0] = False
    first, _ = a.predict(obs.numpy(), deterministic=True, action_masks=masks)
    second, _ = b.predict(obs.numpy(), deterministic=True, action_masks=masks)
    assert np.array_equal(first, second) and not (first == 0).any()


def _legacy(tmp_path: Path, model: Any, name: str = "old") -> Path:
    """``model`` as SB3's own zip with a format-2 sidecar: a checkpoint as this project wrote it before."""
    model.save(str(tmp_path / f"{name}.zip"))
    sidecar = {"design": "catalogue", "algo": "maskable_ppo", "format_version": 2, "catalogue": {"k": 1}}
    (tmp_path / f"{name}.vmb.json").write_text(json.dumps(sidecar))
    return tmp_path / f"{name}.zip"


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo"])
def test_a_freshly_trained_model_round_trips_without_unpickling(algo: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_model(algo, learn=16, net_arch=[8])
    path = save_checkpoint(model, tmp_path / "ck", design="catalogue", algo=algo, meta={"catalogue": {"k": 1}})
    no_pickle(monkeypatch)
    loaded, sidecar = load_checkpoint(path)
    assert type(loaded) is type(model) and type(loaded.policy) is type(model.policy)
    assert loaded.policy_kwargs == {"net_arch": [8]} and loaded.num_timesteps == model.num_timesteps == 16
    assert (loaded.n_steps, loaded.batch_size, loaded.learning_rate) == (8, 8, model.learning_rate)
    assert sidecar["format_version"] == FORMAT_VERSION and sidecar["catalogue"] == {"k": 1}
    if algo == "ppo":  # PPO's predict takes no masks
        with torch.no_grad():
            obs = _obs(model)
            assert torch.equal(model.policy.get_distribution(obs).distribution.logits,
                               loaded.policy.get_distribution(obs).distribution.logits)
    else:
        _same_outputs(model, loaded)


def test_the_slot_pointer_policy_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_agents.sb3.slots.layout import N_SLOT_ACTIONS
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy

    model = tiny_model(policy=SlotPointerPolicy, obs_dim=2 * N_SLOT_ACTIONS, actions=N_SLOT_ACTIONS, pointer_hidden=8)
    path = save_checkpoint(model, tmp_path / "slot", design="slots", algo="maskable_ppo")
    assert read_sidecar(path)["sb3"]["policy_class"] == "SlotPointerPolicy"
    no_pickle(monkeypatch)
    loaded, _ = load_checkpoint(path, design="slots")
    assert isinstance(loaded.policy, SlotPointerPolicy) and loaded.policy.pointer_hidden == 8
    _same_outputs(model, loaded)


def test_the_shipped_slot_policy_loads_and_acts_without_unpickling(monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_agents.factory import make_policy
    from vmb_gym.policy import run_episode

    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    no_pickle(monkeypatch)
    policy = make_policy("sb3:slots", env)
    assert type(policy.model.policy).__name__ == "SlotPointerPolicy" and policy.model.policy.pointer_hidden == 256
    episode = run_episode(env, policy, task_id=env.unwrapped.tasks.queries[0].task_id)
    assert episode.actions and (episode.terminated or episode.truncated)
    env.close()


def test_the_shipped_stream_writer_loads_and_acts_without_unpickling(monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_agents.stream.factory import make_writer

    no_pickle(monkeypatch)
    writer = make_writer("sb3:stream")
    assert writer.budget_tokens == 2000 and writer.pacing is not None
    action, _ = writer.model.predict(np.zeros(writer.featurizer.dim, dtype=np.float32), deterministic=True,
                                     action_masks=np.array([True, True]))
    assert int(action) in (0, 1)


def test_an_sb3_zip_is_refused_without_the_flag_and_loads_with_it(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_model(learn=16)
    path = _legacy(tmp_path, model)
    for target in (path, tmp_path / "old"):
        with pytest.raises(ConfigError, match=r"is a Stable-Baselines3 zip: its data is a pickle, and loading it runs "
                                              r"any code .*vmb eval --trust-checkpoint"):
            load_checkpoint(target)
    loaded, sidecar = load_checkpoint(path, trust_checkpoint=True)
    assert sidecar["format_version"] == 2
    _same_outputs(model, loaded)
    no_pickle(monkeypatch)  # the guard of the other tests does catch an SB3 zip being loaded
    with pytest.raises(AssertionError, match="unpickled"):
        load_checkpoint(path, trust_checkpoint=True)


def test_a_foreign_zip_without_a_sidecar_is_refused_as_a_pickle_first(tmp_path: Path) -> None:
    tiny_model().save(str(tmp_path / "theirs.zip"))
    with pytest.raises(ConfigError, match=r"without the sidecar.*pickle.*save_checkpoint") as refused:
        load_checkpoint(tmp_path / "theirs.zip")
    # the flag would lead to "has no sidecar", and converting needs the sidecar too: neither is offered
    assert "--trust-checkpoint" not in str(refused.value) and "convert-checkpoint" not in str(refused.value)
    with pytest.raises(ConfigError, match="has no sidecar"):  # trusted, it still needs to say its design
        load_checkpoint(tmp_path / "theirs.zip", trust_checkpoint=True)


def test_make_policy_and_the_writer_factory_take_the_flag(tmp_path: Path) -> None:
    from vmb_agents.factory import check_policy, make_policy
    from vmb_agents.stream.factory import make_writer

    path = _legacy(tmp_path, tiny_model())
    env = gym.make("VehicleMem-v0", data="default", files=[1])
    with pytest.raises(ConfigError, match=r"trust_checkpoint=True"):
        check_policy(f"sb3:{path}")
    with pytest.raises(ConfigError, match=r"vmb eval --trust-checkpoint"):
        make_policy(f"sb3:{path}", env)
    with pytest.raises(ConfigError, match=r"vmb eval-stream --trust-checkpoint"):
        make_writer(f"sb3:{path}")
    check_policy(f"sb3:{path}", trust_checkpoint=True)
    # trusted, the zip is unpickled and then judged as any checkpoint: this one is no catalogue of the env's
    with pytest.raises(ConfigError, match="not a catalogue sidecar"):
        make_policy(f"sb3:{path}", env, trust_checkpoint=True)
    env.close()


def test_an_unknown_policy_class_name_is_refused(tmp_path: Path) -> None:
    path = save_checkpoint(tiny_model(), tmp_path / "ck", design="catalogue", algo="maskable_ppo")
    for name in ("os:system", "vmb_agents.sb3.slots.policy:SlotPointerPolicy", "Evil"):
        sidecar = json.loads(sidecar_path(path).read_text())
        sidecar["sb3"]["policy_class"] = name
        sidecar_path(path).write_text(json.dumps(sidecar))
        with pytest.raises(ConfigError, match=rf"unknown policy class {name!r}; this version knows .*MlpPolicy.*"
                                              r"SlotPointerPolicy.*never by a module path"):
            load_checkpoint(path)


def test_weights_that_do_not_fit_the_sidecar_are_refused(tmp_path: Path) -> None:
    path = save_checkpoint(tiny_model(), tmp_path / "ck", design="catalogue", algo="maskable_ppo")
    sidecar = json.loads(sidecar_path(path).read_text())
    sidecar["sb3"]["observation_space"]["shape"] = [5]
    sidecar_path(path).write_text(json.dumps(sidecar))
    with pytest.raises(ConfigError, match="the weights do not fit the model its sidecar describes"):
        load_checkpoint(path)


def test_convert_checkpoint_needs_trust_and_writes_a_checkpoint_that_acts_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_gym.cli import main

    model = tiny_model(learn=16)
    path = _legacy(tmp_path, model)
    with pytest.raises(ConfigError, match="--trust-checkpoint"):
        convert_checkpoint(path)
    assert main(["train", "convert-checkpoint", str(path), "--out", str(tmp_path / "new" / "ck")]) == 2
    assert main(["train", "convert-checkpoint", str(path), "--out", str(tmp_path / "new" / "ck"),
                 "--trust-checkpoint"]) == 0
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["ck.safetensors", "ck.vmb.json"]
    no_pickle(monkeypatch)
    loaded, sidecar = load_checkpoint(tmp_path / "new" / "ck")
    assert (sidecar["design"], sidecar["catalogue"], sidecar["format_version"]) == ("catalogue", {"k": 1},
                                                                                   FORMAT_VERSION)
    _same_outputs(model, loaded)


def test_a_new_checkpoint_continues_training(tmp_path: Path) -> None:
    model = tiny_model(learn=16)
    path = save_checkpoint(model, tmp_path / "ck", design="catalogue", algo="maskable_ppo")
    again, _ = load_checkpoint(path, env=TinyEnv())
    assert again.num_timesteps == 16
    again.learn(16, reset_num_timesteps=False)
    assert again.num_timesteps == 32
    with pytest.raises(ConfigError, match="do not fit"):  # an env of other spaces
        load_checkpoint(path, env=TinyEnv(obs_dim=5))


@pytest.mark.slow  # imports peft and transformers
def test_the_shipped_lora_adapters_load_from_safetensors_without_unpickling(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trust boundary of docs/trust.md covers the LM side too: peft reads the shipped adapters' safetensors."""
    pytest.importorskip("peft")
    from peft.utils import load_peft_weights

    from vmb_agents.llm.hf import ADAPTER_DIR

    folders = sorted(p for p in ADAPTER_DIR.iterdir() if p.is_dir())
    assert [p.name for p in folders] == ["smollm2-vmb", "smollm2-vmb-reader"]
    no_pickle(monkeypatch)
    for folder in folders:
        assert not list(folder.glob("*.bin")) and not list(folder.glob("*.pt"))
        weights = load_peft_weights(str(folder), device="cpu")
        assert weights and all("lora_" in name for name in weights)
