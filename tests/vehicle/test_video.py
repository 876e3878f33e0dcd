"""Video APIs: play (stripped name), auto-on before validation, quality/scene aliases, switch-off reset."""

from __future__ import annotations

from typing import Any

import pytest

from vmb_gym.vehicle import VehicleSimulator


def state(sim: VehicleSimulator) -> dict[str, Any]:
    return sim.module("video").state


def test_play_video_strips_and_switches_on() -> None:
    sim = VehicleSimulator()
    res = sim.call("carcontrol_video_play_video", {"video_name": "  Nature Documentary  "})
    assert res["success"] is True
    flat = sim.flatten()
    assert flat["video.value.current_video.value.name"] == "Nature Documentary"
    assert flat["video.value.current_video.value.is_playing"] is True
    assert flat["video.value.is_on"] is True


@pytest.mark.parametrize("name", ["", "   ", "\t\n", None, 0, False, []])
def test_play_video_rejects_blank_without_side_effect(name: Any) -> None:
    sim = VehicleSimulator()
    before = sim.flatten()
    assert sim.call_kind("carcontrol_video_play_video", {"video_name": name}) == "fail"
    assert sim.flatten() == before


@pytest.mark.parametrize("name", [5, True, 1.5, ["Movie"], {"name": "Movie"}])
def test_play_video_non_string_is_an_error(name: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_play_video", {"video_name": name}) == "error"
    assert state(sim)["is_on"] is False


def test_failed_play_keeps_current_video() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_video_play_video", {"video_name": "Movie"})
    assert sim.call_kind("carcontrol_video_play_video", {"video_name": ""}) == "fail"
    assert state(sim)["current_video"] == {"name": "Movie", "is_playing": True}


def test_set_fullscreen_switches_on_and_coerces() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_fullscreen", {"fullscreen": "0"}) == "ok"
    assert state(sim)["is_on"] is True and state(sim)["is_fullscreen"] is True
    sim2 = VehicleSimulator()
    assert sim2.call_kind("carcontrol_video_set_fullscreen", {"fullscreen": None}) == "ok"
    assert state(sim2)["is_on"] is True and state(sim2)["is_fullscreen"] is False


@pytest.mark.parametrize(
    ("quality", "stored"),
    [("1080p", "1080p"), ("270p", "270p"), (" 720p ", "720p"), ("高清 720p", "720p"), ("蓝光 1080P", "1080p"),
     (" 流畅 270p ", "270p"), ("标清 480P", "480p")],
)
def test_set_quality_accepts_labels(quality: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_quality", {"quality": quality}) == "ok"
    assert sim.flatten()["video.value.quality"] == stored
    assert state(sim)["is_on"] is True


@pytest.mark.parametrize(
    "quality", ["720P", "4k", "720", "高清", "高清720p", "", None, 1, ["720p"], {"value": "720p"}]
)
def test_set_quality_rejected_after_auto_on(quality: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_quality", {"quality": quality}) == "fail"
    assert state(sim)["is_on"] is True and state(sim)["quality"] == "480p"


@pytest.mark.parametrize(
    ("scene", "stored"), [("background", "background"), ("后景", "background"), ("前景", "foreground")]
)
def test_set_scene(scene: str, stored: str) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_scene", {"scene": scene}) == "ok"
    assert state(sim)["scene"] == stored and state(sim)["is_on"] is True


@pytest.mark.parametrize("scene", ["Background", " background ", " 前景 ", "背景", "", None, ["background"]])
def test_set_scene_rejected_after_auto_on(scene: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_scene", {"scene": scene}) == "fail"
    assert state(sim)["is_on"] is True and state(sim)["scene"] == "foreground"


def test_set_volume() -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_volume", {"volume": 100}) == "ok"
    assert state(sim)["volume"] == 100 and state(sim)["is_on"] is True


@pytest.mark.parametrize("volume", [-1, 101, "30", 30.5, None, [30]])
def test_set_volume_rejected_after_auto_on(volume: Any) -> None:
    sim = VehicleSimulator()
    assert sim.call_kind("carcontrol_video_set_volume", {"volume": volume}) == "fail"
    assert state(sim)["is_on"] is True and state(sim)["volume"] == 50


def test_switch_off_resets_current_video_but_not_quality() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_video_play_video", {"video_name": "Movie"})
    sim.call("carcontrol_video_set_quality", {"quality": "1080p"})
    assert sim.call_kind("carcontrol_video_switch", {"switch": False}) == "ok"
    assert state(sim)["current_video"] == {"name": "", "is_playing": False}
    assert state(sim)["is_on"] is False and state(sim)["quality"] == "1080p"


def test_switch_with_truthy_string_keeps_video() -> None:
    sim = VehicleSimulator()
    sim.call("carcontrol_video_play_video", {"video_name": "Movie"})
    assert sim.call_kind("carcontrol_video_switch", {"switch": "false"}) == "ok"
    assert state(sim)["is_on"] is True
    assert state(sim)["current_video"] == {"name": "Movie", "is_playing": True}
