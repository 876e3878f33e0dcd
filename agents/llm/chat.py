"""Chat prompting for tool-calling policies: render the env's chat for a model, read calls back.

Three pieces live here, shared by every model-backed policy (:mod:`vmb_agents.llm.hf`,
:mod:`vmb_agents.llm.openai_compat`):

* rendering: :func:`tools_system_block` (a tools block for chat templates that know no tools),
  :func:`to_text_tool_messages` (tool calls and results written as text) and
  :func:`normalize_tool` / :func:`tool_name`;
* parsing: :func:`parse_tool_calls` reads calls from a model's text in the Qwen/Hermes
  ``<tool_call>{...}</tool_call>`` form (several blocks), bare JSON (an object or a list) or the
  Python-call form, and returns the calls with the text of anything it could not read;
* the loop: :class:`ToolChatPolicy` runs the official VehicleMemBench agent loop (spec §2.2) over
  any :class:`~vmb_gym.memory.llm.ChatBackend`: one model turn per env step, every call of a reply sent as one action,
  the first reply without tool calls ends the episode (``finish``), at most ``max_turns`` turns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmb_agents.llm.compact_view import step_hits
from vmb_agents.llm.memory_prompt import MemoryPrompter
from vmb_gym.errors import ActionError, ConfigError
from vmb_gym.memory import MemoryHit
from vmb_gym.memory.llm import ChatReply, Messages, Tools
from vmb_gym.memory.session import MemorySession

__all__ = [
    "FINISH",
    "EpisodeState",
    "OfficialView",
    "ParsedReply",
    "Request",
    "ToolChatPolicy",
    "normalize_tool",
    "parse_tool_calls",
    "to_text_tool_messages",
    "tool_name",
    "tools_system_block",
    "unbatch_infos",
]

#: The action that ends an episode.
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}

#: One model request: the messages and the tools offered.
Request = tuple[list[dict[str, Any]], list[dict[str, Any]]]


# ---------------------------------------------------------------------------------------- rendering
def tool_name(tool: Mapping[str, Any]) -> str:
    """The function name of a tool schema (OpenAI ``{"type": "function", "function": {...}}`` or bare)."""
    fn = tool.get("function", tool)
    return str(fn.get("name", ""))


def normalize_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool schema in the OpenAI ``{"type": "function", "function": {...}}`` shape."""
    if "function" in tool:
        return {"type": "function", "function": dict(tool["function"])}
    return {"type": "function", "function": dict(tool)}


def tools_system_block(tools: Sequence[Mapping[str, Any]]) -> str:
    """A tools section for a system message, for chat templates that do not render tools.

    The format is the Hermes/Qwen one: signatures inside ``<tools>``, calls inside ``<tool_call>``.
    """
    lines = [json.dumps(normalize_tool(t), ensure_ascii=False) for t in tools]
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n"
        "Function signatures are within <tools></tools> XML tags:\n<tools>\n"
        + "\n".join(lines)
        + "\n</tools>\n\nFor each function call, return a JSON object with the function name and arguments "
        "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n'
        "Reply without any tool call when the task is done."
    )


def _call_text(name: str, arguments: Any) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "\n</tool_call>"


def to_text_tool_messages(messages: Messages, tools: Tools | None) -> list[dict[str, str]]:
    """Messages for a template without tool support: calls and results become plain text.

    The tools block is appended to the system message (one is added when there is none);
    assistant tool calls become ``<tool_call>`` blocks; the results of one turn become a single
    user message of ``<tool_response>`` blocks, so roles keep alternating.
    """
    out: list[dict[str, str]] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            out.append({"role": "user", "content": "\n".join(pending)})
            pending.clear()

    for msg in messages:
        role = str(msg.get("role", "user"))
        content = msg.get("content") or ""
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        if role == "tool":
            pending.append(f"<tool_response>\n{content}\n</tool_response>")
            continue
        flush()
        if role == "assistant" and msg.get("tool_calls"):
            parts = [content] if content else []
            for tc in msg["tool_calls"]:
                fn = tc.get("function", tc)
                parts.append(_call_text(fn.get("name", ""), fn.get("arguments", {})))
            content = "\n".join(parts)
        out.append({"role": role, "content": content})
    flush()
    if tools:
        block = tools_system_block(tools)
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + block}
        else:
            out.insert(0, {"role": "system", "content": block})
    return out


# ---------------------------------------------------------------------------------------- parsing
@dataclass
class ParsedReply:
    """What :func:`parse_tool_calls` read from a model's text.

    Attributes:
        content: the text outside the calls (reasoning blocks removed).
        calls: ``{"name": str, "arguments": dict}`` per call, in order.
        errors: one message per piece of text that looked like a call but could not be read.
    """

    content: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def error_text(self) -> str:
        """All errors on one line each ("" when there are none)."""
        return "\n".join(self.errors)


