"""Vehicle-setting vocabulary for rule-based extraction (no LLM).

Setting keys are ``module`` or ``module.attribute`` names of the simulator (``seat.headrest``,
``instrumentPanel``), plus cross-module attributes (``color``, ``brightness``, ...). Trigger
phrases come from the simulator itself (module names, API names, allowed values from
``API_SPECS``) and from a hand-written table of everyday wording ("dashboard", "too cold").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

#: Attributes shared by several modules; a fact's key pairs one device setting with these.
ATTRIBUTES: frozenset[str] = frozenset({"color", "brightness", "language", "time_format", "volume"})

#: Everyday phrases per setting key (lower case; matched on word boundaries).
SYNONYMS: dict[str, tuple[str, ...]] = {
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

#: Request wording that points at a setting without naming it ("I can't see the projection" ->
#: HUD). Used on the request side only (weaker than :data:`SYNONYMS`), never to extract changes.
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

#: Wording that makes an utterance a concrete setting change or preference rather than chit-chat.
_CONTROL = re.compile(
    r"\b(?:set|setting|switch\w*|turn\w*|crank\w*|bump\w*|lower\w*|rais\w+|increas\w+|decreas\w+|adjust\w*"
    r"|dim|dimm\w+|mut(?:e|ed|ing)|unmute\w*|enabl\w+|disabl\w+|activat\w+|deactivat\w+|chang\w+|put|keep"
    r"|open\w*|clos\w+|lock\w*|unlock\w*|boost\w*|max(?:ed)?|drop\w*|play\w*|resum\w+|paus\w+|extend\w*"
    r"|mov(?:e|ed|ing)|tilt\w*|reclin\w+|make it|let's|let me|can you|could you|please)\b"
)
_PREFERENCE = re.compile(
    r"\b(?:i prefer|i like|i love|i need|i want|i always|i usually|i can't|i cannot|i hate|too (?:bright|dark|dim"
    r"|cold|hot|warm|loud|quiet|strong|weak|low|high|glaring|harsh|sensitive|chatty|much)|much better|there we go"
    r"|there you go|that's better|perfect|better)\b"
)
_LEVEL = re.compile(r"\b(?:\d{1,3}|level|degrees?|percent|mode)\b")


def salience(text: str, values: Iterable[str] = (), settings: Iterable[str] = ()) -> float:
    """How much an utterance reads as a setting change/preference (0 = chit-chat, up to 5).

    One point each for control wording ("set", "turn up", "let's"), preference wording ("I prefer",
    "too bright"), a level/number, an allowed value and a destination/situation pattern
    (:data:`SPECIAL_SETTINGS`); minus one for a bare question.
    """
    low = text.lower()
    s = 1.0 if SPECIAL_SETTINGS.intersection(settings) else 0.0
    control = bool(_CONTROL.search(low))
    s += 1.0 if control else 0.0
    s += 1.0 if _PREFERENCE.search(low) else 0.0
    s += 1.0 if _LEVEL.search(low) else 0.0
    s += 1.0 if any(True for _ in values) else 0.0
    if low.rstrip().endswith("?") and not control:
        s -= 1.0
    return max(s, 0.0)


#: A place someone plans to go ("I need to visit the District Court on Main Street", "meeting at the
#: Main Campus Library"): a navigation destination. Matched case-sensitively (the place is a name).
_DESTINATION = re.compile(
    r"\b(?:visit|meeting at|appointment at|going to|go to|heading to|head to|drive to|driving to|pick \w+ up at"
    r"|drop \w+ off at|stop at|stop by|navigate to|take me to)\s+(?:the\s+)?(?:[A-Z][\w'&-]*|\d+\w*)"
)
#: A change in a person's own situation that settings depend on ("my back is fully healed",
#: "I'm fully recovered from that flu", "the Beijing case settled").
_PERSON_STATE = re.compile(
    r"\b(?:i'm|i am|i've|i have|my|i)\b[^.!?]{0,40}?\b(?:healed|recovered|recovering|injur\w*|hurt\w*|sprain\w*"
    r"|broke|broken|surgery|pregnan\w*|flu|sick|allerg\w+|migraine|back pain|bad back|stiff neck|glasses"
    r"|contacts|eye drops|no longer|anymore|stop practicing|back to normal|back to local)\b"
    r"|\b(?:case|project|contract|trial|treatment|therapy|semester|season) (?:has |is |was )?(?:settled|ended|over"
    r"|finished|done|wrapped up)\b",
    re.IGNORECASE,
)
#: Setting names that come from :data:`_DESTINATION`/:data:`_PERSON_STATE` rather than vocabulary.
SPECIAL_SETTINGS: frozenset[str] = frozenset({"navigation.destination", "person.state"})

#: Words that start a condition clause ("when it rains", "if we're outside the city").
_CONDITION = re.compile(
    r"\b(?:when(?:ever)?|if|whenever|during|on (?:the )?(?:highway|freeway)s?|at night|in the (?:morning|evening|rain|city)"
    r"|outside (?:the )?city(?: limits)?|on (?:long|rainy|cold|hot|sunny) \w+|for (?:long|night) \w+)\b[^.,;!?]*",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d{1,3}(?:\.\d)?\b")


@dataclass(frozen=True)
class Extraction:
    """What one utterance says about vehicle settings."""

    settings: frozenset[str]
    values: tuple[str, ...]
    condition: str | None
    strength: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> str:
        """One setting key: the most strongly named device setting, plus shared attributes (``a|b``)."""
        return setting_key(self.settings, dict(self.strength))


def setting_key(settings: Iterable[str], strength: dict[str, int] | None = None) -> str:
    """``device|attr,attr`` for a set of setting names (``""`` for no device).

    The device is the one named by the longest phrase (``strength``: setting -> phrase length, as
    from :meth:`Vocabulary.strengths`; "airflow" beats "hot"), then the most specific name.
    """
    s = set(settings)
    st = strength or {}
    dev = sorted(k for k in s if k not in ATTRIBUTES)
    att = sorted(k for k in s if k in ATTRIBUTES)
    d = max(dev, key=lambda k: (st.get(k, 0), k.count("."), k)) if dev else ""
    return d + ("|" + ",".join(att) if att else "")


def family(setting: str) -> str:
    """The module part of a setting name (``seat.headrest`` -> ``seat``)."""
    return setting.split(".")[0]


class Vocabulary:
    """Compiled trigger phrases (from the simulator's API specs and :data:`SYNONYMS`)."""

    def __init__(self, extra: dict[str, Iterable[str]] | None = None) -> None:
        phrases: dict[str, set[str]] = {k: set(v) for k, v in SYNONYMS.items()}
        self.values: set[str] = set()
        for key, words in _simulator_phrases().items():
            phrases.setdefault(key, set()).update(words)
        for k, v in _simulator_values().items():
            phrases.setdefault(k, set()).update(v)
            self.values.update(v)
        for key, words in (extra or {}).items():
            phrases.setdefault(key, set()).update(w.lower() for w in words)
        self._patterns = {
            k: re.compile(r"(?<![\w-])(?:" + "|".join(sorted((re.escape(w) for w in ws), key=len, reverse=True))
                          + r")(?![\w-])")
            for k, ws in phrases.items() if ws
        }
        # prefilter: a phrase can only match where its first word is a word of the text
        self._by_first: dict[str, set[str]] = {}
        self._always: set[str] = set()
        for k, ws in phrases.items():
            for w in ws:
                m = _WORD.match(w)
                if m:
                    self._by_first.setdefault(m.group(0), set()).add(k)
                else:
                    self._always.add(k)
        self._hints = {
            k: re.compile(r"(?<![\w-])(?:" + "|".join(sorted((re.escape(w) for w in ws), key=len, reverse=True))
                          + r")(?![\w-])")
            for k, ws in QUERY_HINTS.items() if ws
        }
        self._values = re.compile(
            r"(?<![\w-])(?:" + "|".join(sorted((re.escape(v) for v in self.values), key=len, reverse=True)) + r")(?![\w-])"
        ) if self.values else None

    def settings(self, text: str) -> frozenset[str]:
        """Setting names that ``text`` mentions (plus a destination or a person's changed situation)."""
        return frozenset(self.strengths(text))

    def strengths(self, text: str) -> dict[str, int]:
        """Setting names that ``text`` mentions, each with the length of its longest matched phrase."""
        low = text.lower()
        found: dict[str, int] = {}
        cand = set(self._always)
        for word in _WORD.findall(low):
            cand.update(self._by_first.get(word, ()))
        for k in cand:
            p = self._patterns.get(k)
            if p is not None and p.search(low) is not None:
                found[k] = max(len(m.group(0)) for m in p.finditer(low))
        m = _DESTINATION.search(text)
        if m:
            found["navigation.destination"] = len(m.group(0))
        m = _PERSON_STATE.search(text)
        if m:
            found["person.state"] = 1
        return found

    def hints(self, text: str) -> frozenset[str]:
        """Setting names a request points at through :data:`QUERY_HINTS` wording."""
        low = text.lower()
        return frozenset(k for k, p in self._hints.items() if p.search(low))

    def extract_values(self, text: str) -> Extraction | None:
        """Values and condition of an utterance that names no setting ("set it to 8"), or ``None``."""
        low = text.lower()
        values = tuple(dict.fromkeys([*(self._values.findall(low) if self._values else []), *_NUMBER.findall(low)]))
        if not values:
            return None
        m = _CONDITION.search(text)
        return Extraction(frozenset(), values, m.group(0).strip().lower() if m else None)

    def extract(self, text: str) -> Extraction | None:
        """Settings, values and condition of an utterance (``None`` when it names no setting)."""
        strength = self.strengths(text)
        if not strength:
            return None
        low = text.lower()
        values = tuple(dict.fromkeys([*(self._values.findall(low) if self._values else []), *_NUMBER.findall(low)]))
        m = _CONDITION.search(text)
        condition = m.group(0).strip().lower() if m else None
        return Extraction(frozenset(strength), values, condition, tuple(sorted(strength.items())))


@lru_cache(maxsize=1)
def _simulator_phrases() -> dict[str, frozenset[str]]:
    """Module names of the simulator as phrases ("instrumentPanel" -> "instrument panel")."""
    try:
        from vmb_gym.vehicle import MODULE_KEYS
    except Exception:  # noqa: BLE001 - the vocabulary still works from SYNONYMS alone
        return {}
    out: dict[str, frozenset[str]] = {}
    for key in MODULE_KEYS:
        words = re.sub(r"([a-z])([A-Z])", r"\1 \2", key).lower()
        out[key] = frozenset({words})
    return out


@lru_cache(maxsize=1)
def _simulator_values() -> dict[str, frozenset[str]]:
    """Allowed string values per setting, from the API specs (``color`` -> red, green, ...)."""
    try:
        from vmb_gym.vehicle import API_SPECS
    except Exception:  # noqa: BLE001
        return {}
    out: dict[str, set[str]] = {}
    skip = {"on", "off", "all", "front", "rear", "left", "right", "both", "auto", "low", "high", "min", "max",
            "driver", "passenger", "close", "simple", "scene", "foreground", "background", "constant", "inside",
            "outside", "medium", "map", "face", "feet", "window", "chinese", "english", "blink"}
    for name, spec in API_SPECS.items():
        parts = name.split("_")
        if len(parts) < 2:
            continue
        module = parts[1]
        rest = "_".join(parts[2:])
        attr = next((a for a in ATTRIBUTES if a in rest), None)
        for p in spec.params:
            c = p.constraint
            if c is None or not c.choices:
                continue
            key = attr or module
            vals = {v.lower().replace("_", " ") for v in c.choices if v.isascii()} - skip
            out.setdefault(key, set()).update(vals)
    return {k: frozenset(v) for k, v in out.items()}
