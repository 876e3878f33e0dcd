"""The everyday vehicle words of vmb_gym: one lexicon beside the simulator's vocabulary.

The simulator's own vocabulary (module keys, API names, parameter choices, aliases, ranges) lives
in :data:`vmb_gym.vehicle.API_SPECS`; this module holds the hand-written tables that map everyday
wording onto it ("headrest", "take me to", "vents", "too bright"). Nothing here is derived from any
task's gold answer. Three readers use it:

- the rules baseline and the SB3 slot design (``vmb_agents.reader``, ``vmb_agents.sb3``): which words name a
  module or a function, value spellings, condition groups, stop words and line cues;
- rule-based memory extraction (:mod:`vmb_gym.memory.extraction`, used by the layered memory):
  setting keys, their trigger phrases and request hints, and the salience cues;
- anyone adding a synonym: add it here and every reader that uses that table sees it.

Where two readers need *different* word lists for a similar idea (three "preference" cues, two
condition tables) they stay separate, named entries: each was tuned with its reader and merging
them changes results. Each entry's comment says who reads it.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=4096)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A whole-word, case-insensitive pattern for ``phrase`` (spaces match any run of spaces or hyphens): how every
    reader matches the phrases of these tables."""
    body = r"[\s-]+".join(re.escape(p) for p in phrase.split())
    return re.compile(rf"(?<![\w]){body}(?![\w])", re.IGNORECASE)

