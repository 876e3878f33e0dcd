"""How a conversation of the natural renderer ends: a goodbye and its answer, composed (original text).

:func:`goodbye` builds the closing pair from parts: the first line wraps up (thanks, a plan, a
reason to go) and signs off, the answer acknowledges it and adds a wish. Each part is drawn
on its own, so the thousands of goodbyes of a history rarely repeat, as in real talk.
The parts are the banks of ``data/close.json`` (``WRAP``, ``PLAN``, ``SIGN_OFF``, ``ANSWER``,
``WISH``); ``{name}`` is the listener's first name; ``[a|b]`` is a choice made each time.
"""

from __future__ import annotations

import random

from vmb_gym.generator.bank_data import load

__all__ = ["goodbye"]


def goodbye(rng: random.Random) -> tuple[str, str]:
    """A closing pair (templates with ``{name}`` and ``[a|b]`` left for the renderer to fill)."""
    close = load("close")
    first = [rng.choice(close.WRAP)]
    if rng.random() < 0.5:
        first.append(rng.choice(close.PLAN))
    if len(first) == 1 or rng.random() < 0.4:
        first.append(rng.choice(close.SIGN_OFF))
    second = [rng.choice(close.ANSWER)]
    if rng.random() < 0.95:
        second.append(rng.choice(close.WISH))
    return " ".join(first), " ".join(second)
