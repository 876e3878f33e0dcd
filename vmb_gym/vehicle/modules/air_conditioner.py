"""airConditioner: vehicle air conditioning system related (6 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import (
    ZONE_ALIASES,
    ZONE_GROUPS,
    Field,
    Result,
    VehicleModule,
    require_hashable_choice,
    require_int,
    resolve_targets,
)

#: The zone argument: a zone or group, Chinese aliases accepted; a falsy zone means the driver.
ZONE = OneOf(*ZONE_GROUPS, aliases=ZONE_ALIASES, note="a falsy value means driver")
AIR_DIRECTIONS = ("face", "feet", "window", "face_feet", "face_window", "feet_window", "face_feet_window")
AC_MODES = ("auto", "purify", "dehumidify", "defrost", "swing", "defog")
CIRCULATIONS = ("inside", "outside")


class AirConditioner(VehicleModule):
    """Vehicle air conditioning system related."""

    KEY = "airConditioner"
    TYPE_NAME = "AirConditioner"
    DESCRIPTION = "Vehicle air conditioning system related"
    FIELDS = {
        "driver": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Driver zone settings",
        ),
        "passenger": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Passenger zone settings",
        ),
        "rear_left": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Rear left zone settings",
        ),
        "rear_right": Field(
            {
                "is_on": False,
                "temperature": 24,
                "fan_speed": 5,
                "air_direction": "face",
                "mode": "auto",
                "circulation": "inside",
            },
            "Rear right zone settings",
        ),
    }
    __slots__ = ()

    def _apply(self, zone: Any, key: str, value: Any) -> tuple[str, ...]:
        """Resolve ``zone``, switch its zones on and store ``value`` under ``key`` in each."""
        zones = resolve_targets(zone, "zone")
        for z in zones:
            self.update_field(z, {"is_on": True, key: value})
        return zones

    @vehicle_api(zone=ZONE, direction=OneOf(*AIR_DIRECTIONS))
    def carcontrol_airConditioner_set_air_direction(self, zone: str, direction: str) -> Result:
        """Set air conditioner air direction.

        The direction is checked first (exact, case-sensitive; a list or dict is an error), then the
        zone; only then are the zones switched on, so a rejected call changes nothing.
        """
        direction = require_hashable_choice(direction, AIR_DIRECTIONS, "air direction")
        zones = self._apply(zone, "air_direction", direction)
        return self.ok(f"Air direction set to {direction} for {', '.join(zones)}")

    @vehicle_api(zone=ZONE, circulation=OneOf(*CIRCULATIONS))
    def carcontrol_airConditioner_set_circulation(self, zone: str, circulation: str) -> Result:
        """Set air conditioner circulation (inside/outside).

        Validated before the zones are switched on: a rejected call changes nothing.
        """
        circulation = require_hashable_choice(circulation, CIRCULATIONS, "circulation")
        zones = self._apply(zone, "circulation", circulation)
        return self.ok(f"Circulation set to {circulation} for {', '.join(zones)}")

    @vehicle_api(zone=ZONE, speed=IntRange(1, 10, unit="level"))
    def carcontrol_airConditioner_set_fan_speed(self, zone: str, speed: int) -> Result:
        """Set air conditioner fan speed (1-10).

        Validated before the zones are switched on; ``True`` passes as 1 and is stored as ``True``.
        """
        require_int(speed, 1, 10, "fan speed")
        zones = self._apply(zone, "fan_speed", speed)
        return self.ok(f"Fan speed set to {speed} for {', '.join(zones)}")

    @vehicle_api(zone=ZONE, mode=OneOf(*AC_MODES))
    def carcontrol_airConditioner_set_mode(self, zone: str, mode: str) -> Result:
        """Set air conditioner mode (auto/purify/dehumidify/defrost/swing/defog).

        Validated before the zones are switched on: a rejected call changes nothing.
        """
        mode = require_hashable_choice(mode, AC_MODES, "mode")
        zones = self._apply(zone, "mode", mode)
        return self.ok(f"AC mode set to {mode} for {', '.join(zones)}")

    @vehicle_api(zone=ZONE)
    def carcontrol_airConditioner_set_power(self, zone: str, is_on: bool) -> Result:
        """Set air conditioner power for a zone or group.

        ``is_on`` is coerced with ``bool()`` (the string ``"false"`` switches the AC on).
        """
        zones = resolve_targets(zone, "zone")
        on = bool(is_on)
        for z in zones:
            self.update_field(z, {"is_on": on})
        return self.ok(f"AC {'on' if on else 'off'} for {', '.join(zones)}")

    @vehicle_api(zone=ZONE, temperature=IntRange(15, 35, unit="celsius"))
    def carcontrol_airConditioner_set_temperature(self, zone: str, temperature: int) -> Result:
        """Set air conditioner temperature (15-35).

        The temperature is validated first, then the zone, then the zones are switched on: a
        rejected call changes nothing (``True`` counts as 1, so it is out of range).
        """
        require_int(temperature, 15, 35, "temperature")
        zones = self._apply(zone, "temperature", temperature)
        return self.ok(f"Temperature set to {temperature} for {', '.join(zones)}")
