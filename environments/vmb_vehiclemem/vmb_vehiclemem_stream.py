"""The verifiers environment of VehicleMemStream-v0's group starts: taskset id ``vmb-vehiclemem-stream``.

Each task is a saved mid-timeline state, so the ``-r G`` rollouts of a task start from the same
memory store. The code lives in :mod:`vmb_gym.integrations.verifiers_stream`; this module only
names it (installed with the ``vmb_vehiclemem`` package), e.g.
``vf-eval vmb-vehiclemem-stream --env.taskset.files '[1]' --env.taskset.window-days 2 -r 8``.
"""

from vmb_gym.integrations.verifiers_stream import (
    VehicleMemStreamTaskset,
    VehicleMemStreamVfEnv,
    load_stream_environment,
)

__all__ = ["VehicleMemStreamTaskset", "VehicleMemStreamVfEnv", "load_stream_environment"]
