"""A tool shortlist: the vehicle functions a lexical retriever ranks highest for the conversation so far.

Tool-use systems with large catalogues put a retriever in front of the model (ToolLLM's API
retriever, Gorilla's document retriever): the model chooses among a handful of tools instead of
all of them. A 135M model picks the wrong module in half of the official requests even with the
memory lines tagged (:func:`vmb_agents.llm.compact_view.setting_tags`), while a lexical ranking of the
request and the lines it retrieved holds the right module among its first few in about nine
requests of ten.

:func:`shortlist` ranks the 111 functions for the step's :class:`~vmb_agents.reader.reading.Reading`: each
function scores twice the simulator vocabulary's score of the request's quoted words
(:func:`vmb_agents.reader.score_apis`; the whole request's only when the quotes name no function, since the
narrative's places and errands name other devices: "driving to Central Station" is a radio station to the
vocabulary), plus the best score of a retrieved memory line that names the function and states a value for it
(the rules reader's value matcher, :func:`vmb_agents.reader.values.extract_value`). With a guide's
``tool_shortlist=K`` (:class:`~vmb_agents.llm.guide.RulesGuide`) the decoder
(:func:`vmb_agents.llm.constrained.grammar_for`) lets ``list_module_tools`` name only the modules of the first
``K`` functions, and ``call_vehicle`` only those functions among the listed ones (when none of them is listed,
any listed one). A request whose memory and wording name no function is not constrained.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vmb_agents.reader.reading import Reading
    from vmb_agents.reader.request import Request

__all__ = ["asked_functions", "shortlist"]


def asked_functions(request: Request) -> dict[str, float]:
    """How strongly the request's quoted words name each function; the whole request's scores when the quotes name
    none (or there are no quotes)."""
    from vmb_agents.reader import score_apis
    from vmb_agents.reader.request import api_text

    quoted = score_apis(api_text(replace(request, text=""))) if request.quotes else {}
    return quoted if any(s > 0 for s in quoted.values()) else score_apis(api_text(request))


def shortlist(reading: Reading, k: int, shown: int = 0) -> tuple[str, ...]:
    """The ``k`` best-ranked vehicle functions (env names, best first) for the request and the memory lines of
    ``reading`` (each search's first ``shown`` hits, the ones the model read; 0: all; see the module docstring);
    ``()`` when neither the request nor a memory line names a function."""
    from vmb_agents.reader import score_apis
    from vmb_agents.reader.values import extract_value
    from vmb_gym.vehicle import API_SPECS

    asked = reading.memo.get("asked")
    if asked is None:
        asked = reading.memo["asked"] = asked_functions(reading.request)
    scores = {api: 2.0 * s for api, s in asked.items() if s > 0}
    for body in reading.memory_lines(shown):
        for api, s in score_apis(body).items():
            rs = asked.get(api, 0.0)
            if (rs == 0.0 and s < 2.0) or extract_value(API_SPECS[api], body) is None:
                continue
            scores[api] = max(scores.get(api, 0.0), 2.0 * rs + s)
    best = sorted(scores, key=lambda api: (-scores[api], api))
    return tuple(best[:k])
