"""Reading a setting's value out of a text: numbers in range, enum words, on/off, names, destinations.

:func:`extract_value` reads the value a memory line states for one function; :func:`request_value`
the value the request itself states; :func:`selector_value` the seat/zone/side the request means.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from vmb_agents.reader.params import enum_spellings, value_param
from vmb_agents.reader.request import Request
from vmb_agents.reader.words import find_phrases, module_words, numbers_in, phrase_pattern
from vmb_gym.vehicle import API_SPECS
from vmb_gym.vehicle.api import ApiSpec, ParamSpec
from vmb_gym.vehicle.lexicon import API_WORDS, NOT_VALUE_WORDS

_PREFER = re.compile(r"\b(prefer|like|love|want|need|set|switch|switched|change|changed|put|use|keep|always|"
                     r"favorite|favourite|back to|to|at|make it|there)\b", re.IGNORECASE)
_REJECT = re.compile(r"\b(too|not|hate|instead of|no more|than|don't|dont|can't|cannot|never|from)\b", re.IGNORECASE)
_MAX_WORDS = re.compile(r"\b(max|maxed|maximum|all the way up|highest|full blast|full|hurricane|strongest|"
                        r"brightest|loudest)\b", re.IGNORECASE)
_MIN_WORDS = re.compile(r"\b(minimum|lowest|all the way down|weakest|dimmest|softest)\b", re.IGNORECASE)
_ON = re.compile(r"\b(on|enable|enabled|activate|activated|turn on|switch on|engage|keep it on)\b", re.IGNORECASE)
_OFF = re.compile(r"\b(off|disable|disabled|deactivate|turn off|switch off|shut off|without)\b", re.IGNORECASE)


def extract_value(spec: ApiSpec, text: str, req: Request | None = None) -> Any:
    """The value of ``spec``'s setting stated in ``text`` (None when the text states none); see :func:`_extract`."""
    value = _extract_cached(spec.name, text)
    return dict(value) if isinstance(value, dict) else value


@lru_cache(maxsize=400_000)
def _extract_cached(api: str, text: str) -> Any:
    """:func:`_extract` of a function given by name, cached per (function, text)."""
    return _extract(API_SPECS[api], text)


def _extract(spec: ApiSpec, text: str, req: Request | None = None) -> Any:
    """The value of ``spec``'s setting stated in ``text`` (None when the text states none).

    Most settings have one value parameter and the value is returned as is; a few carry two
    parameters read together, returned as a ``{param: value}`` dict: a song and its artist
    (``'Slow Rivers' by Nina Vale``) and a route type (``navigate_to``'s ``route_preference``; the
    destination comes from the request).
    """
    vp = value_param(spec)
    if vp is None:
        return None
    if spec.name == "carcontrol_music_play_song":
        return _song_value(text)
    if spec.name == "carcontrol_navigation_navigate_to":
        route = _route_value(spec, text)
        if route is not None:
            return route
    if spec.name == "carcontrol_radio_play_station":
        return _station_value(text)
    if vp.py_type is int and (vp.constraint is None or vp.constraint.maximum is None):
        big = _big_number(text)
        if big is not None:
            return big
    if vp.py_type is int:
        return _int_value(spec, vp, text)
    if vp.py_type is bool:
        return _bool_value(spec, text)
    c = vp.constraint
    if c is not None and c.choices:
        if spec.name == "carcontrol_airConditioner_set_air_direction":
            return _air_direction(text)
        return _enum_value(spec, vp, text)
    return _free_text(spec, vp, text)


_CAP_RUN = re.compile(r"(?<![\w'’])((?:[A-Z][\w'’&-]*|\d[\w]*(?:\.\d+)?)(?:\s+(?:(?:of|the|and|de|la|in|on)\s+)?"
                      r"(?:[A-Z][\w'’&-]*|\d[\w]*(?:\.\d+)?|FM|AM))*)")


