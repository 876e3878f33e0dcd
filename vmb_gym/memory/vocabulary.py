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

#: Words that start a condition clause ("when it rains", "if we're outside the city").
_CONDITION = re.compile(
    r"\b(?:when(?:ever)?|if|whenever|during|on (?:the )?(?:highway|freeway)s?|at night|in the (?:morning|evening|rain|city)"
    r"|outside (?:the )?city(?: limits)?|on (?:long|rainy|cold|hot|sunny) \w+|for (?:long|night) \w+)\b[^.,;!?]*",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\b\d{1,3}(?:\.\d)?\b")


@dataclass(frozen=True)
class Extraction:
    """What one utterance says about vehicle settings."""

    settings: frozenset[str]
    values: tuple[str, ...]
    condition: str | None

    @property
    def key(self) -> str:
        """One setting key: the most specific device setting, plus shared attributes (``a|b``)."""
        return setting_key(self.settings)


def setting_key(settings: Iterable[str]) -> str:
    """``device|attr,attr`` for a set of setting names (``""`` for no device)."""
    s = set(settings)
    dev = sorted(k for k in s if k not in ATTRIBUTES)
    att = sorted(k for k in s if k in ATTRIBUTES)
    d = max(dev, key=lambda k: (k.count("."), k)) if dev else ""
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
        self._values = re.compile(
            r"(?<![\w-])(?:" + "|".join(sorted((re.escape(v) for v in self.values), key=len, reverse=True)) + r")(?![\w-])"
        ) if self.values else None

    def settings(self, text: str) -> frozenset[str]:
        """Setting names that ``text`` mentions."""
        low = text.lower()
        return frozenset(k for k, p in self._patterns.items() if p.search(low))

    def extract(self, text: str) -> Extraction | None:
        """Settings, values and condition of an utterance (``None`` when it names no setting)."""
        found = self.settings(text)
        if not found:
            return None
        low = text.lower()
        values = tuple(dict.fromkeys([*(self._values.findall(low) if self._values else []), *_NUMBER.findall(low)]))
        m = _CONDITION.search(text)
        condition = m.group(0).strip().lower() if m else None
        return Extraction(found, values, condition)


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
