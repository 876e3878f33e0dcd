"""The vehicle world model: 23 modules, 111 official APIs, the official state flattening."""

from __future__ import annotations

from vmb_gym.vehicle.simulator import API_SPECS, MODULE_KEYS, MODULES, VehicleSimulator, initial_flat_state

__all__ = ["API_SPECS", "MODULE_KEYS", "MODULES", "VehicleSimulator", "initial_flat_state"]
