"""frontTrunk: front trunk related (2 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_int


class FrontTrunk(VehicleModule):
    """Front trunk related."""

    KEY = "frontTrunk"
    TYPE_NAME = "FrontTrunk"
    DESCRIPTION = "Front trunk related"
    FIELDS = {
        "is_on": Field(False, "Whether the front trunk is open"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()

    @vehicle_api(degree=IntRange(0, 100, unit="percent"))
    def carcontrol_frontTrunk_set_open_degree(self, degree: int) -> Result:
        """Set front trunk open degree (0-100).

        Validates first, so a rejected degree changes nothing (unlike the rear trunk). A degree
        above 0 sets ``is_on`` True and 0 sets it False. Booleans pass the integer check and are
        stored as booleans.
        """
        require_int(degree, 0, 100, "Front trunk open degree")
        self.state["open_degree"] = degree
        self.state["is_on"] = degree > 0
        return self.ok(f"Front trunk open degree set to {degree}")

    @vehicle_api()
    def carcontrol_frontTrunk_switch(self, switch: bool) -> Result:
        """Turn the front trunk system on or off.

        Stores ``bool(switch)``; ``open_degree`` is left as it is.
        """
        self.state["is_on"] = bool(switch)
        return self.ok("Front trunk opened" if switch else "Front trunk closed")
