"""``VehicleMem-v0``: one VehicleMemBench query per episode."""

from __future__ import annotations

import string
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import gymnasium as gym
import orjson
from gymnasium import spaces

from vmb_gym.envs.actions import parse_action
from vmb_gym.envs.spaces import ToolCallSpace
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.errors import ActionError, ConfigError
from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query, Scenario, ToolCall
from vmb_gym.vehicle import API_SPECS, MODULE_KEYS, MODULES, VehicleSimulator
from vmb_gym.vehicle.schema import FINISH, LIST_MODULE_TOOLS, SEARCH_MEMORY, all_vehicle_schemas, module_schemas

#: Rewards the env can return at the end of an episode (scorer key -> metric).
REWARDS = ("f1_change", "f1_positive", "esm")
OBSERVATION_MODES = ("text", "json")
TASK_MODES = ("tool", "qa")

_ROLE = (
    "You are an intelligent in-car AI assistant. You control the vehicle through function calls. "
    "Several people share this car; their preferences come from their past conversations."
)
_INSTRUCTIONS = (
    "1. Call list_module_tools(module_name) to discover the functions of the modules you need.\n"
    "2. Call the vehicle functions that satisfy the request.\n"
    "3. Respect each function's parameter constraints and value ranges.\n"
    "4. When the information does not support a specific value, take only the minimal action "
    "(for example just switching the device on).\n"
    "5. Call finish() when the car is in the state you want."
)
_MEMORY_HINT = "A memory of the household's conversations is available: call search_memory(query, top_k) to look up preferences."