def _capitalised_phrases(text: str) -> list[tuple[int, str]]:
    """Runs of capitalised words or numbers ("Classic Rock 101"), without sentence-start filler words."""
    out = []
    for m in _CAP_RUN.finditer(text):
        words = m.group(1).split()
        start = m.start(1)
        while words and words[0].lower().strip(".'’") in NOT_VALUE_WORDS:
            start = text.find(words[0], start) + len(words[0])
            words = words[1:]
        while words and words[-1].lower() in ("of", "the", "and", "in", "on"):
            words = words[:-1]
        phrase = " ".join(words).rstrip(".")
        if phrase and phrase != "_" and not phrase.isdigit() and len(phrase) > 1:
            out.append((start, phrase))
    return out


def _station_value(text: str) -> str | None:
    """A radio station name: a capitalised run after "at/on/to/choosing/for" (or the line's only one)."""
    phrases = _capitalised_phrases(text)
    best: tuple[float, str] | None = None
    for start, phrase in phrases:
        pre = text[max(0, start - 14): start].lower()
        score = start / 1000.0 + (1.0 if re.search(r"\b(at|on|to|choosing|with|play|tune in to)\s*$", pre) else 0.0)
        post = text[start + len(phrase): start + len(phrase) + 12]
        score += 0.8 if re.match(r"\s+(for|is|it is)\b|,", post) else 0.0
        score += 0.3 * min(2, len(phrase.split()) - 1)
        if _REJECT.search(text[max(0, start - 20): start]):
            score -= 1.5
        if best is None or score > best[0]:
            best = (score, phrase)
    return best[1] if best else None


def _song_value(text: str) -> Any:
    """``{"song_name", "artist"}`` of ```'Title' by Artist```, else the quoted title alone (as a string)."""
    m = re.search(
        r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])\s+by\s+([A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*)*)",
        text,
    )
    if m:
        return {"song_name": m.group(1).strip(), "artist": m.group(2).strip()}
    m = re.search(r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])", text)
    return m.group(1).strip() if m else None


def _route_value(spec: ApiSpec, text: str) -> dict[str, str] | None:
    """``{"route_preference": ...}`` when the text names a route type (fastest, toll-free, ...)."""
    rp = next((p for p in spec.params if p.name == "route_preference"), None)
    if rp is None:
        return None
    value = _enum_value(spec, rp, text)
    return {"route_preference": value} if value is not None else None


def _big_number(text: str) -> int | None:
    """A large count (odometer readings: "56100", "56,100 km"), the last one in the text."""
    found = [
        int(m.group(0).replace(",", ""))
        for m in re.finditer(r"(?<![\w.:])\d{1,3}(?:,\d{3})+(?!\d)|(?<![\w.:])\d{4,7}(?!\d)", text)
    ]
    found = [n for n in found if not 1900 <= n <= 2100] or found  # years are rarely readings
    return found[-1] if found else None


def _keyword_positions(spec: ApiSpec, text: str) -> list[int]:
    """Where ``text`` names ``spec``'s field or module (start of each phrase)."""
    found = find_phrases(text, (*API_WORDS.get(spec.name, ()), *module_words(spec.module)))
    return [pos for _, pos in found]


def _int_value(spec: ApiSpec, vp: ParamSpec, text: str) -> int | None:
    """An integer in range near the field's words (max/min words when no number is given)."""
    c = vp.constraint
    lo = c.minimum if c and c.minimum is not None else 0
    hi = c.maximum if c and c.maximum is not None else 10**6
    if _MAX_WORDS.search(text) and hi < 10**6 and not numbers_in(text):
        return hi
    if _MIN_WORDS.search(text) and not numbers_in(text):
        return lo
    keys = _keyword_positions(spec, text)
    best: tuple[float, int] | None = None
    for n in numbers_in(text):
        if not lo <= n.value <= hi:
            continue
        if n.worded and n.value == 1 and re.match(r"one\b(?!\s*(level|notch|step))", text[n.start:], re.IGNORECASE):
            continue  # "one of", "this one"
        dist = min((abs(n.start - k) for k in keys), default=200)
        pre = text[max(0, n.start - 12): n.start].lower()
        score = -dist / 40.0 + (1.0 if re.search(r"\b(to|at|level|speed)\s*$", pre) else 0.0)
        score += n.start / 1000.0  # later in the line: the revised value
        post = text[n.start: n.start + 30].lower()
        if re.match(r"[\w\s°%]*?\b(?:(?:is|was|feels|felt)\s+(?:too|way too|overkill|a mistake|wrong|not it)\b"
                    r"|does nothing\b|isn't it\b|is not it\b)", post) \
                or re.match(r"[\d\s°c]*\)|[\d\s°c]*outside", post):
            score -= 2.0  # "level 3 is too strong", "20 degrees is overkill", "level 1 does nothing", "(20°C)"
        if best is None or score > best[0]:
            best = (score, n.value)
    if best is not None:
        return best[1]
    if _MAX_WORDS.search(text) and hi < 10**6:
        return hi
    if _MIN_WORDS.search(text):
        return lo
    return None


