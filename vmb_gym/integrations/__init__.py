"""Adapters that plug VehicleMem-v0 into LLM-RL trainers' own environment APIs.

Each adapter is a module of its own, imported only by whoever uses it (its framework is an
optional dependency):

* :mod:`vmb_gym.integrations.skyrl_env`: a ``skyrl_gym`` ``BaseTextEnv`` (``pip install
  'vmb_gym[skyrl]'``), registered with :func:`~vmb_gym.integrations.skyrl_env.register_env`;
* :mod:`vmb_gym.integrations.verifiers_env`: a ``verifiers`` environment (``pip install
  'vmb_gym[verifiers]'``), loaded with ``load_environment()``;
* :mod:`vmb_gym.integrations.verifiers_stream`: ``VehicleMemStream-v0`` for ``verifiers``, one task per
  saved mid-timeline state so a group's rollouts start from one memory store (``load_stream_environment()``);
* :mod:`vmb_gym.integrations.text_actions`: reading tool calls out of a model's text reply
  (shared by both).

TRL's ``environment_factory`` adapter is :mod:`vmb_agents.llm.trl_env`.
"""