def parse_tool_calls(text: str, known_tools: Sequence[str | Mapping[str, Any]] | None = None) -> ParsedReply:
    """Read tool calls from a model's text, in any common format.

    The reader is the env's own (:func:`vmb_gym.envs.tool_call_formats.parse_reply`, which lists the
    formats): Qwen/Hermes ``<tool_call>`` JSON blocks (several; an unclosed last block is read to the
    end), Qwen3.5 / Qwen3-Coder XML function blocks, Llama 3 ``<|python_tag|>`` and ``"parameters"`` JSON,
    Mistral ``[TOOL_CALLS]``, OpenAI tool-call objects, bare JSON (whole, fenced or inside prose) and
    the Python-call form, one call per line (with ``known_tools``, only lines naming one of them or a
    ``carcontrol_*`` function count). ``<think>...</think>`` blocks are removed first. Text with none of
    these forms gives no call and no error (a plain reply).

    Args:
        text: the decoded model output.
        known_tools: the tools offered, as names or schemas (schemas also convert XML parameter values).

    Returns:
        The calls, the text outside them and an error per unreadable call.
    """
    from vmb_gym.envs.tool_call_formats import parse_reply

    parsed = parse_reply(text, known_tools)
    return ParsedReply(parsed.content, [c.to_json() for c in parsed.calls], list(parsed.errors))


