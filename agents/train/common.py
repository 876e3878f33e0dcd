"""Pieces every training script shares (the ``cleanrl_utils`` of this tree).

* :func:`add_dataclass_arguments` / :func:`args_from_namespace`: command-line flags from a
  script's ``Args`` dataclass. Each field becomes ``--field-name`` with its type and default; the
  field's docstring (a string literal right below it, read from the source with :mod:`ast`) is
  its ``--help``, so the dataclass stays the one place that documents a setting. A trailing
  ``# comment`` is read too, for scripts not yet converted;
* :func:`write_csv`: a training log as CSV.
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import inspect
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_dataclass_arguments", "args_from_namespace", "field_docs", "write_csv"]

_COMMENT = re.compile(r"\s+(\w+): [^=]+=[^#]*#\s*(.+)$")


def field_docs(cls: type) -> dict[str, str]:
    """The help text of each field of dataclass ``cls``: its docstring, else its trailing ``# comment``."""
    source = textwrap.dedent(inspect.getsource(cls))
    out: dict[str, str] = {}
    for line in source.splitlines():
        m = _COMMENT.match(line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    for stmt, nxt in zip(body.body, body.body[1:], strict=False):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            out[stmt.target.id] = " ".join(nxt.value.value.split())
    return out


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type,
                            choices: Mapping[str, Sequence[str]] | None = None) -> None:
    """Add one ``--flag`` per field of ``cls`` (``--train-files`` for ``train_files``; ``--x/--no-x`` for booleans)."""
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if isinstance(f.default, bool):  # --flag / --no-flag
            parser.add_argument("--" + f.name.replace("_", "-"), action=argparse.BooleanOptionalAction,
                                default=f.default, help=docs.get(f.name, f.name.replace("_", " ")))
            continue
        kind = {int: int, float: float}.get(type(f.default), str)
        parser.add_argument("--" + f.name.replace("_", "-"), type=kind, default=f.default,
                            choices=(choices or {}).get(f.name), help=docs.get(f.name, f.name.replace("_", " ")))


def args_from_namespace(cls: type, ns: argparse.Namespace) -> Any:
    """Build ``cls`` from the parsed flags."""
    return cls(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(cls)})


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows as a CSV (header from the first row); an empty file when there are none."""
    with path.open("w", newline="", encoding="utf-8") as f:
        if rows:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
