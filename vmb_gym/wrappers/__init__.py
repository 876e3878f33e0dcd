"""Wrappers for the vehicle envs: one wrapper, one job."""

from __future__ import annotations

from vmb_gym.wrappers.call_cost import VehicleCallCost
from vmb_gym.wrappers.evaluation import EvaluationWrapper
from vmb_gym.wrappers.step_limit import ScoredStepLimit

__all__ = ["EvaluationWrapper", "ScoredStepLimit", "VehicleCallCost"]
