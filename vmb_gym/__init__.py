"""vmb_gym: VehicleMemBench as a Gymnasium reinforcement-learning environment."""

from __future__ import annotations

__version__ = "0.1.0"

from gymnasium.envs.registration import register

register(id="VehicleMem-v0", entry_point="vmb_gym.envs.vehicle_mem:VehicleMemEnv")
register(id="VehicleMemStream-v0", entry_point="vmb_gym.envs.vehicle_mem_stream:VehicleMemStreamEnv")

__all__ = ["__version__"]
