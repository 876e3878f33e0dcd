"""Rule guidance for a chat model: the reader's hooks around a language model's decoding.

:class:`HFPolicy <vmb_agents.llm.hf.HFPolicy>` runs a model, an adapter and a decoding config; a
:class:`RulesGuide` passed as ``guide=`` wraps the reader (:mod:`vmb_agents.reader`) around it. Without a guide
the policy is the model alone. Each hook is off unless the guide names it:

| field | what it does | in ``vmb_agents.llm`` |
|---|---|---|
| ``constrain_names`` | a tool call spells only the tools, functions and parameters offered | ``constrained`` |
| ``constrain_values`` | a value with a fixed set (enum, bounded integer, boolean) is one of them | ``constrained`` |
| ``require_vehicle_call`` | no ``finish`` before a vehicle call; after a search, the vehicle call | ``constrained`` |
| ``name_in_query`` | a memory query starts with a name the request narrates | ``query_names`` |
| ``tool_shortlist`` | the K functions a lexical retriever ranks first are the only ones offered | ``tool_shortlist`` |
| ``seat_from_request`` | a call's seat is the one the request's narrative gives | ``request_seat`` |
| ``line_reader`` | a second adapter picks the hit the value comes from; the value is that line's | ``line_reader`` |
| ``search_depth`` | every memory search returns this many hits (a compact view) | ``compact_view`` |
| ``shown_hits`` | the chat model reads the first this many hits of a search (compact view) | ``compact_view`` |
| ``companions`` | a vehicle call is followed by the calls its value's line adds | ``companions`` |

The hooks read the step's :class:`~vmb_agents.reader.reading.Reading` (the request, its reading and the
structured hits), computed once per step by the policy, never the rendered text of the hits.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory.llm import ChatReply, Messages, Tools

__all__ = ["RulesGuide"]


@dataclass(frozen=True)
class RulesGuide:
    """Which of the reader's hooks guide a chat model (see the module docstring); all off by default.

    Raises:
        ConfigError: a hook without the one it needs (``require_vehicle_call`` and ``tool_shortlist`` need
            ``constrain_names``; ``seat_from_request`` and ``line_reader`` need ``constrain_values``) or a
            negative count.
    """

    constrain_names: bool = False
    constrain_values: bool = False
    require_vehicle_call: bool = False
    name_in_query: bool = False
    tool_shortlist: int = 0
    seat_from_request: bool = False
    #: a line reader adapter folder, or ``"shipped"`` (:data:`~vmb_agents.llm.line_reader.READER_DIR`); ``""``: off
    line_reader: str = ""
    search_depth: int = 0
    shown_hits: int = 0
    companions: bool = False

    def __post_init__(self) -> None:
        needs = (("require_vehicle_call", bool(self.require_vehicle_call), "constrain_names"),
                 ("tool_shortlist", bool(self.tool_shortlist), "constrain_names"),
                 ("seat_from_request", bool(self.seat_from_request), "constrain_values"),
                 ("line_reader", bool(self.line_reader), "constrain_values"))
        for name, on, needed in needs:
            if on and not getattr(self, needed):
                raise ConfigError(f"the guide's {name} narrows what {needed} constrains: expected {needed}=True with "
                                  f"it, found {needed}=False; fix: turn both on or {name} off")
        for name in ("tool_shortlist", "search_depth", "shown_hits"):
            if int(getattr(self, name)) < 0:
                raise ConfigError(f"the guide's {name} must be 0 (off) or a positive number, found "
                                  f"{getattr(self, name)}")

    @classmethod
    def of(cls, value: RulesGuide | Mapping[str, Any] | None) -> RulesGuide | None:
        """A guide from a guide, its fields as a mapping (``--policy-kwargs '{"guide": {...}}'``) or None (none).

        Raises:
            ConfigError: a field the guide does not have (the message lists them), or another type.
        """
        if value is None or isinstance(value, RulesGuide):
            return value
        if isinstance(value, Mapping):
            known = [f.name for f in fields(cls)]
            unknown = sorted(set(value) - set(known))
            if unknown:
                raise ConfigError(f"the guide has no field(s) {', '.join(unknown)}; its fields: {', '.join(known)}")
            return cls(**dict(value))
        raise ConfigError(f"guide: expected a RulesGuide, a mapping of its fields or None, found "
                          f"{type(value).__name__}")

    @property
    def constrains(self) -> bool:
        """Whether the guide constrains decoding (names, values or the memory query's first word)."""
        return self.constrain_names or self.constrain_values or self.name_in_query

    def fit_view(self, view: Any) -> Any:
        """``view`` with the guide's search depth and shown hits (a copy; ``view`` itself is not changed).

        Raises:
            ConfigError: ``search_depth`` or ``shown_hits`` with a view that has no depth (the official one).
        """
        if not (self.search_depth or self.shown_hits):
            return view
        if not hasattr(view, "depth"):
            raise ConfigError(f"the guide's search_depth and shown_hits need a compact view; found search_depth="
                              f"{self.search_depth}, shown_hits={self.shown_hits} with view "
                              f"{getattr(view, 'name', view)!r}; fix: view='compact' or set both to 0")
        view = copy.copy(view)
        view.depth, view.shown = self.search_depth or view.depth, self.shown_hits or view.shown
        return view

    def grammars(self, view: Any, requests: Sequence[tuple[Messages, Tools]], readings: Sequence[Any],
                 line_reader: Any) -> list[Any]:
        """One :class:`~vmb_agents.llm.constrained.CallGrammar` per request (its reading beside it), narrowed by
        the line reader's pick where the conversation's last message is a memory search."""
        from vmb_agents.llm.constrained import grammar_for

        grammars = [grammar_for(view, m, t, reading, names=self.constrain_names, values=self.constrain_values,
                                require_vehicle=self.require_vehicle_call, name_in_query=self.name_in_query,
                                shortlist=self.tool_shortlist, seat_from_request=self.seat_from_request)
                    for (m, t), reading in zip(requests, readings, strict=True)]
        return self._read_values(requests, readings, grammars, line_reader)

    @staticmethod
    def _read_values(requests: Sequence[tuple[Messages, Tools]], readings: Sequence[Any], grammars: list[Any],
                     line_reader: Any) -> list[Any]:
        """``grammars`` with the line reader's pick applied: for each conversation whose last message is a memory
        search's hits (all of them: :attr:`Reading.last_search`), the reader judges the hits that state a value for a
        function its grammar allows, and each function's value is narrowed to the one the picked line states
        (:func:`~vmb_agents.llm.constrained.narrow_to_line`). Unchanged without a reader. One batched pass per
        conversation over its lines (:meth:`~vmb_agents.llm.line_reader.LineReader.pick`)."""
        if line_reader is None:
            return grammars
        from vmb_agents.llm.constrained import narrow_to_line, states_a_value

        todo = []
        for i, ((m, _), reading, g) in enumerate(zip(requests, readings, grammars, strict=True)):
            if m and m[-1].get("role") == "tool" and m[-1].get("name") == "search_memory":
                functions = list(g.functions) or list(g.choices) + list(g.literals)
                valued = [(line, body) for line, body in reading.search_lines(-1)
                          if states_a_value(body, functions)]
                if valued:
                    todo.append((i, valued))
        picks = line_reader.pick([readings[i].text for i, _ in todo], [[ln for ln, _ in ls] for _, ls in todo])
        out = list(grammars)
        for (i, lines), k in zip(todo, picks, strict=True):
            if k is not None:
                choices, literals = narrow_to_line(lines[k][1], out[i].choices, out[i].literals)
                out[i] = replace(out[i], choices=choices, literals=literals)
        return out

    def with_companions(self, requests: Sequence[tuple[Messages, Tools]], readings: Sequence[Any],
                        replies: list[ChatReply]) -> list[ChatReply]:
        """``replies`` with each vehicle call's companions added (:func:`vmb_agents.llm.companions.with_companions`)
        when ``companions`` is on."""
        if not self.companions:
            return replies
        from vmb_agents.llm.companions import with_companions

        return [{**r, "tool_calls": with_companions(m, r["tool_calls"], reading)}
                for (m, _), reading, r in zip(requests, readings, replies, strict=True)]