# ---------------------------------------------------------------------- devices and functions
# (read by the rules baseline and the SB3 slot design)

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
    "carcontrol_centerInformationDisplay_set_auto_brightness": ("auto brightness", "auto-brightness",
                                                                "automatic brightness"),
    "carcontrol_centerInformationDisplay_set_brightness": ("brightness", "bright", "dim", "dimmer", "brighter", "glare",
                                                           "blinding", "too bright", "too dark", "can't see"),
    "carcontrol_centerInformationDisplay_set_language": ("language", "english", "chinese", "mandarin",
                                                         "native language"),
    "carcontrol_centerInformationDisplay_set_time_format": ("time format", "12-hour", "24-hour", "clock"),
    "carcontrol_centerInformationDisplay_set_power": ("screen on", "screen off", "display on", "display off"),
    "carcontrol_instrumentPanel_set_auto_brightness": ("auto brightness", "auto-brightness", "automatic brightness",
                                                       "sensor"),
    "carcontrol_instrumentPanel_set_behavior_mode": ("blink", "blinking", "behavior mode", "constant", "lighting mode",
                                                     "light behaviour", "light behavior", "behaviour mode"),
    "carcontrol_instrumentPanel_set_brightness": ("brightness", "bright", "dim", "dimmer", "brighter", "glare",
                                                  "blinding"),
    "carcontrol_instrumentPanel_set_color": ("color", "colour", "panel color", "panel colour", "calming", "green",
                                             "red", "orange", "yellow", "white", "black"),
    "carcontrol_instrumentPanel_set_language": ("language",),
    "carcontrol_instrumentPanel_set_theme": ("theme", "map theme", "scene theme", "layout"),
    "carcontrol_instrumentPanel_set_time_format": ("time format", "12-hour", "24-hour", "panel clock",
                                                   "dashboard clock"),
    "carcontrol_instrumentPanel_set_total_mileage": ("odometer", "mileage record", "total mileage", "odometer reading"),
    "carcontrol_frontTrunk_set_open_degree": ("open", "opens", "opening", "open degree"),
    "carcontrol_trunk_set_open_degree": ("open", "opens", "open degree", "opening"),
    "carcontrol_rearviewMirror_set_heating_enabled": ("heating", "heated", "defog", "fog", "fogged", "rain",
                                                      "can't see", "can't see a thing", "frost", "heat"),
    "carcontrol_rearviewMirror_set_horizontal_position": ("mirror position", "mirror angle", "horizontal",
                                                          "mirrors angle"),
    "carcontrol_rearviewMirror_set_height_position": ("height", "vertical", "tilt up", "tilt down", "mirror height"),
    "carcontrol_rearviewMirror_set_auto_fold_on_lock": ("fold", "folding", "auto fold", "fold on lock"),
    "carcontrol_rearviewMirror_set_auto_reverse_tilt": ("reverse", "reversing", "tilt", "tires", "curb"),
    "carcontrol_sunroof_set_open_degree": ("open", "open degree", "crack", "fresh air", "sunroof opening"),
    "carcontrol_navigation_navigate_to": ("navigate to", "take me to", "drive to", "go to", "head to", "heading to",
                                          "directions to", "route to", "destination", "navigate", "route type",
                                          "route preference"),
    "carcontrol_navigation_set_voice_mode": ("voice", "voice mode", "guidance", "prompts", "announcements", "chatty",
                                             "detailed", "mute", "muted", "quiet", "silent", "miss any turns",
                                             "turn-by-turn", "talking"),
    "carcontrol_navigation_set_map_view": ("map view", "view", "perspective", "3d", "2d", "north up", "north-up",
                                           "heading up", "heading-up", "terrain", "map"),
    "carcontrol_navigation_set_map_zoom": ("zoom", "zoom level", "zoomed", "zoom in", "zoom out", "map zoom"),
    "carcontrol_navigation_set_volume": ("navigation volume", "volume", "louder", "quieter", "loud",
                                         "volume of the directions"),
    "carcontrol_navigation_set_traffic_display": ("traffic", "congestion", "traffic display", "traffic overlay"),
    "carcontrol_navigation_set_speed_camera_alert": ("speed camera", "camera alert", "speed cameras", "speed trap"),
    "carcontrol_navigation_switch": ("navigation on", "turn on navigation", "check the route"),
    "carcontrol_seat_set_backrest_angle": ("backrest", "recline", "reclined", "back angle", "upright", "backrest angle",
                                           "driving position"),
    "carcontrol_seat_set_cushion_angle": ("cushion angle", "cushion tilt", "thigh angle"),
    "carcontrol_seat_set_cushion_extension": ("cushion extension", "extension", "extend the cushion", "thigh support",
                                              "cushion length"),
    "carcontrol_seat_set_folded": ("fold", "folded", "fold down"),
    "carcontrol_seat_set_foot_support_height": ("foot support", "footrest", "foot rest"),
    "carcontrol_seat_set_headrest_height": ("headrest", "head rest", "neck", "head restraint"),
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
                                              "seat higher", "seat lower", "height", "how high the seat sits"),
    "carcontrol_radio_play_station": ("station", "fm", "channel", "tune in", "frequency", "news station"),
    "carcontrol_radio_set_volume": ("radio volume", "volume"),
    "carcontrol_radio_switch": ("radio on", "turn on the radio", "radio off"),
    "carcontrol_airConditioner_set_air_direction": ("air direction", "direction", "vents", "vent", "blow", "blowing",
                                                    "feet", "face", "airflow", "aim", "where the air blows"),
    "carcontrol_airConditioner_set_circulation": ("circulation", "recirculation", "recirculate", "inside", "outside",
                                                  "fresh air", "smell", "smog", "fumes", "dust", "exhaust", "odor",
                                                  "pollen"),
    "carcontrol_airConditioner_set_fan_speed": ("fan speed", "fan", "airflow", "hurricane", "blast", "breeze",
                                                "stuffy"),
    "carcontrol_airConditioner_set_mode": ("ac mode", "purify", "dehumidify", "defrost", "defog", "swing", "auto mode",
                                           "humid", "foggy windshield", "muggy", "climate mode"),
    "carcontrol_airConditioner_set_power": ("ac on", "ac off", "turn on the ac", "air conditioning on"),
    "carcontrol_airConditioner_set_temperature": ("temperature", "temp", "degrees", "cool", "cooler", "warmer", "hot",
                                                  "cold", "chilly", "freezing", "heat", "cool me down", "heatwave",
                                                  "warm"),
    "carcontrol_footPedal_set_switch": ("pedal",),
    "carcontrol_bluetooth_set_connection": ("bluetooth", "connect my phone", "pair", "bluetooth connection"),
    "carcontrol_video_play_video": ("play the video", "play video", "watch", "play"),
    "carcontrol_video_set_quality": ("quality", "resolution", "1080p", "720p", "480p", "270p", "hd", "bandwidth",
                                     "data", "connection", "signal", "buffering"),
    "carcontrol_video_set_volume": ("video volume", "volume"),
    "carcontrol_video_switch": ("video on", "turn on the video"),
    "carcontrol_video_set_fullscreen": ("fullscreen", "full screen"),
    "carcontrol_video_set_scene": ("foreground", "background", "video playback"),
    "carcontrol_window_set_open_degree": ("open", "crack", "open degree", "percent", "%", "window opening",
                                          "how far the window is down"),
    "carcontrol_window_set_open": ("open the window", "close the window", "roll down", "roll up"),
    "carcontrol_window_set_child_lock": ("child lock", "child-lock", "kids", "child safety", "lock"),
    "carcontrol_window_set_auto_close_on_lock": ("auto close", "auto-close", "close on lock", "security", "parking",
                                                 "lock the car"),
    "carcontrol_door_set_locked": ("lock", "locked", "unlock"),
    "carcontrol_door_set_open_warning": ("open warning", "warning"),
    "carcontrol_sunshade_set_open_degree": ("open", "degree", "sunshade position", "sunshades position"),
    "carcontrol_wiper_set_speed": ("wiper speed", "speed", "faster", "slower", "how fast the wipers go", "wiper go"),
    "carcontrol_wiper_set_open": ("wipers on", "wipers off"),
    "carcontrol_music_play_song": ("play the song", "play", "song", "put on", "music track"),
    "carcontrol_music_set_volume": ("volume", "louder", "quieter", "audio level", "sound level", "turn it up",
                                    "turn it down", "loud"),
    "carcontrol_music_set_play_mode": ("play mode", "loop", "repeat", "shuffle", "random", "sequential", "in order",
                                       "on repeat", "single loop", "music mode", "playback mode"),
    "carcontrol_music_set_lyrics_display": ("lyrics", "sing along", "sing-along", "karaoke"),
    "carcontrol_music_set_favorite": ("favorite", "favourite", "favorites"),
    "carcontrol_music_switch": ("music on", "turn on the music", "music off"),
    "carcontrol_overheadScreen_set_brightness_level": ("brightness", "bright", "dim", "too bright", "brighter",
                                                       "glare"),
    "carcontrol_overheadScreen_set_language": ("language", "english", "chinese", "native language"),
    "carcontrol_overheadScreen_set_time_format": ("time format", "12-hour", "24-hour", "overhead screen clock",
                                                  "ceiling screen clock"),
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
    "carcontrol_light_set_low_beam_level": ("low beam", "low beams", "beam level", "headlight level"),
    "carcontrol_light_set_daytime_running": ("daytime running", "drl"),
    "carcontrol_light_set_hazard": ("hazard", "hazards", "flashers"),
    "carcontrol_light_set_reading_light": ("reading light", "reading lamp", "map light", "reading", "read",
                                           "see my notes", "blueprint"),
    "carcontrol_light_set_reading_light_brightness": ("reading light", "reading brightness", "reading lamp", "too dim",
                                                      "book", "notes", "reading", "reading light brightness",
                                                      "how bright the reading lamp"),
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


