"""vmb_gym: VehicleMemBench as a Gymnasium reinforcement-learning environment."""

from __future__ import annotations

__version__ = "0.1.0"
