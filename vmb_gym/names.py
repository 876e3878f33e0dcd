"""Matching a user-typed name against the valid choices: case-insensitive lookup and "did you mean".

Every option that takes a name (``--memory``, ``--policy``, ``--data``, a memory module's
option) resolves it with :func:`match_name` and words its error with :func:`did_you_mean`, so
``bm2`` suggests ``bm25`` and ``BM25`` is ``bm25`` wherever names are looked up.

    >>> match_name("BM25", ["bm25", "dense"])
    'bm25'
    >>> did_you_mean("bm2", ["bm25", "dense"])
    "; did you mean 'bm25'?"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "match_name"]


def match_name(name: str, choices: Iterable[str]) -> str | None:
    """The choice ``name`` names: itself, else the one choice equal to it ignoring case.

    Returns:
        The matching choice, or ``None`` when there is none or the case-insensitive match is
        ambiguous (two choices differ only in case).
    """
    options = list(choices)
    if name in options:
        return name
    folded = [c for c in options if c.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None


def did_you_mean(name: str, choices: Iterable[str], n: int = 3) -> str:
    """``"; did you mean 'X'?"`` (or ``'X' or 'Y'``) for the choices close to ``name``, else ``""``."""
    options = list(choices)
    by_fold = {c.casefold(): c for c in options}
    close = difflib.get_close_matches(name.casefold(), list(by_fold), n=n, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(by_fold[c]) for c in close) + "?"