# ---------------------------------------------------------------------------------------- the loop
class OfficialView:
    """The env's own chat as the model sees it: the official prompt, JSON tool results, tools grown by discovery.

    A view turns the env's reset info into the first messages and tools (:meth:`start`), a model
    call into an env call (:meth:`to_env_call`) and a call's result into the ``tool`` message
    text (:meth:`tool_content`) and its other fields (:meth:`tool_extras`, optional for a view of your own); both
    get the call's structured memory hits (``hits``: a successful ``search_memory``'s hits from the step's
    ``info["memory_hits"]``, best first; None for any other call), so a view never re-reads rendered hits.
    :class:`vmb_agents.llm.compact_view.CompactView` is the short one.
    """

    name = "official"
    #: Rendered with the tokenizer's own chat template.
    template: str | None = None
    #: ``list_module_tools`` results add their schemas to the tools offered.
    grows_tools = True

    def start(self, observation: str, info: Mapping[str, Any]) -> Request:
        """The env's messages (or the observation as the user message) and its tools."""
        messages = [dict(m) for m in info.get("messages") or []] or [{"role": "user", "content": observation}]
        return messages, [normalize_tool(t) for t in info.get("tools") or []]

    def to_env_call(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The same call."""
        return {"name": name, "arguments": dict(arguments)}

    def tool_content(self, name: str, result: Any, hits: Sequence[MemoryHit] | None = None) -> str:
        """The result as JSON."""
        return json.dumps(result, ensure_ascii=False)

    def tool_extras(self, name: str, result: Any, hits: Sequence[MemoryHit] | None = None) -> dict[str, str]:
        """Fields of the ``tool`` message besides its text: none (the compact view's hold the hits it does not show)."""
        return {}


@dataclass
class EpisodeState:
    """One episode of a chat policy: its transcript, tools, turns and figures.

    Attributes:
        messages: the chat so far (OpenAI shape; assistant ``arguments`` as dicts).
        tools: the tool schemas offered now (initial tools plus every listed module's).
        turns: model turns taken.
        done: the policy has sent ``finish`` (or decided to).
        pending: the calls of the last action, waiting for their results (the model's calls,
            each with ``env_name``: the env function it stands for).
        stats: figures of the episode (tokens, parse errors, memory figures, ...).
    """

    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    done: bool = False
    pending: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    #: the step's :class:`~vmb_agents.reader.reading.Reading`, for a policy that reads one (None otherwise)
    reading: Any = None

    def tool_names(self) -> list[str]:
        """Names of the tools offered now."""
        return [tool_name(t) for t in self.tools]


def unbatch_infos(infos: Any, n: int) -> list[dict[str, Any]]:
    """Per-env info dicts from a sequence of dicts or a vector env's dict of arrays (``_key`` masks)."""
    if isinstance(infos, Mapping):
        out: list[dict[str, Any]] = [{} for _ in range(n)]
        for key, values in infos.items():
            if key.startswith("_"):
                continue
            mask = infos.get("_" + key)
            for i in range(n):
                if mask is None or bool(mask[i]):
                    out[i][key] = values[i]
        return out
    infos = list(infos)
    if len(infos) != n:
        raise ActionError(f"act_batch: got {n} observations but {len(infos)} infos")
    return [dict(i) for i in infos]


def _is_reset_info(info: Mapping[str, Any]) -> bool:
    return "calls" not in info and ("tools" in info or "request" in info)


class ToolChatPolicy:
    """The official agent loop over a chat backend (spec §2.2), as a vmb_gym policy.

    Each :meth:`act` is one model turn: the reply's tool calls are sent together as one action;
    a reply without tool calls ends the episode with ``finish``; after ``max_turns`` turns the
    policy finishes without asking the model. Tool schemas start as ``info["tools"]`` and grow
    with the ``tools`` that ``list_module_tools`` results carry.

    Subclasses implement :meth:`chat` (and may override :meth:`chat_many` to batch).

    Args:
        max_turns: most model turns per episode (official ``reflect_num``: 10).
        memory: optional :class:`~vmb_agents.llm.memory_prompt.MemoryPrompter` putting retrieved memory
            into the prompt at reset (a memory module or name is wrapped in one without data:
            the module must then already hold the episode's scenario).
        feedback_parse_errors: if True, a reply whose calls could not be read (and that has no
            readable call) is answered with the parse error and the model gets another turn;
            if False (official), such a reply ends the episode like any reply without calls.
        view: how the model sees the episode (:class:`OfficialView`, the default, or
            :class:`vmb_agents.llm.compact_view.CompactView`).
    """

    def __init__(self, *, max_turns: int = 10, memory: Any | None = None, feedback_parse_errors: bool = False,
                 view: Any | None = None) -> None:
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive integer, got {max_turns!r}")
        if memory is not None and not callable(getattr(memory, "augment", None)):
            memory = MemoryPrompter(memory)  # a module or a name: the caller keeps it ingested
        self.max_turns = max_turns
        self.memory = memory
        self.feedback_parse_errors = feedback_parse_errors
        self.view = view if view is not None else OfficialView()
        self.state = EpisodeState()
        self.batch_states: list[EpisodeState] = []

    # -- backend ------------------------------------------------------------------------------
    def chat(self, messages: Messages, tools: Tools | None = None) -> ChatReply:
        """One reply of the model (the :class:`~vmb_gym.memory.llm.ChatBackend` call); subclasses implement it."""
        raise NotImplementedError

    def chat_many(self, requests: Sequence[tuple[Messages, Tools]]) -> list[ChatReply]:
        """Replies to several (messages, tools) requests; the default asks one by one."""
        return [self.chat(m, t) for m, t in requests]

    # -- policy protocol ------------------------------------------------------------------------
    @property
    def stats(self) -> dict[str, Any]:
        """Figures of the current (single-env) episode."""
        return self.state.stats

    @property
    def memory_session(self) -> MemorySession | None:
        """The memory accounting of the prompter's retrieval for the current (single-env) episode."""
        return getattr(self.memory, "session", None) if self.memory is not None else None

    def new_state(self, observation: str, info: Mapping[str, Any]) -> EpisodeState:
        """A fresh episode state from the reset observation and info (memory put in the prompt)."""
        messages, tools = self.view.start(observation, info)
        state = EpisodeState(messages=messages, tools=tools)
        state.stats = {"turns": 0, "prompt_tokens": 0, "completion_tokens": 0, "parse_errors": 0,
                       "stop_reason": None}
        if self.memory is not None:
            state.messages, figures = self.memory.augment(state.messages, info)
            state.stats.update(figures)
        return state

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        """Start an episode from the env's reset info (its chat messages and tools)."""
        self.state = self.new_state(observation, info)

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """One model turn; returns the reply's calls or ``finish``."""
        request = self._prepare(self.state, info)
        if request is None:
            return FINISH
        reply = self._ask([self.state], [request])[0]
        return self._consume(self.state, reply)

    def act_batch(self, observations: Sequence[str], infos: Any) -> list[Any]:
        """One model turn for each env of a vector env (the requests are answered by one :meth:`chat_many`).

        An info that is a reset info (it has ``tools``/``request`` and no ``calls``) starts a new
        episode in that slot; a slot whose episode is over answers ``finish`` without the model
        (the vector env ignores it while it auto-resets).
        """
        n = len(observations)
        per_env = unbatch_infos(infos, n)
        while len(self.batch_states) < n:
            self.batch_states.append(EpisodeState(done=True))
        actions: list[Any] = [FINISH] * n
        todo: list[int] = []
        requests = []
        for i, (obs, info) in enumerate(zip(observations, per_env, strict=True)):
            if _is_reset_info(info):
                self.batch_states[i] = self.new_state(obs, info)
            request = self._prepare(self.batch_states[i], info)
            if request is not None:
                todo.append(i)
                requests.append(request)
        if requests:
            for i, reply in zip(todo, self._ask([self.batch_states[i] for i in todo], requests), strict=True):
                actions[i] = self._consume(self.batch_states[i], reply)
        return actions

    # -- loop mechanics -------------------------------------------------------------------------
    def _ask(self, states: Sequence[EpisodeState], requests: Sequence[Request]) -> list[ChatReply]:
        """The model's replies to ``requests`` (those of ``states``, one each): :meth:`chat_many`. A policy that
        hands its episodes' readings to its backend overrides it."""
        return self.chat_many(requests)

    def _prepare(self, state: EpisodeState, info: Mapping[str, Any]) -> Request | None:
        """Fold the last step's results into ``state``; the next request, or None to finish."""
        if state.pending:
            self._record_results(state, list(info.get("calls") or []), step_hits(info))
        if "metrics" in info or "episode" in info:
            state.done = True
        if state.done:
            return None
        if state.turns >= self.max_turns:
            state.done = True
            state.stats["stop_reason"] = "max_turns"
            return None
        return [dict(m) for m in state.messages], list(state.tools)

    def _consume(self, state: EpisodeState, reply: Mapping[str, Any]) -> Any:
        """Record one model reply in ``state``; the action it stands for."""
        state.turns += 1
        state.stats["turns"] = state.turns
        usage = reply.get("usage") or {}
        state.stats["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        state.stats["completion_tokens"] += int(usage.get("completion_tokens") or 0)
        calls = [c for c in reply.get("tool_calls") or [] if isinstance(c, Mapping)]
        errors = list(reply.get("parse_errors") or [])
        state.stats["parse_errors"] += len(errors)
        content = reply.get("content") or ""
        if not calls:
            if errors and self.feedback_parse_errors and state.turns < self.max_turns:
                state.messages.append({"role": "assistant", "content": content or reply.get("raw", "")})
                state.messages.append({"role": "user", "content": (
                    "Your tool call could not be read: " + "; ".join(errors)
                    + "\nReply with valid tool calls, or without any call when done.")})
                return self._prepare_retry(state)
            state.done = True
            state.stats["stop_reason"] = "parse_error" if errors else "no_tool_calls"
            return FINISH
        tool_calls = []
        action = []
        for k, c in enumerate(calls):
            name = str(c.get("name", ""))
            args = c.get("arguments")
            args = dict(args) if isinstance(args, Mapping) else {}
            call_id = str(c.get("id") or f"call_{state.turns}_{k}")
            env_call = self.view.to_env_call(name, args)
            tool_calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": args},
                               "env_name": env_call["name"]})
            action.append(env_call)
        state.messages.append({"role": "assistant", "content": content, "tool_calls": tool_calls})
        state.pending = tool_calls
        if any(a["name"] == "finish" for a in action):
            state.done = True
            state.stats["stop_reason"] = "finish_call"
        return action

    def _prepare_retry(self, state: EpisodeState) -> Any:
        """After feedback, ask again at once (the env saw no action for the failed reply)."""
        request = self._prepare(state, {})
        if request is None:
            return FINISH
        return self._consume(state, self._ask([state], [request])[0])

    def _record_results(self, state: EpisodeState, records: list[dict[str, Any]],
                        hits: Sequence[tuple[MemoryHit, ...] | None] = ()) -> None:
        """Append a ``tool`` message per pending call (results matched in order) and grow the tools; ``hits``: per
        record, a successful search's structured hits (:func:`~vmb_agents.llm.compact_view.step_hits`)."""
        known = {tool_name(t) for t in state.tools}
        j = 0
        for tc in state.pending:
            name = tc["function"]["name"]
            env_name = tc.pop("env_name", name)
            result: Any = {"success": False, "error": "the call was not run"}
            found: Sequence[MemoryHit] | None = None
            if j < len(records):
                rec = records[j]
                if rec.get("name") == env_name:
                    result = rec.get("result")
                    found = hits[j] if j < len(hits) else None
                    j += 1
                elif rec.get("name") is None:  # the whole action was rejected: same error for every call
                    result = rec.get("result")
            state.messages.append({"role": "tool", "tool_call_id": tc["id"], "name": name,
                                   "content": self.view.tool_content(env_name, result, hits=found),
                                   **getattr(self.view, "tool_extras", lambda *_, **__: {})(env_name, result,
                                                                                          hits=found)})
            if self.view.grows_tools and name == "list_module_tools" and isinstance(result, Mapping):
                for schema in result.get("tools") or []:
                    if isinstance(schema, Mapping) and tool_name(schema) not in known:
                        state.tools.append(normalize_tool(schema))
                        known.add(tool_name(schema))
        state.pending = []
