"""light: light related (15 APIs).

Lights do not interact: switching one light never changes another. Only the ambient colour and
the low-beam level switch their own light on before validating; reading-light brightness
validates first.
"""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import (
    ZONE_ALIASES,
    ZONE_GROUPS,
    Field,
    Rejected,
    Result,
    VehicleModule,
    require_choice,
    require_int,
)

#: Official ambient colours.
AMBIENT_COLORS: tuple[str, ...] = ("red", "orange", "yellow", "green", "cyan", "blue", "purple", "white", "pink")
AMBIENT_COLOR_ALIASES: dict[str, str] = {
    "红色": "red",
    "橙色": "orange",
    "黄色": "yellow",
    "绿色": "green",
    "青色": "cyan",
    "蓝色": "blue",
    "紫色": "purple",
    "白色": "white",
    "粉色": "pink",
}
#: Official low-beam levels, in increasing order.
LOW_BEAM_LEVELS: tuple[str, ...] = ("lowest", "low", "medium", "high", "highest")
LOW_BEAM_LEVEL_ALIASES: dict[str, str] = {
    "最低": "lowest",
    "低": "low",
    "中": "medium",
    "高": "high",
    "最高": "highest",
}

_READING_TARGET = OneOf(*ZONE_GROUPS, aliases=ZONE_ALIASES, note="a falsy value means driver")


def resolve_reading_lights(light: Any) -> tuple[str, ...]:
    """Resolve a reading-light target to the positions it covers.

    A falsy value (``None``, ``""``, ``0``, ``[]``, ``{}``) means ``driver``. Otherwise the value is
    looked up in the Chinese zone aliases (an unhashable value raises ``TypeError``, an ``error``
    result) and must then be one of the seven zone targets exactly (case-sensitive, no trimming).

    Raises:
        Rejected: the target is not a known zone target.
    """
    if not light:
        return ZONE_GROUPS["driver"]
    target = ZONE_ALIASES.get(light, light)
    if target not in ZONE_GROUPS:
        raise Rejected(f"light must be one of {', '.join(ZONE_GROUPS)}, got {light!r}")
    return ZONE_GROUPS[target]


