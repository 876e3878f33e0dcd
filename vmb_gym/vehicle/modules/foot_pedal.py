"""footPedal: foot pedal related (1 API)."""

from __future__ import annotations

from vmb_gym.vehicle.api import OneOf, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, resolve_targets

#: Foot pedal positions: canonical name -> pedals.
PEDAL_GROUPS: dict[str, tuple[str, ...]] = {
    "driver": ("driver",),
    "passenger": ("passenger",),
    "all": ("driver", "passenger"),
}
#: Chinese spellings the official code accepts.
PEDAL_ALIASES = {"主驾": "driver", "副驾": "passenger", "全部": "all"}


class FootPedal(VehicleModule):
    """Foot pedal related."""

    KEY = "footPedal"
    TYPE_NAME = "FootPedal"
    DESCRIPTION = "Foot pedal related"
    FIELDS = {
        "driver": Field({"is_on": False}, "Driver foot pedal state"),
        "passenger": Field({"is_on": False}, "Passenger foot pedal state"),
    }
    __slots__ = ()

    @vehicle_api(position=OneOf(*PEDAL_GROUPS, aliases=PEDAL_ALIASES, note="a falsy value means driver"))
    def carcontrol_footPedal_set_switch(self, position: str, switch: bool) -> Result:
        """Set foot pedal switch for a position or all.

        Only ``driver``/``passenger``/``all`` (and 主驾/副驾/全部) are accepted; ``front``/``rear``
        are rejected. ``switch`` is coerced with ``bool()``.
        """
        pedals = resolve_targets(position, "position", groups=PEDAL_GROUPS, aliases=PEDAL_ALIASES)
        on = bool(switch)
        for p in pedals:
            self.update_field(p, {"is_on": on})
        return self.ok(f"Foot pedal {'on' if on else 'off'} for {', '.join(pedals)}")
