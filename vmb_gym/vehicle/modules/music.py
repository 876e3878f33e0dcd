"""music: vehicle music system related (6 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import Constraint, IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule, require_int

#: Official play modes.
PLAY_MODES: tuple[str, ...] = ("single_loop", "shuffle", "sequential", "list_loop")
PLAY_MODE_ALIASES: dict[str, str] = {
    "单曲循环": "single_loop",
    "随机播放": "shuffle",
    "顺序播放": "sequential",
    "列表循环": "list_loop",
}


def _play_mode(mode: Any) -> str:
    """Resolve a play mode the official way: exact match after alias lookup.

    Unlike most enum setters, any non-string (including a list or a map) is a handled rejection,
    not an ``error``.

    Raises:
        Rejected: the mode is not a string or not an official play mode.
    """
    if isinstance(mode, str):
        mode = PLAY_MODE_ALIASES.get(mode, mode)
        if mode in PLAY_MODES:
            return mode
    raise Rejected(f"play mode must be one of {', '.join(PLAY_MODES)}, got {mode!r}")


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
        "current_song": Field(
            {"name": "", "artist": "", "is_favorited": False}, "Current song info (name, artist, is_favorited)"
        ),
        "favorite_list": Field([], "Favorite songs"),
    }
    __slots__ = ()

    @vehicle_api(
        song_name=Constraint(note="free text, must be non-empty after stripping; stored stripped"),
        artist=Constraint(note="optional free text; stored stripped"),
    )
    def carcontrol_music_play_song(self, song_name: str, artist: str | None = None) -> Result:
        """Play a song by name. This is the primary music playback function.

        A falsy or whitespace-only ``song_name`` is rejected with no side effect (a truthy
        non-string such as ``5`` is an ``error``). Otherwise music is switched on first, then the
        current song becomes ``{name: song_name.strip(), artist: artist.strip() or "", is_favorited}``.
        A truthy non-string artist raises after music was switched on. Official quirk:
        ``is_favorited`` tests the *unstripped* name against ``favorite_list`` (which holds
        stripped names), so a padded name is never seen as a favourite.
        """
        if not song_name or not song_name.strip():
            raise Rejected("song name must not be empty")
        self.state["is_on"] = True
        artist_name = artist.strip() if artist else ""
        self.state["current_song"] = {
            "name": song_name.strip(),
            "artist": artist_name,
            "is_favorited": song_name in self.state["favorite_list"],
        }
        by = f" by {artist_name}" if artist_name else ""
        return self.ok(f"Playing {song_name.strip()}{by}")

    @vehicle_api()
    def carcontrol_music_set_favorite(self, favorite: bool) -> Result:
        """Add or remove current song from favorites.

        Switches music on first, then fails if no song has been played (so the failure still
        turns music on). ``favorite`` is coerced with ``bool()``: the current song's name is
        appended to ``favorite_list`` (once) or removed from it.
        """
        self.state["is_on"] = True
        name = self.state["current_song"]["name"]
        if not name:
            raise Rejected("no song is currently playing")
        value = bool(favorite)
        self.update_field("current_song", {"is_favorited": value})
        favorites = self.state["favorite_list"]
        if value and name not in favorites:
            self.state["favorite_list"] = [*favorites, name]
        elif not value and name in favorites:
            i = favorites.index(name)  # the official list.remove: the first occurrence only
            self.state["favorite_list"] = favorites[:i] + favorites[i + 1:]
        return self.ok(f"{name} {'added to' if value else 'removed from'} favorites")

    @vehicle_api()
    def carcontrol_music_set_lyrics_display(self, enabled: bool) -> Result:
        """Enable or disable lyrics display.

        Switches music on; ``enabled`` is coerced with ``bool()``.
        """
        self.state["is_on"] = True
        value = bool(enabled)
        self.state["lyrics_display_enabled"] = value
        return self.ok(f"Lyrics display {'enabled' if value else 'disabled'}")

    @vehicle_api(mode=OneOf(*PLAY_MODES, aliases=PLAY_MODE_ALIASES))
    def carcontrol_music_set_play_mode(self, mode: str) -> Result:
        """Set play mode (single_loop/shuffle/sequential/list_loop).

        Switches music on first, so music is on even when the mode is rejected. Matching is exact
        and case-sensitive (no trimming); Chinese aliases are accepted.
        """
        self.state["is_on"] = True
        value = _play_mode(mode)
        self.state["play_mode"] = value
        return self.ok(f"Play mode set to {value}")

    @vehicle_api(volume=IntRange(0, 100, unit="percent"))
    def carcontrol_music_set_volume(self, volume: int) -> Result:
        """Set volume (0-100).

        Switches music on first, so music is on even when the volume is rejected.
        """
        self.state["is_on"] = True
        require_int(volume, 0, 100, "music volume")
        self.state["volume"] = volume
        return self.ok(f"Music volume set to {volume}")

    @vehicle_api()
    def carcontrol_music_switch(self, switch: bool) -> Result:
        """Turn the music system on or off.

        ``switch`` is coerced with ``bool()``; switching off keeps the current song.
        """
        value = bool(switch)
        self.state["is_on"] = value
        return self.ok("Music turned on" if value else "Music turned off")
