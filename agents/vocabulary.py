"""Words for the vehicle APIs: which phrases name which function, and how values are spelled.

Used by the rule-based reading baseline (:mod:`agents.rules`). Everything here is derived from the
simulator vocabulary (``API_SPECS``: module names, parameter names, choices, aliases, ranges)
plus a hand-written table of everyday synonyms ("headrest", "take me to", "vents"). Nothing is
derived from any task's gold answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from vmb_gym.vehicle import API_SPECS, MODULE_KEYS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec

#: Everyday words naming each module (matched as whole words, case-insensitive).
MODULE_WORDS: dict[str, tuple[str, ...]] = {
    "HUD": ("hud", "head-up", "heads-up", "head up display", "projection", "projected"),
    "centerInformationDisplay": ("center display", "centre display", "central screen", "center screen", "main screen",
                                 "touchscreen", "infotainment", "screen", "display"),
    "instrumentPanel": ("instrument panel", "instrument cluster", "panel", "dash", "dashboard", "gauges", "cluster",
                        "speedometer", "dials"),
    "frontTrunk": ("front trunk", "frunk", "front boot"),
    "trunk": ("trunk", "tailgate", "rear trunk", "boot"),
    "fuelPort": ("fuel port", "fuel door", "gas cap", "fuel cap", "fuel flap"),
    "rearviewMirror": ("mirror", "mirrors", "side mirror", "side mirrors", "rearview"),
    "sunroof": ("sunroof", "moonroof"),
    "navigation": ("navigation", "nav", "gps", "route", "map", "directions", "navigate", "navigator"),
    "seat": ("seat", "seats"),
    "radio": ("radio", "station", "fm", "am station", "broadcast"),
    "airConditioner": ("ac", "a/c", "air conditioning", "air conditioner", "climate", "air", "vents", "vent",
                       "fan", "cabin", "temperature"),
    "footPedal": ("pedal", "pedals", "footrest pedal"),
    "bluetooth": ("bluetooth", "phone connection"),
    "video": ("video", "videos", "movie", "footage", "film", "clip"),
    "window": ("window", "windows"),
    "door": ("door", "doors"),
    "sunshade": ("sunshade", "sunshades", "sun shade", "shade", "blind", "blinds"),
    "wiper": ("wiper", "wipers"),
    "music": ("music", "song", "songs", "playlist", "audio", "track", "tune", "tunes"),
    "overheadScreen": ("overhead screen", "overhead", "rear screen", "back screen", "ceiling screen", "roof screen"),
    "steeringWheel": ("steering wheel", "wheel"),
    "light": ("light", "lights", "lighting", "lamp", "ambient", "glow", "mood"),
}

#: Phrases naming one function (or its field); matched as whole words. Weights favour specific names.
API_WORDS: dict[str, tuple[str, ...]] = {
    "carcontrol_HUD_set_brightness_level": ("hud brightness", "brightness", "bright", "dim", "dimmer", "brighter",
                                            "glare", "blinding", "can barely see", "speed"),
    "carcontrol_HUD_set_height_level": ("hud height", "height", "higher", "lower", "position", "too low", "too high"),
    "carcontrol_HUD_switch": ("hud on", "hud off", "turn on the hud", "turn off the hud"),
    "carcontrol_centerInformationDisplay_set_auto_brightness": ("auto brightness", "auto-brightness", "automatic brightness"),
    "carcontrol_centerInformationDisplay_set_brightness": ("brightness", "bright", "dim", "dimmer", "brighter", "glare",
                                                           "blinding", "too bright", "too dark", "can't see"),
    "carcontrol_centerInformationDisplay_set_language": ("language", "english", "chinese", "mandarin", "native language"),
    "carcontrol_centerInformationDisplay_set_time_format": ("time format", "12-hour", "24-hour", "clock"),
    "carcontrol_centerInformationDisplay_set_power": ("screen on", "screen off", "display on", "display off"),
    "carcontrol_instrumentPanel_set_auto_brightness": ("auto brightness", "auto-brightness", "automatic brightness", "sensor"),
    "carcontrol_instrumentPanel_set_behavior_mode": ("blink", "blinking", "behavior mode", "constant"),
    "carcontrol_instrumentPanel_set_brightness": ("brightness", "bright", "dim", "dimmer", "brighter", "glare", "blinding"),
    "carcontrol_instrumentPanel_set_color": ("color", "colour", "panel color", "panel colour", "calming", "green", "red",
                                             "orange", "yellow", "white", "black"),
    "carcontrol_instrumentPanel_set_language": ("language",),
    "carcontrol_instrumentPanel_set_theme": ("theme", "map theme", "scene theme", "layout"),
    "carcontrol_instrumentPanel_set_time_format": ("time format", "12-hour", "24-hour"),
    "carcontrol_frontTrunk_set_open_degree": ("open", "opens", "opening", "open degree"),
    "carcontrol_trunk_set_open_degree": ("open", "opens", "open degree", "opening"),
    "carcontrol_rearviewMirror_set_heating_enabled": ("heating", "heated", "defog", "fog", "fogged", "rain", "can't see",
                                                       "can't see a thing", "frost", "heat"),
    "carcontrol_rearviewMirror_set_horizontal_position": ("mirror position", "mirror angle", "horizontal"),
    "carcontrol_rearviewMirror_set_height_position": ("height", "vertical", "tilt up", "tilt down"),
    "carcontrol_rearviewMirror_set_auto_fold_on_lock": ("fold", "folding", "auto fold", "fold on lock"),
    "carcontrol_rearviewMirror_set_auto_reverse_tilt": ("reverse", "reversing", "tilt", "tires", "curb"),
    "carcontrol_sunroof_set_open_degree": ("open", "open degree", "crack", "fresh air"),
    "carcontrol_navigation_navigate_to": ("navigate to", "take me to", "drive to", "go to", "head to", "heading to",
                                          "directions to", "route to", "destination", "navigate"),
    "carcontrol_navigation_set_voice_mode": ("voice", "voice mode", "guidance", "prompts", "announcements", "chatty",
                                             "detailed", "mute", "muted", "quiet", "silent", "miss any turns",
                                             "turn-by-turn", "talking"),
    "carcontrol_navigation_set_map_view": ("map view", "view", "perspective", "3d", "2d", "north up", "north-up",
                                           "heading up", "heading-up", "terrain", "map"),
    "carcontrol_navigation_set_map_zoom": ("zoom", "zoom level", "zoomed", "zoom in", "zoom out"),
    "carcontrol_navigation_set_volume": ("navigation volume", "volume", "louder", "quieter", "loud"),
    "carcontrol_navigation_set_traffic_display": ("traffic", "congestion", "traffic display"),
    "carcontrol_navigation_set_speed_camera_alert": ("speed camera", "camera alert", "speed cameras", "speed trap"),
    "carcontrol_navigation_switch": ("navigation on", "turn on navigation", "check the route"),
    "carcontrol_seat_set_backrest_angle": ("backrest", "recline", "reclined", "back angle", "upright", "backrest angle",
                                           "driving position"),
    "carcontrol_seat_set_cushion_angle": ("cushion angle", "cushion tilt", "thigh angle"),
    "carcontrol_seat_set_cushion_extension": ("cushion extension", "extension", "extend the cushion", "thigh support"),
    "carcontrol_seat_set_folded": ("fold", "folded", "fold down"),
    "carcontrol_seat_set_foot_support_height": ("foot support", "footrest", "foot rest"),
    "carcontrol_seat_set_headrest_height": ("headrest", "head rest", "neck"),
    "carcontrol_seat_set_heating_level": ("seat heating", "heated seat", "seat heater", "heating level", "warm",
                                          "warmer", "heating", "freezing", "cold"),
    "carcontrol_seat_set_heating_mode": ("seat heating on", "heating on", "heat on"),
    "carcontrol_seat_set_horizontal_position": ("forward", "backward", "slide", "horizontal", "legroom", "fore-aft",
                                                "front to back", "how far forward", "fore and aft"),
    "carcontrol_seat_set_leg_support_height": ("leg support", "leg rest", "legrest", "calf", "boots", "knees"),
    "carcontrol_seat_set_massage_level": ("massage", "massage level", "back pain", "stiff", "sore", "knead"),
    "carcontrol_seat_set_massage_mode": ("massage on", "massage off", "vibrating"),
    "carcontrol_seat_set_ventilation_speed": ("ventilation", "ventilated", "seat cooling", "cooling seat",
                                              "ventilation speed", "sweaty back", "seat fan"),
    "carcontrol_seat_set_ventilation_enabled": ("ventilation on", "ventilation off"),
    "carcontrol_seat_set_vertical_position": ("seat height", "vertical", "raise the seat", "lower the seat",
                                              "seat higher", "seat lower", "height"),
    "carcontrol_radio_play_station": ("station", "fm", "channel", "tune in", "frequency", "news station"),
    "carcontrol_radio_set_volume": ("radio volume", "volume"),
    "carcontrol_radio_switch": ("radio on", "turn on the radio", "radio off"),
    "carcontrol_airConditioner_set_air_direction": ("air direction", "direction", "vents", "vent", "blow", "blowing",
                                                    "feet", "face", "airflow", "aim"),
    "carcontrol_airConditioner_set_circulation": ("circulation", "recirculation", "recirculate", "inside", "outside",
                                                  "fresh air", "smell", "smog", "fumes", "dust", "exhaust", "odor",
                                                  "pollen"),
    "carcontrol_airConditioner_set_fan_speed": ("fan speed", "fan", "airflow", "hurricane", "blast", "breeze", "stuffy"),
    "carcontrol_airConditioner_set_mode": ("ac mode", "purify", "dehumidify", "defrost", "defog", "swing", "auto mode",
                                           "humid", "foggy windshield", "muggy"),
    "carcontrol_airConditioner_set_power": ("ac on", "ac off", "turn on the ac", "air conditioning on"),
    "carcontrol_airConditioner_set_temperature": ("temperature", "degrees", "cool", "cooler", "warmer", "hot", "cold",
                                                  "chilly", "freezing", "heat", "cool me down", "heatwave", "warm"),
    "carcontrol_footPedal_set_switch": ("pedal",),
    "carcontrol_bluetooth_set_connection": ("bluetooth", "connect my phone", "pair"),
    "carcontrol_video_play_video": ("play the video", "play video", "watch", "play"),
    "carcontrol_video_set_quality": ("quality", "resolution", "1080p", "720p", "480p", "270p", "hd", "bandwidth",
                                     "data", "connection", "signal", "buffering"),
    "carcontrol_video_set_volume": ("video volume", "volume"),
    "carcontrol_video_switch": ("video on", "turn on the video"),
    "carcontrol_video_set_fullscreen": ("fullscreen", "full screen"),
    "carcontrol_video_set_scene": ("foreground", "background"),
    "carcontrol_window_set_open_degree": ("open", "crack", "open degree", "percent", "%"),
    "carcontrol_window_set_open": ("open the window", "close the window", "roll down", "roll up"),
    "carcontrol_window_set_child_lock": ("child lock", "child-lock", "kids", "child safety", "lock"),
    "carcontrol_window_set_auto_close_on_lock": ("auto close", "auto-close", "close on lock", "security", "parking",
                                                 "lock the car"),
    "carcontrol_door_set_locked": ("lock", "locked", "unlock"),
    "carcontrol_door_set_open_warning": ("open warning", "warning"),
    "carcontrol_sunshade_set_open_degree": ("open", "degree"),
    "carcontrol_wiper_set_speed": ("wiper speed", "speed", "faster", "slower"),
    "carcontrol_wiper_set_open": ("wipers on", "wipers off"),
    "carcontrol_music_play_song": ("play the song", "play", "song", "put on"),
    "carcontrol_music_set_volume": ("volume", "louder", "quieter", "audio level", "sound level", "turn it up",
                                    "turn it down", "loud"),
    "carcontrol_music_set_play_mode": ("play mode", "loop", "repeat", "shuffle", "random", "sequential", "in order",
                                       "on repeat", "single loop", "music mode"),
    "carcontrol_music_set_lyrics_display": ("lyrics", "sing along", "sing-along", "karaoke"),
    "carcontrol_music_set_favorite": ("favorite", "favourite", "favorites"),
    "carcontrol_music_switch": ("music on", "turn on the music", "music off"),
    "carcontrol_overheadScreen_set_brightness_level": ("brightness", "bright", "dim", "too bright", "brighter", "glare"),
    "carcontrol_overheadScreen_set_language": ("language", "english", "chinese", "native language"),
    "carcontrol_overheadScreen_set_time_format": ("time format", "12-hour", "24-hour"),
    "carcontrol_overheadScreen_switch": ("overhead screen on", "overhead screen off"),
    "carcontrol_steeringWheel_set_heating_level": ("heating level", "wheel heat", "heat", "heating", "warm", "warmer",
                                                   "cold hands", "hands"),
    "carcontrol_steeringWheel_set_heating_enabled": ("heating on", "heated wheel", "heat on", "cold hands"),
    "carcontrol_steeringWheel_set_view_display_enabled": ("view display",),
    "carcontrol_light_set_ambient_color": ("ambient", "ambient light", "color", "colour", "mood", "atmosphere",
                                           "vibes", "theme", "favorite color", "focus color", "lights"),
    "carcontrol_light_set_ambient_enabled": ("ambient on", "ambient off"),
    "carcontrol_light_set_auto_headlight": ("auto headlight", "auto headlights", "automatic headlights", "headlights",
                                            "safety settings"),
    "carcontrol_light_set_fog_light": ("fog light", "fog lights", "foglight", "foggy"),
    "carcontrol_light_set_high_beam": ("high beam", "high beams", "brights"),
    "carcontrol_light_set_low_beam_level": ("low beam", "low beams", "beam level"),
    "carcontrol_light_set_daytime_running": ("daytime running", "drl"),
    "carcontrol_light_set_hazard": ("hazard", "hazards", "flashers"),
    "carcontrol_light_set_reading_light": ("reading light", "reading lamp", "map light", "reading", "read",
                                           "see my notes", "blueprint"),
    "carcontrol_light_set_reading_light_brightness": ("reading light", "reading brightness", "reading lamp",
                                                      "too dim", "book", "notes", "reading"),
}

#: Used when only a module is named: its most common function gets a small bonus.
MODULE_DEFAULT: dict[str, str] = {
    "HUD": "carcontrol_HUD_set_brightness_level",
    "centerInformationDisplay": "carcontrol_centerInformationDisplay_set_brightness",
    "instrumentPanel": "carcontrol_instrumentPanel_set_brightness",
    "rearviewMirror": "carcontrol_rearviewMirror_set_horizontal_position",
    "navigation": "carcontrol_navigation_set_voice_mode",
    "seat": "carcontrol_seat_set_vertical_position",
    "airConditioner": "carcontrol_airConditioner_set_temperature",
    "music": "carcontrol_music_set_volume",
    "video": "carcontrol_video_play_video",
    "light": "carcontrol_light_set_ambient_color",
    "steeringWheel": "carcontrol_steeringWheel_set_heating_level",
    "overheadScreen": "carcontrol_overheadScreen_set_brightness_level",
    "radio": "carcontrol_radio_play_station",
    "window": "carcontrol_window_set_open_degree",
    "sunroof": "carcontrol_sunroof_set_open_degree",
    "trunk": "carcontrol_trunk_set_open_degree",
    "frontTrunk": "carcontrol_frontTrunk_set_open_degree",
    "wiper": "carcontrol_wiper_set_speed",
    "sunshade": "carcontrol_sunshade_set_open_degree",
}

#: Extra spellings of enum values (lower-case phrase -> canonical value), on top of each choice itself.
VALUE_SYNONYMS: dict[str, dict[str, str]] = {
    "mode@carcontrol_navigation_set_voice_mode": {
        "detailed": "detailed", "detail": "detailed", "verbose": "detailed", "simple": "simple", "brief": "simple",
        "concise": "simple", "minimal": "simple", "mute": "mute", "muted": "mute", "silent": "mute",
        "silence": "mute", "off": "mute",
    },
    "view": {"2d": "2d", "two-d": "2d", "flat": "2d", "3d": "3d", "three-d": "3d", "heading up": "heading_up",
             "heading-up": "heading_up", "north up": "north_up", "north-up": "north_up", "north": "north_up"},
    "circulation": {"inside": "inside", "internal": "inside", "recirculation": "inside", "recirculate": "inside",
                    "recirc": "inside", "outside": "outside", "external": "outside", "fresh air": "outside"},
    "quality": {"1080p": "1080p", "1080": "1080p", "full hd": "1080p", "720p": "720p", "720": "720p",
                "480p": "480p", "480": "480p", "270p": "270p", "270": "270p"},
    "mode@carcontrol_music_set_play_mode": {
        "single loop": "single_loop", "single-loop": "single_loop", "single_loop": "single_loop",
        "single song loop": "single_loop", "loop one song": "single_loop",
        "loop the song": "single_loop", "loop this song": "single_loop", "repeat one": "single_loop",
        "on repeat": "single_loop", "repeat": "single_loop", "shuffle": "shuffle", "random": "shuffle",
        "sequential": "sequential", "in order": "sequential", "list loop": "list_loop", "list_loop": "list_loop",
        "loop the playlist": "list_loop", "loop the list": "list_loop",
    },
    "language": {"english": "English", "chinese": "Chinese", "mandarin": "Chinese"},
    "time_format": {"12h": "12h", "12-hour": "12h", "12 hour": "12h", "24h": "24h", "24-hour": "24h",
                    "24 hour": "24h"},
    "theme": {"scene": "scene", "map": "map"},
    "mode@carcontrol_airConditioner_set_mode": {
        "auto": "auto", "purify": "purify", "purification": "purify", "dehumidify": "dehumidify",
        "dehumidifier": "dehumidify", "defrost": "defrost", "swing": "swing", "defog": "defog",
    },
    "mode@carcontrol_instrumentPanel_set_behavior_mode": {"constant": "constant", "blink": "blink",
                                                          "blinking": "blink"},
    "route_preference": {"fastest": "fastest", "shortest": "shortest", "no highway": "no_highway",
                         "no highways": "no_highway", "avoid highways": "no_highway", "avoid the highway": "no_highway",
                         "no toll": "no_toll", "no tolls": "no_toll", "avoid tolls": "no_toll", "toll free": "no_toll"},
    "degree": {"maximum": "max", "fully open": "max", "all the way": "max", "minimum": "min", "closed": "close",
               "shut": "close", "medium": "medium", "low": "low", "high": "high", "halfway": "medium"},
}

#: Condition groups: words in a request and in a memory line that mark the same situation.
CONDITIONS: dict[str, tuple[str, ...]] = {
    "night": ("night", "dark", "evening", "tonight", "dusk", "late", "pm"),
    "day": ("day", "daytime", "sunny", "sun", "bright day", "afternoon", "morning", "daylight", "noon"),
    "rain": ("rain", "rainy", "pouring", "storm", "wet", "drizzle"),
    "hot": ("hot", "heatwave", "scorching", "sweating", "warm day", "heat"),
    "cold": ("cold", "freezing", "chilly", "frost", "winter", "snow"),
    "highway": ("highway", "freeway", "motorway", "long drive", "road trip"),
    "city": ("city", "downtown", "traffic", "urban"),
}

OPPOSITE = {"night": "day", "day": "night", "hot": "cold", "cold": "hot"}

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90, "hundred": 100}
_NUM_RE = re.compile(
    r"(?<![\w.:])(\d{1,3})(?!\d)(?!:\d)(?:\s*(?:%|percent|degrees?|°c?|c\b))?"
    r"|\b((?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|hundred)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NumberMention:
    """A number written in a text (digits or English words) and where it starts."""

    value: int
    start: int
    worded: bool


def numbers_in(text: str) -> list[NumberMention]:
    """Every number from 0 to 100 written in ``text`` (digits or words), skipping clock times."""
    found: list[NumberMention] = []
    for m in _NUM_RE.finditer(text):
        if m.group(1) is not None:
            after = text[m.end(1): m.end(1) + 4].lower()
            if re.match(r"\s*(am|pm|a\.m|p\.m)\b", after):
                continue
            found.append(NumberMention(int(m.group(1)), m.start(), False))
        else:
            word = m.group(2).lower()
            parts = re.split(r"[- ]", word)
            value = _TENS.get(parts[0], _NUMBER_WORDS.get(parts[0], 0))
            if len(parts) > 1:
                value += _NUMBER_WORDS.get(parts[1], 0)
            found.append(NumberMention(value, m.start(), True))
    return found


def number_word(word: str) -> int | None:
    """The value of a small English number word or digits ("two" -> 2, "5" -> 5), else None."""
    w = word.lower()
    if w.isdigit():
        return int(w)
    if w in ("a", "an", "one", "a bit", "a little", "a touch", "slightly"):
        return 1
    return _NUMBER_WORDS.get(w)


@lru_cache(maxsize=4096)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A whole-word, case-insensitive pattern for ``phrase`` (spaces match any run of spaces or hyphens)."""
    body = r"[\s-]+".join(re.escape(p) for p in phrase.split())
    return re.compile(rf"(?<![\w]){body}(?![\w])", re.IGNORECASE)


