"""vmb_gym: VehicleMemBench as a Gymnasium reinforcement-learning environment.

``import vmb_gym`` registers ``VehicleMem-v0`` and ``VehicleMemStream-v0`` with Gymnasium. The
registration waits for Gymnasium itself: when it is already imported the envs are registered at
once, otherwise right after ``gymnasium.envs.registration`` loads. So ``import vmb_gym,
gymnasium as gym; gym.make("VehicleMem-v0")`` works in either order, while the command line and
the scorer, which need no env, do not pay for importing Gymnasium and numpy.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

__version__ = "0.1.0"

#: Gymnasium id -> entry point of every env vmb_gym registers.
ENVS: dict[str, str] = {
    "VehicleMem-v0": "vmb_gym.envs.vehicle_mem:VehicleMemEnv",
    "VehicleMemStream-v0": "vmb_gym.envs.vehicle_mem_stream:VehicleMemStreamEnv",
}

_REGISTRATION = "gymnasium.envs.registration"
_lock = threading.Lock()


def register_envs() -> None:
    """Register every env of :data:`ENVS` with Gymnasium (ids already registered are kept)."""
    from gymnasium.envs.registration import register, registry

    with _lock:
        for env_id, entry_point in ENVS.items():
            if env_id not in registry:
                register(id=env_id, entry_point=entry_point)


class _RegisterAfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when Gymnasium's registration module loads, registers the envs after it."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _REGISTRATION:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the other finders, this one removed
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def load_then_register(module: ModuleType) -> None:
            load(module)
            register_envs()

        spec.loader.exec_module = load_then_register  # type: ignore[method-assign]
        return spec


if _REGISTRATION in sys.modules:
    register_envs()
else:
    sys.meta_path.insert(0, _RegisterAfterGymnasium())

__all__ = ["ENVS", "__version__", "register_envs"]
