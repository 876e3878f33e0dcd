"""The preference catalogue: which vehicle APIs a generated preference can be about.

Built from the simulator's own vocabulary (:data:`vmb_gym.vehicle.API_SPECS`): each API gets a
spoken noun, its target parameter is classified (follows the person's seat, fixed at creation,
or situational), and the candidate values are filtered by executing them on a fresh
:class:`~vmb_gym.vehicle.VehicleSimulator`: a value is kept only if the call succeeds and
changes the state. APIs with at least two such values are *primary* (a preference can be
revised or disputed); the others (mostly "switch it on") are *companions* attached to a primary.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vmb_gym.generator import banks
from vmb_gym.vehicle import API_SPECS, VehicleSimulator

#: Parameter names whose value follows where the person sits.
SEAT_PARAMS: frozenset[str] = frozenset({"seat", "zone", "window", "door", "light", "position"})
#: Parameter names fixed once when the preference is created (part of what it is about).
FIXED_PARAMS: frozenset[str] = frozenset({"side", "sunshade", "wiper"})
#: Parameters filled from the query situation (said in the request).
SITUATIONAL_PARAMS: frozenset[str] = frozenset({"destination"})
#: APIs never used: no call of them changes a fresh car's state.
EXCLUDED: frozenset[str] = frozenset({"carcontrol_navigation_stop"})
#: Companion APIs that need another call first: api -> (prerequisite api, its arguments).
PREREQUISITES: dict[str, tuple[str, dict[str, Any]]] = {
    "carcontrol_fuelPort_set_open": ("carcontrol_fuelPort_set_locked", {"locked": False}),
}
#: Companions that only make sense after a given primary.
COMPANION_ONLY_AFTER: dict[str, str] = {"carcontrol_music_set_favorite": "carcontrol_music_play_song"}

FIXED_LABELS: dict[str, dict[str, str]] = {
    "side": {"left": "left mirror", "right": "right mirror", "both": "side mirrors"},
    "sunshade": {"front": "front sunshade", "rear": "rear sunshade", "all": "sunshades"},
    "wiper": {"front": "front wiper", "rear": "rear wiper", "all": "wipers"},
}
SEAT_LABELS: dict[str, str] = {
    "driver": "driver's seat", "passenger": "front passenger seat",
    "rear_left": "rear left seat", "rear_right": "rear right seat",
}

#: api -> spoken nouns (first is canonical). ``{t}`` is replaced by the fixed target's label.
NOUNS: dict[str, tuple[str, ...]] = {
    "carcontrol_HUD_set_brightness_level": ("the head-up display brightness", "the HUD brightness"),
    "carcontrol_HUD_set_height_level": ("the head-up display height", "the HUD height"),
    "carcontrol_HUD_switch": ("the head-up display", "the HUD"),
    "carcontrol_centerInformationDisplay_set_auto_brightness": ("auto-brightness on the centre screen",),
    "carcontrol_centerInformationDisplay_set_brightness": ("the centre screen brightness", ("the centre display "
                                                                                            "brightness")),
    "carcontrol_centerInformationDisplay_set_language": ("the centre screen language",),
    "carcontrol_centerInformationDisplay_set_power": ("the centre screen",),
    "carcontrol_centerInformationDisplay_set_time_format": ("the clock on the centre screen",),
    "carcontrol_instrumentPanel_set_auto_brightness": ("auto-brightness on the instrument panel",),
    "carcontrol_instrumentPanel_set_behavior_mode": ("the instrument panel lighting mode", ("the dashboard light "
                                                                                            "behaviour")),
    "carcontrol_instrumentPanel_set_brightness": ("the instrument panel brightness", "the dashboard brightness"),
    "carcontrol_instrumentPanel_set_color": ("the instrument panel colour", "the dashboard colour"),
    "carcontrol_instrumentPanel_set_language": ("the instrument panel language",),
    "carcontrol_instrumentPanel_set_theme": ("the instrument panel theme",),
    "carcontrol_instrumentPanel_set_time_format": ("the instrument panel clock",),
    "carcontrol_instrumentPanel_set_total_mileage": ("the logged odometer reading", "the mileage record"),
    "carcontrol_frontTrunk_set_open_degree": ("the front trunk opening", "how far the frunk opens"),
    "carcontrol_frontTrunk_switch": ("the front trunk",),
    "carcontrol_trunk_set_open_degree": ("the trunk opening", "how far the boot opens"),
    "carcontrol_trunk_switch": ("the trunk",),
    "carcontrol_fuelPort_set_locked": ("the fuel flap lock",),
    "carcontrol_fuelPort_set_open": ("the fuel flap",),
    "carcontrol_rearviewMirror_set_auto_fold_on_lock": ("auto-fold on lock for the {t}",),
    "carcontrol_rearviewMirror_set_auto_reverse_tilt": ("reverse tilt on the {t}",),
    "carcontrol_rearviewMirror_set_heating_enabled": ("heating on the {t}",),
    "carcontrol_rearviewMirror_set_height_position": ("the height of the {t}", "the {t} height"),
    "carcontrol_rearviewMirror_set_horizontal_position": ("the horizontal angle of the {t}", "the {t} angle"),
    "carcontrol_rearviewMirror_set_power": ("the {t} power",),
    "carcontrol_sunroof_set_locked": ("the sunroof lock",),
    "carcontrol_sunroof_set_open_degree": ("the sunroof opening", "how far the sunroof is open"),
    "carcontrol_navigation_navigate_to": ("the route type", "the route preference"),
    "carcontrol_navigation_set_map_view": ("the map view", "the navigation map view"),
    "carcontrol_navigation_set_map_zoom": ("the map zoom", "the navigation zoom level"),
    "carcontrol_navigation_set_speed_camera_alert": ("speed camera alerts",),
    "carcontrol_navigation_set_traffic_display": ("the traffic overlay on the map",),
    "carcontrol_navigation_set_voice_mode": ("the navigation voice", "the navigation voice mode"),
    "carcontrol_navigation_set_volume": ("the navigation volume", "the volume of the directions"),
    "carcontrol_navigation_switch": ("the navigation system",),
    "carcontrol_seat_set_backrest_angle": ("the backrest angle", "the seat back recline"),
    "carcontrol_seat_set_cushion_angle": ("the seat cushion angle", "the cushion tilt"),
    "carcontrol_seat_set_cushion_extension": ("the cushion extension", "the seat cushion length"),
    "carcontrol_seat_set_folded": ("the seat folded flat",),
    "carcontrol_seat_set_foot_support_height": ("the foot support height", "the footrest height"),
    "carcontrol_seat_set_headrest_height": ("the headrest height", "the head restraint height"),
    "carcontrol_seat_set_heating_level": ("the seat heating", "the seat warmer level"),
    "carcontrol_seat_set_heating_mode": ("the seat heater",),
    "carcontrol_seat_set_horizontal_position": ("the seat position front to back", "how far forward the seat sits"),
    "carcontrol_seat_set_leg_support_height": ("the leg support height", "the leg rest height"),
    "carcontrol_seat_set_massage_level": ("the seat massage", "the massage intensity"),
    "carcontrol_seat_set_massage_mode": ("the seat massage",),
    "carcontrol_seat_set_ventilation_enabled": ("the seat ventilation",),
    "carcontrol_seat_set_ventilation_speed": ("the seat ventilation speed", "the seat cooling fan"),
    "carcontrol_seat_set_vertical_position": ("the seat height", "how high the seat sits"),
    "carcontrol_radio_play_station": ("the radio station", "the station on the radio"),
    "carcontrol_radio_set_volume": ("the radio volume",),
    "carcontrol_radio_switch": ("the radio",),
    "carcontrol_airConditioner_set_air_direction": ("the air vents direction", "where the air blows"),
    "carcontrol_airConditioner_set_circulation": ("the air circulation",),
    "carcontrol_airConditioner_set_fan_speed": ("the fan speed", "the AC fan"),
    "carcontrol_airConditioner_set_mode": ("the climate mode", "the AC mode"),
    "carcontrol_airConditioner_set_power": ("the air conditioning",),
    "carcontrol_airConditioner_set_temperature": ("the cabin temperature", "the AC temperature"),
    "carcontrol_footPedal_set_switch": ("the foot pedal",),
    "carcontrol_bluetooth_set_connection": ("the bluetooth connection",),
    "carcontrol_video_play_video": ("the video on the screen", "the show on the screen"),
    "carcontrol_video_set_fullscreen": ("the video in full screen",),
    "carcontrol_video_set_quality": ("the video quality", "the video resolution"),
    "carcontrol_video_set_scene": ("the video playback",),
    "carcontrol_video_set_volume": ("the video volume",),
    "carcontrol_video_switch": ("the video player",),
    "carcontrol_window_set_auto_close_on_lock": ("auto-close on lock for the window",),
    "carcontrol_window_set_child_lock": ("the window child lock",),
    "carcontrol_window_set_open": ("the window",),
    "carcontrol_window_set_open_degree": ("the window opening", "how far the window is down"),
    "carcontrol_door_set_locked": ("the door lock",),
    "carcontrol_door_set_open": ("the door",),
    "carcontrol_door_set_open_warning": ("the door open warning",),
    "carcontrol_sunshade_set_auto_close_on_lock": ("auto-close on lock for the {t}",),
    "carcontrol_sunshade_set_open": ("the {t}",),
    "carcontrol_sunshade_set_open_degree": ("the {t} position", "how far the {t} is open"),
    "carcontrol_wiper_set_open": ("the {t}",),
    "carcontrol_wiper_set_speed": ("the {t} speed", "how fast the {t} go"),
    "carcontrol_music_play_song": ("the song", "the music track"),
    "carcontrol_music_set_favorite": ("the song in my favourites",),
    "carcontrol_music_set_lyrics_display": ("the lyrics display",),
    "carcontrol_music_set_play_mode": ("the music play mode", "the playback mode"),
    "carcontrol_music_set_volume": ("the music volume",),
    "carcontrol_music_switch": ("the music player",),
    "carcontrol_overheadScreen_set_brightness_level": ("the rear overhead screen brightness", ("the ceiling screen "
                                                                                               "brightness")),
    "carcontrol_overheadScreen_set_language": ("the overhead screen language",),
    "carcontrol_overheadScreen_set_time_format": ("the overhead screen clock",),
    "carcontrol_overheadScreen_switch": ("the overhead screen",),
    "carcontrol_steeringWheel_set_heating_enabled": ("the steering wheel heater",),
    "carcontrol_steeringWheel_set_heating_level": ("the steering wheel heating", "the wheel warmer level"),
    "carcontrol_steeringWheel_set_view_display_enabled": ("the steering wheel display",),
    "carcontrol_light_set_ambient_color": ("the ambient light colour", "the cabin mood lighting colour"),
    "carcontrol_light_set_ambient_enabled": ("the ambient lighting",),
    "carcontrol_light_set_auto_headlight": ("the automatic headlights",),
    "carcontrol_light_set_daytime_running": ("the daytime running lights",),
    "carcontrol_light_set_fog_light": ("the fog lights",),
    "carcontrol_light_set_hazard": ("the hazard lights",),
    "carcontrol_light_set_high_beam": ("the high beams",),
    "carcontrol_light_set_left_turn": ("the left indicator",),
    "carcontrol_light_set_low_beam_enabled": ("the low beams",),
    "carcontrol_light_set_low_beam_level": ("the low beam level", "the headlight level"),
    "carcontrol_light_set_position": ("the position lights",),
    "carcontrol_light_set_reading_light": ("the reading light",),
    "carcontrol_light_set_reading_light_brightness": ("the reading light brightness", "how bright the reading lamp is"),
    "carcontrol_light_set_right_turn": ("the right indicator",),
    "carcontrol_light_set_tail": ("the tail lights",),
}

_ENUM_WORDS: dict[str, str] = {
    "2d": "2D", "3d": "3D", "12h": "12-hour", "24h": "24-hour", "heading_up": "heading-up",
    "north_up": "north-up", "no_highway": "no-highway", "no_toll": "toll-free", "single_loop": "single-song loop",
    "list_loop": "list loop", "min": "minimum", "max": "maximum", "close": "closed", "face_feet": "face and feet",
    "face_window": "face and windscreen", "feet_window": "feet and windscreen",
    "face_feet_window": "face, feet and windscreen", "270p": "270p", "480p": "480p", "720p": "720p",
    "1080p": "1080p",
}


@dataclass(frozen=True)
class SlotType:
    """One API as a preference topic.

    Attributes:
        api: the function name.
        module: its module key.
        nouns: spoken names (first canonical), possibly with a ``{t}`` target placeholder.
        value_params: the parameters that carry the preference.
        seat_param: the parameter that follows where the person sits, if any.
        seat_choices: the seats that parameter accepts.
        fixed_param: a target fixed at creation (``side``/``sunshade``/``wiper``), if any.
        situational: parameters said in the request (``destination``).
        values: candidate value dicts that succeed and change a fresh car, in a stable order.
        numeric: whether the value is one integer (corrections say "lower"/"raise").
    """

    api: str
    module: str
    nouns: tuple[str, ...]
    value_params: tuple[str, ...]
    seat_param: str | None
    seat_choices: tuple[str, ...]
    fixed_param: str | None
    situational: tuple[str, ...]
    values: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    numeric: bool = False

    @property
    def primary(self) -> bool:
        """A primary topic has at least two valid non-boolean values (switches are companions)."""
        return len(self.values) >= 2 and not isinstance(next(iter(self.values[0].values())), bool)

    @property
    def companion_value(self) -> Mapping[str, Any]:
        """The value a companion call uses: ``True`` for switches, else the first valid value."""
        for v in self.values:
            if next(iter(v.values())) is True:
                return v
        return self.values[0]


def render_value(value: Mapping[str, Any], api: str) -> str:
    """Speak a value dict: ``{"level": 3}`` -> ``"level 3"``, song -> ``"'X' by Y"``."""
    if "song_name" in value:
        return f"'{value['song_name']}' by {value['artist']}"
    if "video_name" in value:
        return f"'{value['video_name']}'"
    (name, v), = value.items()
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int):
        spec = API_SPECS[api].param(name)
        unit = spec.constraint.unit if spec.constraint else None
        if unit == "percent":
            return f"{v} percent"
        if unit == "celsius":
            return f"{v} degrees"
        if unit == "level":
            return f"level {v}"
        return str(v)
    if name == "name":  # radio station
        return str(v)
    return _ENUM_WORDS.get(str(v), str(v).replace("_", " "))


def _int_candidates(lo: int | None, hi: int | None, unit: str | None) -> list[int]:
    lo = 0 if lo is None else lo
    if hi is None:
        return [12040, 18500, 23250, 31075, 42810, 56100, 64830, 77300]
    if hi - lo <= 10 or unit == "celsius":
        return list(range(lo, hi + 1))
    return list(range(10, 100, 5))


def _param_candidates(api: str, pname: str) -> list[Any]:
    p = API_SPECS[api].param(pname)
    c = p.constraint
    if p.py_type is bool:
        return [True, False]
    if p.py_type is int:
        return _int_candidates(c.minimum if c else None, c.maximum if c else None, c.unit if c else None)
    if c is not None and c.choices:
        return list(c.choices)
    if pname == "name":
        return list(banks.STATIONS)
    if pname == "video_name":
        return list(banks.VIDEOS)
    return []


def _changes(calls: list[tuple[str, dict[str, Any]]]) -> bool:
    sim = VehicleSimulator()
    for name, args in calls:
        r = sim.call(name, args)
        if not r.get("success") or not r.get("current_state"):
            return False
    return True


def _value_changes(api: str, val: dict[str, Any], targets: list[dict[str, Any]], situational: tuple[str, ...]) -> bool:
    """Whether ``api`` with value ``val`` changes the car for every seat/fixed target (after its prerequisite
    or companion call); each target is tried."""
    prereq = PREREQUISITES.get(api)
    after = COMPANION_ONLY_AFTER.get(api)
    ok = True
    for target in targets:
        args: dict[str, Any] = dict(target)
        for s in situational:
            args[s] = banks.DESTINATIONS[0]
        args.update(val)
        calls: list[tuple[str, dict[str, Any]]] = []
        if prereq:
            calls.append((prereq[0], dict(prereq[1])))
        if after:
            calls.append((after, {"song_name": banks.SONGS[0][0], "artist": banks.SONGS[0][1]}))
        calls.append((api, args))
        if not _changes(calls):
            ok = False
    return ok


def _build(api: str) -> SlotType | None:
    spec = API_SPECS[api]
    names = [p.name for p in spec.params]
    seat_param = next((n for n in names if n in SEAT_PARAMS), None)
    fixed_param = next((n for n in names if n in FIXED_PARAMS), None)
    situational = tuple(n for n in names if n in SITUATIONAL_PARAMS)
    if api == "carcontrol_music_play_song":
        raw: list[dict[str, Any]] = [{"song_name": s, "artist": a} for s, a in banks.SONGS]
        value_params: tuple[str, ...] = ("song_name", "artist")
    elif api == "carcontrol_radio_play_station":
        raw = [{"name": s} for s in banks.STATIONS]
        value_params = ("name",)
    else:
        vp = [n for n in names if n not in SEAT_PARAMS | FIXED_PARAMS | SITUATIONAL_PARAMS]
        if len(vp) != 1:
            return None
        value_params = (vp[0],)
        raw = [{vp[0]: v} for v in _param_candidates(api, vp[0])]
    seat_choices: tuple[str, ...] = ()
    if seat_param is not None:
        c = spec.param(seat_param).constraint
        seat_choices = tuple(s for s in SEAT_LABELS if c is None or s in c.choices)
    fixed_choices = list(FIXED_LABELS[fixed_param]) if fixed_param else [None]
    targets = [{**({seat_param: seat} if seat_param is not None and seat is not None else {}),
                **({fixed_param: fx} if fixed_param is not None and fx is not None else {})}
               for seat in seat_choices or (None,) for fx in fixed_choices]
    values = [val for val in raw if _value_changes(api, val, targets, situational)]
    if not values:
        return None
    numeric = len(value_params) == 1 and spec.param(value_params[0]).py_type is int
    return SlotType(api, spec.module, NOUNS.get(api, (spec.description.rstrip("."),)), value_params, seat_param,
                    seat_choices, fixed_param, situational, tuple(values), numeric)


@functools.lru_cache(maxsize=1)
def catalogue() -> dict[str, SlotType]:
    """Every usable API as a :class:`SlotType` (API_SPECS order); cached."""
    out: dict[str, SlotType] = {}
    for api in API_SPECS:
        if api in EXCLUDED:
            continue
        st = _build(api)
        if st is not None:
            out[api] = st
    return out


def primaries() -> list[str]:
    """APIs with at least two valid values (they can be revised or disputed)."""
    return [a for a, s in catalogue().items() if s.primary]


def companions() -> list[str]:
    """APIs with a single valid value (switches), used as the second call of a routine."""
    return [a for a, s in catalogue().items() if not s.primary]