class Light(VehicleModule):
    """Light related."""

    KEY = "light"
    TYPE_NAME = "Light"
    DESCRIPTION = "Light related"
    FIELDS = {
        "fog_light": Field({"is_on": False}, "Fog light settings"),
        "high_beam": Field({"is_on": False}, "High beam settings"),
        "low_beam": Field({"is_on": False, "level": "lowest"}, "Low beam settings"),
        "daytime_running": Field({"is_on": False}, "Daytime running light settings"),
        "left_turn": Field({"is_on": False}, "Left turn signal settings"),
        "right_turn": Field({"is_on": False}, "Right turn signal settings"),
        "auto_headlight": Field({"is_on": False}, "Auto headlight settings"),
        "hazard": Field({"is_on": False}, "Hazard light settings"),
        "position": Field({"is_on": False}, "Position light settings"),
        "tail": Field({"is_on": False}, "Tail light settings"),
        "ambient": Field({"is_on": False, "color": "orange"}, "Ambient light settings"),
        "reading_light": Field(
            {
                "driver": {"is_on": False, "brightness": 1},
                "passenger": {"is_on": False, "brightness": 1},
                "rear_left": {"is_on": False, "brightness": 1},
                "rear_right": {"is_on": False, "brightness": 1},
            },
            "Reading light settings",
        ),
    }
    __slots__ = ()

    def _switch(self, field: str, enabled: Any, label: str) -> Result:
        """Set ``field.is_on`` to ``bool(enabled)``; never fails."""
        value = bool(enabled)
        self.update_field(field, {"is_on": value})
        return self.ok(f"{label} {'enabled' if value else 'disabled'}")

    # ------------------------------------------------------------------ ambient
    @vehicle_api(color=OneOf(*AMBIENT_COLORS, aliases=AMBIENT_COLOR_ALIASES))
    def carcontrol_light_set_ambient_color(self, color: str) -> Result:
        """Set ambient light color. Automatically enables ambient light if off.

        The ambient light is switched on before the colour is validated, so a rejected colour
        (``"Blue"``, ``" blue "``) still turns it on. Matching is exact and case-sensitive;
        Chinese names (``蓝色``) are accepted. An unhashable colour (a list or a map) is an ``error``.
        """
        self.update_field("ambient", {"is_on": True})
        value = require_choice(color, AMBIENT_COLORS, "ambient color", AMBIENT_COLOR_ALIASES)
        self.update_field("ambient", {"color": value})
        return self.ok(f"Ambient light color set to {value}")

    @vehicle_api()
    def carcontrol_light_set_ambient_enabled(self, enabled: bool) -> Result:
        """Enable or disable ambient light.

        ``enabled`` is coerced with ``bool()``; the colour is kept.
        """
        return self._switch("ambient", enabled, "Ambient light")

    # ------------------------------------------------------------------ exterior lights
    @vehicle_api()
    def carcontrol_light_set_auto_headlight(self, enabled: bool) -> Result:
        """Enable or disable auto headlight.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("auto_headlight", enabled, "Auto headlight")

    @vehicle_api()
    def carcontrol_light_set_daytime_running(self, enabled: bool) -> Result:
        """Enable or disable daytime running light.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("daytime_running", enabled, "Daytime running light")

    @vehicle_api()
    def carcontrol_light_set_fog_light(self, enabled: bool) -> Result:
        """Enable or disable fog light.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("fog_light", enabled, "Fog light")

    @vehicle_api()
    def carcontrol_light_set_hazard(self, enabled: bool) -> Result:
        """Enable or disable hazard light.

        ``enabled`` is coerced with ``bool()``; always succeeds and does not touch the turn signals.
        """
        return self._switch("hazard", enabled, "Hazard light")

    @vehicle_api()
    def carcontrol_light_set_high_beam(self, enabled: bool) -> Result:
        """Enable or disable high beam.

        ``enabled`` is coerced with ``bool()``; always succeeds and does not touch the low beam.
        """
        return self._switch("high_beam", enabled, "High beam")

    @vehicle_api()
    def carcontrol_light_set_left_turn(self, enabled: bool) -> Result:
        """Enable or disable left turn signal.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("left_turn", enabled, "Left turn signal")

    @vehicle_api()
    def carcontrol_light_set_low_beam_enabled(self, enabled: bool) -> Result:
        """Enable or disable low beam.

        ``enabled`` is coerced with ``bool()``; the level is kept.
        """
        return self._switch("low_beam", enabled, "Low beam")

    @vehicle_api(level=OneOf(*LOW_BEAM_LEVELS, aliases=LOW_BEAM_LEVEL_ALIASES))
    def carcontrol_light_set_low_beam_level(self, level: str) -> Result:
        """Set low beam level (lowest/low/medium/high/highest). Automatically enables low beam if off.

        The low beam is switched on before the level is validated, so a rejected level still turns
        it on. Matching is exact and case-sensitive; Chinese aliases (最低/低/中/高/最高) are
        accepted. An unhashable level (a list or a map) is an ``error``.
        """
        self.update_field("low_beam", {"is_on": True})
        value = require_choice(level, LOW_BEAM_LEVELS, "low beam level", LOW_BEAM_LEVEL_ALIASES)
        self.update_field("low_beam", {"level": value})
        return self.ok(f"Low beam level set to {value}")

    @vehicle_api()
    def carcontrol_light_set_position(self, enabled: bool) -> Result:
        """Enable or disable position light.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("position", enabled, "Position light")

    # ------------------------------------------------------------------ reading lights
    @vehicle_api(light=_READING_TARGET)
    def carcontrol_light_set_reading_light(self, light: str, enabled: bool) -> Result:
        """Enable or disable reading light for a position or group.

        ``light`` is a zone target (driver/passenger/rear_left/rear_right/front/rear/all or a
        Chinese alias; falsy means driver). ``enabled`` is coerced with ``bool()``; the brightness
        is kept.
        """
        positions = resolve_reading_lights(light)
        value = bool(enabled)
        self.state["reading_light"] = {
            pos: {**v, "is_on": value} if pos in positions else v for pos, v in self.state["reading_light"].items()}
        return self.ok(f"Reading light {', '.join(positions)} {'enabled' if value else 'disabled'}")

    @vehicle_api(light=_READING_TARGET, brightness=IntRange(1, 10, unit="level"))
    def carcontrol_light_set_reading_light_brightness(self, light: str, brightness: int) -> Result:
        """Set reading light brightness (1-10). Automatically enables reading light if off.

        Validates the target and the brightness first, so a rejected call changes nothing; on
        success each targeted reading light is switched on. ``True`` passes the integer check
        and is stored as is.
        """
        positions = resolve_reading_lights(light)
        require_int(brightness, 1, 10, "reading light brightness")
        self.state["reading_light"] = {
            pos: {**v, "is_on": True, "brightness": brightness} if pos in positions else v
            for pos, v in self.state["reading_light"].items()}
        return self.ok(f"Reading light {', '.join(positions)} brightness set to {brightness}")

    @vehicle_api()
    def carcontrol_light_set_right_turn(self, enabled: bool) -> Result:
        """Enable or disable right turn signal.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("right_turn", enabled, "Right turn signal")

    @vehicle_api()
    def carcontrol_light_set_tail(self, enabled: bool) -> Result:
        """Enable or disable tail light.

        ``enabled`` is coerced with ``bool()``; always succeeds.
        """
        return self._switch("tail", enabled, "Tail light")