def _bool_value(spec: ApiSpec, text: str) -> bool | None:
    """On or off: whichever word is nearer the field's words."""
    on = [m.start() for m in _ON.finditer(text)]
    off = [m.start() for m in _OFF.finditer(text)]
    if not on and not off:
        return None
    keys = _keyword_positions(spec, text)
    d_on = min((abs(a - k) for a in on for k in keys), default=999)
    d_off = min((abs(a - k) for a in off for k in keys), default=999)
    if d_on == d_off == 999:
        return bool(on) and not off
    return d_on <= d_off


def _enum_value(spec: ApiSpec, vp: ParamSpec, text: str) -> str | None:
    """The enum value whose spelling the text prefers (later, after "prefer/set", not after "too/not")."""
    table = enum_spellings(spec, vp)
    mentions = []
    for phrase, canon in table.items():
        for m in phrase_pattern(phrase).finditer(text):
            mentions.append((m.start(), m.end(), canon))
    if not mentions:
        return None
    best: tuple[float, str] | None = None
    for start, end, canon in mentions:
        pre = text[max(0, start - 30): start]
        post = text[end: end + 12]
        score = start / 1000.0
        if _PREFER.search(pre):
            score += 1.0
        if _REJECT.search(pre) or re.match(r"\s+is\s+too\b", post):
            score -= 1.5
        if best is None or score > best[0]:
            best = (score, canon)
    return best[1] if best else None


def _air_direction(text: str) -> str | None:
    """Air direction parts named in the text, joined (``face_feet``)."""
    parts = []
    for part, words in (("face", ("face", "faces", "chest", "upper body")), ("feet", ("feet", "foot", "floor", "legs")),
                        ("window", ("window", "windows", "windshield", "windscreen"))):
        if find_phrases(text, words):
            parts.append(part)
    return "_".join(parts) if parts else None


#: A trip's wording before its destination ("navigate to", "heading back to").
_TRIP = re.compile(r"\b(?:navigate|take me|take us|drive|go|head|heading|directions|route|going)\s+(?:back\s+)?to\s+"
                   r"(?:the\s+)?([^.,!?;'\"]{3,60})", re.IGNORECASE)
#: A named place after "at", "to" or "visit": capitalised words, with a street when one follows ("on 4th Street").
_NAMED_PLACE = re.compile(r"\b(?:at|to|visit|visiting)\s+(?:the\s+)?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)+"
                          r"(?:\s+on\s+\d+(?:st|nd|rd|th)\s+Street)?)")
#: What follows a place but is not part of it: when ("today", "next week"), why ("for ..."), a swap ("instead of ...").
_PLACE_TAIL = re.compile(r"\s+(?:please|today|tomorrow|tonight|now|later|again|first|this \w+|next \w+|for\b.*|"
                         r"instead\b.*|on (?!\d+(?:st|nd|rd|th) Street).*)$", re.IGNORECASE)


def destination_in(text: str) -> str | None:
    """The destination ``text`` states: after a trip's wording ("heading to the Oak Park"), else a named place after
    "at", "to" or "visit" ("a meeting at the Grand Hall"); without what follows it (when, why, a swap).
    """
    m = _TRIP.search(text) or _NAMED_PLACE.search(text)
    if not m:
        return None
    place = m.group(1).strip()
    while True:
        trimmed = _PLACE_TAIL.sub("", place).strip()
        if trimmed == place or not trimmed:
            return place
        place = trimmed


