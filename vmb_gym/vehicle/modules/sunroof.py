"""sunroof: sunroof related (2 APIs)."""

from __future__ import annotations

from vmb_gym.vehicle.api import IntRange, vehicle_api
from vmb_gym.vehicle.module import Field, Result, VehicleModule, require_int


class Sunroof(VehicleModule):
    """Sunroof related."""

    KEY = "sunroof"
    TYPE_NAME = "Sunroof"
    DESCRIPTION = "Sunroof related"
    FIELDS = {
        "is_locked": Field(False, "Whether the sunroof is locked"),
        "open_degree": Field(0, "Open degree (0-100)"),
    }
    __slots__ = ()

    @vehicle_api()
    def carcontrol_sunroof_set_locked(self, locked: bool) -> Result:
        """Set sunroof lock state.

        Stores ``bool(locked)``; never fails and does not touch ``open_degree``.
        """
        self.state["is_locked"] = bool(locked)
        return self.ok("Sunroof locked" if locked else "Sunroof unlocked")

    @vehicle_api(degree=IntRange(0, 100, unit="percent"))
    def carcontrol_sunroof_set_open_degree(self, degree: int) -> Result:
        """Set sunroof open degree (0-100). Auto unlock when > 0, auto lock when = 0.

        Official order: ``degree > 0`` unlocks BEFORE validation, so 101 or 20.5 fail but still
        unlock; a non-numeric degree (a string, None, a list) makes the comparison raise
        ``TypeError`` (an ``error`` result). A degree of 0 (or ``False``) locks the sunroof after
        it is stored; a negative degree is rejected without locking.
        """
        if degree > 0:
            self.state["is_locked"] = False
        require_int(degree, 0, 100, "Sunroof open degree")
        self.state["open_degree"] = degree
        if degree == 0:
            self.state["is_locked"] = True
        return self.ok(f"Sunroof open degree set to {degree}")
