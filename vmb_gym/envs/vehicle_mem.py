"""``VehicleMem-v0``: one VehicleMemBench query per episode."""

from __future__ import annotations

import copy
import functools
import string
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import orjson
from gymnasium import spaces

from vmb_gym.envs.env_state import (
    STATE_VERSION,
    EnvState,
    apply_or_roll_back,
    check_state,
    config_fingerprint,
    restore_runtime,
    rng_state,
    runtime_state,
    set_rng_state,
)
from vmb_gym.envs.rewards import RewardSpec
from vmb_gym.envs.spaces import ToolCallSpace
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.envs.tool_runtime import (
    ANSWER_TOOL,
    TextFitter,
    ToolRuntime,
    chat_messages,
    dump_results,
    iso_stamp,
    render_results,
)
from vmb_gym.errors import ConfigError, StateError
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import Query, Scenario
from vmb_gym.vehicle import MODULE_KEYS, MODULES
from vmb_gym.vehicle.schema import FINISH, LIST_MODULE_TOOLS, SEARCH_MEMORY, SchemaFlavour, all_vehicle_schemas
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
_MEMORY_HINT = (
    "A memory of the household's conversations is available: call search_memory(query, top_k) to look up preferences."
)


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
    | ``search_memory`` | ``query``, ``top_k`` (1-20, default 5), ``context`` (0-3, default 0) | searches the history |
    | any of the 111 ``carcontrol_*`` | per schema | runs on the simulated car (official semantics) |
    | ``finish`` | none | ends the episode (terminated) |

    ``search_memory`` is offered only when the memory module retrieves; ``context`` adds that many
    same-day lines either side of each hit; it never returns a line later than the request; the
    result's ``memory_text`` has one ``N. [YYYY-MM-DD HH:MM] text`` line per hit, and
    ``info["memory_hits"]`` the same hits as dicts (see Observation Space). The ``carcontrol_*``
    functions are not gated unless ``gated=True``.

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
    marker. The chat view for chat policies: the reset ``info["messages"]`` holds the system and
    user messages, and each step's ``info["messages"]`` the messages that step added (the
    assistant's tool calls, then one tool message per result), so a policy appends them; the
    whole conversation is ``env.unwrapped.messages``. Each step's ``info["memory_hits"]`` is the
    structured view of its memory searches: per successful ``search_memory`` call, ``{"query",
    "hits"}``, each hit a dict of ``entry_id``, ``text`` (the line as the observation shows it,
    without the ``[time]`` prefix), ``score``, ``timestamp`` (ISO 8601 or None), ``line_ids`` (the
    history lines it comes from), ``people``, ``layer`` and ``status`` (``active``/``superseded``):
    :func:`vmb_gym.envs.tool_runtime.hit_record`, the same form as in ``VehicleMemStream-v0``.

    ## Rewards
    0 at every step except the last. When the episode ends (``finish`` or the step limit), the
    reward is a metric of the official scorer between the final state and the gold final state:
    ``"f1_change"`` (value-level F1, default), ``"f1_positive"`` (field-level F1) or ``"esm"``
    (exact state match, 0/1). A truncated episode is scored the same way on the state it reached.
    The final ``info["reward_components"]`` holds the named components of the episode
    (:mod:`vmb_gym.envs.rewards`): ``state_f1_change``, ``state_f1_positive``,
    ``exact_state_match``, ``invalid_action_rate`` (share of steps with an unreadable action or
    an invalid call), ``tool_error_rate`` (share of the calls that ran and failed) and
    ``format_share`` (share of steps whose action was readable); in the QA track
    ``answer_exact_match`` replaces the three state ones. ``reward`` may also be a weighted
    mapping of them, e.g. ``{"state_f1_change": 1.0, "invalid_action_rate": -0.1}``: the reward
    is then the weighted sum.

    ## Starting State
    A fresh car (the official initial state) and the request of the chosen task. ``reset(seed=s)``
    seeds the task cycler; ``reset(options={"task_id": "3_7"})`` pins a task; without options the
    env walks a seeded permutation of its tasks (vector envs auto-reset this way).

    ## Episode End
    ``terminated`` when the policy calls ``finish``; ``truncated`` after ``max_steps`` steps.
    The final ``info`` holds ``metrics`` (every per-task metric of the scorer, tool-call F1 and
    the list of differences), ``episode_stats`` (steps, tool executions, invalid actions, memory
    searches, memory tokens, memory-retrieval audit) and ``reward_components`` (see Rewards).

    ## Arguments
    * ``data``: ``"default"`` (the embedded generated benchmark), ``"official:DIR"`` (a folder in
      the official layout), a directory, or a sequence of :class:`~vmb_gym.types.Scenario`.
    * ``files``: scenario numbers to keep: ``"1-3,7"`` (the CLI's ``--files`` syntax), ``5`` or
      ``[1, 2, 3]`` (:func:`~vmb_gym.envs.task_set.parse_files`; anything else is a ``ConfigError``).
    * ``task_ids`` / ``reasoning_types``: further filters.
    * ``memory``: a registered memory module name (``"none"``, ``"gold"``, ``"bm25"``, ...).
    * ``memory_kwargs``: keyword arguments of the memory module.
    * ``schema``: ``"official"`` (one-line descriptions, no enums) or ``"rich"``.
    * ``reward``: one of ``"f1_change"``, ``"f1_positive"``, ``"esm"``, or a mapping of reward
      components to weights (see Rewards).
    * ``max_steps``: step limit (default 20).
    * ``observation``: ``"text"`` or ``"json"``.
    * ``gated``: if True, a vehicle function runs only after its module was listed.
    * ``task_mode``: ``"tool"`` (act on the car) or ``"qa"`` (answer the question form of the
      query with one call ``answer(name=..., arguments={...})``, exact match, no LLM judge).
    * ``max_observation_length``: the ``Text`` space's ``max_length``.

    ## Forkable episodes
    ``get_state()`` returns the episode as plain, picklable, JSON-safe data
    (:class:`~vmb_gym.envs.env_state.EnvState`: the car, the search accounting, the messages, the
    counters, the task, the task cycle and the random generators); ``set_state(state)`` on an env
    built with the same arguments continues exactly as the saved one would. A state of another
    version, env, configuration or task raises :class:`~vmb_gym.errors.StateError` and changes nothing.

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
        files: str | int | Sequence[int] | None = None,
        task_ids: Sequence[str] | None = None,
        reasoning_types: Sequence[str] | None = None,
        memory: str = "none",
        memory_kwargs: dict[str, Any] | None = None,
        schema: SchemaFlavour = "official",
        reward: str | Mapping[str, float] = "f1_change",
        max_steps: int = 20,
        observation: str = "text",
        gated: bool = False,
        task_mode: str = "tool",
        max_observation_length: int = 65_536,
        render_mode: str | None = None,
    ) -> None:
        if observation not in OBSERVATION_MODES:
            raise ConfigError(f"observation must be one of {OBSERVATION_MODES}, got {observation!r}")
        if task_mode not in TASK_MODES:
            raise ConfigError(f"task_mode must be one of {TASK_MODES}, got {task_mode!r}")
        self.reward_spec = RewardSpec.parse(reward, task_mode)  # ConfigError names the components
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ConfigError(f"max_steps must be a positive integer, got {max_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        if max_observation_length < 1024:
            raise ConfigError(f"max_observation_length must be at least 1024, got {max_observation_length}")

        self.tasks = TaskSet.load(data, files=files, task_ids=task_ids, reasoning_types=reasoning_types,
                                  need_qa=task_mode == "qa")
        self.schema_flavour = schema
        self.reward_name = reward if isinstance(reward, str) else "weighted"
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
            self._initial_tools = [ANSWER_TOOL]

        self._charset = self.tasks.charset(extra=_fixed_chars(schema, bool(self.memory.provides_search)))
        self.max_observation_length = max_observation_length
        # Observations: free text over the data's characters, cut at max_observation_length.
        self.observation_space = spaces.Text(max_length=max_observation_length, min_length=1, charset=self._charset)
        # Actions: structured calls over every tool the env understands.
        sample_tools = list(self._vehicle_tools) + ([ANSWER_TOOL] if task_mode == "qa" else [])
        self.action_space = ToolCallSpace(sample_tools)
        self._fitter = TextFitter(self._charset, max_observation_length)

        self._order: list[int] = list(range(len(self.tasks)))
        self._cursor = 0
        self._episode_over = True
        self._query: Query | None = None
        self._first_obs_cache: dict[tuple[str, str], tuple[str, list[dict[str, Any]], int]] = {}

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
        self._steps = 0
        self._episode_over = False
        obs, messages, context_tokens = self._first_observation(query)
        self._runtime = ToolRuntime(
            query, self.memory, schema=self.schema_flavour, gated=self.gated, task_mode=self.task_mode,
            prepare_memory=self._serve_episode_scenario, context_tokens=context_tokens,
        )
        self._messages = list(messages)
        self._last_obs = obs
        info = {
            "task_id": query.task_id,
            "scenario_id": query.scenario_id,
            "reasoning_type": query.reasoning_type,
            "request": query.text,
            "as_of": iso_stamp(query.as_of) if query.as_of else None,
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
        records, action_error, terminated, hits = self._runtime.run_action_with_hits(action)
        truncated = not terminated and self._steps >= self.max_steps
        dumped = dump_results(records)
        obs = self._fit(render_results(records, dumped, self.observation_mode))
        new_messages = chat_messages(records, dumped)
        self._messages.extend(new_messages)
        info: dict[str, Any] = {"action_error": action_error, "calls": records, "step": self._steps,
                                "memory_hits": hits}
        reward = 0.0
        if terminated or truncated:
            self._episode_over = True
            metrics, episode, components = self._runtime.final_metrics(self.reward_spec, self._steps)
            reward = float(metrics["reward"])
            info["metrics"] = metrics
            info["episode_stats"] = episode
            info["reward_components"] = components
        info["messages"] = new_messages
        self._last_obs = obs
        if self.render_mode == "human":
            print(self.render())  # noqa: T201 - render_mode="human" shows each step on stdout
        return obs, reward, terminated, truncated, info

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The whole episode so far as a chat (a copy): system, user, then each step's messages."""
        return list(self._messages)

    @property
    def runtime(self) -> ToolRuntime:
        """The current episode's tool session (car, discovered modules, counters)."""
        return self._runtime

    # ------------------------------------------------------------------ forkable episodes
    def _state_config(self) -> str:
        """Fingerprint of what a saved state depends on (tasks, reward, limits, tools, memory)."""
        spec = self.reward_spec
        return config_fingerprint("VehicleMem-v0", [q.task_id for q in self.tasks.queries],
                                  sorted(spec.weights.items()), spec.name, self.max_steps, self.observation_mode,
                                  self.gated, self.task_mode, self.memory_name, self.schema_flavour,
                                  self.max_observation_length)

    def get_state(self) -> EnvState:
        """The episode as plain, picklable data (:class:`~vmb_gym.envs.env_state.EnvState`).

        It holds the car, the episode's memory accounting (searches, tokens, hits), the steps,
        the chat messages, the calls made and the counters, the task, the task cycle and the
        random generators' states. :meth:`set_state` on an env built with the same arguments
        continues exactly as this one would.
        """
        query = self._query
        data: dict[str, Any] = {
            "order": list(self._order), "cursor": self._cursor, "episode_over": self._episode_over,
            "np_random": rng_state(self._np_random),
            "action_space_rng": rng_state(getattr(self.action_space, "_np_random", None)),
            "task_id": query.task_id if query is not None else None,
        }
        if query is not None:
            data.update({"steps": self._steps, "messages": copy.deepcopy(self._messages), "last_obs": self._last_obs,
                         "runtime": runtime_state(self._runtime)})
        return EnvState(STATE_VERSION, "VehicleMem-v0", self._state_config(), data)

    def set_state(self, state: EnvState | Mapping[str, Any]) -> None:
        """Restore a state of :meth:`get_state` (or its :meth:`~EnvState.to_json_data` dict).

        Raises:
            StateError: a state of another version, env, configuration or task; the env is unchanged.
        """
        apply_or_roll_back(self, check_state(state, "VehicleMem-v0", self._state_config()).data, self._apply_state)

    def _apply_state(self, data: dict[str, Any]) -> None:
        task_id = data["task_id"]
        if task_id is not None:
            try:
                self.tasks.index_of(str(task_id))
            except ConfigError as exc:
                raise StateError(f"expected a state of a task of this env, got task {task_id!r}") from exc
        self._order, self._cursor = [int(i) for i in data["order"]], int(data["cursor"])
        self._episode_over = bool(data["episode_over"])
        if data["np_random"] is not None:
            set_rng_state(self.np_random, data["np_random"])
        if data["action_space_rng"] is not None:
            set_rng_state(self.action_space.np_random, data["action_space_rng"])
        if task_id is None:
            self._query = None
            return
        self._query = query = self.tasks.queries[self.tasks.index_of(task_id)]
        self._scenario = self.tasks.scenario_of(query)
        self._steps = int(data["steps"])
        _, _, context_tokens = self._first_observation(query)
        self._runtime = ToolRuntime(
            query, self.memory, schema=self.schema_flavour, gated=self.gated, task_mode=self.task_mode,
            prepare_memory=self._serve_episode_scenario, context_tokens=context_tokens,
        )
        restore_runtime(self._runtime, data["runtime"])
        self._messages = data["messages"]
        self._last_obs = data["last_obs"]

    def render(self) -> str | None:
        """``ansi``: the last observation as text; ``human``: printed by ``step``."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' to gym.make")
            return None
        return getattr(self, "_last_obs", "")

    # ------------------------------------------------------------------ memory and observations
    def _serve_episode_scenario(self) -> None:
        """Make the memory module serve this episode's scenario (a bound method, so the env pickles mid-episode)."""
        self._ensure_memory(self._scenario)

    def _ensure_memory(self, scenario: Scenario) -> None:
        """Make the memory module serve ``scenario`` (ingested once, then restored from its cache)."""
        if getattr(self.memory, "scenario_id", None) != scenario.scenario_id:
            self.memory.ingest(scenario)

    def _first_observation(self, query: Query) -> tuple[str, list[dict[str, Any]], int]:
        key = (query.task_id, self.task_mode)
        cached = self._first_obs_cache.get(key)
        if cached is None:
            context = ""
            if self.memory.provides_context:
                self._ensure_memory(self.tasks.scenario_of(query))
                context = self.memory.context(query)
            system = _system_text(bool(self.memory.provides_search))
            if context:
                system = "User preference memory:\n" + context + "\n\n" + system
            if self.task_mode == "qa":
                assert query.qa is not None
                user = query.qa.question + "\nAnswer with answer(name=<function name>, arguments={...})."
            else:
                user = query.text
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            obs = self._fit(system + "\n\nRequest: " + user)
            cached = (obs, messages, count_tokens(context) if context else 0)
            self._first_obs_cache[key] = cached
        return cached

    def _fit(self, text: str) -> str:
        return self._fitter(text)


@functools.lru_cache(maxsize=4)
def _system_text(search: bool) -> str:
    """The system text of the first observation before any memory context (role, modules, hint, instructions)."""
    system = _ROLE + "\n\nAvailable modules:\n" + "\n".join(f"- {k}: {MODULES[k].DESCRIPTION}" for k in MODULE_KEYS)
    if search:
        system += "\n\n" + _MEMORY_HINT
    return system + "\n\nInstructions:\n" + _INSTRUCTIONS


@functools.lru_cache(maxsize=16)
def _fixed_chars(schema: SchemaFlavour, search: bool) -> str:
    """Every character the tool schemas of ``schema`` and the env's own texts can show, sorted (once per
    schema: the schemas' JSON is long)."""
    initial = [LIST_MODULE_TOOLS, *([SEARCH_MEMORY] if search else []), FINISH]
    return "".join(
        sorted(set(_schema_text(all_vehicle_schemas(schema) + initial) + _ROLE + _INSTRUCTIONS + _MEMORY_HINT))
    )


def _schema_text(tools: list[dict[str, Any]]) -> str:
    return orjson.dumps(tools).decode() + string.printable

