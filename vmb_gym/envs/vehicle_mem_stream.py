"""``VehicleMemStream-v0``: a scenario's timeline as one episode; the policy builds its own memory."""

from __future__ import annotations

import copy
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import gymnasium as gym
import orjson
from gymnasium import spaces

from vmb_gym.envs.actions import parse_action
from vmb_gym.envs.env_state import (
    STATE_VERSION,
    EnvState,
    apply_or_roll_back,
    check_state,
    config_fingerprint,
    parse_stamp,
    restore_runtime,
    rng_state,
    runtime_state,
    set_rng_state,
    stamp,
)
from vmb_gym.envs.rewards import RewardSpec
from vmb_gym.envs.spaces import ToolCallSpace
from vmb_gym.envs.task_set import TaskSet
from vmb_gym.envs.tool_runtime import TextFitter, ToolRuntime, dump_results, render_results
from vmb_gym.errors import ActionError, ConfigError, StateError
from vmb_gym.memory.base import ACTIVE, DELETED, BaseMemory
from vmb_gym.memory.tokens import count_tokens
from vmb_gym.types import HistoryLine, Query, Scenario
from vmb_gym.vehicle import MODULE_KEYS, MODULES
from vmb_gym.vehicle.schema import FINISH, LIST_MODULE_TOOLS, SEARCH_MEMORY, SchemaFlavour, all_vehicle_schemas

#: The memory-writing tools of the history phase.
WRITE_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "store",
        "description": "Store a memory entry: cite streamed lines (line_ids; their text is stored when no text is "
                       "given) and/or write a note (text). Returns the entry_id.",
        "parameters": {"type": "object", "properties": {
            "line_ids": {"type": "array", "items": {"type": "integer"}, "description": "ids (#N) of streamed lines"},
            "text": {"type": "string", "description": "the note to store"},
            "people": {"type": "array", "items": {"type": "string"}, "description": "who the entry is about"},
            "setting": {"type": "string", "description": "free label, e.g. seat.heating_level"},
            "condition": {"type": "string", "description": "free label, e.g. night"},
        }, "required": []}}},
    {"type": "function", "function": {
        "name": "update",
        "description": "Supersede an entry with new text (the old entry is kept, marked superseded).",
        "parameters": {"type": "object", "properties": {
            "entry_id": {"type": "string"}, "text": {"type": "string"}}, "required": ["entry_id", "text"]}}},
    {"type": "function", "function": {
        "name": "delete",
        "description": "Delete an entry: it is never returned by search_memory again.",
        "parameters": {"type": "object", "properties": {"entry_id": {"type": "string"}}, "required": ["entry_id"]}}},
    {"type": "function", "function": {
        "name": "skip",
        "description": "Done with this chunk: stream the next one.",
        "parameters": {"type": "object", "properties": {}, "required": []}}},
]
_WRITE_NAMES = frozenset(t["function"]["name"] for t in WRITE_TOOLS)

_INTRO = (
    "You are an intelligent in-car AI assistant with a memory you write yourself. The household's "
    "conversations stream in, one time chunk at a time; nothing is remembered unless you store it. "
    "Later, requests arrive in the car and you act on the vehicle through function calls.\n"
    "While history streams, the tools are: store(line_ids=[...] and/or text=..., people=[...], setting=..., "
    "condition=...), update(entry_id, text), delete(entry_id), and skip() for the next chunk.\n"
    "At a request, the tools are: list_module_tools(module_name), search_memory(query, top_k) over the "
    "entries you stored, the carcontrol_* functions, and finish() when the car is as it should be.\n"
    "Available modules:\n"
)
_WRITE_HINT = ("Write: store(line_ids|text, people, setting, condition), update(entry_id, text), delete(entry_id); "
               "skip() to go on.")
_QUERY_HINT = "Tools: list_module_tools, search_memory (your stored entries), carcontrol_*, finish."


@dataclass(frozen=True, slots=True)
class Chunk:
    """Consecutive history lines of one time bucket (never split across a request)."""

    lines: tuple[HistoryLine, ...]

    @property
    def end(self) -> datetime:
        """Timestamp of the chunk's last line."""
        return self.lines[-1].timestamp


TimelineItem = Chunk | Query


def build_timeline(
    lines: Sequence[HistoryLine], queries: Sequence[Query], chunk_minutes: int
) -> list[TimelineItem]:
    """Interleave history chunks and requests in time order.

    Lines stamped at or before a request's ``as_of`` come before it; a chunk holds the lines of
    one ``chunk_minutes`` bucket and is cut where a request falls inside it. History after the
    last request is dropped (nothing could use it).

    Args:
        lines: history lines, in any order.
        queries: requests whose ``as_of`` is set.
        chunk_minutes: bucket width in minutes.
    """
    ordered_lines = sorted(lines, key=lambda ln: (ln.timestamp, ln.line_id))
    ordered_queries = sorted(queries, key=lambda q: (q.as_of, q.index))
    width = chunk_minutes * 60
    items: list[TimelineItem] = []
    pending: list[HistoryLine] = []
    bucket: int | None = None

    def flush() -> None:
        nonlocal bucket
        if pending:
            items.append(Chunk(tuple(pending)))
            pending.clear()
        bucket = None

    qi = 0
    for ln in ordered_lines:
        while qi < len(ordered_queries) and ordered_queries[qi].as_of < ln.timestamp:  # type: ignore[operator]
            flush()
            items.append(ordered_queries[qi])
            qi += 1
        if qi == len(ordered_queries):
            break
        b = _naive_seconds(ln.timestamp) // width
        if bucket is not None and b != bucket:
            flush()
        bucket = b
        pending.append(ln)
    flush()
    items.extend(ordered_queries[qi:])
    return items


