"""The queries of small generated households, for the tests of the request-wording options."""

from __future__ import annotations

import re

from vmb_gym.generator import GeneratorOptions, build_scenario

#: Six short households: enough requests of every reasoning type.
SMALL = GeneratorOptions(seed=3, scenarios=6, history_length=200)
#: The quoted request at the end of a query text.
QUOTE = re.compile(r"said: '(.*)'$")


def built(options: GeneratorOptions) -> list[tuple[dict, str, list[str], str]]:
    """Per query: its meta, the request, the gold calls and the scenario's history text."""
    out = []
    for k in range(options.scenarios):
        sc = build_scenario(options, k)
        for meta, item in zip(sc.meta["queries"], sc.qa["related_to_vehicle_preference"], strict=True):
            out.append((meta, item["query"], item["new_answer"], sc.history))
    return out
