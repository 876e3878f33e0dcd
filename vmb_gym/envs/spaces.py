"""The action space of the vehicle envs: structured tool calls.

``ToolCallSpace.sample()`` returns a well-formed call (a JSON string) drawn from the tool
schemas with the space's own seeded generator, so ``check_env`` and random policies send
calls the env understands. ``contains`` accepts every form :func:`parse_action` accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from typing import Any

import numpy as np
import orjson
from gymnasium.spaces import Space, Tuple
from gymnasium.vector.utils import batch_space

from vmb_gym.envs.actions import parse_action
from vmb_gym.errors import ActionError


class ToolCallSpace(Space[str]):
    """A space of tool calls described by OpenAI-style function schemas.

    Args:
        tools: the tool schemas a sample may call.
        seed: seed of the space's generator.
    """

    def __init__(self, tools: Sequence[dict[str, Any]], seed: int | None = None) -> None:
        self.tools = list(tools)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Tool calls cannot be flattened into a numpy array."""
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random well-formed call, as a JSON string."""
        fn = self.tools[int(self.np_random.integers(len(self.tools)))]["function"]
        args = {}
        params = fn["parameters"]
        for name, prop in params["properties"].items():
            if name not in params.get("required", []) and self.np_random.random() < 0.5:
                continue
            args[name] = self._sample_value(prop)
        return orjson.dumps({"name": fn["name"], "arguments": args}).decode()

    def _sample_value(self, prop: dict[str, Any]) -> Any:
        rng = self.np_random
        if "enum" in prop:
            return prop["enum"][int(rng.integers(len(prop["enum"])))]
        kind = prop.get("type")
        if kind == "integer":
            lo = int(prop.get("minimum", 0))
            hi = int(prop.get("maximum", lo + 100))
            return int(rng.integers(lo, hi + 1))
        if kind == "boolean":
            return bool(rng.integers(2))
        if kind == "number":
            return float(rng.random())
        words = ("driver", "passenger", "all", "home", "office", "blue", "seat", "Jazz FM")
        return words[int(rng.integers(len(words)))]

    def contains(self, x: Any) -> bool:
        """True when ``x`` parses as one or more calls."""
        try:
            parse_action(x)
        except ActionError:
            return False
        return True

    def __repr__(self) -> str:
        return f"ToolCallSpace({len(self.tools)} tools)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCallSpace) and [t["function"]["name"] for t in self.tools] == [
            t["function"]["name"] for t in other.tools
        ]


@batch_space.register(ToolCallSpace)
def _batch_tool_call_space(space: ToolCallSpace, n: int = 1) -> Tuple:
    """Vector envs take one call per sub-env: a Tuple of independent copies."""
    seeds = space.np_random.integers(0, np.iinfo(np.int32).max, size=n)
    copies = []
    for s in seeds:
        c = deepcopy(space)
        c.seed(int(s))
        copies.append(c)
    return Tuple(copies)
