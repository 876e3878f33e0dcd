"""trunk: trunk related (2 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_int


class Trunk(VehicleModule):
    """Trunk related."""

    KEY = "trunk"
    TYPE_NAME = "Trunk"
    DESCRIPTION = "Trunk related"
    FIELDS = {
        "is_on": Field(False, "Whether the trunk is open"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()

    @vehicle_api(degree=IntRange(0, 100, unit="percent"))
    def carcontrol_trunk_set_open_degree(self, degree: int) -> Result:
        """Set rear trunk open degree (0-100). Auto on when > 0, auto off when = 0.

        Official order: ``degree > 0`` switches the trunk on BEFORE validation, so 101 or 60.5
        fail with ``is_on`` True; a non-numeric degree (a string, None, a list) makes the
        comparison raise ``TypeError`` (an ``error`` result). A degree of 0 (or ``False``)
        switches the trunk off after it is stored.
        """
        if degree > 0:
            self.state["is_on"] = True
        require_int(degree, 0, 100, "Trunk open degree")
        self.state["open_degree"] = degree
        if degree == 0:
            self.state["is_on"] = False
        return self.ok(f"Trunk open degree set to {degree}")

    @vehicle_api()
    def carcontrol_trunk_switch(self, switch: bool) -> Result:
        """Turn the rear trunk system on or off.

        Stores ``bool(switch)``; ``open_degree`` is left as it is.
        """
        self.state["is_on"] = bool(switch)
        return self.ok("Trunk opened" if switch else "Trunk closed")
