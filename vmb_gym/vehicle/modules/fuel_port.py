"""fuelPort: fuel port related (2 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import vehicle_api
from vmb_gym.vehicle.module import Field, Rejected, Result, VehicleModule


class FuelPort(VehicleModule):
    """Fuel port related. The port starts locked, and a locked port cannot be opened."""

    KEY = "fuelPort"
    TYPE_NAME = "FuelPort"
    DESCRIPTION = "Fuel port related"
    FIELDS = {
        "is_open": Field(False, "Whether the fuel port is open"),
        "is_locked": Field(True, "Whether the fuel port is locked"),
    }
    __slots__ = ()

    @vehicle_api()
    def carcontrol_fuelPort_set_locked(self, locked: bool) -> Result:
        """Set fuel port lock state.

        Stores ``bool(locked)``; never fails. Locking does not close an open port.
        """
        self.state["is_locked"] = bool(locked)
        return self.ok("Fuel port locked" if locked else "Fuel port unlocked")

    @vehicle_api()
    def carcontrol_fuelPort_set_open(self, open_state: bool) -> Result:
        """Set fuel port open state.

        Interlock: a truthy ``open_state`` is rejected while the port is locked (it starts
        locked). Closing always succeeds. Stores ``bool(open_state)``.
        """
        if open_state and self.state["is_locked"]:
            raise Rejected("Cannot open fuel port when it is locked")
        self.state["is_open"] = bool(open_state)
        return self.ok("Fuel port opened" if open_state else "Fuel port closed")
