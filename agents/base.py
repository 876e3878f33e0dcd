"""The policy contract and the episode loop now live in :mod:`vmb_gym.policy`; re-exported here."""

from __future__ import annotations

from vmb_gym.policy import Episode, Policy, run_episode

__all__ = ["Episode", "Policy", "run_episode"]