# ---------------------------------------------------------------------- situations
#: Condition groups: words in a request and in a memory line that mark the same situation (rules
#: baseline and slot design; compare :data:`CONDITION_CLAUSE`, the memory extractor's clause cue).
CONDITIONS: dict[str, tuple[str, ...]] = {
    "night": ("night", "dark", "evening", "tonight", "dusk", "late", "pm"),
    "day": ("day", "daytime", "sunny", "sun", "bright day", "afternoon", "morning", "daylight", "noon"),
    "rain": ("rain", "rainy", "pouring", "storm", "wet", "drizzle"),
    "hot": ("hot", "heatwave", "scorching", "sweating", "warm day", "heat"),
    "cold": ("cold", "freezing", "chilly", "frost", "winter", "snow"),
    "highway": ("highway", "freeway", "motorway", "long drive", "road trip"),
    "city": ("city", "downtown", "traffic", "urban"),
}

#: The condition group that contradicts each group (a night setting is no answer for a day request).
OPPOSITE: dict[str, str] = {"night": "day", "day": "night", "hot": "cold", "cold": "hot"}

#: Words that start a condition clause ("when it rains", "if we're outside the city"); the memory
#: extractor keeps the clause as a fact's condition. Not :data:`CONDITIONS` (those are groups).
CONDITION_CLAUSE = re.compile(
    r"\b(?:when(?:ever)?|if|whenever|during|on (?:the )?(?:highway|freeway)s?|at night"
    r"|in the (?:morning|evening|rain|city)"
    r"|outside (?:the )?city(?: limits)?|on (?:long|rainy|cold|hot|sunny) \w+|for (?:long|night) \w+)\b[^.,;!?]*",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------- numbers
#: Small English number words (rules baseline: "two levels higher", "twenty-two degrees").
NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
#: Tens (and "hundred") for worded numbers such as "twenty-two".
TENS_WORDS: dict[str, int] = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                              "eighty": 80, "ninety": 90, "hundred": 100}

