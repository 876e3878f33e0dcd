"""Policies for the vmb_gym envs, and the episode loop to run them.

The public surface (every name is loaded on first use, so ``import vmb_agents`` imports nothing
heavy; torch, transformers and Stable-Baselines3 load only with the class that needs them):

| name | what | lives in |
|---|---|---|
| ``make_policy(spec, env, **options)`` | a policy from a ``vmb eval --policy`` spec | :mod:`vmb_agents.factory` |
| ``RulesPolicy`` | the reader acting alone (``rules``): keyword rules, no LLM | :mod:`vmb_agents.reader` |
| ``Reading`` | one reading of a request per step, hits included | :mod:`vmb_agents.reader.reading` |
| ``OraclePolicy``, ``NoopPolicy``, ``RandomPolicy`` | gold calls, nothing, random calls | :mod:`vmb_agents.baselines` |
| ``ToolChatPolicy``, ``HFPolicy``, ``OpenAIPolicy`` | language-model policies (tool chat) | :mod:`vmb_agents.llm` |
| ``Decoding``, ``RulesGuide`` | ``HFPolicy``'s decoding config, its optional rule guidance | :mod:`vmb_agents.llm` |
| ``load_sb3_policy(path, env)`` | a Stable-Baselines3 checkpoint as a policy | :mod:`vmb_agents.sb3.policies` |
| ``make_writer(spec)`` | a memory writer for ``VehicleMemStream-v0`` | :mod:`vmb_agents.stream.factory` |
| ``run_episode``, ``run_episodes``, ``list_tasks`` | the episode loop | :mod:`vmb_gym.policy` |
| ``Episode``, ``Policy`` | an episode's record, the policy contract | :mod:`vmb_gym.policy` |

Example (the README's "Python API" section runs more):
    >>> import gymnasium as gym, vmb_gym, vmb_agents
    >>> env = gym.make("VehicleMem-v0", memory="gold", files="1")
    >>> episodes = vmb_agents.run_episodes(env, vmb_agents.RulesPolicy(source=env), n=3)
    >>> [e.memory for e in episodes], len({e.task_id for e in episodes})
    (['gold', 'gold', 'gold'], 3)
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module that defines it.
_HOMES: dict[str, str] = {
    "make_policy": "vmb_agents.factory",
    "POLICY_KINDS": "vmb_agents.factory",
    "RulesPolicy": "vmb_agents.reader",
    "Reading": "vmb_agents.reader.reading",
    "RulesGuide": "vmb_agents.llm.guide",
    "Decoding": "vmb_agents.llm.hf",
    "OraclePolicy": "vmb_agents.baselines",
    "NoopPolicy": "vmb_agents.baselines",
    "RandomPolicy": "vmb_agents.baselines",
    "ToolChatPolicy": "vmb_agents.llm.chat",
    "HFPolicy": "vmb_agents.llm.hf",
    "OpenAIPolicy": "vmb_agents.llm.openai_compat",
    "load_sb3_policy": "vmb_agents.sb3.policies",
    "make_writer": "vmb_agents.stream.factory",
    "run_episode": "vmb_gym.policy",
    "run_episodes": "vmb_gym.policy",
    "list_tasks": "vmb_gym.policy",
    "Episode": "vmb_gym.policy",
    "Policy": "vmb_gym.policy",
}

__all__ = [
    "POLICY_KINDS", "Decoding", "Episode", "HFPolicy", "NoopPolicy", "OpenAIPolicy", "OraclePolicy", "Policy",
    "RandomPolicy", "Reading", "RulesGuide", "RulesPolicy", "ToolChatPolicy", "list_tasks", "load_sb3_policy",
    "make_policy", "make_writer", "run_episode", "run_episodes",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'vmb_agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
