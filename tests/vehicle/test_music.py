"""Music APIs: play_song payload, favourites list paths, auto-on before validation."""

from __future__ import annotations

import pytest

from vmb_gym.vehicle import VehicleSimulator


def _state(sim: VehicleSimulator) -> dict:
    return sim.module("music").state


def test_play_song_stores_stripped_payload_and_turns_on() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_music_play_song", {"song_name": "  Yellow Submarine ", "artist": " The Beatles "})
    assert res["success"] is True
    flat = sim.flatten()
    assert flat["music.value.is_on"] is True
    assert flat["music.value.current_song.value.name"] == "Yellow Submarine"
    assert flat["music.value.current_song.value.artist"] == "The Beatles"
    assert flat["music.value.current_song.value.is_favorited"] is False


@pytest.mark.parametrize("artist", [None, "", "   ", 0, False, []])
def test_play_song_falsy_or_blank_artist_is_empty(artist: object) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_play_song", {"song_name": "稻香", "artist": artist})["success"] is True
    assert _state(sim)["current_song"] == {"name": "稻香", "artist": "", "is_favorited": False}


@pytest.mark.parametrize("name", ["", "   ", "\t\n", None, 0, False, []])
def test_play_song_rejects_empty_name_without_side_effect(name: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_music_play_song", {"song_name": name})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is False


def test_play_song_non_string_name_is_error_without_side_effect() -> None:
    sim = VehicleSimulator()
    assert "error" in sim.call("carcontrol_music_play_song", {"song_name": 5})
    assert _state(sim)["is_on"] is False


def test_play_song_bad_artist_errors_after_auto_on() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_music_play_song", {"song_name": "Song A"})
    sim.call("carcontrol_music_switch", {"switch": False})
    res = sim.call("carcontrol_music_play_song", {"song_name": "Song B", "artist": 7})
    assert "error" in res
    assert _state(sim)["is_on"] is True
    assert _state(sim)["current_song"]["name"] == "Song A"


def test_favorite_without_song_fails_but_turns_music_on() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_music_set_favorite", {"favorite": True})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True
    assert _state(sim)["favorite_list"] == []


def test_favorite_list_paths_appear_and_disappear() -> None:
    sim = VehicleSimulator()
    assert "music.value.favorite_list[0]" not in sim.flatten()
    sim.call("carcontrol_music_play_song", {"song_name": "Song A"})
    sim.call("carcontrol_music_set_favorite", {"favorite": True})
    sim.call("carcontrol_music_set_favorite", {"favorite": True})  # no duplicate
    sim.call("carcontrol_music_play_song", {"song_name": "Song B", "artist": "Band"})
    sim.call("carcontrol_music_set_favorite", {"favorite": "false"})  # truthy string favourites
    flat = sim.flatten()
    assert flat["music.value.favorite_list[0]"] == "Song A"
    assert flat["music.value.favorite_list[1]"] == "Song B"
    assert "music.value.favorite_list[2]" not in flat
    # Replaying a favourite marks it favourited; unfavouriting removes it and shifts the list.
    sim.call("carcontrol_music_play_song", {"song_name": "Song A"})
    assert _state(sim)["current_song"]["is_favorited"] is True
    assert sim.call("carcontrol_music_set_favorite", {"favorite": False})["success"] is True
    flat = sim.flatten()
    assert flat["music.value.favorite_list[0]"] == "Song B"
    assert "music.value.favorite_list[1]" not in flat
    assert flat["music.value.current_song.value.is_favorited"] is False


def test_padded_replay_is_not_seen_as_favourite() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_music_play_song", {"song_name": " Song A "})
    sim.call("carcontrol_music_set_favorite", {"favorite": True})
    assert _state(sim)["favorite_list"] == ["Song A"]
    sim.call("carcontrol_music_play_song", {"song_name": " Song A "})
    assert _state(sim)["current_song"]["is_favorited"] is False
    sim.call("carcontrol_music_play_song", {"song_name": "Song A"})
    assert _state(sim)["current_song"]["is_favorited"] is True


def test_lyrics_display_turns_music_on_and_coerces() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_set_lyrics_display", {"enabled": "0"})["success"] is True
    assert _state(sim)["is_on"] is True and _state(sim)["lyrics_display_enabled"] is True
    sim.call("carcontrol_music_set_lyrics_display", {"enabled": []})
    assert _state(sim)["lyrics_display_enabled"] is False


@pytest.mark.parametrize(
    ("mode", "stored"), [("shuffle", "shuffle"), ("单曲循环", "single_loop"), ("列表循环", "list_loop")]
)
def test_set_play_mode(mode: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_set_play_mode", {"mode": mode})["success"] is True
    assert sim.flatten()["music.value.play_mode"] == stored
    assert _state(sim)["is_on"] is True


@pytest.mark.parametrize("mode", ["Shuffle", " shuffle ", "random", "", None, 1, ["shuffle"], {"value": "shuffle"}])
def test_set_play_mode_rejects_but_turns_on(mode: object) -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_music_set_play_mode", {"mode": mode})
    assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True and _state(sim)["play_mode"] == "sequential"


def test_set_volume_and_rejection_keeps_auto_on() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_set_volume", {"volume": 20})["success"] is True
    assert sim.flatten()["music.value.volume"] == 20
    sim.call("carcontrol_music_switch", {"switch": False})
    for bad in (-1, 101, "30", 30.0, None):
        res = sim.call("carcontrol_music_set_volume", {"volume": bad})
        assert res["success"] is False and "error" not in res
    assert _state(sim)["is_on"] is True and _state(sim)["volume"] == 20


def test_set_volume_false_is_stored_as_bool() -> None:
    sim = VehicleSimulator()
    assert sim.call("carcontrol_music_set_volume", {"volume": False})["success"] is True
    assert sim.flatten()["music.value.volume"] is False


def test_switch_coerces_and_keeps_song() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_music_play_song", {"song_name": "Song A"})
    assert sim.call("carcontrol_music_switch", {"switch": 0.0})["success"] is True
    assert _state(sim)["is_on"] is False
    assert _state(sim)["current_song"]["name"] == "Song A"
    sim.call("carcontrol_music_switch", {"switch": "false"})
    assert _state(sim)["is_on"] is True
    assert "error" in sim.call("carcontrol_music_switch", {"SWITCH": True})
