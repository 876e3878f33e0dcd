"""The module import graph of ``vmb_gym`` and ``vmb_agents`` (folder ``agents/``), function-local imports included.

Prints every import cycle (a strongly connected component of more than one module), every
``vmb_gym -> vmb_agents`` edge that is not inside a ``vmb_gym/cli`` command's run-time function
(``run``, or a trainer's lazy ``_run_*``/``_add_*`` hooks: the one place the library may reach the
agents) and every edge against a layer of :data:`LAYERS` (policies import no trainers; the core
imports neither the generator, the server nor the CLI). Exits 1 when there is any.

    .venv/bin/python scripts/import_graph.py            # report
    .venv/bin/python scripts/import_graph.py --edges    # also list every edge

An edge ``a -> b`` means module ``a`` imports ``b`` or a name from it (``from pkg import x`` counts
as importing ``pkg.x`` when that is a module, else ``pkg``). Imports under ``if TYPE_CHECKING:``
are left out: they never run.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Import package -> its folder under the repository root.
PACKAGES = {"vmb_gym": "vmb_gym", "vmb_agents": "agents"}


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line``; ``scope`` is the enclosing function (``""`` at module level)."""

    source: str
    target: str
    line: int
    scope: str


def module_name(path: Path, root: Path = ROOT) -> str:
    """Dotted module name of a file under ``root`` (``pkg/__init__.py`` is ``pkg``; ``agents/`` is ``vmb_agents``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    parts[0] = {folder: pkg for pkg, folder in PACKAGES.items()}.get(parts[0], parts[0])
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of :data:`PACKAGES` under ``root``, by dotted name."""
    found: dict[str, Path] = {}
    for folder in PACKAGES.values():
        for path in sorted((root / folder).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, scope: str = "") -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with its innermost enclosing function name, skipping TYPE_CHECKING blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), scope)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, scope
        inner = node.name if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else scope
        yield from _imports(node, inner)


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a known module."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def edges(known: dict[str, Path] | None = None) -> list[Edge]:
    """Every import edge between known modules (self-edges of a package importing its own name dropped)."""
    known = known or modules()
    out: list[Edge] = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, scope in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for target in targets:
                resolved = _resolve(target, known)
                if resolved is not None and resolved != name:
                    out.append(Edge(name, resolved, node.lineno, scope))
    return sorted(set(out), key=lambda e: (e.source, e.target, e.line))


@dataclass(frozen=True)
class Layer:
    """No module under a prefix of ``sources`` (and not under ``exempt``) imports one under ``targets``.

    Function-local imports count: a lazy import still ties the two modules together.
    """

    sources: tuple[str, ...]
    targets: tuple[str, ...]
    why: str
    exempt: tuple[str, ...] = ()


#: The layers the graph keeps.
LAYERS: tuple[Layer, ...] = (
    Layer(("vmb_agents",), ("vmb_agents.train",), "policies import no trainers", exempt=("vmb_agents.train",)),
    Layer(("vmb_gym.vehicle", "vmb_gym.data", "vmb_gym.scoring", "vmb_gym.envs", "vmb_gym.memory"),
          ("vmb_gym.generator", "vmb_gym.server", "vmb_gym.cli"),
          "the simulator, data, scorer, env and memory import neither the generator, the server nor the CLI"),
)


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def against_layers(all_edges: list[Edge], layers: tuple[Layer, ...] = LAYERS) -> list[tuple[Edge, Layer]]:
    """Every edge that breaks a layer, with the layer it breaks."""
    return [(e, layer) for layer in layers for e in all_edges
            if _under(e.source, layer.sources) and not _under(e.source, layer.exempt)
            and _under(e.target, layer.targets)]


def cycles(all_edges: list[Edge]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted, largest first."""
    graph: dict[str, set[str]] = {}
    for e in all_edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found, key=lambda c: (-len(c), c))


def lazy_cli_scope(scope: str) -> bool:
    """A ``vmb_gym.cli`` function that runs only once its command is chosen: ``run``, ``_run_*``, ``_add_*``.

    ``_run_X``/``_add_X`` are the lazy hooks of one ``vmb train X`` trainer (its run and its own
    options), called only when that trainer is named on the command line.
    """
    return scope == "run" or scope.startswith(("_run_", "_add_"))


def library_to_agents(all_edges: list[Edge]) -> list[Edge]:
    """``vmb_gym -> vmb_agents`` edges, except function-local ones of a ``vmb_gym.cli`` command.

    A command's run-time functions are those of :func:`lazy_cli_scope`.
    """
    bad = []
    for e in all_edges:
        if e.source.split(".")[0] != "vmb_gym" or e.target.split(".")[0] != "vmb_agents":
            continue
        if e.source.startswith("vmb_gym.cli") and lazy_cli_scope(e.scope):
            continue
        bad.append(e)
    return bad


def main(argv: list[str] | None = None) -> int:
    """Print the cycles and the forbidden edges; exit 1 when there are any."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", action="store_true", help="also print every edge")
    args = parser.parse_args(argv)
    all_edges = edges()
    if args.edges:
        for e in all_edges:
            print(f"{e.source} -> {e.target}  (line {e.line}{', in ' + e.scope if e.scope else ''})")
    found = cycles(all_edges)
    bad = library_to_agents(all_edges)
    grain = against_layers(all_edges)
    print(f"{len(modules())} modules, {len(all_edges)} edges, {len(found)} cycles, "
          f"{len(bad)} vmb_gym -> vmb_agents edges, {len(grain)} edges against a layer")
    for component in found:
        print("cycle: " + " <-> ".join(component))
        members = set(component)
        for e in all_edges:
            if e.source in members and e.target in members:
                print(f"    {e.source} -> {e.target}  (line {e.line}{', in ' + e.scope if e.scope else ''})")
    for e in bad:
        print(f"vmb_gym -> vmb_agents: {e.source} -> {e.target}  (line {e.line}{', in ' + e.scope if e.scope else ''})")
    for e, layer in grain:
        print(f"against a layer ({layer.why}): {e.source} -> {e.target}  (line {e.line}"
              f"{', in ' + e.scope if e.scope else ''})")
    return 1 if found or bad or grain else 0


if __name__ == "__main__":
    sys.exit(main())
