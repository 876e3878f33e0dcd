"""Moved: the Args-to-argparse helper is :mod:`agents.train.common` (this name stays until every script imports it there)."""

from agents.train.common import add_dataclass_arguments, args_from_namespace, field_docs

__all__ = ["add_dataclass_arguments", "args_from_namespace", "field_docs"]
