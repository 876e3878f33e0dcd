"""Writers from their specs: ``NAME[@TOKENS[/fifo|/stop]]``, ``sb3:stream`` or ``sb3:CHECKPOINT[@...]``.

This module knows both the baseline writers (:mod:`vmb_agents.stream.writers`) and the learned one
(:mod:`vmb_agents.stream.learned`), so neither has to import the other.
"""

from __future__ import annotations

import re

from vmb_agents.reader import READER_TOP_K
from vmb_agents.stream.learned import NAMED_WRITERS, load_stream_writer
from vmb_agents.stream.writers import WRITER_ALIASES, WRITERS, Writer
from vmb_gym.errors import ConfigError
from vmb_gym.names import did_you_mean, match_name

__all__ = ["WRITER_NAMES", "make_writer", "parse_writer_spec"]

#: The writer names ``--writer`` documents: :data:`WRITER_ALIASES` less the internal keys that have a short name
#: (``rule``, ``store_everything``, ``store_nothing`` still work).
WRITER_NAMES: tuple[str, ...] = tuple(
    name for name in WRITER_ALIASES if name not in {key for alias, key in WRITER_ALIASES.items() if alias != key}
)

_BUDGET_SPEC = re.compile(r"^(?P<tokens>\d+)(?:/(?P<overflow>fifo|stop))?$")


def parse_writer_spec(spec: str) -> tuple[str, int | None, str | None]:
    """``NAME[@TOKENS[/fifo|/stop]]`` -> ``(NAME, budget tokens or None, overflow or None)``.

    Raises:
        ConfigError: for a malformed budget suffix.
    """
    if "@" not in spec:
        return spec, None, None
    name, _, suffix = spec.rpartition("@")
    m = _BUDGET_SPEC.match(suffix)
    if not m or not name:
        raise ConfigError(f"bad memory budget in writer {spec!r}; expected NAME@TOKENS or NAME@TOKENS/fifo|stop "
                          "(e.g. everything@2000)")
    return name, int(m["tokens"]), m["overflow"]


def make_writer(spec: str, top_k: int = READER_TOP_K, *, trust_checkpoint: bool = False) -> Writer:
    """A writer from its name (``everything``, ``nothing``, ``rules``, ``layered``), ``sb3:stream`` or
    ``sb3:CHECKPOINT``.

    ``sb3:stream`` is the learned writer shipped in the package (:data:`vmb_agents.stream.learned.NAMED_WRITERS`).

    A suffix ``@TOKENS`` caps the writer's store at that many tokens, ``@TOKENS/stop`` or
    ``@TOKENS/fifo`` also picks the overflow policy (see :mod:`vmb_agents.stream.writers`; baseline writers default
    to ``fifo``; a learned writer never overflows: its ``keep`` is masked when a line does not fit,
    and without a suffix it uses the budget it was trained with). ``trust_checkpoint`` lets ``sb3:PATH`` load an
    SB3 zip, a pickle that can run code (:func:`~vmb_agents.stream.learned.load_stream_writer`).

    Raises:
        ConfigError: for an unknown name, a malformed budget, or an SB3 zip without ``trust_checkpoint``.
    """
    spec, budget, overflow = parse_writer_spec(spec)
    if spec.startswith("sb3:"):
        writer = load_stream_writer(spec.removeprefix("sb3:"), top_k=top_k, trust_checkpoint=trust_checkpoint)
        if budget is not None:
            writer.set_budget(budget, overflow)
        return writer
    key = WRITER_ALIASES.get(match_name(spec, WRITER_ALIASES) or spec)
    if key is None:
        shipped = ", ".join(f"sb3:{n}" for n in NAMED_WRITERS)
        hint = did_you_mean(spec, WRITER_NAMES) or did_you_mean(spec, WRITER_ALIASES)
        raise ConfigError(f"unknown writer {spec!r}; expected {', '.join(WRITER_NAMES)} (each may take a memory "
                          f"budget NAME@TOKENS or NAME@TOKENS/fifo|stop, e.g. rules@2000), {shipped} (the shipped "
                          f"learned writer) or sb3:CHECKPOINT{hint}")
    writer = WRITERS[key](top_k=top_k)
    if budget is not None:
        writer.set_budget(budget, overflow)
        writer.name = f"{writer.name}@{budget}"
    return writer