# ---------------------------------------------------------------------- setting keys
# (read by rule-based memory extraction, vmb_gym.memory.extraction; keys are ``module`` or
# ``module.attribute`` names of the simulator, plus the shared attributes below)

#: Attributes shared by several modules; a fact's key pairs one device setting with these.
SETTING_ATTRIBUTES: frozenset[str] = frozenset({"color", "brightness", "language", "time_format", "volume"})

#: Everyday phrases per setting key (lower case; matched on word boundaries). The rules' twin is
#: :data:`MODULE_WORDS` / :data:`API_WORDS` (keyed by module and function, not by setting key).
SETTING_SYNONYMS: dict[str, tuple[str, ...]] = {
    "instrumentPanel": ("instrument panel", "panel", "dashboard", "gauges", "cluster", "instrument"),
    "centerInformationDisplay": ("center display", "centre display", "center screen", "touchscreen",
                                 "infotainment", "screen", "display"),
    "HUD": ("hud", "head-up", "heads-up", "head up display"),
    "seat.headrest": ("headrest", "head rest"),
    "seat.backrest": ("backrest", "recline", "reclined", "seat back"),
    "seat.heating": ("seat heating", "heated seat", "seat warmer", "seat heat", "heated seats"),
    "seat.ventilation": ("ventilation", "ventilated", "seat cooling"),
    "seat.massage": ("massage",),
    "seat.position": ("seat position", "seat forward", "move the seat", "seat height", "my seat", "the seat",
                      "cushion", "lumbar", "leg support", "foot support", "driving position", "seat"),
    "airConditioner.temperature": ("temperature", "degrees", "thermostat", "warmer", "cooler", "too cold",
                                   "too hot", "freezing", "chilly", "cold", "hot"),
    "airConditioner.fan": ("fan", "airflow", "blower", "fan speed"),
    "airConditioner.mode": ("a/c", "ac", "air conditioning", "air conditioner", "defrost", "defog",
                            "dehumidify", "purify", "swing", "climate"),
    "airConditioner.circulation": ("recirculation", "circulation", "outside air", "fresh air", "recirculate"),
    "airConditioner.direction": ("vents", "air direction", "blowing", "blow"),
    "navigation.voice": ("navigation voice", "voice guidance", "voice mode", "directions", "chatty", "mute",
                         "muted", "detailed", "voice"),
    "navigation.route": ("route", "highway", "highways", "toll", "tolls", "fastest", "shortest"),
    "navigation.map": ("map", "zoom", "3d", "2d", "north up", "heading up"),
    "navigation": ("navigation", "navigate", "nav", "gps", "traffic", "speed camera"),
    "music": ("music", "song", "playlist", "shuffle", "loop", "repeat", "lyrics", "track", "album", "artist"),
    "volume": ("volume", "louder", "quieter", "turn it up", "turn it down"),
    "radio": ("radio", "station", "fm"),
    "video": ("video", "movie", "fullscreen", "1080p", "720p", "480p", "270p"),
    "light.ambient": ("ambient", "ambient light", "mood light", "interior light", "atmosphere lighting"),
    "light.reading": ("reading light", "reading lamp", "dome light"),
    "light.exterior": ("headlight", "headlights", "high beam", "high beams", "low beam", "low beams", "fog light",
                       "fog lights", "hazard", "hazards", "daytime running", "tail light", "lights"),
    "window": ("window", "windows"),
    "door": ("door", "doors", "lock", "locked", "unlock"),
    "sunroof": ("sunroof", "moonroof"),
    "sunshade": ("sunshade", "shade", "blind", "blinds"),
    "wiper": ("wiper", "wipers"),
    "rearviewMirror": ("mirror", "mirrors"),
    "steeringWheel": ("steering wheel", "wheel heating", "heated wheel", "steering", "wheel heat", "wheel"),
    "trunk": ("trunk", "tailgate", "frunk", "front trunk"),
    "fuelPort": ("fuel", "gas cap", "charging port", "fuel door"),
    "bluetooth": ("bluetooth", "phone"),
    "overheadScreen": ("overhead screen", "overhead"),
    "footPedal": ("pedal", "pedals"),
    "color": ("color", "colour", "amber", "violet"),
    "brightness": ("brightness", "bright", "dim", "dimmer", "brighter", "blinding", "glare", "auto-brightness"),
    "language": ("language",),
    "time_format": ("24-hour", "12-hour", "time format"),
}


