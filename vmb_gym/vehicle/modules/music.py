"""music: vehicle music system related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Music(VehicleModule):
    """Vehicle music system related."""

    KEY = "music"
    TYPE_NAME = "Music"
    DESCRIPTION = "Vehicle music system related"
    FIELDS = {
        "is_on": Field(False, "Whether music is on"),
        "play_mode": Field("sequential", "Play mode"),
        "volume": Field(50, "Music volume (0-100)"),
        "lyrics_display_enabled": Field(False, "Whether lyrics are shown"),
        "current_song": Field({"name": "", "artist": "", "is_favorited": False}, "Current song info (name, artist, is_favorited)"),
        "favorite_list": Field([], "Favorite songs"),
    }
    __slots__ = ()
