"""``ToolRuntime``: one query's tool session, shared by the vehicle envs.

It owns what an episode of one query needs: the simulated car, the discovered modules, the
memory searches, the counters, and the final scoring. ``VehicleMem-v0`` runs one runtime per
episode; the streaming env runs one per query of its timeline. Keeping it here means the tool
semantics (official executor, ``list_module_tools``, ``search_memory``, gating, QA answers)
exist once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson

from vmb_gym.envs.actions import parse_action
from vmb_gym.envs.rewards import REWARDS, RewardSpec, rates
from vmb_gym.errors import ActionError, ToolCallParseError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.base import DEFAULT_TOP_K, MemoryHit
from vmb_gym.memory.cache import LRUCache
from vmb_gym.memory.session import MemorySession, SearchResult
from vmb_gym.types import Query, ToolCall
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS, MODULES, VehicleSimulator
from vmb_gym.vehicle.schema import MAX_CONTEXT, module_schemas

__all__ = ["ANSWER_TOOL", "MAX_TOP_K", "REWARDS", "TextFitter", "ToolRuntime", "chat_messages", "dump_results",
           "hit_record", "memory_hit_info", "render_results", "search_records", "to_json_text"]

#: The most hits one ``search_memory`` returns (the official clamp of its ``top_k``).
MAX_TOP_K = 20

#: The one tool of the QA diagnostic track.
ANSWER_TOOL = {
    "type": "function",
    "function": {
        "name": "answer",
        "description": "Answer the question with the vehicle function and argument values that satisfy it.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "carcontrol_* function name"},
                           "arguments": {"type": "object", "description": "argument values"}},
            "required": ["name", "arguments"],
        },
    },
}

Record = dict[str, Any]


class ToolRuntime:
    """The tools of one query, run on a fresh car.

    Args:
        query: the task.
        memory: the memory module (already serving the query's scenario), or None.
        schema: tool-schema flavour returned by ``list_module_tools``.
        gated: vehicle functions run only after their module was listed.
        task_mode: ``"tool"`` or ``"qa"``.
        prepare_memory: called before each search (the env makes the module serve the scenario).
        context_tokens: memory tokens already injected as context in the first observation.
    """

    def __init__(
        self,
        query: Query,
        memory: Any,
        *,
        schema: str = "official",
        gated: bool = False,
        task_mode: str = "tool",
        prepare_memory: Callable[[], None] | None = None,
        context_tokens: int = 0,
    ) -> None:
        self.query = query
        self.memory = memory
        self.schema = schema
        self.gated = gated
        self.task_mode = task_mode
        self._prepare_memory = prepare_memory
        self.sim = VehicleSimulator()
        self.discovered: set[str] = set()
        self.pred_calls: list[ToolCall] = []
        self.executions = 0
        self.invalid = 0
        #: Actions run, actions that were unreadable, actions with an unreadable form or an invalid call.
        self.actions = 0
        self.unreadable = 0
        self.failed_actions = 0
        #: Unreadable actions that tried to call a tool (text in a tool-call format that could not be read).
        self.parse_errors = 0
        #: The memory accounting of this query (searches, tokens incl. injected context, hits).
        self.memory_session = MemorySession(memory, prepare=prepare_memory)
        self.memory_session.add_context(context_tokens)
        #: The result of each successful ``search_memory`` call, in order.
        self.search_results: list[SearchResult] = []
        self.answer: ToolCall | None = None

    @property
    def memory_searches(self) -> int:
        """``search_memory`` calls that ran."""
        return self.memory_session.searches

    @property
    def memory_tokens(self) -> int:
        """Memory tokens the policy has read (context block plus search results)."""
        return self.memory_session.tokens

    @property
    def memory_hits(self) -> list[Any]:
        """Every hit returned by ``search_memory``, in order."""
        return self.memory_session.hits

    @property
    def search_seconds(self) -> float:
        """Time spent inside the module's search."""
        return self.memory_session.seconds

    @property
    def searchable(self) -> bool:
        """Whether ``search_memory`` is a tool of this session."""
        return self.memory is not None and bool(self.memory.provides_search)

    # ------------------------------------------------------------------ actions
    def run_action_with_hits(self, action: Any) -> tuple[list[Record], str | None, bool, list[dict[str, Any]]]:
        """:meth:`run_action`, plus the step's hits per ``search_memory`` call (:func:`memory_hit_info`'s form,
        built from each search's :func:`search_records`)."""
        before = len(self.search_results)
        records, action_error, finished = self.run_action(action)
        results = iter(self.search_results[before:])
        groups = [{"query": (r["arguments"] or {}).get("query"), "hits": search_records(next(results))}
                  for r in records if r["name"] == "search_memory" and r["result"].get("success")]
        return records, action_error, finished, groups

    def run_action(self, action: Any) -> tuple[list[Record], str | None, bool]:
        """Run one policy action; never raises.

        Returns:
            ``(records, action_error, finished)``: one ``{"name", "arguments", "result"}`` record
            per call that ran (a single record with name None when the action was unreadable),
            the first error that made a call invalid, and whether the session ended
            (``finish``, or a QA answer).
        """
        self.actions += 1
        try:
            calls = parse_action(action)
        except ToolCallParseError as exc:
            self.parse_errors += 1
            return self._reject(str(exc))
        except ActionError as exc:
            return self._reject(str(exc))
        except Exception as exc:  # noqa: BLE001 - defensive: a parser bug must not crash a training run
            return self._reject(f"could not read the action ({type(exc).__name__}: {exc})")
        invalid_before = self.invalid
        records, action_error, finished = self._run_calls(calls)
        if self.invalid > invalid_before:
            self.failed_actions += 1
        return records, action_error, finished

    def _run_calls(self, calls: Sequence[ToolCall]) -> tuple[list[Record], str | None, bool]:
        """Run the calls of one readable action in order, up to ``finish`` (or a QA answer)."""
        records: list[Record] = []
        action_error: str | None = None
        for call in calls:
            if call.name == "finish":
                records.append({"name": "finish", "arguments": dict(call.arguments),
                                "result": {"success": True, "message": "episode finished"}})
                return records, action_error, True
            result, invalid = self.execute(call)
            if invalid:
                self.invalid += 1
                action_error = action_error or result.get("error")
            records.append({"name": call.name, "arguments": call.arguments, "result": result})
            if self.task_mode == "qa" and call.name == "answer" and not invalid:
                return records, action_error, True
        return records, action_error, False

    def _reject(self, message: str) -> tuple[list[Record], str, bool]:
        self.invalid += 1
        self.unreadable += 1
        self.failed_actions += 1
        return [{"name": None, "arguments": None, "result": {"success": False, "error": message}}], message, False

    def execute(self, call: ToolCall) -> tuple[dict[str, Any], bool]:
        """Run one call; return the official-shaped result and whether the call was invalid."""
        name, args = call.name, call.arguments
        self.executions += 1
        if self.task_mode == "qa":
            if name != "answer":
                return {
                    "success": False,
                    "error": "in QA mode the only tool is answer(name=..., arguments={...})",
                }, True
            return self._answer_tool(args)
        if name == "list_module_tools":
            return self._list_module_tools(args)
        if name == "search_memory" and self.searchable:
            return self._search_memory(args)
        self.pred_calls.append(call)
        spec = API_SPECS.get(name)
        if spec is None:
            known = ("list_module_tools, " + ("search_memory, " if self.searchable else "")
                     + "finish or a carcontrol_* function")
            return {"success": False, "error": f"Function {name} not found; expected {known}"}, True
        if self.gated and spec.module not in self.discovered:
            return {
                "success": False,
                "error": f'Function {name} is not loaded: call list_module_tools(module_name="{spec.module}") first',
            }, True
        result = self.sim.call(name, args)
        return result, "error" in result

    def _list_module_tools(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        if set(args) - {"module_name"}:
            return {"success": False, "error": f"list_module_tools takes only module_name, got {sorted(args)}"}, True
        module = args.get("module_name")
        if not isinstance(module, str) or module not in MODULES:
            return {
                "success": False,
                "error": f"Module {module} not found; expected one of {', '.join(MODULE_KEYS)}",
            }, True
        if module in self.discovered:
            return {"success": True, "message": f"Tools of module {module} are already loaded"}, False
        self.discovered.add(module)
        tools = module_schemas(module, self.schema)  # type: ignore[arg-type]
        return {"success": True, "message": f"Loaded {len(tools)} tools from {module} module", "tools": tools}, False

    def _search_memory(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        """The ``search_memory`` tool: ``query``, ``top_k`` (1-20, default 5), ``context`` (0-3).

        The result the policy reads is ``{"success", "memory_text", "count"}``: ``memory_text`` has
        one ``N. [YYYY-MM-DD HH:MM] text`` line per hit (:func:`~vmb_gym.memory.session.render_hits`).
        The same hits, structured, reach the step's ``info["memory_hits"]`` (:func:`memory_hit_info`)
        through :attr:`memory_hits`, where the :class:`~vmb_gym.memory.session.MemorySession` keeps them.
        """
        unexpected = set(args) - {"query", "top_k", "context"}
        if unexpected:
            return {
                "success": False,
                "error": f"search_memory takes query, top_k and context, got unexpected {sorted(unexpected)}",
            }, True
        text = args.get("query")
        if text is None:
            text = self.query.text  # official: a missing query searches for the request itself
        if not isinstance(text, str):
            return {
                "success": False,
                "error": f"search_memory: query must be a string, got {type(text).__name__}",
            }, True
        top_k = args.get("top_k", DEFAULT_TOP_K)
        if (isinstance(top_k, bool) or not isinstance(top_k, (int, float)) or top_k != top_k
                or abs(top_k) == float("inf")):
            return {"success": False, "error": f"search_memory: top_k must be an integer 1-20, got {top_k!r:.40}"}, True
        top_k = max(1, min(MAX_TOP_K, int(top_k)))  # the official clamp
        context = args.get("context", 0)
        if isinstance(context, float) and context.is_integer():
            context = int(context)
        if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= MAX_CONTEXT:
            return {"success": False, "error": f"search_memory: context must be an integer 0-{MAX_CONTEXT} "
                    f"(lines shown either side of each hit), got {context!r:.40}"}, True
        neighbours = getattr(self.memory, "neighbours", None)
        if context and neighbours is None:
            return {"success": False, "error": f"search_memory: memory {getattr(self.memory, 'name', '?')!r} "
                    "cannot show neighbouring lines; call it without context"}, True
        result = self.memory_session.search(text, as_of=self.query.as_of, top_k=top_k, context=context)
        self.search_results.append(result)
        return {"success": True, "memory_text": result.text, "count": len(result.hits)}, False

    def _answer_tool(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        name = args.get("name")
        arguments = args.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return {
                "success": False,
                "error": "answer needs name (a function name string) and arguments (an object)",
            }, True
        self.answer = ToolCall(name, arguments)
        return {"success": True, "message": "answer recorded"}, False

    # ------------------------------------------------------------------ scoring
    def final_metrics(
        self, reward: str | RewardSpec, steps: int
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, float]]:
        """Score the session: ``(metrics incl. "reward", episode figures, reward components)``.

        Args:
            reward: a metric name of :data:`REWARDS` or a checked :class:`~vmb_gym.envs.rewards.RewardSpec`.
            steps: the steps the episode (or request) took.

        Returns:
            The scorer's metrics with ``"reward"`` (the combined reward), the ``episode_stats``
            figures, and the named components (:mod:`vmb_gym.envs.rewards`).
        """
        spec = reward if isinstance(reward, RewardSpec) else RewardSpec.parse(reward, self.task_mode)
        query = self.query
        if self.task_mode == "qa":
            from vmb_gym.scoring.qa import score_qa

            correct = self.answer is not None and score_qa(query, self.answer)
            metrics: dict[str, Any] = {"task_id": query.task_id, "reasoning_type": query.reasoning_type,
                                       "exact_match": bool(correct)}
            components = {"answer_exact_match": float(correct)}
        else:
            from vmb_gym.scoring.scorer import score_final_state

            score = score_final_state(query, self.sim, self.pred_calls)
            metrics = score.to_record()
            components = {"state_f1_change": float(score.state.f1_change),
                          "state_f1_positive": float(score.state.f1_positive),
                          "exact_state_match": float(score.exact_match)}
        components.update(rates(self.actions, self.failed_actions, self.unreadable, self.executions,
                                self.invalid - self.unreadable))
        metrics["reward"] = spec.combine(components)
        episode: dict[str, Any] = {
            "steps": steps,
            "tool_executions": self.executions,
            "pred_calls": len(self.pred_calls),
            "invalid_actions": self.invalid,
            "parse_errors": self.parse_errors,
            "memory_searches": self.memory_searches,
            "memory_tokens": self.memory_tokens,
            "memory_search_seconds": self.search_seconds,
            "discovered_modules": sorted(self.discovered),
        }
        if self.memory_hits:
            episode["memory_audit"] = audit_hits(query, self.memory_hits, lines=self.memory_session.lines)
            episode["memory_hit_line_ids"] = sorted({i for h in self.memory_hits for i in h.line_ids})
        return metrics, episode, components


def hit_record(hit: MemoryHit) -> dict[str, Any]:
    """One memory hit in its JSON-ready ``info["memory_hits"]`` form.

    Keys: ``entry_id``, ``text`` (what the policy read, without the ``[time]`` prefix), ``score``,
    ``timestamp`` (ISO 8601 or None), ``line_ids`` (the history lines it comes from), ``people``
    (the speakers or people the module attached), ``layer`` and ``status`` (``active`` /
    ``superseded``).
    """
    return {"entry_id": hit.entry_id, "text": hit.text, "score": hit.score,
            "timestamp": iso_stamp(hit.timestamp) if hit.timestamp else None, "line_ids": list(hit.line_ids),
            "people": list(hit.people), "layer": hit.layer, "status": hit.status}


#: Each recent search's hit records, by its :class:`~vmb_gym.memory.session.RenderedHits` (identity).
_RECORDS = LRUCache(512)


def search_records(result: SearchResult) -> list[dict[str, Any]]:
    """The :func:`hit_record` of each hit of one search, built once per distinct result.

    A search that returns the hit objects of a recent one (the module's result cache) gets
    copies of the records built then: each record is its own dict, but its ``line_ids`` and
    ``people`` lists are shared with the other copies (read them, do not change them).
    """
    rendered = result.rendered
    if rendered is None:
        return [hit_record(h) for h in result.hits]
    kept: tuple[dict[str, Any], ...] | None = _RECORDS.get(rendered)
    if kept is None:
        kept = tuple(hit_record(h) for h in rendered.hits)
        _RECORDS.put(rendered, kept)
    return list(map(dict.copy, kept))


@functools.lru_cache(maxsize=1 << 16)
def iso_stamp(when: datetime) -> str:
    """``when.isoformat()``, cached (a step's searches give ~80 hits, most of them seen before)."""
    return when.isoformat()


def memory_hit_info(records: Sequence[Record], hits: Sequence[MemoryHit]) -> list[dict[str, Any]]:
    """A step's ``info["memory_hits"]``: per successful ``search_memory`` call, ``{"query", "hits"}``.

    ``records`` are the step's call records (:meth:`ToolRuntime.run_action`) and ``hits`` the hits
    the step's searches returned, in call order (each successful search's result says how many
    it gave: ``count``); each hit is a :func:`hit_record`. Both vehicle envs build the key here.
    """
    out: list[dict[str, Any]] = []
    pos = 0
    for r in records:
        res = r["result"]
        if r["name"] != "search_memory" or not isinstance(res, Mapping) or not res.get("success"):
            continue
        n = int(res.get("count", 0))
        chunk = hits[pos:pos + n]
        pos += n
        out.append({"query": (r["arguments"] or {}).get("query"), "hits": [hit_record(h) for h in chunk]})
    return out


def to_json_text(obj: Any) -> str:
    """Compact JSON of ``obj``; values orjson refuses (lone surrogates, huge ints) are escaped or stringified."""
    try:
        return orjson.dumps(obj).decode()
    except TypeError:
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=repr)


def dump_results(records: list[Record]) -> list[str]:
    """Each record's result as compact JSON (control characters escaped)."""
    return [to_json_text(r["result"]) for r in records]


def render_results(records: list[Record], dumped: list[str], mode: str) -> str:
    """The observation text of a step's results: ``text`` lines ``[name] {json}`` or one ``json`` list."""
    if mode == "json":
        parts = (f'{{"name":{to_json_text(r["name"])},"result":{d}}}' for r, d in zip(records, dumped, strict=True))
        return "[" + ",".join(parts) + "]"
    if len(records) == 1:  # the common case, without the generator
        return f"[{records[0]['name'] or 'action'}] {dumped[0]}"
    return "\n".join(f"[{r['name'] or 'action'}] {d}" for r, d in zip(records, dumped, strict=True))


def chat_messages(records: list[Record], dumped: list[str]) -> list[dict[str, Any]]:
    """The chat view of one step: the assistant's tool calls, then one tool message per result."""
    calls = [{"type": "function", "function": {"name": r["name"], "arguments": r["arguments"]}}
             for r in records if r["name"]]
    out: list[dict[str, Any]] = [{"role": "assistant", "content": "", "tool_calls": calls}]
    for r, d in zip(records, dumped, strict=True):
        out.append({"role": "tool", "name": r["name"], "content": d})
    return out


class TextFitter:
    """Makes observations fit a ``Text`` space: escapes characters outside the charset, cuts long text."""

    def __init__(self, charset: str, max_length: int) -> None:
        self.charset = frozenset(charset)
        self.max_length = max_length

    def __call__(self, text: str) -> str:
        """``text`` escaped (``\\uXXXX``) where needed and cut to ``max_length`` with a marker."""
        if not text.isascii() or "\x7f" in text:
            # JSON results escape control characters already; only non-ASCII (and DEL) need checking.
            cs = self.charset
            text = "".join(c if c in cs else f"\\u{ord(c):04x}" for c in text)
        if len(text) > self.max_length:
            marker = f"...[cut {len(text) - self.max_length + 40} chars]"
            text = text[: self.max_length - len(marker)] + marker
        return text or " "
