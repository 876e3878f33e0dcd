"""The KL penalty to the start policy (``vmb train sb3 --start CKPT --kl-to-start COEF``): zero at the start,
growing as the policy moves, in the loss only while PPO trains, and a trainer run that saves a loadable checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.envs import InvalidActionEnvDiscrete

from vmb_agents.sb3.kl_ppo import KLToStart, add_kl_to_start
from vmb_gym.errors import ConfigError


def _model() -> MaskablePPO:
    env = InvalidActionEnvDiscrete(dim=8, n_invalid_actions=3)
    return MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0, device="cpu",
                       learning_rate=1e-3, ent_coef=0.01)


def _batch(model: MaskablePPO, n: int = 16) -> tuple[th.Tensor, th.Tensor]:
    rng = np.random.default_rng(0)
    obs = th.as_tensor(rng.random((n, *model.observation_space.shape)), dtype=th.float32)
    masks = np.ones((n, int(model.action_space.n)), dtype=bool)
    masks[:, :3] = False  # three actions never allowed
    return obs, th.as_tensor(masks)


def _move(model: MaskablePPO, scale: float) -> None:
    with th.no_grad():
        generator = th.Generator().manual_seed(1)
        for p in model.policy.action_net.parameters():
            p.add_(scale * th.randn(p.shape, generator=generator))


def test_kl_is_zero_at_the_start_and_grows_as_the_policy_moves() -> None:
    model = _model()
    penalty = KLToStart(model, 0.1)
    obs, masks = _batch(model)
    assert float(penalty.kl(obs, masks).detach().abs().max()) < 1e-6
    kls = []
    for _ in range(3):
        _move(model, 0.5)
        kls.append(float(penalty.kl(obs, masks).detach().mean()))
    assert 0 < kls[0] < kls[1] < kls[2]
    assert penalty.kl(obs, masks).requires_grad  # the current policy's side carries the gradient
    assert not any(p.requires_grad for p in penalty.reference.parameters())


def test_the_penalty_enters_the_loss_only_while_training() -> None:
    model = _model()
    penalty = KLToStart(model, 0.5)
    _move(model, 0.5)
    obs, masks = _batch(model)
    actions = th.full((obs.shape[0],), 5)
    _, _, entropy = model.policy.evaluate_actions(obs, actions, action_masks=masks)
    kl = penalty.kl(obs, masks)
    with penalty.applied():
        assert model.ent_coef == 0.5
        _, _, carried = model.policy.evaluate_actions(obs, actions, action_masks=masks)
    # ent_coef * -mean(carried) = -0.01 * mean(entropy) + 0.5 * mean(KL): SB3's loss plus the penalty
    assert th.allclose(0.5 * -carried.mean(), -0.01 * entropy.mean() + 0.5 * kl.mean(), atol=1e-6)
    assert model.ent_coef == 0.01 and "evaluate_actions" not in vars(model.policy)
    assert penalty.last_kl == pytest.approx(float(kl.detach().mean()), rel=1e-5) and penalty.last_kl > 0


def test_ppo_with_the_penalty_runs_and_keeps_its_own_settings() -> None:
    model = _model()
    penalty = add_kl_to_start(model, 0.2)
    model.learn(64)
    assert penalty.kls and all(k >= 0 for k in penalty.kls)
    assert model.ent_coef == 0.01 and type(model) is MaskablePPO
    with pytest.raises(ConfigError, match="positive"):
        KLToStart(model, 0.0)


def test_training_from_a_start_with_the_penalty_saves_a_checkpoint_that_loads(tiny_data: str, tmp_path: Path) -> None:
    from vmb_agents.sb3.checkpoint import load_checkpoint
    from vmb_agents.train import sb3_slots

    out = tmp_path / "run"
    args = sb3_slots.Args(data=tiny_data, eval_data=tiny_data, official_data="", timesteps=16, n_steps=8,
                          n_envs=1, batch_size=8, max_steps=6, out=str(out), progress=False, start="slots",
                          kl_to_start=0.5, learning_rate=1e-3, ent_coef=0.0, train_eval_episodes=1)
    summary = sb3_slots.main(args)
    assert set(summary["held_out"]) == {"trained", "start", "rules", "random", "noop"}
    model, sidecar = load_checkpoint(out / "final", design="slots")
    start, _ = load_checkpoint("slots", design="slots")
    assert sidecar["start"]["checkpoint"] == "slots" and sidecar["start"]["kl_to_start"] == 0.5
    assert sidecar["sb3"]["hyperparameters"]["ent_coef"] == 0.0  # the model's own, not the penalty's weight
    assert sidecar["catalogue"] == json.loads(Path(out / "checkpoints" / "start.vmb.json").read_text())["catalogue"]
    moved = [not th.equal(a, b) for a, b in zip(model.policy.state_dict().values(),
                                                  start.policy.state_dict().values(), strict=True)]
    assert any(moved)  # PPO changed the weights it started from


def test_kl_to_start_without_a_start_is_refused(tmp_path: Path) -> None:
    from vmb_agents.train import sb3_slots

    with pytest.raises(ConfigError, match="--start"):
        sb3_slots.main(sb3_slots.Args(kl_to_start=0.1, out=str(tmp_path / "run"), official_data=""))
    with pytest.raises(ConfigError, match="max-steps 6"):
        sb3_slots.main(sb3_slots.Args(start="slots", max_steps=5, out=str(tmp_path / "run2"), official_data=""))
    assert not (tmp_path / "run").exists() and not (tmp_path / "run2").exists()  # refused before any work
