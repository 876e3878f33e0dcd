"""Word pools and sentence templates of the scenario generator, read from ``data/banks.json`` on first use.

Every bank of the file is an attribute of this module (``banks.STATE``, ``banks.OCCUPATIONS``):
a tuple of texts or records, or a dict of them (:func:`vmb_gym.generator.bank_data.load`). Every
template is a ``str.format`` pattern; the file's ``about`` lists the placeholders.
"""

from __future__ import annotations

from typing import Any

from vmb_gym.generator.bank_data import load


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        value = getattr(load("banks"), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value  # later reads are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *vars(load("banks"))})