def stored_lines_text(lines: Sequence[tuple[str, str]]) -> str:
    """The text a ``store`` of history lines holds, and is charged tokens for: ``speaker: text`` per line.

    Args:
        lines: ``(speaker, text)`` of each line, in order.
    """
    return "\n".join(f"{speaker}: {text}" for speaker, text in lines)


def _naive_seconds(t: datetime) -> int:
    return t.toordinal() * 86400 + t.hour * 3600 + t.minute * 60 + t.second


class VehicleMemStreamEnv(gym.Env[str, Any]):
    """VehicleMemBench as a streaming, write-your-own-memory environment: one timeline, one episode.

    ## Description
    An episode is one household's timeline (or a window of it). The dialogue history streams in
    chunks (one ``chunk_minutes`` bucket of lines at a time). Nothing is remembered for the policy:
    while history streams it decides what to write into its own memory store. At their own times
    (ordered by ``as_of``; official data puts every request after the history) the car requests
    arrive; each is served exactly like a ``VehicleMem-v0`` episode (same :class:`ToolRuntime`:
    list modules, call vehicle functions on a fresh car, ``finish``), except that
    ``search_memory`` searches only the store the policy built. ``as_of`` holds by construction:
    at a request the store only holds what was written from lines streamed before it.

    ## Action Space
    ``ToolCallSpace`` over the write tools and the request tools; one call or a list of calls per
    step, in any form ``VehicleMem-v0`` accepts. While a chunk is shown:

    | tool | arguments | effect |
    |---|---|---|
    | ``store`` | ``line_ids`` (streamed) and/or ``text``; ``people``, ``setting``, ``condition`` | adds ``P<n>`` |
    | ``update`` | ``entry_id``, ``text`` | supersedes an active entry (the old one is kept, linked, not searched) |
    | ``delete`` | ``entry_id`` | the entry is never returned again |
    | ``skip`` | none | ends the chunk (calls after it in the same action are not run) |

    The lines ``store`` cites are the entry's provenance; without ``text`` the lines' text is stored.
    A chunk also ends after ``max_chunk_steps`` steps. At a request: ``list_module_tools``,
    ``search_memory`` (over the policy's store), the ``carcontrol_*`` functions and ``finish``.
    Malformed actions, unknown tools, wrong-phase tools and bad arguments never raise: the
    observation carries the error and ``info["action_error"]`` says what was wrong.

    ## Observation Space
    ``Text``. A chunk renders as ``#<line_id> [YYYY-MM-DD HH:MM] Speaker: text`` lines under a
    header; a request as ``Request at <time>: <text>``. Each step's observation starts with the
    results of its calls (``[tool] {json}`` lines); when the step moved the timeline on, the next
    chunk or request follows. The first observation also carries the instructions and the module
    list. Characters outside the data's charset are escaped; long text is cut with a marker.
    ``info`` carries the structured view: ``phase`` (``"write"``/``"query"``), ``lines`` (the
    chunk's lines as dicts), ``request``/``task_id``/``as_of`` at a request, ``entry_ids`` of the
    step's writes, and ``memory_hits`` (per successful ``search_memory`` call, ``{"query", "hits"}``;
    each hit a dict of ``entry_id``, ``text``, ``score``, ``timestamp``, ``line_ids``, ``people``,
    ``layer``, ``status``: :func:`vmb_gym.envs.tool_runtime.hit_record`, the same form as in
    ``VehicleMem-v0``).

    ## Rewards
    When a request ends (``finish`` or ``max_query_steps`` steps) the step's reward is the
    official scorer's metric for that request (``reward``: ``"f1_change"`` default,
    ``"f1_positive"`` or ``"esm"``, or a weighted mapping of the reward components, as in
    ``VehicleMem-v0``); that step's ``info["reward_components"]`` holds the request's named
    components (``state_f1_change``, ``state_f1_positive``, ``exact_state_match``,
    ``invalid_action_rate``, ``tool_error_rate``, ``format_share``: :mod:`vmb_gym.envs.rewards`;
    the rates count the request's steps and calls). Each write step costs ``memory_cost`` per stored token
    (cl100k tokens of the text written by ``store``/``update``), so an episode's return is
    ``sum(request metric) - memory_cost * tokens written``.

    ## Starting State
    An empty store and the first chunk of the chosen scenario. ``reset(seed=s)`` seeds the
    scenario cycle and the window choice; ``options={"scenario_id": n}`` pins a scenario and, with
    ``window_days``, ``options={"anchor_task_id": "3_7"}`` pins the window's last request.

    ## Episode End
    ``terminated`` when the last request of the timeline ends; episodes are bounded by
    construction (chunks x ``max_chunk_steps`` + requests x ``max_query_steps``) and never
    ``truncated``. A request's last step puts ``query_metrics`` (every scorer metric) and
    ``query_episode`` (tool figures) in ``info``. The final ``info["episode_stats"]`` holds (not ``"episode"``, which
    ``RecordEpisodeStatistics`` and SB3's ``Monitor`` use): per-request
    ``esm`` and ``f1_change``, their means, store size (active entries and tokens), entries and
    tokens written, write recall (share of the requests' streamed gold evidence lines cited by a
    non-deleted entry before the request), write precision (share of stored line ids that are
    gold evidence of an episode request; ``entry_precision``: share of active entries citing one),
    invalid actions and the memory cost paid.

    ## Arguments
    * ``data`` / ``files`` / ``task_ids`` / ``reasoning_types``: as ``VehicleMem-v0``.
    * ``store``: the memory module the policy writes into (a registered name of a searchable
      :class:`~vmb_gym.memory.base.BaseMemory`, default ``"bm25"``); ``store_kwargs``: its arguments.
    * ``chunk_minutes``: width of a history chunk (default 60).
    * ``window_days``: when set, an episode covers only the ``window_days`` days up to a request
      (chosen with the env's ``np_random``): the lines and requests inside that window.
    * ``memory_cost``: reward cost per stored token (default 0).
    * ``schema`` / ``reward`` / ``gated``: as ``VehicleMem-v0``.
    * ``max_query_steps``: step limit of one request (default 20).
    * ``max_chunk_steps``: steps one chunk may take before the stream moves on (default 8).
    * ``max_observation_length``: the ``Text`` space's ``max_length``.

    ## Forkable episodes
    ``get_state()`` returns the episode as plain, picklable, JSON-safe data
    (:class:`~vmb_gym.envs.env_state.EnvState`: the stream position, the policy's writes, the write
    figures, the current request's car and tool session, the random generators); ``set_state(state)``
    on an env built with the same arguments resets the store, replays the writes and continues
    exactly as the saved one would (:func:`vmb_gym.envs.fork.fork`: G envs at one state, for group
    RL). A state of another version, env or configuration raises :class:`~vmb_gym.errors.StateError`.

    ## Version History
    * v0: initial release.

    Example:
        >>> import gymnasium as gym, vmb_gym
        >>> env = gym.make("VehicleMemStream-v0", window_days=2)
        >>> obs, info = env.reset(seed=0)
        >>> info["phase"] in ("write", "query")
        True
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        data: str | Sequence[Scenario] = "default",
        *,
        files: str | int | Sequence[int] | None = None,
        task_ids: Sequence[str] | None = None,
        reasoning_types: Sequence[str] | None = None,
        store: str = "bm25",
        store_kwargs: dict[str, Any] | None = None,
        chunk_minutes: int = 60,
        window_days: float | None = None,
        memory_cost: float = 0.0,
        schema: SchemaFlavour = "official",
        reward: str | Mapping[str, float] = "f1_change",
        gated: bool = False,
        max_query_steps: int = 20,
        max_chunk_steps: int = 8,
        max_observation_length: int = 65_536,
        render_mode: str | None = None,
    ) -> None:
        self.reward_spec = RewardSpec.parse(reward)  # ConfigError names the components
        for name, value in (("max_query_steps", max_query_steps), ("max_chunk_steps", max_chunk_steps),
                            ("chunk_minutes", chunk_minutes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if window_days is not None and not window_days > 0:
            raise ConfigError(f"window_days must be a positive number of days or None, got {window_days!r}")
        if not memory_cost >= 0:
            raise ConfigError(f"memory_cost must be >= 0, got {memory_cost!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        if max_observation_length < 1024:
            raise ConfigError(f"max_observation_length must be at least 1024, got {max_observation_length}")

        from vmb_gym.memory import make_memory

        self.store_name = store
        module = make_memory(store, **(store_kwargs or {}))
        if not isinstance(module, BaseMemory) or not module.provides_search:
            raise ConfigError(
                f"store {store!r} must be a searchable BaseMemory module (e.g. 'bm25', 'dense', 'hybrid')"
            )

        self.store: BaseMemory = module
        self.tasks = TaskSet.load(data, files=files, task_ids=task_ids, reasoning_types=reasoning_types)
        by_scenario: dict[int, list[Query]] = {}
        for q in self.tasks.queries:
            scenario = self.tasks.scenario_of(q)
            as_of = q.as_of or scenario.end_time
            if as_of is None:
                raise ConfigError(f"task {q.task_id} has no as_of and its scenario no history to date it")
            by_scenario.setdefault(q.scenario_id, []).append(q if q.as_of else replace(q, as_of=as_of))
        self._queries = by_scenario
        self.scenario_ids: list[int] = sorted(by_scenario)

        self.chunk_minutes = chunk_minutes
        self.window_days = window_days
        self.memory_cost = float(memory_cost)
        self.schema_flavour = schema
        self.reward_name = reward if isinstance(reward, str) else "weighted"
        self.gated = gated
        self.max_query_steps = max_query_steps
        self.max_chunk_steps = max_chunk_steps
        self.render_mode = render_mode

        vehicle = all_vehicle_schemas(schema)
        self.query_tools = [LIST_MODULE_TOOLS, SEARCH_MEMORY, FINISH]
        self.write_tools = WRITE_TOOLS
        modules = "\n".join(f"- {k}: {MODULES[k].DESCRIPTION}" for k in MODULE_KEYS)
        self._intro = _INTRO + modules
        extra = orjson.dumps(vehicle + self.query_tools + WRITE_TOOLS).decode() + string.printable + self._intro
        self._charset = self.tasks.charset(extra=extra)
        self.max_observation_length = max_observation_length
        self.observation_space = spaces.Text(max_length=max_observation_length, min_length=1, charset=self._charset)
        self.action_space = ToolCallSpace(WRITE_TOOLS + list(vehicle))
        self._fitter = TextFitter(self._charset, max_observation_length)

        self._order: list[int] = list(self.scenario_ids)
        self._cursor = 0
        self._over = True

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a timeline: a pinned scenario (``options={"scenario_id": n}``) or the next of the cycle."""
        super().reset(seed=seed)
        if seed is not None:
            self._order = [self.scenario_ids[int(i)] for i in self.np_random.permutation(len(self.scenario_ids))]
            self._cursor = 0
            self.action_space.seed(int(self.np_random.integers(2**31 - 1)))
        options = options or {}
        sid = options.get("scenario_id")
        if sid is None:
            sid = self._order[self._cursor % len(self._order)]
            self._cursor += 1
        elif sid not in self._queries:
            raise ConfigError(f"unknown scenario_id {sid!r}; expected one of {self.scenario_ids[:10]}")
        scenario = self.tasks.scenarios[sid]
        queries = self._queries[sid]
        lines: Sequence[HistoryLine] = scenario.lines
        self.window: tuple[datetime, datetime] | None = None
        if self.window_days is not None:
            anchor_id = options.get("anchor_task_id")
            if anchor_id is not None:
                found = [q for q in queries if q.task_id == anchor_id]
                if not found:
                    raise ConfigError(f"anchor_task_id {anchor_id!r} is not a task of scenario {sid}")
                anchor = found[0]
            else:
                anchor = queries[int(self.np_random.integers(len(queries)))]
            end = anchor.as_of
            assert end is not None
            start = end - timedelta(days=self.window_days)
            self.window = (start, end)
            lines = [ln for ln in lines if start < ln.timestamp <= end]
            queries = [q for q in queries if start < q.as_of <= end]  # type: ignore[operator]
        self.scenario = scenario
        self.timeline = build_timeline(lines, queries, self.chunk_minutes)
        self.store.reset(scenario.scenario_id, scenario.speakers)
        self._seen: dict[int, HistoryLine] = {}
        self._entry_tokens: dict[str, int] = {}
        self._pos = 0
        self._steps = 0
        self._chunk_steps = 0
        self._tokens_written = 0
        self._entries_written = 0
        self._write_invalid = 0
        self._cost_paid = 0.0
        self._query_records: list[dict[str, Any]] = []
        self._runtime: ToolRuntime | None = None
        self._over = False
        #: The writes made into the store, in order, as plain data (what ``set_state`` replays).
        self._store_log: list[dict[str, Any]] = []
        info: dict[str, Any] = {"scenario_id": scenario.scenario_id, "speakers": list(scenario.speakers),
                                "store": self.store_name, "window": self._window_info(),
                                "queries": len(queries), "chunks": sum(isinstance(i, Chunk) for i in self.timeline)}
        text = self._enter(info)
        obs = self._fit(self._intro + "\n\n" + text)
        self._last_obs = obs
        return obs, info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one write action (history phase) or one tool action (request phase); never raises."""
        if self._over:
            msg = "the episode is over: call reset() before stepping again"
            return self._fit(orjson.dumps({"success": False, "error": msg}).decode()), 0.0, True, False, {
                "action_error": msg, "calls": []}
        self._steps += 1
        item = self.timeline[self._pos]
        if isinstance(item, Chunk):
            obs, reward, info = self._write_step(action)
        else:
            obs, reward, info = self._query_step(action)
        terminated = self._over
        if terminated:
            info["episode_stats"] = self.episode_summary()
        self._last_obs = obs = self._fit(obs)
        return obs, reward, terminated, False, info

    def render(self) -> str | None:
        """``ansi``: the last observation."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' to gym.make")
            return None
        return getattr(self, "_last_obs", "")

    # ------------------------------------------------------------------ timeline
    def _enter(self, info: dict[str, Any]) -> str:
        """Make the item at ``_pos`` current; fill ``info`` with its view and return its text."""
        item = self.timeline[self._pos]
        self._chunk_steps = 0
        if isinstance(item, Chunk):
            for ln in item.lines:
                self._see(ln)
            info.update({"phase": "write", "time": item.end.isoformat(),
                         "lines": [{"line_id": ln.line_id, "timestamp": ln.timestamp.isoformat(),
                                    "speaker": ln.speaker, "text": ln.text} for ln in item.lines]})
            head = f"History {item.lines[0].timestamp:%Y-%m-%d %H:%M} to {item.end:%H:%M} ({len(item.lines)} lines):"
            body = "\n".join(
                f"#{ln.line_id} [{ln.timestamp:%Y-%m-%d %H:%M}] {ln.speaker}: {ln.text}" for ln in item.lines
            )
            return f"{head}\n{body}\n{_WRITE_HINT}"
        assert item.as_of is not None
        self._runtime = ToolRuntime(item, self.store, schema=self.schema_flavour, gated=self.gated)
        self._query_steps = 0
        self._request_calls: list[dict[str, Any]] = []
        self._query_recall = self._recall_at(item)
        info.update({"phase": "query", "time": item.as_of.isoformat(), "task_id": item.task_id,
                     "request": item.text, "as_of": item.as_of.isoformat(), "reasoning_type": item.reasoning_type,
                     "tools": self.query_tools})
        return f"Request at {item.as_of:%Y-%m-%d %H:%M}: {item.text}\n{_QUERY_HINT}"

    def _advance(self, info: dict[str, Any]) -> str:
        """Move to the next item; returns its text ("" and ends the episode after the last one)."""
        self._pos += 1
        self._runtime = None
        if self._pos >= len(self.timeline):
            self._over = True
            info["phase"] = "done"
            return ""
        return self._enter(info)

    def _see(self, line: HistoryLine) -> None:
        """Stream one line: citeable from now on, dated for the store's as_of checks (no entry made)."""
        self._seen[line.line_id] = line
        self.store._line_time[line.line_id] = line.timestamp  # private on purpose: provenance for BaseMemory._check
        self.store._now = line.timestamp  # private on purpose: the store's clock, default stamp of writes

    @property
    def clock(self) -> datetime | None:
        """Time of the last streamed line."""
        return self.store._now

    # ------------------------------------------------------------------ history phase
    def _write_step(self, action: Any) -> tuple[str, float, dict[str, Any]]:
        self._chunk_steps += 1
        info: dict[str, Any] = {"action_error": None, "calls": [], "entry_ids": []}
        records: list[dict[str, Any]] = []
        tokens = 0
        done = False
        try:
            calls = parse_action(action)
        except ActionError as exc:
            calls = []
            records.append({"name": None, "arguments": None, "result": {"success": False, "error": str(exc)}})
            info["action_error"] = str(exc)
            self._write_invalid += 1
        for call in calls:
            if call.name == "skip":
                records.append({"name": "skip", "arguments": dict(call.arguments),
                                "result": {"success": True, "message": "next chunk"}})
                done = True
                break
            try:
                result, spent = self._write(call.name, dict(call.arguments))
            except Exception as exc:  # noqa: BLE001 - a store bug must not crash a training run
                result, spent = {"success": False, "error": f"{call.name} failed ({type(exc).__name__}: {exc})"}, 0
            if "error" in result:
                self._write_invalid += 1
                info["action_error"] = info["action_error"] or result["error"]
            elif "entry_id" in result:
                info["entry_ids"].append(result["entry_id"])
            tokens += spent
            records.append({"name": call.name, "arguments": dict(call.arguments), "result": result})
        info["calls"] = records
        reward = -self.memory_cost * tokens
        self._cost_paid += -reward
        text = render_results(records, dump_results(records), "text")
        if done or self._chunk_steps >= self.max_chunk_steps:
            if not done:
                text += f"\n(chunk closed after {self.max_chunk_steps} steps)"
            nxt = self._advance(info)
            if nxt:
                text += "\n\n" + nxt
        else:
            info.update({"phase": "write", "time": self.timeline[self._pos].end.isoformat()})  # type: ignore[union-attr]
        return text, reward, info

    def _write(self, name: str, args: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """Run one write call: ``(result, tokens written)``."""
        if name not in _WRITE_NAMES:
            return {"success": False, "error": f"{name} is not a write tool; while history streams the tools are "
                                               "store, update, delete and skip (vehicle tools come with requests)"}, 0
        allowed = {"store": {"line_ids", "text", "people", "setting", "condition"},
                   "update": {"entry_id", "text"}, "delete": {"entry_id"}}[name]
        extra = set(args) - allowed
        if extra:
            return {"success": False, "error": f"{name} takes {sorted(allowed)}, got unexpected {sorted(extra)}"}, 0
        if name == "store":
            return self._store(args)
        entry_id = args.get("entry_id")
        if not isinstance(entry_id, str) or entry_id not in self._entry_tokens:
            return {
                "success": False,
                "error": f"{name}: unknown entry_id {entry_id!r:.40}; use an id that store returned",
            }, 0
        entry = self.store.get(entry_id)
        if entry.status != ACTIVE:
            later = f" (its revision is {entry.superseded_by})" if entry.superseded_by else ""
            return {"success": False, "error": f"{name}: entry {entry_id} is {entry.status}{later}"}, 0
        if name == "delete":
            self.store.delete(entry_id)
            self._store_log.append({"op": "delete", "pos": self._pos, "entry_id": entry_id})
            return {"success": True, "deleted": entry_id}, 0
        text = args.get("text")
        if not isinstance(text, str) or not text.strip():
            return {"success": False, "error": "update: text must be a non-empty string"}, 0
        new_id = self.store.update(entry_id, text, when=self.clock)
        self._store_log.append({"op": "update", "pos": self._pos, "entry_id": entry_id, "new_id": new_id,
                                "text": text, "when": stamp(self.clock)})
        return {"success": True, "entry_id": new_id, "supersedes": entry_id}, self._count(new_id, text)

    def _store(self, args: dict[str, Any]) -> tuple[dict[str, Any], int]:
        raw_ids = args.get("line_ids", [])
        if isinstance(raw_ids, int) and not isinstance(raw_ids, bool):
            raw_ids = [raw_ids]
        if not isinstance(raw_ids, (list, tuple)) or any(
            isinstance(i, bool) or not isinstance(i, int) for i in raw_ids
        ):
            return {"success": False, "error": f"store: line_ids must be a list of integers, got {raw_ids!r:.60}"}, 0
        unseen = [i for i in raw_ids if i not in self._seen]
        if unseen:
            return {
                "success": False,
                "error": f"store: lines {unseen[:5]} have not been streamed; cite the #ids shown",
            }, 0
        text = args.get("text")
        if text is not None and not isinstance(text, str):
            return {"success": False, "error": f"store: text must be a string, got {type(text).__name__}"}, 0
        people = args.get("people", [])
        if isinstance(people, str):
            people = [people]
        if not isinstance(people, (list, tuple)) or not all(isinstance(p, str) for p in people):
            return {"success": False, "error": "store: people must be a list of names"}, 0
        labels = {k: args.get(k) for k in ("setting", "condition")}
        for k, v in labels.items():
            if v is not None and not isinstance(v, str):
                return {"success": False, "error": f"store: {k} must be a string, got {type(v).__name__}"}, 0
        ids = tuple(dict.fromkeys(raw_ids))
        lines = [self._seen[i] for i in ids]
        if not text or not text.strip():
            if not lines:
                return {"success": False, "error": "store: give line_ids, text or both"}, 0
            text = stored_lines_text([(ln.speaker, ln.text) for ln in lines])
            if not people:
                people = list(dict.fromkeys(ln.speaker for ln in lines))
        when = max(ln.timestamp for ln in lines) if lines else self.clock
        eid = self.store.store(text, people=tuple(people), setting=labels["setting"], condition=labels["condition"],
                               when=when)
        self.store.get(eid).line_ids = ids
        self._store_log.append({"op": "store", "pos": self._pos, "entry_id": eid, "text": text, "people": list(people),
                                "setting": labels["setting"], "condition": labels["condition"],
                                "when": stamp(when), "line_ids": list(ids)})
        return {"success": True, "entry_id": eid}, self._count(eid, text)

    def _count(self, entry_id: str, text: str) -> int:
        n = count_tokens(text)
        self._entry_tokens[entry_id] = n
        self._tokens_written += n
        self._entries_written += 1
        return n

    # ------------------------------------------------------------------ request phase
    def _query_step(self, action: Any) -> tuple[str, float, dict[str, Any]]:
        runtime = self._runtime
        assert runtime is not None
        records, action_error, finished, hits = runtime.run_action_with_hits(action)
        self._query_steps += 1
        self._request_calls.extend({"name": r["name"], "arguments": r["arguments"]} for r in records
                                   if str(r.get("name") or "").startswith("carcontrol_")
                                   and (r.get("result") or {}).get("success", True))
        info: dict[str, Any] = {"action_error": action_error, "calls": records, "phase": "query",
                                "memory_hits": hits}
        text = render_results(records, dump_results(records), "text")
        reward = 0.0
        if finished or self._query_steps >= self.max_query_steps:
            metrics, episode, components = runtime.final_metrics(self.reward_spec, self._query_steps)
            reward = float(metrics["reward"])
            query = runtime.query
            self._query_records.append({
                "task_id": query.task_id, "reasoning_type": query.reasoning_type, "reward": reward,
                "esm": float(metrics["exact_match"]), "f1_change": float(metrics["f1_change"]),
                "steps": self._query_steps, "truncated": not finished, **self._query_recall})
            info.update({"query_metrics": metrics, "query_episode": episode, "query_truncated": not finished,
                         "task_id": query.task_id, "reward_components": components})
            self._learn(query, reward)
            nxt = self._advance(info)
            if nxt:
                text += "\n\n" + nxt
        return text, reward, info

    def _learn(self, query: Query, reward: float) -> None:
        """Experience write: a store with an experience layer (``layered``) learns the finished
        request's vehicle calls and reward, visible to later requests of the timeline."""
        record = getattr(self.store, "record_experience", None)
        if callable(record) and query.as_of is not None:
            record(query.text, query.as_of, list(self._request_calls), reward)
            self._store_log.append({"op": "experience", "pos": self._pos, "request": query.text,
                                    "when": stamp(query.as_of), "calls": copy.deepcopy(self._request_calls),
                                    "reward": reward})
        self._request_calls = []

    # ------------------------------------------------------------------ figures
    def _cited(self) -> set[int]:
        return {i for e in self.store.entries if e.source == "policy" and e.status != DELETED for i in e.line_ids}

    def _recall_at(self, query: Query) -> dict[str, int]:
        evidence = set(query.evidence_line_ids)
        streamed = evidence & set(self._seen)
        return {"evidence_lines": len(evidence), "evidence_streamed": len(streamed),
                "evidence_stored": len(streamed & self._cited())}

    def store_size(self) -> tuple[int, int]:
        """Active entries of the store and their tokens."""
        active = [e.entry_id for e in self.store.entries if e.source == "policy" and e.status == ACTIVE]
        return len(active), sum(self._entry_tokens.get(e, 0) for e in active)

    def episode_summary(self) -> dict[str, Any]:
        """Figures of the episode so far (the final ``info["episode_stats"]``)."""
        recs = self._query_records
        streamed = sum(r["evidence_streamed"] for r in recs)
        stored = sum(r["evidence_stored"] for r in recs)
        evidence = {i for item in self.timeline if isinstance(item, Query) for i in item.evidence_line_ids}
        cited = self._cited()
        active = [e for e in self.store.entries if e.source == "policy" and e.status == ACTIVE]
        entries, tokens = self.store_size()
        return {
            "scenario_id": self.scenario.scenario_id,
            "queries": len(recs),
            "esm": [r["esm"] for r in recs],
            "f1_change": [r["f1_change"] for r in recs],
            "mean_esm": sum(r["esm"] for r in recs) / len(recs) if recs else 0.0,
            "mean_f1_change": sum(r["f1_change"] for r in recs) / len(recs) if recs else 0.0,
            "per_query": list(recs),
            "store_entries": entries,
            "store_tokens": tokens,
            "entries_written": self._entries_written,
            "tokens_written": self._tokens_written,
            "lines_streamed": len(self._seen),
            "lines_stored": len(cited),
            "write_recall": stored / streamed if streamed else None,
            "evidence_streamed": streamed,
            "evidence_stored": stored,
            "write_precision": len(cited & evidence) / len(cited) if cited else None,
            "entry_precision": (sum(bool(evidence.intersection(e.line_ids)) for e in active) / len(active)
                                if active else None),
            "write_invalid_actions": self._write_invalid,
            "memory_cost_paid": self._cost_paid,
            "steps": self._steps,
            "store_violations": self.store.violations,
        }

    def _window_info(self) -> list[str] | None:
        return [t.isoformat() for t in self.window] if self.window else None

    def _fit(self, text: str) -> str:
        return self._fitter(text)

    # ------------------------------------------------------------------ forkable episodes
    def _state_config(self) -> str:
        """Fingerprint of what a saved state depends on (tasks, store, chunking, reward, limits)."""
        spec = self.reward_spec
        return config_fingerprint("VehicleMemStream-v0", [q.task_id for q in self.tasks.queries], self.store_name,
                                  self.chunk_minutes, None if self.window_days is None else float(self.window_days),
                                  self.memory_cost, self.schema_flavour,
                                  sorted(spec.weights.items()), spec.name, self.gated, self.max_query_steps,
                                  self.max_chunk_steps, self.max_observation_length)

    def get_state(self) -> EnvState:
        """The episode as plain, picklable data (:class:`~vmb_gym.envs.env_state.EnvState`).

        It holds the scenario and window, the stream position, the log of the writes the policy
        made into its store (replayed into an empty store by :meth:`set_state`), the store's
        violation count, the write figures, the finished requests' records, the current request's
        tool session (car, calls, counters, search accounting), the scenario cycle and the random
        generators' states. :meth:`set_state` on an env built with the same arguments continues
        exactly as this one would: G forks of one state start from identical stores.
        """
        data: dict[str, Any] = {
            "order": list(self._order), "cursor": self._cursor, "over": self._over,
            "np_random": rng_state(self._np_random),
            "action_space_rng": rng_state(getattr(self.action_space, "_np_random", None)),
            "scenario_id": None,
        }
        if not hasattr(self, "timeline"):
            return EnvState(STATE_VERSION, "VehicleMemStream-v0", self._state_config(), data)
        data.update({
            "scenario_id": self.scenario.scenario_id,
            "window": [stamp(t) for t in self.window] if self.window else None,
            "timeline_items": len(self.timeline), "pos": self._pos, "steps": self._steps,
            "chunk_steps": self._chunk_steps, "tokens_written": self._tokens_written,
            "entries_written": self._entries_written, "write_invalid": self._write_invalid,
            "cost_paid": self._cost_paid, "query_records": copy.deepcopy(self._query_records),
            "entry_tokens": dict(self._entry_tokens), "store_log": copy.deepcopy(self._store_log),
            "store_violations": self.store.violations, "last_obs": self._last_obs, "query": None,
        })
        if self._runtime is not None:
            data["query"] = {"steps": self._query_steps, "request_calls": copy.deepcopy(self._request_calls),
                             "recall": dict(self._query_recall), "runtime": runtime_state(self._runtime)}
        return EnvState(STATE_VERSION, "VehicleMemStream-v0", self._state_config(), data)

    def set_state(self, state: EnvState | Mapping[str, Any]) -> None:
        """Restore a state of :meth:`get_state` (or its :meth:`~EnvState.to_json_data` dict).

        The store is reset and the state's writes are replayed into it, so it equals the store
        the policy built.

        Raises:
            StateError: a state of another version, env, configuration or scenario; the env is unchanged.
        """
        apply_or_roll_back(self, check_state(state, "VehicleMemStream-v0", self._state_config()).data,
                           self._apply_state)

    def _apply_state(self, data: dict[str, Any]) -> None:
        sid = data["scenario_id"]
        if sid is not None and sid not in self._queries:
            raise StateError(f"expected a state of a scenario of this env, got scenario {sid!r}")
        built = self._saved_timeline(data) if sid is not None else None
        self._order, self._cursor, self._over = [int(i) for i in data["order"]], int(data["cursor"]), data["over"]
        if data["np_random"] is not None:
            set_rng_state(self.np_random, data["np_random"])
        if data["action_space_rng"] is not None:
            set_rng_state(self.action_space.np_random, data["action_space_rng"])
        if built is None:
            return
        self.scenario, self.window, self.timeline = built
        self._pos, self._steps, self._chunk_steps = int(data["pos"]), int(data["steps"]), int(data["chunk_steps"])
        self._tokens_written, self._entries_written = int(data["tokens_written"]), int(data["entries_written"])
        self._write_invalid, self._cost_paid = int(data["write_invalid"]), float(data["cost_paid"])
        self._query_records = data["query_records"]
        self._entry_tokens = {str(k): int(v) for k, v in data["entry_tokens"].items()}
        self._replay_store(data["store_log"])
        self.store.violations = int(data["store_violations"])
        self._store_log = data["store_log"]
        self._last_obs = data["last_obs"]
        self._runtime = None
        q = data["query"]
        if q is not None:
            item = self.timeline[self._pos]
            assert isinstance(item, Query)
            self._runtime = ToolRuntime(item, self.store, schema=self.schema_flavour, gated=self.gated)
            restore_runtime(self._runtime, q["runtime"])
            self._query_steps, self._query_recall = int(q["steps"]), q["recall"]
            self._request_calls = q["request_calls"]

    def _saved_timeline(
        self, data: Mapping[str, Any]
    ) -> tuple[Scenario, tuple[datetime, datetime] | None, list[TimelineItem]]:
        """The scenario, window and timeline of a saved state (as :meth:`reset` built them)."""
        sid = data["scenario_id"]
        scenario = self.tasks.scenarios[sid]
        lines: Sequence[HistoryLine] = scenario.lines
        queries = self._queries[sid]
        saved = data["window"]
        window: tuple[datetime, datetime] | None = None
        if saved is not None:
            start, end = parse_stamp(saved[0]), parse_stamp(saved[1])
            assert start is not None and end is not None
            window = (start, end)
            lines = [ln for ln in lines if start < ln.timestamp <= end]
            queries = [q for q in queries if start < q.as_of <= end]  # type: ignore[operator]
        timeline = build_timeline(lines, queries, self.chunk_minutes)
        if len(timeline) != data["timeline_items"]:
            raise StateError(f"expected the state's timeline of {data['timeline_items']} items for scenario {sid}, "
                             f"built {len(timeline)}: the data differ from the env's that saved it")
        return scenario, window, timeline

    def _replay_store(self, log: Sequence[Mapping[str, Any]]) -> None:
        """Reset the store and stream the timeline up to the current item, replaying each write where it was made."""
        self.store.reset(self.scenario.scenario_id, self.scenario.speakers)
        self._seen = {}
        by_pos: dict[int, list[Mapping[str, Any]]] = {}
        for op in log:
            by_pos.setdefault(int(op["pos"]), []).append(op)
        for pos in range(min(self._pos + 1, len(self.timeline))):
            item = self.timeline[pos]
            if isinstance(item, Chunk):
                for ln in item.lines:
                    self._see(ln)
            for op in by_pos.get(pos, ()):
                self._replay_write(op)

    def _replay_write(self, op: Mapping[str, Any]) -> None:
        kind = op["op"]
        when = parse_stamp(op.get("when"))
        if when is not None and self.clock is not None and when > self.clock and kind != "experience":
            raise StateError(f"expected a write stamped at or before its stream time {self.clock}, got {when}")
        if kind == "store":
            unseen = [i for i in op["line_ids"] if i not in self._seen]
            if unseen:
                raise StateError(f"expected a store of streamed lines, got lines {unseen[:5]} not streamed by then")
            eid = self.store.store(op["text"], people=tuple(op["people"]), setting=op["setting"],
                                   condition=op["condition"], when=parse_stamp(op["when"]))
            if eid != op["entry_id"]:
                raise StateError(f"expected the replayed store to give {op['entry_id']}, got {eid}")
            self.store.get(eid).line_ids = tuple(op["line_ids"])
        elif kind == "update":
            self.store.update(op["entry_id"], op["text"], when=parse_stamp(op["when"]))
        elif kind == "delete":
            self.store.delete(op["entry_id"])
        elif kind == "experience":
            record = getattr(self.store, "record_experience", None)
            if callable(record):
                record(op["request"], parse_stamp(op["when"]), op["calls"], op["reward"])
        else:
            raise StateError(f"expected store, update, delete or experience writes in a state, got {kind!r}")
