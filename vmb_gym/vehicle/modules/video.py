"""video: vehicle video system related (6 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_int

QUALITIES = ("270p", "480p", "720p", "1080p")
#: Chinese quality labels the official code accepts (matched after stripping the input).
QUALITY_ALIASES = {
    "流畅 270p": "270p",
    "流畅 270P": "270p",
    "标清 480p": "480p",
    "标清 480P": "480p",
    "高清 720p": "720p",
    "高清 720P": "720p",
    "蓝光 1080p": "1080p",
    "蓝光 1080P": "1080p",
}
SCENES = ("foreground", "background")
#: Chinese scene names the official code accepts (exact, not stripped).
SCENE_ALIASES = {"前景": "foreground", "后景": "background"}


def _match(value: Any, choices: tuple[str, ...], aliases: dict[str, str]) -> str | None:
    """Equality-based lookup (never hashes ``value``, so a list is simply not found)."""
    for alias, canonical in aliases.items():
        if value == alias:
            return canonical
    for choice in choices:
        if value == choice:
            return choice
    return None


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

    @vehicle_api()
    def carcontrol_video_play_video(self, video_name: str) -> Result:
        """Play a video by name. This is the primary video playback function.

        A falsy or blank name is rejected with no side effect; a truthy non-string (a number, a
        list) is an error. Otherwise the video system is switched on and the stripped name plays.
        """
        if not video_name or not video_name.strip():
            raise Rejected("Video name must be a non-empty string")
        name = video_name.strip()
        self.state["is_on"] = True
        self.state["current_video"] = {"name": name, "is_playing": True}
        return self.ok(f"Playing video {name}")

    @vehicle_api()
    def carcontrol_video_set_fullscreen(self, fullscreen: bool) -> Result:
        """Set fullscreen state.

        Switches the video system on; ``fullscreen`` is coerced with ``bool()``.
        """
        self.state["is_on"] = True
        self.state["is_fullscreen"] = bool(fullscreen)
        return self.ok("Fullscreen enabled" if self.state["is_fullscreen"] else "Fullscreen disabled")

    @vehicle_api(quality=OneOf(*QUALITIES, aliases=QUALITY_ALIASES, note="input is stripped first"))
    def carcontrol_video_set_quality(self, quality: str) -> Result:
        """Set video quality (270p/480p/720p/1080p).

        Switches the video system on first (kept when the quality is rejected). The input is
        converted with ``str()`` and stripped, then matched exactly (``"720P"`` is rejected) or
        through the Chinese labels such as ``"高清 720p"``.
        """
        self.state["is_on"] = True
        value = _match(str(quality).strip(), QUALITIES, QUALITY_ALIASES)
        if value is None:
            raise Rejected(f"Video quality must be one of {', '.join(QUALITIES)}, got {quality!r}")
        self.state["quality"] = value
        return self.ok(f"Video quality set to {value}")

    @vehicle_api(scene=OneOf(*SCENES, aliases=SCENE_ALIASES))
    def carcontrol_video_set_scene(self, scene: str) -> Result:
        """Set video scene (foreground/background).

        Switches the video system on first (kept when the scene is rejected). Exact match, no
        stripping; 前景/后景 are accepted.
        """
        self.state["is_on"] = True
        value = _match(scene, SCENES, SCENE_ALIASES)
        if value is None:
            raise Rejected(f"Video scene must be one of {', '.join(SCENES)}, got {scene!r}")
        self.state["scene"] = value
        return self.ok(f"Video scene set to {value}")

    @vehicle_api(volume=IntRange(0, 100, unit="percent"))
    def carcontrol_video_set_volume(self, volume: int) -> Result:
        """Set volume (0-100).

        Switches the video system on first, so it is on even when the volume is rejected.
        """
        self.state["is_on"] = True
        require_int(volume, 0, 100, "Video volume")
        self.state["volume"] = volume
        return self.ok(f"Video volume set to {volume}")

    @vehicle_api()
    def carcontrol_video_switch(self, switch: bool) -> Result:
        """Turn the video system on or off.

        ``switch`` is coerced with ``bool()``; switching off also resets the current video.
        """
        on = bool(switch)
        self.state["is_on"] = on
        if not on:
            self.state["current_video"] = {"name": "", "is_playing": False}
        return self.ok("Video system turned on" if on else "Video system turned off")