#: HUD). Used on the request side only (weaker than :data:`SETTING_SYNONYMS`), never to extract changes.
QUERY_HINTS: dict[str, tuple[str, ...]] = {
    "HUD": ("projection", "projected", "windshield display", "numbers on the windshield"),
    "instrumentPanel": ("dash", "speedometer", "odometer", "kilometers", "miles"),
    "overheadScreen": ("back screen", "rear screen", "back seat screen", "screen in the back", "back here"),
    "centerInformationDisplay": ("interface", "car interface", "clock", "time format"),
    "light.reading": ("reading", "read", "book", "documents", "blueprint", "maps to review"),
    "light.ambient": ("atmosphere", "lighting", "mood", "vibe", "theme", "glow", "interior lighting",
                      "focus color"),
    "light.exterior": ("pitch black", "dark road", "fog", "foggy"),
    "airConditioner.circulation": ("smell", "smells", "stink", "odor", "smog", "fumes", "exhaust", "factory",
                                   "pollen", "dust", "dusty", "stale", "stuffy", "air quality"),
    "airConditioner.mode": ("air", "windshield clear", "fogging", "foggy windows", "humid", "feet warm"),
    "airConditioner.temperature": ("scorching", "sweltering", "cool me down", "warm me up", "freezing",
                                   "heating", "heatwave", "hot day", "cold morning"),
    "steeringWheel": ("hands are cold", "hands are freezing", "cold hands", "my hands", "rubbed his hands",
                      "rubbed her hands", "heating"),
    "navigation.voice": ("turns", "turn instruction", "guidance", "alerts", "miss a turn", "miss any turns",
                         "instructions", "prompts"),
    "navigation.map": ("perspective", "overview", "view", "street names", "orientation", "maze", "layout",
                       "acreage", "elevation"),
    "navigation.route": ("way there", "commute", "detour"),
    "music": ("podcast", "audiobook", "symphony", "playlist", "tune", "tunes", "the zone", "focus song"),
    "volume": ("audio level", "sound level", "can barely hear", "too loud", "road noise", "noisy"),
    "seat.position": ("posture", "back pain", "my back", "boots", "legroom", "leg room", "knee", "leg"),
    "seat.massage": ("sore", "aching", "stiff"),
    "rearviewMirror": ("tight spot", "parking", "blind spot", "cargo"),
    "window": ("security", "neighborhood", "rain getting in"),
    "video": ("episode", "watch", "data cap", "billing cycle", "data plan"),
    "language": ("native language", "language i use"),
    "brightness": ("eyes are tired", "my eyes", "tired eyes", "eyes are sensitive", "eyes were", "blinding",
                   "dark out", "pitch black", "can't see", "can barely see", "hard to see", "glasses"),
    "color": ("atmosphere", "theme", "vibe", "mood", "calming", "focus color", "colour scheme"),
    "seat.heating": ("heating", "warm seat", "seat warm"),
    "airConditioner.direction": ("air on my face", "on my face", "my feet", "airflow setting", "air direction"),
    "navigation.destination": ("navigate to", "take me to", "directions to", "drive me to", "location of",
                               "address", "headquarters", "meeting", "appointment"),
    "person.state": ("usual", "standard", "normal", "normally", "default", "restore", "back to", "as before",
                     "like before", "used to", "preferred", "again", "anymore", "still"),
}

