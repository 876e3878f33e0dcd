"""A KL penalty to a frozen start policy for MaskablePPO (``vmb train sb3 --start CKPT --kl-to-start COEF``).

PPO after an imitation warm start can drift away from what imitation taught on the states its
rollouts rarely reward. :func:`add_kl_to_start` keeps it near its start: every minibatch of
``MaskablePPO.train`` adds ``coef * mean KL(pi || pi_start)`` to the loss, the KL taken over the
allowed actions of the minibatch's states, with ``pi_start`` a frozen copy of the policy as it
was when the penalty was added.

The model stays a plain ``MaskablePPO`` with its own policy class, so its checkpoints save and
load as any (:func:`vmb_agents.sb3.checkpoint.save_checkpoint`). The term enters through the
loss's entropy slot, and only while ``train`` runs: there ``ent_coef`` is ``coef`` and the
policy's ``evaluate_actions`` returns ``(ent_coef / coef) * entropy - KL`` as its entropy, so
``ent_coef * -mean(entropy)`` is ``-ent_coef * mean(entropy) + coef * mean(KL)``, the loss SB3
writes plus the penalty. Outside ``train`` both are the model's own.

    model = MaskablePPO(SlotPointerPolicy, env, ...)
    model.policy.load_state_dict(start_weights)
    penalty = add_kl_to_start(model, 0.1)
    model.learn(10_000)
    penalty.last_kl  # the mean KL of the last minibatch
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch as th

from vmb_gym.errors import ConfigError

__all__ = ["KLToStart", "add_kl_to_start", "masked_kl"]


def masked_kl(policy: Any, reference: Any, observations: th.Tensor, action_masks: Any) -> th.Tensor:
    """Per state, ``KL(policy || reference)`` over the allowed actions (gradients flow through ``policy`` only)."""
    current = policy.get_distribution(observations, action_masks=action_masks).distribution
    with th.no_grad():
        start = reference.get_distribution(observations, action_masks=action_masks).distribution
    terms = current.probs * (current.logits - start.logits)
    if action_masks is not None:
        allowed = th.as_tensor(action_masks, dtype=th.bool, device=terms.device).reshape(terms.shape)
        terms = th.where(allowed, terms, th.zeros_like(terms))
    return terms.sum(-1)


class KLToStart:
    """The KL penalty of one model to a frozen copy of its policy now (see the module docstring).

    Args:
        model: a MaskablePPO model (its policy as the start).
        coef: weight of the mean KL in the loss (> 0).

    Raises:
        ConfigError: ``coef`` not positive.
    """

    def __init__(self, model: Any, coef: float) -> None:
        if not coef > 0:
            raise ConfigError(f"--kl-to-start: expected a positive weight, found {coef}; fix: e.g. 0.1, or leave the "
                              "option out (0) for PPO without the penalty")
        self.model, self.coef = model, float(coef)
        self.reference = copy.deepcopy(model.policy)
        self.reference.set_training_mode(False)
        for p in self.reference.parameters():
            p.requires_grad_(False)
        self.last_kl = 0.0
        self.kls: list[float] = []

    def kl(self, observations: th.Tensor, action_masks: Any = None) -> th.Tensor:
        """Per state, ``KL(current policy || start)`` over the allowed actions."""
        return masked_kl(self.model.policy, self.reference, observations, action_masks)

    def _evaluate_actions(self, own: Any, ent_coef: float) -> Any:
        def evaluate_actions(obs: th.Tensor, actions: th.Tensor,
                             action_masks: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
            values, log_prob, entropy = own(obs, actions, action_masks=action_masks)
            kl = self.kl(obs, action_masks)
            self.last_kl = float(kl.mean().detach())
            self.kls.append(self.last_kl)
            if entropy is None:  # SB3's stand-in for an entropy without a closed form
                entropy = -log_prob
            return values, log_prob, (ent_coef / self.coef) * entropy - kl

        return evaluate_actions

    @contextmanager
    def applied(self) -> Iterator[None]:
        """Within: the model's loss carries the penalty (its ``ent_coef`` and ``evaluate_actions`` swapped)."""
        model, policy = self.model, self.model.policy
        ent_coef = float(model.ent_coef)
        policy.evaluate_actions = self._evaluate_actions(type(policy).evaluate_actions.__get__(policy), ent_coef)
        model.ent_coef = self.coef
        self.kls = []
        try:
            yield
        finally:
            model.ent_coef = ent_coef
            del policy.evaluate_actions
            if self.kls and getattr(model, "_logger", None) is not None:  # set up by learn()
                model.logger.record("train/kl_to_start", sum(self.kls) / len(self.kls))


def add_kl_to_start(model: Any, coef: float) -> KLToStart:
    """Give ``model`` (MaskablePPO) the KL penalty to its policy now, in every ``train`` from here on.

    Raises:
        ConfigError: ``coef`` not positive.
    """
    penalty = KLToStart(model, coef)
    own_train = model.train

    def train() -> None:
        with penalty.applied():
            own_train()

    model.train = train
    return penalty