def find_phrases(text: str, phrases: Iterable[str]) -> list[tuple[str, int]]:
    """The phrases of ``phrases`` that occur in ``text``, with their first position."""
    out = []
    for p in phrases:
        m = phrase_pattern(p).search(text)
        if m:
            out.append((p, m.start()))
    return out


def module_words(module: str) -> tuple[str, ...]:
    """Words naming ``module``: the table above plus the split camel-case key."""
    split = re.sub(r"([a-z])([A-Z])", r"\1 \2", module).lower()
    return tuple(dict.fromkeys((*MODULE_WORDS.get(module, ()), split)))


def api_words(api: str) -> tuple[str, ...]:
    """Words naming ``api``'s field: the table above plus the field name from the function name."""
    spec = API_SPECS[api]
    tail = api.split(f"_{spec.module}_", 1)[-1]
    tail = re.sub(r"^(set|switch)_?", "", tail).replace("_", " ").strip()
    generic = {"", "open", "enabled", "power", "level", "mode", "switch", "to", "navigate to", "open degree"}
    extra = (tail,) if tail not in generic else ()
    return tuple(dict.fromkeys((*API_WORDS.get(api, ()), *extra)))


def value_param(spec: ApiSpec) -> ParamSpec | None:
    """The parameter that carries the setting's value (not the seat/zone/side selector)."""
    selectors = {"seat", "zone", "side", "window", "door", "light", "sunshade", "wiper", "position"}
    for p in spec.params:
        if p.name in selectors and p.constraint is not None and p.constraint.choices:
            continue
        if p.name in ("route_preference", "artist", "frequency"):
            continue
        return p
    return None


