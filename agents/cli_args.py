"""Command-line flags from a training script's ``Args`` dataclass (CleanRL style).

Each field becomes ``--field-name`` with its type and default; the ``# comment`` after the field
in the class source is its ``--help`` text, so the dataclass stays the one place that documents
a setting.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

_FIELD = re.compile(r"\s+(\w+): [^=]+=[^#]*#\s*(.+)$")


def field_comments(cls: type) -> dict[str, str]:
    """The ``# comment`` after each field of a dataclass's source."""
    out = {}
    for line in inspect.getsource(cls).splitlines():
        m = _FIELD.match(line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type,
                            choices: Mapping[str, Sequence[str]] | None = None) -> None:
    """Add one ``--flag`` per field of ``cls`` (``--train-files`` for ``train_files``; ``--x/--no-x`` for booleans)."""
    docs = field_comments(cls)
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