def _free_text(spec: ApiSpec, vp: ParamSpec, text: str) -> str | None:
    """A destination or a quoted/played name for a free-text parameter."""
    if vp.name == "destination":
        return destination_in(text)
    if vp.name in ("video_name", "song_name", "name"):
        m = re.search(r"(?:^|(?<=[\s(:,]))['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![A-Za-z])", text)
        if m:
            return m.group(1).strip()
        m = re.search(
            (r"\b(?:play|watch|put on)\s+(?:the\s+|some\s+|a\s+|my\s+)?([A-Za-z][\w\s'-]{1,40}?)(?=[.,!?]|$| on\b| "
             r"at\b| in\b)"),
            text,
            re.IGNORECASE,
        )
        if m and m.group(1).strip().lower() not in ("video", "music", "song", "it", "that", "this"):
            return m.group(1).strip()
    return None


def request_value(api: str, req: Request) -> Any:
    """A value the request itself states for ``api`` ("at 1080p", "set it to 22", "take me to X")."""
    spec = API_SPECS[api]
    vp = value_param(spec)
    if vp is None:
        return None
    quote = " ".join(req.quotes) or req.text
    if vp.py_type is int:
        if req.delta is not None:
            return None
        m = re.search(r"\b(?:to|at)\s+(\d{1,3})\b(?!:)", quote)
        c = vp.constraint
        if m and c is not None and (c.minimum is None or int(m.group(1)) >= c.minimum) and (
                c.maximum is None or int(m.group(1)) <= c.maximum):
            return int(m.group(1))
        return None
    if vp.py_type is bool:
        return not (_OFF.search(quote) and not _ON.search(quote))
    if vp.constraint is not None and vp.constraint.choices:
        if spec.name == "carcontrol_airConditioner_set_air_direction":
            return None
        spell = enum_spellings(spec, vp)
        found = [(m.start(), canon) for phrase, canon in spell.items() for m in phrase_pattern(phrase).finditer(quote)]
        if len(found) == 1 or len({c for _, c in found}) == 1:
            return found[0][1]
        return None
    if vp.name == "destination" and not re.search(r"\b(usual|mentioned|that|same|again|last time|my|told|about|"
                                                  r"location|place)\b", quote, re.IGNORECASE):
        return _free_text(spec, vp, quote)
    if vp.name == "video_name":
        m = re.search(r"\bto watch (?:a |an |the |some )?([a-z][\w -]{1,30}?)(?=[.,]|$)", req.text)
        if m:
            return m.group(1).strip()
    return None


#: A mirror named by its side ("the left mirror", "left rearview mirror", "the mirror on the right").
_MIRROR_SIDE = re.compile(
    r"\b(left|right)(?:[\s-]+(?:side|hand|rearview|rear-view|wing|side-view|outside))*[\s-]+mirrors?\b"
    r"|\bmirrors? on the (left|right)\b",
    re.IGNORECASE,
)


def mirror_side(text: str) -> str | None:
    """The side of the mirror ``text`` names ("left", "right"), else None."""
    m = _MIRROR_SIDE.search(text)
    return (m.group(1) or m.group(2)).lower() if m else None


def selector_value(spec: ApiSpec, sel: ParamSpec, req: Request, line: str = "") -> str:
    """The seat/zone/side choice of ``sel`` the request means ("both", the target's seat, "all" for shared air).

    ``line``: the memory line the value comes from; a mirror setting it states for one side ("my left mirror
    horizontal position is usually 69") is for that side when the request names none.
    """
    choices = sel.constraint.choices if sel.constraint else ()
    quote = " ".join(req.quotes).lower()
    for word, canon in (("all", "all"), ("both", "both"), ("everyone", "all"), ("front", "front"), ("rear", "rear")):
        if canon in choices and re.search(rf"\b{word}\b", quote):
            return canon
    shared = ("_set_circulation", "_set_temperature", "airConditioner_set_mode", "_set_fan_speed", "_set_child_lock",
              "_set_auto_close_on_lock", "door_set_locked")
    if "all" in choices and spec.name.endswith(shared):
        return "all"
    if spec.module == "rearviewMirror":
        every = re.search(r"\b(mirrors|all|both)\b", req.text, re.IGNORECASE)  # "set the mirrors", "the all mirror"
        side = mirror_side(req.text) or (None if every else mirror_side(line))
        return side if side in choices else "both"
    if req.seat in choices:
        return req.seat
    if req.seat.startswith("rear") and "rear" in choices:
        return "rear"
    return choices[0] if choices else "driver"
