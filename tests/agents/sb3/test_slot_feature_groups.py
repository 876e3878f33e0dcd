"""Named slot-feature groups and the ablation that zeroes them (``drop_features``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.factory import make_policy
from vmb_agents.sb3.checkpoint import read_sidecar
from vmb_agents.sb3.slots import SlotCatalogue, SlotFeaturizer, make_slot_env
from vmb_agents.sb3.slots.layout import N_LINE_HASH, N_SLOT_ACTIONS, SLOT_SEARCH
from vmb_gym.errors import ConfigError
from vmb_gym.policy import run_episode

pytest.importorskip("sb3_contrib")


def _searched_env() -> gym.Env:
    """The slot env of default task 1_0 with the shipped catalogue (learned priors), after its searches."""
    catalogue = SlotCatalogue.from_json(read_sidecar("slots")["catalogue"])
    env = make_slot_env(gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6),
                        catalogue=catalogue)
    env.reset(options={"task_id": "1_0"})
    while env.action_masks()[SLOT_SEARCH]:
        env.step(SLOT_SEARCH)
    return env


def test_groups_lie_inside_a_row_and_never_touch_the_kind_columns() -> None:
    featurizer = SlotFeaturizer()
    groups = featurizer.feature_groups()
    assert len(groups["line_hash"]) == N_LINE_HASH and len(groups["line_prior"]) == 5
    for name, cols in groups.items():
        assert cols and min(cols) >= 3 and max(cols) < featurizer.row, name  # columns 0-2: finish/search/call


def test_dropping_a_group_zeroes_exactly_its_columns() -> None:
    env = _searched_env()
    inner = env.env
    full = SlotFeaturizer().features(inner.analysis, inner.episode).reshape(N_SLOT_ACTIONS, -1)
    dropped = SlotFeaturizer(drop=["line_prior", "line_hash"])
    ablated = dropped.features(inner.analysis, inner.episode).reshape(N_SLOT_ACTIONS, -1)
    cols = sorted(set(dropped.feature_groups()["line_prior"]) | set(dropped.feature_groups()["line_hash"]))
    assert np.abs(full[:, cols]).sum() > 0  # the prior and the hashed words say something on this task
    assert not ablated[:, cols].any()
    keep = [c for c in range(dropped.row) if c not in cols]
    np.testing.assert_array_equal(ablated[:, keep], full[:, keep])
    env.close()


def test_an_unknown_group_is_a_config_error_naming_the_groups() -> None:
    with pytest.raises(ConfigError, match=r"unknown feature group\(s\) \['prior'\].*line_prior"):
        SlotFeaturizer(drop=["prior"])


def test_drop_features_reaches_the_shipped_policy_through_policy_kwargs() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    policy = make_policy("sb3:slots", env, drop_features=["line_prior"])
    assert policy.featurizer.drop == ("line_prior",)
    episode = run_episode(env, policy, task_id="1_0")
    assert episode.terminated or episode.truncated
    with pytest.raises(ConfigError, match="unknown feature group"):
        make_policy("sb3:slots", env, drop_features=["nope"])
    with pytest.raises(ConfigError, match="expected a list of feature-group names"):
        make_policy("sb3:slots", env, drop_features=5)
    env.close()


def test_a_checkpoint_trained_without_groups_drops_them_when_loaded(tmp_path) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_agents.sb3.checkpoint import save_checkpoint
    from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy

    catalogue = SlotCatalogue.from_json(read_sidecar("slots")["catalogue"])
    featurizer = SlotFeaturizer(drop=["line_hash"])
    vec = DummyVecEnv([lambda: make_slot_env(gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25",
                                                      max_steps=6), catalogue=catalogue, featurizer=featurizer)])
    model = MaskablePPO(SlotPointerPolicy, vec, n_steps=16, batch_size=16, seed=0, device="cpu")
    path = save_checkpoint(model, tmp_path / "ablated", design="slots", algo="maskable_ppo",
                           meta=SlotSB3Policy.checkpoint_meta(catalogue, ["line_hash"]))
    assert read_sidecar(path)["featurizer"] == {"kind": "slots", "drop": ["line_hash"]}
    assert SlotSB3Policy.load(path).featurizer.drop == ("line_hash",)
    assert SlotSB3Policy.load(path, drop_features=["cues", "line_hash"]).featurizer.drop == ("line_hash", "cues")


def test_vmb_train_sb3_refuses_an_unknown_group_before_writing(tmp_path, capsys) -> None:
    from vmb_gym.cli import main

    assert main(["train", "sb3", "--drop-features", "line_prior,hashes", "--timesteps", "8",
                 "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "unknown feature group(s) ['hashes']" in err and "line_hash" in err
    assert not (tmp_path / "run").exists()
