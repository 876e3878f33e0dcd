"""bluetooth: vehicle bluetooth related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class Bluetooth(VehicleModule):
    """Vehicle Bluetooth related."""

    KEY = "bluetooth"
    TYPE_NAME = "Bluetooth"
    DESCRIPTION = "Vehicle Bluetooth related"
    FIELDS = {
        "is_connected": Field(False, "Whether Bluetooth is connected"),
    }
    __slots__ = ()
