"""The import graph of vmb_gym/ and agents/ (function-local imports included): no cycle, no library -> agents edge."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py"
_SPEC = importlib.util.spec_from_file_location("import_graph", _SCRIPT)
assert _SPEC is not None and _SPEC.loader is not None
graph = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("import_graph", graph)  # dataclasses look their module up
_SPEC.loader.exec_module(graph)


def test_the_graph_sees_function_local_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "vmb_gym"
    (pkg / "cli").mkdir(parents=True)
    (tmp_path / "agents").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vmb_gym import b\n"
                              "def f():\n    from .b import thing\n")
    (pkg / "b.py").write_text("import vmb_gym.a\n")
    (pkg / "cli" / "__init__.py").write_text("")
    (pkg / "cli" / "go.py").write_text("import vmb_agents.x\ndef run(args):\n    from vmb_agents import x\n")
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "agents" / "x.py").write_text("")
    edges = graph.edges(graph.modules(tmp_path))
    from_a = [(e.source, e.target, e.scope) for e in edges if e.source == "vmb_gym.a"]
    assert from_a == [("vmb_gym.a", "vmb_gym.b", "f")]
    assert graph.cycles(edges) == [["vmb_gym.a", "vmb_gym.b"]]
    bad = graph.library_to_agents(edges)
    assert [(e.source, e.line, e.scope) for e in bad] == [("vmb_gym.cli.go", 1, "")]  # the one in run() is allowed


def test_no_library_module_imports_agents() -> None:
    bad = graph.library_to_agents(graph.edges())
    assert bad == [], "\n".join(f"{e.source} -> {e.target} (line {e.line}, in {e.scope or 'module'})" for e in bad)


def test_no_import_cycle() -> None:
    found = graph.cycles(graph.edges())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_layers_catch_function_local_imports_against_the_grain(tmp_path: Path) -> None:
    files = {
        "vmb_gym/__init__.py": "", "vmb_gym/envs/__init__.py": "", "vmb_gym/generator/__init__.py": "",
        "vmb_gym/envs/qa.py": "def score():\n    from vmb_gym.generator import score_qa\n",
        "vmb_gym/generator/w.py": "from vmb_gym.envs import qa\n",
        "agents/__init__.py": "", "agents/stream/__init__.py": "", "agents/train/__init__.py": "",
        "agents/train/common.py": "", "agents/train/lm.py": "from vmb_agents.train.common import x\n",
        "agents/stream/imitation.py": "def clone():\n    from vmb_agents.train.common import behaviour_clone\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = graph.against_layers(graph.edges(graph.modules(tmp_path)))
    assert [(e.source, e.target, e.scope, layer.why) for e, layer in found] == [
        ("vmb_agents.stream.imitation", "vmb_agents.train.common", "clone", "policies import no trainers"),
        ("vmb_gym.envs.qa", "vmb_gym.generator", "score", graph.LAYERS[1].why),
    ]


def test_policies_import_no_trainers_and_the_core_no_generator_server_or_cli() -> None:
    bad = graph.against_layers(graph.edges())
    assert bad == [], "\n".join(f"{e.source} -> {e.target} (line {e.line}): {layer.why}" for e, layer in bad)
