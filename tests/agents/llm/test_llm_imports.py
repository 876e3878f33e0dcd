"""The language-model policies import with the grain: tool schemas from the env, no SB3 checkpoint module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("import_graph", Path(__file__).resolve().parents[3] / "scripts" /
                                               "import_graph.py")
assert _SPEC is not None and _SPEC.loader is not None
graph = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("import_graph", graph)  # dataclasses look their module up
_SPEC.loader.exec_module(graph)

LLM_LAYER = graph.Layer(("vmb_agents.llm",), ("vmb_agents.sb3.checkpoint", "vmb_gym.server", "vmb_agents.train"),
                        "the LM policies read tool schemas from the env and load no SB3 checkpoint")


def test_the_llm_policies_import_neither_the_server_nor_the_sb3_checkpoint_module() -> None:
    edges = graph.edges()
    assert any(e.source.startswith("vmb_agents.llm") for e in edges)  # the graph sees the package
    bad = [(e.source, e.target, e.line) for e, _ in graph.against_layers(edges, (LLM_LAYER,))]
    assert bad == []