#: Setting names that come from :data:`DESTINATION_WORDING` / :data:`PERSON_STATE_WORDING` rather
#: than from the phrase tables.
SPECIAL_SETTINGS: frozenset[str] = frozenset({"navigation.destination", "person.state"})

#: Choice values too generic to name a setting by themselves ("on", "low", "map"): the memory
#: extractor does not add them to a setting's trigger phrases.
GENERIC_VALUES: frozenset[str] = frozenset({
    "on", "off", "all", "front", "rear", "left", "right", "both", "auto", "low", "high", "min", "max", "driver",
    "passenger", "close", "simple", "scene", "foreground", "background", "constant", "inside", "outside", "medium",
    "map", "face", "feet", "window", "chinese", "english", "blink",
})

# ---------------------------------------------------------------------- utterance cues
# (memory extraction's salience: does an utterance state a setting change or preference?)

#: Wording that makes an utterance a concrete setting change or preference rather than chit-chat.
CONTROL_WORDING = re.compile(
    r"\b(?:set|setting|switch\w*|turn\w*|crank\w*|bump\w*|lower\w*|rais\w+|increas\w+|decreas\w+|adjust\w*"
    r"|dim|dimm\w+|mut(?:e|ed|ing)|unmute\w*|enabl\w+|disabl\w+|activat\w+|deactivat\w+|chang\w+|put|keep"
    r"|open\w*|clos\w+|lock\w*|unlock\w*|boost\w*|max(?:ed)?|drop\w*|play\w*|resum\w+|paus\w+|extend\w*"
    r"|mov(?:e|ed|ing)|tilt\w*|reclin\w+|make it|let's|let me|can you|could you|please)\b"
)
#: First-person likes, needs and complaints ("I prefer", "too bright", "much better"), matched on
#: lower-cased text. The memory extractor's preference cue; not :data:`PREFERENCE_WORDS` (rules) nor
#: ``LINE_CUES["preference"]`` (slot design), which look for standing habits ("usually", "always").
PREFERENCE_WORDING = re.compile(
    r"\b(?:i prefer|i like|i love|i need|i want|i always|i usually|i can't|i cannot|i hate|too (?:bright|dark|dim"
    r"|cold|hot|warm|loud|quiet|strong|weak|low|high|glaring|harsh|sensitive|chatty|much)|much better|there we go"
    r"|there you go|that's better|perfect|better)\b"
)
#: A level, a number or a mode: the utterance names an amount.
LEVEL_WORDING = re.compile(r"\b(?:\d{1,3}|level|degrees?|percent|mode)\b")

