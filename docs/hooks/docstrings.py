"""mkdocs hook: put a Python object's docstring into a page, so the docs never fork it.

A line ``<!-- docstring: vmb_gym.envs.vehicle_mem.VehicleMemEnv -->`` in a page becomes that
object's docstring, read from the source with :mod:`ast` (nothing is imported, so the site builds
without torch or any extra). ``vmb_agents.*`` is read from the repository folder ``agents/``.
Markdown headings in the docstring move one level down, Google-style sections (``Args:``,
``Returns:``, ``Raises:``, ...) become lists and ``Example:`` blocks become code. A contract class
(a ``Protocol`` or an ``ABC``) also gets a **Members** list: its public annotated attributes and
its public methods with their signatures and the first line of their docstrings, since the
contract lives there. An object that cannot be found stops the build.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"vmb_agents": "agents"}
MARKER = re.compile(r"^<!-- docstring: ([\w.]+) -->[ \t]*$", re.M)
ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")
LIST_SECTIONS = {"Args", "Arguments", "Attributes", "Returns", "Raises", "Yields"}
CODE_SECTIONS = {"Example", "Examples"}
#: Bases that make a class a contract whose members are listed (:func:`members`).
CONTRACT_BASES = {"Protocol", "ABC"}


def _source_of(parts: list[str]) -> tuple[Path, list[str]]:
    """The file that defines the module prefix of ``parts``, and the names left to find in it."""
    for i in range(len(parts), 0, -1):
        folder = [FOLDERS.get(parts[0], parts[0]), *parts[1:i]]
        base = ROOT.joinpath(*folder)
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path, parts[i:]
    raise PluginError(f"docstring hook: no module for {'.'.join(parts)!r}")


def _node(dotted: str) -> tuple[ast.AST, Path]:
    """The ``ast`` node of the object named ``dotted`` and the file that holds it."""
    path, names = _source_of(dotted.split("."))
    node: ast.AST = ast.parse(path.read_text(encoding="utf-8"))
    for name in names:
        found = next((n for n in ast.iter_child_nodes(node)
                      if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
                     None)
        if found is None:
            raise PluginError(f"docstring hook: {name!r} not found in {path.relative_to(ROOT)} (for {dotted!r})")
        node = found
    return node, path


def docstring(dotted: str, node: ast.AST | None = None) -> str:
    """The cleaned docstring of the object named ``dotted`` (``node``: its ``ast`` node, when already found)."""
    text = ast.get_docstring(node or _node(dotted)[0])  # type: ignore[arg-type]
    if not text:
        raise PluginError(f"docstring hook: {dotted!r} has no docstring")
    return text


def _roles(text: str) -> str:
    """Sphinx roles (``:class:`~a.B``` and the like) as code."""
    return ROLE.sub(lambda m: f"``{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}``", text)


def _is_contract(node: ast.ClassDef) -> bool:
    """A ``Protocol`` or ``ABC`` subclass (``Protocol[T]`` and ``abc.ABC`` too) or ``metaclass=ABCMeta``."""
    names = [ast.unparse(b.value if isinstance(b, ast.Subscript) else b).rsplit(".", 1)[-1] for b in node.bases]
    meta = [ast.unparse(k.value).rsplit(".", 1)[-1] for k in node.keywords if k.arg == "metaclass"]
    return bool(CONTRACT_BASES & set(names)) or "ABCMeta" in meta


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``name(arg, arg=default, *, kw=default)`` without ``self``/``cls`` and without annotations."""
    a = fn.args
    plain = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(plain) - len(a.defaults)) + list(a.defaults)
    parts = [p.arg if d is None else f"{p.arg}={ast.unparse(d)}" for p, d in zip(plain, defaults, strict=True)]
    if plain and plain[0].arg in ("self", "cls"):
        parts = parts[1:]
    if a.vararg:
        parts.append(f"*{a.vararg.arg}")
    elif a.kwonlyargs:
        parts.append("*")
    parts += [p.arg if d is None else f"{p.arg}={ast.unparse(d)}" for p, d in zip(a.kwonlyargs, a.kw_defaults,
                                                                                   strict=True)]
    if a.kwarg:
        parts.append(f"**{a.kwarg.arg}")
    return f"{fn.name}({', '.join(parts)})"


def _first_line(text: str | None) -> str:
    """The first paragraph of a docstring on one line ("" for none)."""
    return " ".join((text or "").strip().split("\n\n")[0].split())


def members(node: ast.AST) -> str:
    """Markdown list of a contract class's public members ("" for anything else)."""
    if not isinstance(node, ast.ClassDef) or not _is_contract(node):
        return ""
    items: list[str] = []
    body = node.body
    for k, stmt in enumerate(body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and not stmt.target.id.startswith("_"):
            nxt = body[k + 1] if k + 1 < len(body) else None  # an attribute docstring right after it
            doc = (nxt.value.value if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                   and isinstance(nxt.value.value, str) else None)
            line = f"* `{stmt.target.id}: {ast.unparse(stmt.annotation)}`"
            items.append(f"{line}: {_first_line(doc)}" if doc else line)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.name.startswith("_"):
            doc = _first_line(ast.get_docstring(stmt))
            items.append(f"* `{_signature(stmt)}`" + (f": {doc}" if doc else ""))
    if not items:
        return ""
    return "\n**Members**\n\n" + _roles("\n".join(items)) + "\n"


def to_markdown(text: str) -> str:
    """A docstring as Markdown: roles as code, headings one level down, Google sections as lists or code."""
    text = _roles(text)
    text = re.sub(r"(?<=\S)::$", ":", text, flags=re.M)  # reST's literal-block marker; the block stays indented
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head = line.strip().rstrip(":")
        if line.endswith(":") and not line.startswith(" ") and head in LIST_SECTIONS | CODE_SECTIONS:
            body: list[str] = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                body.append(lines[i])
                i += 1
            block = textwrap.dedent("\n".join(body)).strip("\n")
            out += ["", f"**{head}**", ""]
            if head in CODE_SECTIONS:
                out += ["```python", block, "```", ""]
            else:
                for item in block.splitlines():
                    if item.startswith(" "):
                        out[-1] += " " + item.strip()
                    elif item.strip():
                        key, sep, rest = item.partition(": ")
                        out.append(f"* `{key}`: {rest}" if sep and " " not in key.strip() else f"* {item}")
                out.append("")
            continue
        if line.startswith("#"):
            line = "#" + line
        out.append(line)
        i += 1
    return "\n".join(out).strip() + "\n"


def on_page_markdown(markdown: str, **_: object) -> str:
    """Replace every docstring marker of a page."""
    def render(match: re.Match[str]) -> str:
        node, _ = _node(match.group(1))
        return to_markdown(docstring(match.group(1), node)) + members(node)

    return MARKER.sub(render, markdown)
