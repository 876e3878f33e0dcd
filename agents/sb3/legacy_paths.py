"""Old module paths that pickled checkpoints name.

SB3 zips pickle their policy class by module path. Checkpoints saved before the import package
was renamed name ``agents.*`` (the repository folder); this package is ``vmb_agents``. While
:func:`old_module_paths` is active, ``agents.X`` imports resolve to ``vmb_agents.X``, and any
unrelated ``agents`` package (the OpenAI Agents SDK installs one) is set aside and put back after.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

OLD = "agents"
NEW = "vmb_agents"


def _is_old(name: str) -> bool:
    return name == OLD or name.startswith(OLD + ".")


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``agents.X`` as the already importable ``vmb_agents.X``."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _is_old(fullname):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(NEW + spec.name[len(OLD):])

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed."""


@contextmanager
def old_module_paths() -> Iterator[None]:
    """Within the block, ``import agents.X`` gives ``vmb_agents.X``; afterwards ``sys.modules`` is as before."""
    saved = {name: sys.modules.pop(name) for name in [n for n in sys.modules if _is_old(n)]}
    finder = _AliasFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if _is_old(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