class VehicleMemEnv(gym.Env[str, Any]):
    """VehicleMemBench as a Gymnasium environment: one query, one episode.

    ## Description
    A household shares a car. Their long dialogue history holds preferences, revisions,
    conditions and corrections. Each episode is one request made in the car ("At 8:30 AM, Gary
    got into the driver's seat ... 'make it like I usually have it'"). The policy discovers
    tools, optionally searches memory, calls vehicle APIs on a simulated car and finishes.
    The reward compares the final car state with the state the gold calls produce, with the
    official VehicleMemBench scorer (exact parity).

    ## Action Space
    ``ToolCallSpace``: one call or a list of calls per step, each given as a dict
    ``{"name": ..., "arguments": {...}}``, its JSON string, or the Python-call form of the gold
    answers (``carcontrol_seat_set_heating_level(seat="driver", level=2)``). Tools:

    | tool | arguments | effect |
    |---|---|---|
    | ``list_module_tools`` | ``module_name`` | returns the schemas of one module's functions |
    | ``search_memory`` | ``query``, ``top_k`` (1-20, default 5) | retrieval over the history (only when the memory module retrieves); never returns a line later than the request |
    | any of the 111 ``carcontrol_*`` | per schema | runs on the simulated car (official semantics: no gating unless ``gated=True``) |
    | ``finish`` | none | ends the episode (terminated) |

    Malformed actions, unknown tools and bad keyword arguments never raise: the observation
    carries the error, ``info["action_error"]`` says what was wrong, and the step counts as an
    invalid action. Calls that follow ``finish`` in the same action are not run.

    ## Observation Space
    ``Text``: the first observation carries the role, the module list, the memory context (for
    memory modules that provide one) and the request; later observations carry the results of
    the calls (official result objects as JSON, one line per call: ``text`` mode prefixes each with
    the tool name, ``json`` mode returns one JSON list). The charset covers every character the
    data and the schemas can produce; any other character (from a policy's own arguments) is
    escaped as ``\\uXXXX``; observations longer than ``max_observation_length`` are cut with a
    marker. ``info["messages"]`` is the same episode as a chat (system, user, assistant tool calls
    and tool results) for chat policies.

    ## Rewards
    0 at every step except the last. When the episode ends (``finish`` or the step limit), the
    reward is a metric of the official scorer between the final state and the gold final state:
    ``"f1_change"`` (value-level F1, default), ``"f1_positive"`` (field-level F1) or ``"esm"``
    (exact state match, 0/1). A truncated episode is scored the same way on the state it reached.

    ## Starting State
    A fresh car (the official initial state) and the request of the chosen task. ``reset(seed=s)``
    seeds the task cycler; ``reset(options={"task_id": "3_7"})`` pins a task; without options the
    env walks a seeded permutation of its tasks (vector envs auto-reset this way).

    ## Episode End
    ``terminated`` when the policy calls ``finish``; ``truncated`` after ``max_steps`` steps.
    The final ``info`` holds ``metrics`` (every per-task metric of the scorer, tool-call F1 and
    the list of differences) and ``episode`` (steps, tool executions, invalid actions, memory
    searches, memory tokens, memory-retrieval audit).

    ## Arguments
    * ``data``: ``"default"`` (the embedded generated benchmark), ``"official:DIR"`` (a folder in
      the official layout), a directory, or a sequence of :class:`~vmb_gym.types.Scenario`.
    * ``files``: scenario numbers to keep (e.g. ``[1, 2, 3]``).
    * ``task_ids`` / ``reasoning_types``: further filters.
    * ``memory``: a registered memory module name (``"none"``, ``"gold"``, ``"bm25"``, ...).
    * ``memory_kwargs``: keyword arguments of the memory module.
    * ``schema``: ``"official"`` (one-line descriptions, no enums) or ``"rich"``.
    * ``reward``: one of ``"f1_change"``, ``"f1_positive"``, ``"esm"``.
    * ``max_steps``: step limit (default 20).
    * ``observation``: ``"text"`` or ``"json"``.
    * ``gated``: if True, a vehicle function runs only after its module was listed.
    * ``task_mode``: ``"tool"`` (act on the car) or ``"qa"`` (answer the question form of the
      query with one call ``answer(name=..., arguments={...})``, exact match, no LLM judge).
    * ``max_observation_length``: the ``Text`` space's ``max_length``.

    ## Version History
    * v0: initial release.

    Example:
        >>> import gymnasium as gym, vmb_gym
        >>> env = gym.make("VehicleMem-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step({"name": "finish", "arguments": {}})
        >>> terminated
        True
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        data: str | Sequence[Scenario] = "default",
        *,
        files: Sequence[int] | None = None,
        task_ids: Sequence[str] | None = None,
        reasoning_types: Sequence[str] | None = None,
        memory: str = "none",
        memory_kwargs: dict[str, Any] | None = None,
        schema: str = "official",
        reward: str = "f1_change",
        max_steps: int = 20,
        observation: str = "text",
        gated: bool = False,
        task_mode: str = "tool",
        max_observation_length: int = 65_536,
        render_mode: str | None = None,
    ) -> None:
        if reward not in REWARDS:
            raise ConfigError(f"reward must be one of {REWARDS}, got {reward!r}")
        if observation not in OBSERVATION_MODES:
            raise ConfigError(f"observation must be one of {OBSERVATION_MODES}, got {observation!r}")
        if task_mode not in TASK_MODES:
            raise ConfigError(f"task_mode must be one of {TASK_MODES}, got {task_mode!r}")
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ConfigError(f"max_steps must be a positive integer, got {max_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_observation_length < 1024:
            raise ConfigError(f"max_observation_length must be at least 1024, got {max_observation_length}")

        self.tasks = TaskSet.load(data, files=files, task_ids=task_ids, reasoning_types=reasoning_types,
                                  need_qa=task_mode == "qa")
        self.schema_flavour = schema
        self.reward_name = reward
        self.max_steps = max_steps
        self.observation_mode = observation
        self.gated = gated
        self.task_mode = task_mode
        self.render_mode = render_mode

        from vmb_gym.memory import make_memory

        self.memory_name = memory
        self.memory = make_memory(memory, **(memory_kwargs or {}))
        self._vehicle_tools = all_vehicle_schemas(schema)  # validates the flavour
        initial = [LIST_MODULE_TOOLS]
        if self.memory.provides_search:
            initial.append(SEARCH_MEMORY)
        initial.append(FINISH)
        self._initial_tools = initial
        if task_mode == "qa":
            self._initial_tools = [_ANSWER_TOOL]

        self._charset = self.tasks.charset(extra=_schema_text(self._vehicle_tools + initial) + _ROLE + _INSTRUCTIONS + _MEMORY_HINT)
        self.max_observation_length = max_observation_length
        # Observations: free text over the data's characters, cut at max_observation_length.
        self.observation_space = spaces.Text(max_length=max_observation_length, min_length=1, charset=self._charset)
        # Actions: structured calls over every tool the env understands.
        sample_tools = list(self._vehicle_tools) + ([_ANSWER_TOOL] if task_mode == "qa" else [])
        self.action_space = ToolCallSpace(sample_tools)
        self._charset_set = frozenset(self._charset)

        self._order: list[int] = list(range(len(self.tasks)))
        self._cursor = 0
        self._episode_over = True
        self._query: Query | None = None
        self._first_obs_cache: dict[tuple[str, str], tuple[str, list[dict[str, Any]]]] = {}

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode on a pinned task (``options={"task_id": ...}``) or the next task of the cycle."""
        super().reset(seed=seed)
        if seed is not None:
            self._order = [int(i) for i in self.np_random.permutation(len(self.tasks))]
            self._cursor = 0
            self.action_space.seed(int(self.np_random.integers(2**31 - 1)))
        options = options or {}
        task_id = options.get("task_id")
        if task_id is not None:
            index = self.tasks.index_of(task_id)  # ConfigError names the known ids
        else:
            index = self._order[self._cursor % len(self._order)]
            self._cursor += 1
        self._query = query = self.tasks.queries[index]
        self._scenario = self.tasks.scenario_of(query)
        self._sim = VehicleSimulator()
        self._steps = 0
        self._invalid = 0
        self._executions = 0
        self._pred_calls: list[ToolCall] = []
        self._memory_searches = 0
        self._memory_hits: list[list[int]] = []
        self._memory_hit_objects: list[Any] = []
        self._search_seconds = 0.0
        self._discovered: set[str] = set()
        self._episode_over = False
        self._answer: ToolCall | None = None

        obs, messages = self._first_observation(query)
        self._memory_tokens = self._context_tokens
        self._messages = list(messages)
        self._last_obs = obs
        info = {
            "task_id": query.task_id,
            "scenario_id": query.scenario_id,
            "reasoning_type": query.reasoning_type,
            "request": query.text,
            "as_of": query.as_of.isoformat() if query.as_of else None,
            "memory": self.memory_name,
            "tools": self._initial_tools,
            "messages": list(self._messages),
        }
        return obs, info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run the call(s) of one action; never raises on anything a policy sends."""
        if self._episode_over or self._query is None:
            msg = "the episode is over: call reset() before stepping again"
            return self._fit(orjson.dumps({"success": False, "error": msg}).decode()), 0.0, True, False, {
                "action_error": msg, "calls": []}
        self._steps += 1
        terminated = False
        action_error: str | None = None
        records: list[dict[str, Any]] = []
        try:
            calls = parse_action(action)
        except ActionError as exc:
            calls = []
            action_error = str(exc)
            self._invalid += 1
            records.append({"name": None, "arguments": None, "result": {"success": False, "error": action_error}})
        except Exception as exc:  # defensive: a parser bug must not crash a training run
            calls = []
            action_error = f"could not read the action ({type(exc).__name__}: {exc})"
            self._invalid += 1
            records.append({"name": None, "arguments": None, "result": {"success": False, "error": action_error}})
        for call in calls:
            if call.name == "finish":
                terminated = True
                records.append({"name": "finish", "arguments": dict(call.arguments), "result": {"success": True, "message": "episode finished"}})
                break
            result, invalid = self._execute(call)
            if invalid:
                self._invalid += 1
                action_error = action_error or result.get("error")
            records.append({"name": call.name, "arguments": dict(call.arguments), "result": result})
            if self.task_mode == "qa" and call.name == "answer" and not invalid:
                terminated = True
                break
        truncated = not terminated and self._steps >= self.max_steps
        dumped = [orjson.dumps(r["result"]).decode() for r in records]
        obs = self._render_results(records, dumped)
        self._messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": r["name"], "arguments": r["arguments"]}} for r in records if r["name"]]})
        self._messages.extend({"role": "tool", "name": r["name"], "content": d} for r, d in zip(records, dumped))
        info: dict[str, Any] = {"action_error": action_error, "calls": records, "step": self._steps}
        reward = 0.0
        if terminated or truncated:
            self._episode_over = True
            metrics, episode = self._final_metrics()
            reward = float(metrics["reward"])
            info["metrics"] = metrics
            info["episode"] = episode
        info["messages"] = list(self._messages)
        self._last_obs = obs
        if self.render_mode == "human":
            print(self.render())
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """``ansi``: the last observation as text; ``human``: printed by ``step``."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' to gym.make")
            return None
        return getattr(self, "_last_obs", "")

    # ------------------------------------------------------------------ tools
    def _execute(self, call: ToolCall) -> tuple[dict[str, Any], bool]:
        """Run one call; return the official-shaped result and whether it was an invalid call."""
        name, args = call.name, call.arguments
        self._executions += 1
        if self.task_mode == "qa":
            if name != "answer":
                return {"success": False, "error": "in QA mode the only tool is answer(name=..., arguments={...})"}, True
            return self._answer_tool(args)
        if name == "list_module_tools":
            return self._list_module_tools(args)
        if name == "search_memory" and self.memory.provides_search:
            return self._search_memory(args)
        self._pred_calls.append(call)
        spec = API_SPECS.get(name)
        if spec is None:
            known = "list_module_tools, " + ("search_memory, " if self.memory.provides_search else "") + "finish or a carcontrol_* function"
            return {"success": False, "error": f"Function {name} not found; expected {known}"}, True
        if self.gated and spec.module not in self._discovered:
            return {"success": False, "error": f"Function {name} is not loaded: call list_module_tools(module_name=\"{spec.module}\") first"}, True
        result = self._sim.call(name, args)
        return result, "error" in result

    def _ensure_memory(self, scenario: Scenario) -> None:
        """Make the memory module serve ``scenario`` (ingested once, then restored from its cache)."""
        if getattr(self.memory, "scenario_id", None) != scenario.scenario_id:
            self.memory.ingest(scenario)

    def _list_module_tools(self, args: Any) -> tuple[dict[str, Any], bool]:
        module = args.get("module_name") if isinstance(args, dict) else None
        if set(args) - {"module_name"}:
            return {"success": False, "error": f"list_module_tools takes only module_name, got {sorted(args)}"}, True
        if not isinstance(module, str) or module not in MODULES:
            return {"success": False, "error": f"Module {module} not found; expected one of {', '.join(MODULE_KEYS)}"}, True
        if module in self._discovered:
            return {"success": True, "message": f"Tools of module {module} are already loaded"}, False
        self._discovered.add(module)
        tools = module_schemas(module, self.schema_flavour)  # type: ignore[arg-type]
        return {"success": True, "message": f"Loaded {len(tools)} tools from {module} module", "tools": tools}, False

    def _search_memory(self, args: Any) -> tuple[dict[str, Any], bool]:
        assert self._query is not None
        unexpected = set(args) - {"query", "top_k"}
        if unexpected:
            return {"success": False, "error": f"search_memory takes query and top_k, got unexpected {sorted(unexpected)}"}, True
        text = args.get("query")
        if text is None:
            text = self._query.text  # official: a missing query searches for the request itself
        if not isinstance(text, str):
            return {"success": False, "error": f"search_memory: query must be a string, got {type(text).__name__}"}, True
        top_k = args.get("top_k", 5)
        if isinstance(top_k, bool) or not isinstance(top_k, (int, float)) or top_k != top_k:
            return {"success": False, "error": f"search_memory: top_k must be an integer 1-20, got {top_k!r:.40}"}, True
        top_k = max(1, min(20, int(top_k)))  # official clamp
        t0 = time.perf_counter()
        self._ensure_memory(self._scenario)
        hits = self.memory.search(text, as_of=self._query.as_of, top_k=top_k)
        self._search_seconds += time.perf_counter() - t0
        self._memory_searches += 1
        self._memory_hits.append([i for h in hits for i in h.line_ids])
        self._memory_hit_objects.extend(hits)
        memory_text = "\n".join(f"{i + 1}. {h.render()}" for i, h in enumerate(hits))
        self._memory_tokens += count_tokens(memory_text)
        return {"success": True, "memory_text": memory_text, "count": len(hits)}, False

    def _answer_tool(self, args: Any) -> tuple[dict[str, Any], bool]:
        name = args.get("name")
        arguments = args.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return {"success": False, "error": "answer needs name (a function name string) and arguments (an object)"}, True
        self._answer = ToolCall(name, arguments)
        return {"success": True, "message": "answer recorded"}, False

    # ------------------------------------------------------------------ observations
    def _first_observation(self, query: Query) -> tuple[str, list[dict[str, Any]]]:
        key = (query.task_id, self.task_mode)
        cached = self._first_obs_cache.get(key)
        if cached is None:
            context = ""
            if self.memory.provides_context:
                self._ensure_memory(self.tasks.scenario_of(query))
                context = self.memory.context(query)
            system = _ROLE + "\n\nAvailable modules:\n" + "\n".join(f"- {k}: {MODULES[k].DESCRIPTION}" for k in MODULE_KEYS)
            if self.memory.provides_search:
                system += "\n\n" + _MEMORY_HINT
            system += "\n\nInstructions:\n" + _INSTRUCTIONS
            if context:
                system = "User preference memory:\n" + context + "\n\n" + system
            if self.task_mode == "qa":
                assert query.qa is not None
                user = query.qa.question + "\nAnswer with answer(name=<function name>, arguments={...})."
            else:
                user = query.text
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            obs = self._fit(system + "\n\nRequest: " + user)
            cached = (obs, messages)
            self._first_obs_cache[key] = cached
            self._context_tokens_cache = getattr(self, "_context_tokens_cache", {})
            self._context_tokens_cache[key] = count_tokens(context) if context else 0
        self._context_tokens = self._context_tokens_cache[key]
        return cached

    def _render_results(self, records: list[dict[str, Any]], dumped: list[str]) -> str:
        if self.observation_mode == "json":
            text = "[" + ",".join(f'{{"name":{orjson.dumps(r["name"]).decode()},"result":{d}}}' for r, d in zip(records, dumped)) + "]"
        else:
            text = "\n".join(f"[{r['name'] or 'action'}] {d}" for r, d in zip(records, dumped))
        return self._fit(text)

    def _fit(self, text: str) -> str:
        """Escape characters outside the charset and cut to the space's max length."""
        if not text.isascii() or "\x7f" in text:
            # JSON results escape control characters already; only non-ASCII needs checking.
            cs = self._charset_set
            text = "".join(c if c in cs else f"\\u{ord(c):04x}" for c in text)
        if len(text) > self.max_observation_length:
            marker = f"...[cut {len(text) - self.max_observation_length + 40} chars]"
            text = text[: self.max_observation_length - len(marker)] + marker
        return text or " "

    # ------------------------------------------------------------------ scoring
    def _final_metrics(self) -> tuple[dict[str, Any], dict[str, Any]]:
        from vmb_gym.scoring.scorer import score_final_state

        assert self._query is not None
        query = self._query
        if self.task_mode == "qa":
            from vmb_gym.generator import score_qa

            correct = self._answer is not None and score_qa(query, self._answer)
            metrics: dict[str, Any] = {"exact_match": int(correct), "reward": float(correct)}
        else:
            score = score_final_state(query, self._sim, self._pred_calls)
            metrics = score.to_record()
            metrics["reward"] = {"esm": float(score.exact_match), "f1_change": float(score.state.f1_change),
                                 "f1_positive": float(score.state.f1_positive)}[self.reward_name]
        episode = {
            "steps": self._steps,
            "tool_executions": self._executions,
            "pred_calls": len(self._pred_calls),
            "invalid_actions": self._invalid,
            "memory_searches": self._memory_searches,
            "memory_tokens": self._memory_tokens,
            "memory_search_seconds": self._search_seconds,
            "discovered_modules": sorted(self._discovered),
        }
        if self._memory_hits:
            episode["memory_audit"] = audit_hits(query, self._memory_hit_objects)
        return metrics, episode


_ANSWER_TOOL = {
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


def _schema_text(tools: list[dict[str, Any]]) -> str:
    return orjson.dumps(tools).decode() + string.printable


def iso(ts: datetime | None) -> str | None:
    """ISO text of a timestamp, or None."""
    return ts.isoformat() if ts else None
