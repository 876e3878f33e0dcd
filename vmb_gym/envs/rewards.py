"""Episode rewards of the vehicle envs: the named reward components and the ``reward=`` argument.

Every episode (``VehicleMem-v0``) and every request (``VehicleMemStream-v0``) ends with one set of
named components, in ``info["reward_components"]``:

| component | range | what it measures |
|---|---|---|
| ``state_f1_change`` | 0-1 | value-level F1 of the final state against the gold state (the official ``f1_change``) |
| ``state_f1_positive`` | 0-1 | field-level F1 of the final state (the official ``f1_positive``) |
| ``exact_state_match`` | 0/1 | the final state equals the gold state (the official ESM) |
| ``invalid_action_rate`` | 0-1 | share of steps whose action was unreadable or had an invalid call |
| ``tool_error_rate`` | 0-1 | share of the calls that ran and returned an error (0 when no call ran) |
| ``format_share`` | 0-1 | share of steps whose action could be read as tool calls |

In the QA track (``task_mode="qa"``) the three state components are replaced by
``answer_exact_match`` (0/1).

``reward=`` takes a metric name (``"f1_change"``, ``"f1_positive"``, ``"esm"``: the reward is that
component) or a weighted mapping of components, e.g. ``{"state_f1_change": 1.0,
"invalid_action_rate": -0.1}``: the reward is the weighted sum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from vmb_gym.errors import ConfigError

__all__ = ["QA_COMPONENTS", "REWARDS", "REWARD_COMPONENTS", "RewardSpec", "rates"]

#: Rewards an episode can end with, by name (metric names of the scorer).
REWARDS = ("f1_change", "f1_positive", "esm")

#: The components of a tool-track episode, in ``info["reward_components"]`` order.
REWARD_COMPONENTS = ("state_f1_change", "state_f1_positive", "exact_state_match",
                     "invalid_action_rate", "tool_error_rate", "format_share")

#: The components of a QA-track episode.
QA_COMPONENTS = ("answer_exact_match", "invalid_action_rate", "tool_error_rate", "format_share")

#: The component each named reward reads.
_NAMED = {"f1_change": "state_f1_change", "f1_positive": "state_f1_positive", "esm": "exact_state_match"}


@dataclass(frozen=True)
class RewardSpec:
    """A checked ``reward=`` argument: component weights, and the name it was given as.

    Attributes:
        weights: component -> weight; the reward is ``sum(weight * component)``.
        name: the metric name (``"f1_change"``, ...) when ``reward`` was one, else None.
        task_mode: ``"tool"`` or ``"qa"`` (which component set applies).
    """

    weights: Mapping[str, float]
    name: str | None
    task_mode: str = "tool"

    @classmethod
    def parse(cls, reward: str | Mapping[str, float], task_mode: str = "tool") -> RewardSpec:
        """Check ``reward`` (a name of :data:`REWARDS` or a weighted mapping of components).

        Raises:
            ConfigError: an unknown name, an unknown component, an empty mapping, or a weight
                that is not a finite number (the message names the accepted ones).
        """
        components = QA_COMPONENTS if task_mode == "qa" else REWARD_COMPONENTS
        if isinstance(reward, str):
            if reward not in REWARDS:
                raise ConfigError(f"reward must be one of {REWARDS} or a mapping of components {components} "
                                  f"to weights, got {reward!r}")
            return cls({"answer_exact_match" if task_mode == "qa" else _NAMED[reward]: 1.0}, reward, task_mode)
        if not isinstance(reward, Mapping) or not reward:
            raise ConfigError(f"reward must be one of {REWARDS} or a non-empty mapping of components {components} "
                              f"to weights, got {reward!r:.80}")
        unknown = [k for k in reward if k not in components]
        if unknown:
            raise ConfigError(f"reward: unknown component(s) {unknown}; the {task_mode} track's components are "
                              f"{', '.join(components)}")
        weights: dict[str, float] = {}
        for key, weight in reward.items():
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
                raise ConfigError(f"reward: the weight of {key!r} must be a finite number, got {weight!r:.40}")
            weights[key] = float(weight)
        return cls(weights, None, task_mode)

    def combine(self, components: Mapping[str, float]) -> float:
        """The reward of an episode with these ``components``."""
        if self.name is not None:  # one component: exactly its value, as before the mapping form existed
            (key,) = self.weights
            return float(components[key])
        return float(sum(w * components[k] for k, w in self.weights.items()))

    def to_argument(self) -> str | dict[str, float]:
        """The ``reward=`` value this spec was parsed from (a name, or the weights as a dict)."""
        return self.name if self.name is not None else dict(self.weights)


def rates(steps: int, failed_steps: int, unreadable: int, calls: int, tool_errors: int) -> dict[str, float]:
    """The three process components from an episode's counts.

    Args:
        steps: actions the policy sent.
        failed_steps: actions that were unreadable or had at least one invalid call.
        unreadable: actions that could not be read as tool calls.
        calls: calls that ran (``finish`` not counted).
        tool_errors: calls that ran and were invalid.
    """
    return {"invalid_action_rate": failed_steps / steps if steps else 0.0,
            "tool_error_rate": tool_errors / calls if calls else 0.0,
            "format_share": (steps - unreadable) / steps if steps else 1.0}