#: A place someone plans to go ("I need to visit the District Court on Main Street", "meeting at the
#: Main Campus Library"): a navigation destination. Matched case-sensitively (the place is a name).
DESTINATION_WORDING = re.compile(
    r"\b(?:visit|meeting at|appointment at|going to|go to|heading to|head to|drive to|driving to|pick \w+ up at"
    r"|drop \w+ off at|stop at|stop by|navigate to|take me to)\s+(?:the\s+)?(?:[A-Z][\w'&-]*|\d+\w*)"
)
#: A change in a person's own situation that settings depend on ("my back is fully healed",
#: "I'm fully recovered from that flu", "the Beijing case settled").
PERSON_STATE_WORDING = re.compile(
    r"\b(?:i'm|i am|i've|i have|my|i)\b[^.!?]{0,40}?\b(?:healed|recovered|recovering|injur\w*|hurt\w*|sprain\w*"
    r"|broke|broken|surgery|pregnan\w*|flu|sick|allerg\w+|migraine|back pain|bad back|stiff neck|glasses"
    r"|contacts|eye drops|no longer|anymore|stop practicing|back to normal|back to local)\b"
    r"|\b(?:case|project|contract|trial|treatment|therapy|semester|season) (?:has |is |was )?(?:settled|ended|over"
    r"|finished|done|wrapped up)\b",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------- line cues
# (read by the rules baseline and the SB3 slot design: what kind of line a memory hit is)

#: A line that states a standing preference ("usually", "always", "I like"): the rules baseline ranks
#: its values higher. ``LINE_CUES["preference"]`` is this list plus satisfaction words ("just right",
#: "perfect"); :data:`PREFERENCE_WORDING` is the memory extractor's cue. Kept apart: merging changes
#: the rules' choices.
PREFERENCE_WORDS = re.compile(
    r"\b(usually|always|prefer|preferred|favorite|favourite|standard|normally|every time|whenever|"
    r"i like|i love|my usual|remember)\b", re.IGNORECASE)

#: Cues of a memory line, one pattern each (the SB3 slot design's line features): a standing
#: preference, a revision ("from now on"), a correction ("I meant"), a hypothetical ("I wonder if"),
#: a setting in another car ("the rental"), a negation, first-person wording, a question.
LINE_CUES: dict[str, re.Pattern[str]] = {
    "preference": re.compile(
        r"\b(usually|always|prefer|preferred|favou?rite|standard|normally|every time|whenever|"
        r"i like|i love|my usual|remember|just right|should be|feels? (?:just )?right|perfect)\b",
        re.I,
    ),
    "revision": re.compile(
        r"\b(switched|switch(?:ed)? my|update[ds]?|going forward|from today|from now on|changed|"
        r"change my|instead|anymore|no longer|new preference|these days|lately|let's make|"
        r"i've decided|starting today|now on)\b",
        re.I,
    ),
    "correction": re.compile(
        r"\b(wrong|mistake|mistaken|meant|sorry|correct(?:ion)?|i said|misspoke|scratch that|"
        r"not what i|actually)\b",
        re.I,
    ),
    "hypothetical": re.compile(
        r"\b(wonder|if we|if i|would feel|would be|maybe i'd|might try|probably awful|not now|"
        r"sounds wrong|swears by|anyone know|how to change|redesigned|read that|couldn't find|"
        r"someday|one day|imagine|trade this car)\b",
        re.I,
    ),
    "elsewhere": re.compile(
        r"\b(\w+'s car|work van|rental|taxi|dealership|demo(?:ed)?|car show|showroom|online|"
        r"other car|my old car|uber|hotel|office|at home|friend's|her car|his car)\b",
        re.I,
    ),
    "negation": re.compile(r"\b(not|never|hate|don't|dont|too|no more|can't|cannot|awful|terrible|wrong)\b", re.I),
    "self": re.compile(r"\b(i|i'm|i've|i'd|my|me|mine)\b", re.I),
    "question": re.compile(r"\?"),
}

#: Everyday wording of a setting said aside, beyond ``LINE_CUES["hypothetical"]`` and ``["elsewhere"]`` (kept out
#: of them: the slot design's features read those): wondered about, another person's view, another vehicle
#: ("Hypothetically, would 45 percent ...", "my brother keeps it at 10 in his own car"). Read by the rules baseline
#: (``vmb_agents.reader.hits.said_aside``).
ASIDE_WORDING = re.compile(
    r"\b(?:hypothetically|(?:his|her|their) own car|thinks i should|could never|not for me|even a normal setting|"
    r"i'd try|not driving though|different car|test drove|(?:his|her|their) van|each to their own|didn't buy it)\b",
    re.IGNORECASE)

# ---------------------------------------------------------------------- other words
#: Function words left out of content-word overlaps (rules baseline and slot design).
STOP_WORDS: frozenset[str] = frozenset(
    "the and that this with for you your have what when then than there they them their about just like want need "
    "make keep told said asked car back again usual time last setting settings please could would should into from "
    "driving drove driver seat passenger got going were was been being it's i'm let's also some more very really "
    "today tonight morning evening".split()
)

#: Capitalised words that start sentences or name things other than a value (lower case): the rules
#: baseline skips them when it reads a name (a radio station) out of a line.
NOT_VALUE_WORDS: frozenset[str] = frozenset(
    "i i'm i've i'd i'll is imagine hypothetically the a an for my in at on it it's that this what when where who why "
    "how if but and so yes no not ok okay please remind honestly actually somebody someone funny hmm ugh wait sorry "
    "scratch perfect much much better note usually normally most by on one here keep forget since update new let's "
    "just you after whenever when we really ha years did does do can could would should put set play station radio "
    "fm am".split())
