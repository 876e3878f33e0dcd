"""bluetooth: vehicle bluetooth related (1 API)."""

from __future__ import annotations

from vmb_gym.vehicle.api import vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule


class Bluetooth(VehicleModule):
    """Vehicle Bluetooth related."""

    KEY = "bluetooth"
    TYPE_NAME = "Bluetooth"
    DESCRIPTION = "Vehicle Bluetooth related"
    FIELDS = {
        "is_connected": Field(False, "Whether Bluetooth is connected"),
    }
    __slots__ = ()

    @vehicle_api()
    def carcontrol_bluetooth_set_connection(self, connected: bool) -> Result:
        """Set Bluetooth connection state.

        Stores ``bool(connected)``, so any truthy value (even ``"false"``) connects; never fails.
        """
        self.state["is_connected"] = bool(connected)
        return self.ok("Bluetooth connected" if connected else "Bluetooth disconnected")
