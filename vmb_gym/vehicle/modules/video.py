"""video: vehicle video system related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Video(VehicleModule):
    """Vehicle video system related."""

    KEY = "video"
    TYPE_NAME = "Video"
    DESCRIPTION = "Vehicle video system related"
    FIELDS = {
        "is_on": Field(False, "Whether video is on"),
        "quality": Field("480p", "Video quality"),
        "is_fullscreen": Field(False, "Whether video is fullscreen"),
        "scene": Field("foreground", "Playback scene"),
        "volume": Field(50, "Video volume (0-100)"),
        "current_video": Field({"name": "", "is_playing": False}, "Current video info (name, is_playing)"),
    }
    __slots__ = ()
