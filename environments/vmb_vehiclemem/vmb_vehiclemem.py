"""The verifiers environment package of VehicleMemBench: taskset id ``vmb-vehiclemem``.

verifiers imports a taskset id as a top-level module (``vmb-vehiclemem`` -> ``vmb_vehiclemem``)
and takes the one ``Taskset`` and one ``Env`` subclass it exports in ``__all__``. The code lives
in :mod:`vmb_gym.integrations.verifiers_env`; this module only names it. Install with
``pip install -e environments/vmb_vehiclemem`` (``scripts/setup.sh`` does), then e.g.
``vf-eval vmb-vehiclemem --env.taskset.files '[1]'``.
"""

from vmb_gym.integrations.verifiers_env import (
    VehicleMemTaskset,
    VehicleMemVfEnv,
    load_environment,
)

__all__ = ["VehicleMemTaskset", "VehicleMemVfEnv", "load_environment"]
