"""``ToolEpisode`` and the vehicle tool methods, re-exported from their home :mod:`vmb_gym.envs.tool_episode`."""

from __future__ import annotations

from vmb_gym.envs.tool_episode import (
    DEFAULT_VEHICLE_TOOLS,
    ToolEpisode,
    vehicle_method,
    vehicle_methods,
    with_vehicle_tools,
)

__all__ = ["DEFAULT_VEHICLE_TOOLS", "ToolEpisode", "vehicle_method", "vehicle_methods", "with_vehicle_tools"]