def selector_param(spec: ApiSpec) -> ParamSpec | None:
    """The seat/zone/side selector of ``spec``, if it has one."""
    value = value_param(spec)
    for p in spec.params:
        if p is not value and p.constraint is not None and p.constraint.choices and p.required:
            return p
    return None


def enum_spellings(spec: ApiSpec, param: ParamSpec) -> dict[str, str]:
    """Lower-case phrase -> canonical value for an enum parameter (choices, aliases, synonyms)."""
    c = param.constraint
    table: dict[str, str] = {}
    if c is not None:
        for choice in c.choices:
            table[choice.lower()] = choice
            table[choice.lower().replace("_", " ")] = choice
        for alias, canon in c.aliases.items():
            table[alias.lower()] = canon
    table.update(VALUE_SYNONYMS.get(f"{param.name}@{spec.name}", VALUE_SYNONYMS.get(param.name, {})))
    if c is not None and c.choices:
        table = {k: v for k, v in table.items() if v in c.choices}
    return table


def enable_api(api: str) -> tuple[str, dict[str, object]] | None:
    """The minimal "switch it on" call for ``api``'s device: (function, fixed arguments) or None.

    Prefers a boolean function of the same module whose name shares the field word
    (``seat_set_heating_level`` -> ``seat_set_heating_mode``), then the module's switch/power.
    """
    spec = API_SPECS[api]
    own = value_param(spec)
    if own is not None and own.py_type is bool:
        return api, {own.name: True}
    generic = {"set", "level", "speed", "brightness", "color", "mode", "enabled", "light", "on", "lock", "auto",
               "open", "degree", "position", "switch"}

    def field_tokens(name: str) -> set[str]:
        return set(re.findall(r"[a-z]+", name.split(f"_{spec.module}_", 1)[-1])) - generic

    words = field_tokens(api)
    same_module = [s for s in API_SPECS.values() if s.module == spec.module and s.name != api]

    def bool_param(s: ApiSpec) -> str | None:
        vp = value_param(s)
        return vp.name if vp is not None and vp.py_type is bool else None

    best: ApiSpec | None = None
    overlap = 0
    for s in same_module:
        shared = len(words & field_tokens(s.name))
        if bool_param(s) is not None and shared > overlap:
            best, overlap = s, shared
    if best is None:
        for s in same_module:
            if bool_param(s) is not None and re.search(r"_(switch|set_power|set_open)$", s.name):
                best = s
                break
    if best is None:
        return None
    name = bool_param(best)
    assert name is not None
    return best.name, {name: True}


def all_modules() -> tuple[str, ...]:
    """The simulator's module keys."""
    return MODULE_KEYS
