"""What requests name (``vmb_gym.generator.request_profile``): the setting, only its device, or neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions, generate
from vmb_gym.generator.request_profile import RequestProfile, profile_of, request_naming, request_profile

SEAT_HEAT = "carcontrol_seat_set_heating_level"


@pytest.mark.parametrize(("request_text", "naming"), [
    ("At 8:00 AM, Ana said: 'Set the seat heating the way I like it.'", "setting"),
    ("At 8:00 AM, Ana said: 'Put my seat back the way I like it.'", "device"),
    ("At 8:00 AM, Ana said: 'My back is acting up again. Put things back the way I had them then.'", "neither"),
    # only the quote counts: the narrative's "seat" is where Ana sits, not what she asks for
    ("At 8:00 AM, Ana sat in the driver's seat. She said: 'Do the usual for this, please.'", "neither"),
    # no quote: the whole text is what was asked
    ("At 8:00 AM, Ana asked the car to adjust her seat.", "device"),
])
def test_request_naming(request_text: str, naming: str) -> None:
    assert request_naming(request_text, SEAT_HEAT) == naming


def test_profile_shares_and_distance() -> None:
    a = profile_of([("'Set the seat heating for me.'", SEAT_HEAT), ("'Do the usual.'", SEAT_HEAT)])
    assert a.counts == {"setting": 1, "neither": 1} and a.shares == {"setting": 0.5, "device": 0.0, "neither": 0.5}
    b = RequestProfile(queries=4, counts={"setting": 4})
    assert a.distance(b) == 0.5 and b.distance(b) == 0.0
    assert a.to_json()["counts"] == {"setting": 1, "device": 0, "neither": 1}


def test_indirect_requests_move_the_profile_towards_neither(tmp_path: Path) -> None:
    small = GeneratorOptions(seed=5, scenarios=4, history_length=200)
    generate(small, tmp_path / "plain")
    generate(GeneratorOptions(**{**small.to_json(), "indirect_requests": 1.0}), tmp_path / "indirect")
    plain, indirect = request_profile(tmp_path / "plain"), request_profile(tmp_path / "indirect")
    assert plain.queries == indirect.queries == 40
    assert indirect.shares["neither"] >= plain.shares["neither"] + 0.2, (plain.shares, indirect.shares)


def test_a_folder_without_histories_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="history"):
        request_profile(tmp_path)


@pytest.mark.needs_shared
def test_official_requests_name_less_than_the_embedded_benchmarks(official: Path) -> None:
    """Measured 2026-12-03: official 52% setting / 18% device / 30% neither; the embedded set 76% / 18% / 6%."""
    off, emb = request_profile(official), request_profile("default")
    assert off.queries == 400 and off.shares["neither"] > 0.2
    assert emb.shares["neither"] < 0.1 and emb.distance(off) > 0.2
