"""fuelPort: fuel port related."""

from __future__ import annotations

from vmb_gym.vehicle.module import Field, VehicleModule


class FuelPort(VehicleModule):
    """Fuel port related."""

    KEY = "fuelPort"
    TYPE_NAME = "FuelPort"
    DESCRIPTION = "Fuel port related"
    FIELDS = {
        "is_open": Field(False, "Whether the fuel port is open"),
        "is_locked": Field(True, "Whether the fuel port is locked"),
    }
    __slots__ = ()
