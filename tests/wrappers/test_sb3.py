"""SB3 bridge: catalogue actions with masks, Box features, MaskablePPO smoke run, checkpoint policy."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

import vmb_gym  # noqa: F401
from vmb_gym.policy import Policy, run_episode
from vmb_gym.wrappers.catalogue import Catalogue, CatalogueActionWrapper, EpisodeText
from vmb_gym.wrappers.features import FeatureObservationWrapper, HashingFeaturizer
from vmb_agents.sb3.catalogue_policy import SB3Policy
from vmb_agents.sb3.checkpoint import save_checkpoint
from vmb_gym.wrappers.sb3 import make_sb3_env


def _env(tiny_data: str, memory: str = "bm25", **kw: object) -> gym.Env:
    return gym.make("VehicleMem-v0", data=tiny_data, memory=memory, max_steps=4, **kw)


def test_check_env_hashing_features(tiny_data: str) -> None:
    env = make_sb3_env(_env(tiny_data))
    assert isinstance(env.action_space, gym.spaces.Discrete)
    assert env.observation_space.shape == (512 + 1024 + 256 + 128 + 4,)
    check_env(env, skip_render_check=True)


def test_check_env_minilm_features(tiny_data: str) -> None:
    pytest.importorskip("sentence_transformers")
    env = make_sb3_env(_env(tiny_data), featurizer="minilm")
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (4 * 384 + 4,) and np.isclose(np.linalg.norm(obs[:384]), 1.0, atol=1e-4)


def test_feature_wrapper_alone_over_structured_actions(tiny_data: str) -> None:
    env = FeatureObservationWrapper(_env(tiny_data))
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    obs2, *_ = env.step({"name": "search_memory", "arguments": {"query": "seat heating"}})
    assert not np.allclose(obs, obs2)  # memory hits and results change the features


def test_hashing_is_deterministic_and_normalised() -> None:
    a, b = HashingFeaturizer(), HashingFeaturizer()
    v = a.encode("Warm my seat the way I like it", 512)
    assert np.array_equal(v, b.encode("Warm my seat the way I like it", 512))
    assert np.isclose(np.linalg.norm(v), 1.0) and not np.array_equal(v, a.encode("Set the mood lighting", 512))


def test_catalogue_holds_gold_calls_and_round_trips(tiny_data: str) -> None:
    env = CatalogueActionWrapper(_env(tiny_data))
    cat = env.catalogue
    assert 1000 < cat.n < 5000
    assert cat.entries[0].name == "finish" and cat.entries[1].name == "search_memory"
    for q in env.unwrapped.tasks.queries:
        for call in q.gold_calls:
            assert cat.index_of(call.name, call.arguments) is not None, call
    again = Catalogue.from_json(cat.to_json())
    assert again.n == cat.n and [e.arguments for e in again.entries] == [e.arguments for e in cat.entries]


def test_masks_follow_the_evidence(tiny_data: str) -> None:
    env = CatalogueActionWrapper(_env(tiny_data))
    cat = env.catalogue
    env.reset(options={"task_id": "1_2"})  # "Make the temperature the way I like" (gold: driver zone 22)
    gold = cat.index_of("carcontrol_airConditioner_set_temperature", {"zone": "driver", "temperature": 22})
    boundary = cat.index_of("carcontrol_airConditioner_set_temperature", {"zone": "driver", "temperature": 35})
    before = env.action_masks()
    assert before[0] and before[1]  # finish, search
    assert not before[gold]  # 22 is not in the request (the time 8:30 does not count)
    assert before[boundary]  # range boundaries are always allowed
    env.step(1)  # search memory over the request
    after = env.action_masks()
    assert after[0] and not after[1]  # searched once: no second search
    assert after[gold]  # "22 degrees" is in the hits
    absent = cat.index_of("carcontrol_airConditioner_set_temperature", {"zone": "driver", "temperature": 31})
    assert not after[absent]  # a value nowhere in the text never is
    blue = cat.index_of("carcontrol_light_set_ambient_color", {"color": "blue"})
    red = cat.index_of("carcontrol_light_set_ambient_color", {"color": "red"})
    assert after[blue] and not after[red]  # the hits name blue, not red
    env.step(gold)
    assert not env.action_masks()[gold]  # no repeats
    assert env.action_masks()[0]


def test_masked_actions_are_never_sampled(tiny_data: str) -> None:
    from sb3_contrib import MaskablePPO

    env = make_sb3_env(_env(tiny_data))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu")
    obs, _ = env.reset(seed=0)
    for _ in range(40):
        mask = env.get_wrapper_attr("action_masks")()
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            obs, _ = env.reset()


def test_smoke_training_checkpoint_and_policy(tiny_data: str, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    env = make_sb3_env(_env(tiny_data))
    model = MaskablePPO("MlpPolicy", env, n_steps=50, batch_size=50, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=200)
    assert model.num_timesteps >= 200
    path = save_checkpoint(model, tmp_path / "ckpt", design="catalogue", algo="maskable_ppo",
                           meta=SB3Policy.checkpoint_meta(env.get_wrapper_attr("catalogue"), env.featurizer))
    assert path.is_file() and (tmp_path / "ckpt.vmb.json").is_file()

    raw = _env(tiny_data)
    policy = SB3Policy.load(tmp_path / "ckpt.zip", raw)
    assert isinstance(policy, Policy)
    ep = run_episode(raw, policy, task_id="1_1")
    assert ep.terminated or ep.truncated
    assert all(isinstance(a, dict) and "name" in a for a in ep.actions)
    assert "exact_match" in ep.metrics
    # the loaded model picks the same first action as the trained one on the same features
    obs, info = raw.reset(options={"task_id": "1_0"})
    policy.reset(obs, info)
    first = policy.act(obs, info)
    feats, _ = env.reset(options={"task_id": "1_0"})
    action, _ = model.predict(feats, action_masks=env.get_wrapper_attr("action_masks")(), deterministic=True)
    assert first["name"] == env.get_wrapper_attr("catalogue").entries[int(action)].name


def test_episode_text_reads_gold_context(tiny_data: str) -> None:
    env = _env(tiny_data, memory="gold")
    obs, info = env.reset(options={"task_id": "1_0"})
    ep = EpisodeText()
    ep.on_reset(obs, info)
    assert "seat heating to level 3" in ep.context and "intelligent" not in ep.context
    cat = CatalogueActionWrapper(env).catalogue
    assert not cat.search  # gold memory does not retrieve
    assert cat.mask(ep)[cat.index_of("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3})]
