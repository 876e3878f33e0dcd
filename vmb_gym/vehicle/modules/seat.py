"""seat: seat related (15 APIs)."""

from __future__ import annotations

from typing import Any

from vmb_gym.vehicle.api import IntRange, OneOf, vehicle_api
from vmb_gym.vehicle.module import ZONE_ALIASES, ZONE_GROUPS, Field, Result, VehicleModule, require_int, resolve_targets

#: The seat argument: a seat or group, Chinese aliases accepted. Unlike other targets it has no
#: default: ``None``, ``""``, ``0`` and ``False`` are rejected, and ``[]``/``{}`` are errors.
SEAT = OneOf(*ZONE_GROUPS, aliases=ZONE_ALIASES, note="required: a falsy value is rejected, not driver")
PERCENT = IntRange(0, 100, unit="percent")


def _seat_defaults() -> dict[str, Any]:
    """The official initial settings of one seat (a new dict for each seat)."""
    return {
        "heating_mode": False, "heating_level": 1, "massage_mode": False, "massage_level": 1,
        "ventilation_enabled": False, "ventilation_speed": 1, "horizontal_position": 50, "vertical_position": 50,
        "folded": False, "cushion_extension": 50, "cushion_angle": 50, "backrest_angle": 50,
        "leg_support_height": 50, "foot_support_height": 50, "headrest_height": 50,
    }


class Seat(VehicleModule):
    """Seat related."""

    KEY = "seat"
    TYPE_NAME = "Seat"
    DESCRIPTION = "Seat related"
    FIELDS = {
        "driver": Field(_seat_defaults(), "Driver seat settings"),
        "passenger": Field(_seat_defaults(), "Passenger seat settings"),
        "rear_left": Field(_seat_defaults(), "Rear left seat settings"),
        "rear_right": Field(_seat_defaults(), "Rear right seat settings"),
    }
    __slots__ = ()

    def _seats(self, seat: Any) -> tuple[str, ...]:
        """Resolve the seat argument (no falsy default)."""
        return resolve_targets(seat, "seat", default=None)

    def _set(self, seat: Any, key: str, value: Any, label: str, switch: str | None = None) -> Result:
        """Store ``value`` under ``key`` for each named seat (and turn ``switch`` on, if given)."""
        seats = self._seats(seat)
        changes = {key: value} if switch is None else {switch: True, key: value}
        for s in seats:
            self.update_field(s, changes)
        return self.ok(f"{label} set to {value} for {', '.join(seats)}")

    def _position(self, seat: Any, key: str, value: Any, label: str) -> Result:
        """A 0-100 adjustment: the value is validated before anything changes."""
        require_int(value, 0, 100, label)
        return self._set(seat, key, value, label)

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_backrest_angle(self, seat: str, value: int) -> Result:
        """Set seat backrest angle (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "backrest_angle", value, "backrest angle")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_cushion_angle(self, seat: str, value: int) -> Result:
        """Set seat cushion angle (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "cushion_angle", value, "cushion angle")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_cushion_extension(self, seat: str, value: int) -> Result:
        """Set seat cushion extension (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "cushion_extension", value, "cushion extension")

    @vehicle_api(seat=SEAT)
    def carcontrol_seat_set_folded(self, seat: str, folded: bool) -> Result:
        """Fold or unfold the seat.

        ``folded`` is coerced with ``bool()``; any seat (front ones too) can be folded.
        """
        return self._set(seat, "folded", bool(folded), "folded")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_foot_support_height(self, seat: str, value: int) -> Result:
        """Set foot support height (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "foot_support_height", value, "foot support height")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_headrest_height(self, seat: str, value: int) -> Result:
        """Set headrest height (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "headrest_height", value, "headrest height")

    @vehicle_api(seat=SEAT, level=IntRange(1, 3, unit="level"))
    def carcontrol_seat_set_heating_level(self, seat: str, level: int) -> Result:
        """Set seat heating level (1-3). Automatically enables heating if off.

        Validated before any change: a rejected call leaves ``heating_mode`` as it was.
        """
        require_int(level, 1, 3, "heating level")
        return self._set(seat, "heating_level", level, "heating level", switch="heating_mode")

    @vehicle_api(seat=SEAT)
    def carcontrol_seat_set_heating_mode(self, seat: str, enabled: bool) -> Result:
        """Enable or disable seat heating.

        ``enabled`` is coerced with ``bool()``; it does not touch the matching level.
        """
        return self._set(seat, "heating_mode", bool(enabled), "heating")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_horizontal_position(self, seat: str, value: int) -> Result:
        """Set seat horizontal position (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "horizontal_position", value, "horizontal position")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_leg_support_height(self, seat: str, value: int) -> Result:
        """Set leg support height (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "leg_support_height", value, "leg support height")

    @vehicle_api(seat=SEAT, level=IntRange(1, 3, unit="level"))
    def carcontrol_seat_set_massage_level(self, seat: str, level: int) -> Result:
        """Set seat massage level (1-3). Automatically enables massage if off.

        Validated before any change: a rejected call leaves ``massage_mode`` as it was.
        """
        require_int(level, 1, 3, "massage level")
        return self._set(seat, "massage_level", level, "massage level", switch="massage_mode")

    @vehicle_api(seat=SEAT)
    def carcontrol_seat_set_massage_mode(self, seat: str, enabled: bool) -> Result:
        """Enable or disable seat massage.

        ``enabled`` is coerced with ``bool()``; it does not touch the matching level.
        """
        return self._set(seat, "massage_mode", bool(enabled), "massage")

    @vehicle_api(seat=SEAT)
    def carcontrol_seat_set_ventilation_enabled(self, seat: str, enabled: bool) -> Result:
        """Enable or disable seat ventilation.

        ``enabled`` is coerced with ``bool()``; it does not touch the matching level.
        """
        return self._set(seat, "ventilation_enabled", bool(enabled), "ventilation")

    @vehicle_api(seat=SEAT, speed=IntRange(1, 5, unit="level"))
    def carcontrol_seat_set_ventilation_speed(self, seat: str, speed: int) -> Result:
        """Set seat ventilation speed (1-5). Automatically enables ventilation if off.

        Validated before any change: a rejected call leaves ``ventilation_enabled`` as it was.
        """
        require_int(speed, 1, 5, "ventilation speed")
        return self._set(seat, "ventilation_speed", speed, "ventilation speed", switch="ventilation_enabled")

    @vehicle_api(seat=SEAT, value=PERCENT)
    def carcontrol_seat_set_vertical_position(self, seat: str, value: int) -> Result:
        """Set seat vertical position (0-100).

        The value is checked (``isinstance`` int, bools pass and are stored as bools) before the seat.
        """
        return self._position(seat, "vertical_position", value, "vertical position")
