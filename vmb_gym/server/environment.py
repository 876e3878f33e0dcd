"""The OpenEnv ``Environment`` of ``vmb serve``: one session, one gym env, one car.

Each WebSocket session gets its own :class:`VehicleMemEnvironment`, which holds its own
``VehicleMem-v0`` (or ``VehicleMemStream-v0``) instance for as long as the session lives: its own
simulated car, task and memory view. Building an env costs about half a second (the observation
charset), so closed sessions hand their env back to an :class:`EnvPool` and new sessions take one
from it; every session's first reset re-seeds the env's task cycle (``seed`` or 0), and each
reset starts a fresh car, so nothing of a previous session survives. Env calls run under one
process-wide lock: the envs' memory modules share an in-process ingestion cache, and Python runs
one thread at a time anyway.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym
import orjson

import vmb_gym  # registers the envs
from vmb_gym.errors import ConfigError, VmbError
from vmb_gym.memory.cache import LRUCache
from vmb_gym.server.models import VmbAction, VmbObservation, VmbState
from vmb_gym.server.openenv_api import Environment, EnvironmentMetadata

__all__ = ["ENV_IDS", "EnvKey", "EnvPool", "NoEpisode", "SessionExpired", "VehicleMemEnvironment"]

#: Gymnasium ids ``vmb serve`` can serve.
ENV_IDS: tuple[str, ...] = ("VehicleMem-v0", "VehicleMemStream-v0")

#: One lock for every env call of the process (see the module docstring); re-entrant, so a call
#: run on the event loop under it may build an env.
_ENV_LOCK = threading.RLock()


#: Most saved session states a server process keeps for forking by ``state_id`` (the newest).
SAVED_STATES = 256
_SAVED = LRUCache(SAVED_STATES)


class SessionExpired(VmbError):
    """A session was idle longer than the server's ``--session-timeout``."""


class NoEpisode(VmbError):
    """A session was asked to step (or save its state) before any reset started an episode.

    On ``/ws`` the fix is a ``reset`` message first; OpenEnv's HTTP ``POST /step`` always meets it, since
    every HTTP request gets a fresh env (the app answers it ``409`` and points to ``/ws`` and ``/mcp``).
    """


@dataclass(frozen=True)
class EnvKey:
    """What an env is built from: the Gymnasium id, the data spec and the memory module (or store)."""

    env_id: str
    data: str
    memory: str

    def make(self) -> gym.Env[Any, Any]:
        """Build the env this key names."""
        if self.env_id == "VehicleMemStream-v0":
            return gym.make(self.env_id, data=self.data, store=self.memory).unwrapped
        return gym.make(self.env_id, data=self.data, memory=self.memory).unwrapped


class EnvPool:
    """Envs per :class:`EnvKey`, built on demand and reused once a session lets them go.

    Args:
        env_id: the Gymnasium id served.
        data: the data specs a session may ask for (the first is the default).
        memory: the memory modules (stream env: stores) a session may ask for (the first is the default).
    """

    def __init__(self, env_id: str, data: Sequence[str], memory: Sequence[str]) -> None:
        if env_id not in ENV_IDS:
            raise ConfigError(f"--env must be one of {ENV_IDS}, got {env_id!r}")
        if not data or not memory:
            raise ConfigError("EnvPool needs at least one data spec and one memory module")
        self.env_id = env_id
        self.data = tuple(data)
        self.memory = tuple(memory)
        self._idle: dict[EnvKey, list[gym.Env[Any, Any]]] = {}
        self._lock = threading.Lock()
        self._default_key = EnvKey(self.env_id, self.data[0], self.memory[0])

    @property
    def default_key(self) -> EnvKey:
        """The key of a session that names no data or memory."""
        return self._default_key

    def key(self, data: str | None = None, memory: str | None = None) -> EnvKey:
        """The key for a reset's ``data`` / ``memory``; raises :class:`ConfigError` outside the served sets."""
        if data is None and memory is None:  # the usual reset
            return self._default_key
        data = self.data[0] if data is None else str(data)
        memory = self.memory[0] if memory is None else str(memory)
        if data not in self.data:
            raise ConfigError(f"data {data!r} is not served here; this server serves {list(self.data)} "
                              "(start vmb serve with --data for more)")
        if memory not in self.memory:
            raise ConfigError(f"memory {memory!r} is not served here; this server serves {list(self.memory)} "
                              "(start vmb serve with --memory for more)")
        return EnvKey(self.env_id, data, memory)

    def acquire(self, key: EnvKey) -> gym.Env[Any, Any]:
        """An env of ``key`` no session holds (built when none is idle)."""
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                return idle.pop()
        with _ENV_LOCK:
            return key.make()

    def release(self, key: EnvKey, env: gym.Env[Any, Any]) -> None:
        """Give an env back for a later session."""
        with self._lock:
            self._idle.setdefault(key, []).append(env)

    def warm(self, count: int, key: EnvKey | None = None) -> None:
        """Build ``count`` idle envs of ``key`` (default key) ahead of the sessions."""
        key = key or self.default_key
        built = [self.acquire(key) for _ in range(count)]
        for env in built:
            self.release(key, env)


def _observation(fields: dict[str, Any]) -> VmbObservation:
    """The :class:`VmbObservation` of a step's or reset's fields (``info`` made JSON-safe; the server built
    every field itself, so it is not re-validated)."""
    return VmbObservation.model_construct(metadata={}, **{**fields, "info": json_safe(fields["info"])})


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON types (the env's info holds dicts, lists, numbers and strings)."""
    return orjson.loads(orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS))


class VehicleMemEnvironment(Environment[VmbAction, VmbObservation, VmbState]):
    """One OpenEnv session over one vmb_gym env.

    ``reset(seed=None, episode_id=None, task_id=None, data=None, memory=None)`` starts an episode
    (``task_id`` pins the request; the stream env also takes ``scenario_id``); ``step(action)`` runs
    one :class:`VmbAction`; ``state`` is the session's :class:`VmbState`. Env-level mistakes
    (unknown tool, bad arguments) come back in the observation as the env reports them; a
    request the server cannot run (unknown task, data or memory not served, a step before reset,
    an expired session) raises, and the server answers it with an error message.

    Args:
        pool: where the session's env comes from and goes back to.
        session_timeout: seconds of idleness after which the session refuses every call.
        clock: the time source (tests).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, pool: EnvPool, *, session_timeout: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._pool = pool
        self._timeout = session_timeout
        self._clock = clock
        self._last = clock()
        self._expired = False
        self._key: EnvKey | None = None
        self._env: gym.Env[Any, Any] | None = None
        # the session's state as plain attributes (VmbState validates every assignment: built on demand)
        self._episode_id: str | None = None
        self._step_count = 0
        self._task_id: str | None = None
        self._state_key = pool.default_key
        self._done = True
        self._reward: float | None = None

    # ------------------------------------------------------------------ OpenEnv API
    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> VmbObservation:
        """Start an episode; see the class docstring for the arguments."""
        return _observation(self.reset_fields(seed, episode_id, **kwargs))

    def step(self, action: VmbAction, timeout_s: float | None = None, **kwargs: Any) -> VmbObservation:
        """Run one action on the session's env (never raises on what the action asks)."""
        return _observation(self.step_fields(action))

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **kwargs: Any) -> VmbObservation:
        """:meth:`reset`, run as :meth:`reset_fields_async` runs it."""
        return _observation(await self.reset_fields_async(seed, episode_id, **kwargs))

    async def step_async(self, action: VmbAction, timeout_s: float | None = None, **kwargs: Any) -> VmbObservation:
        """:meth:`step`, run as :meth:`step_fields_async` runs it."""
        return _observation(await self.step_fields_async(action))

    # ------------------------------------------------------------------ the wire path: plain fields
    def reset_fields(self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None,
                     data: str | None = None, memory: str | None = None, scenario_id: int | None = None,
                     **kwargs: Any) -> dict[str, Any]:
        """:meth:`reset`'s observation as a plain dict of its fields (``info`` as the env gave it)."""
        self._touch()
        if kwargs:
            raise ConfigError(f"unknown reset arguments {sorted(kwargs)}; expected seed, episode_id, "
                              "task_id, data, memory (stream env: scenario_id)")
        key = self._pool.key(data, memory)
        if key != self._key:
            self._drop_env()
            self._env, self._key = self._pool.acquire(key), key
            if seed is None:
                seed = 0  # a session's task cycle starts from a known seed, never from a predecessor's
        options = self._reset_options(task_id, scenario_id)
        assert self._env is not None  # acquired above when the key changed, kept otherwise
        with _ENV_LOCK:
            obs, info = self._env.reset(seed=seed, options=options or None)
        self._episode_id, self._step_count, self._done = episode_id or uuid.uuid4().hex, 0, False
        self._task_id, self._state_key = info.get("task_id") or info.get("anchor_task_id"), key
        return {"text": obs, "task_id": self._task_id, "step": 0, "truncated": False, "info": info,
                "reward": None, "done": False}

    def step_fields(self, action: VmbAction) -> dict[str, Any]:
        """:meth:`step`'s observation as a plain dict of its fields (``info`` as the env gave it)."""
        return self.step_call(action.to_env_action())

    def step_call(self, call: Any) -> dict[str, Any]:
        """:meth:`step_fields` for an action already in the env's form (``VmbAction.to_env_action``)."""
        self._touch()
        if self._env is None:
            raise NoEpisode("no episode: send reset before step")
        with _ENV_LOCK:
            obs, reward, terminated, truncated, info = self._env.step(call)
        if not self._done:
            self._step_count += 1
        if terminated or truncated:
            self._done, self._reward = True, float(reward)
        return {"text": obs, "task_id": self._task_id, "step": self._step_count, "truncated": bool(truncated),
                "info": info, "reward": float(reward), "done": bool(terminated or truncated)}

    async def reset_fields_async(self, seed: int | None = None, episode_id: str | None = None,
                                 **kwargs: Any) -> dict[str, Any]:
        """:meth:`reset_fields` on the event loop when the session keeps its env and no other env call
        runs, else in a worker thread (building an env takes about half a second)."""
        try:
            same_env = self._env is not None and self._pool.key(kwargs.get("data"), kwargs.get("memory")) == self._key
        except ConfigError:
            same_env = True  # reset raises it at once
        return await self._run(self.reset_fields, seed=seed, episode_id=episode_id, inline=same_env, **kwargs)

    async def step_fields_async(self, action: VmbAction) -> dict[str, Any]:
        """:meth:`step_fields` on the event loop when it is quick (no memory search) and no other env
        call runs, else in a worker thread: a thread hop per step costs more than the step itself."""
        return await self.step_call_async(action.to_env_action(), searches=action.may_search())

    async def step_call_async(self, call: Any, *, searches: bool) -> dict[str, Any]:
        """:meth:`step_call` run as :meth:`step_fields_async` runs it (``searches``: the call may search memory)."""
        return await self._run(self.step_call, call, inline=not searches)

    @property
    def state(self) -> VmbState:
        """The session's state (a copy)."""
        self._touch()
        key = self._state_key
        return VmbState(episode_id=self._episode_id, step_count=self._step_count, task_id=self._task_id,
                        env_id=key.env_id, data=key.data, memory=key.memory, done=self._done, reward=self._reward)

    def close(self) -> None:
        """End the session: its env goes back to the pool (idempotent)."""
        self._drop_env()

    def get_metadata(self) -> EnvironmentMetadata:
        """Name, description and version of the served env."""
        return EnvironmentMetadata(name=self._pool.env_id, version=vmb_gym.__version__,
                                   description="VehicleMemBench: memory-using, tool-using in-car agents "
                                               "scored by the final vehicle state (vmb_gym)")

    # ------------------------------------------------------------------ forkable sessions
    def get_env_state(self, include_state: bool = True) -> dict[str, Any]:
        """Save the session's episode: ``{"state_id", "state"}``.

        ``state`` is the env's :class:`~vmb_gym.envs.env_state.EnvState` as plain JSON plus the
        session's bookkeeping (``{"env": ..., "session": ...}``); the server also keeps it under
        ``state_id`` (the newest :data:`SAVED_STATES` states of this server process), so that any
        session of the process can fork from it without sending it back. ``include_state=False``
        answers the id alone.
        """
        self._touch()
        if self._env is None or self._key is None:
            raise NoEpisode("no episode: send reset before get_state")
        with _ENV_LOCK:
            env_state = cast(Any, self._env).get_state()
        state = {"env": json_safe(env_state.to_json_data()),
                 "session": {"episode_id": self._episode_id, "step_count": self._step_count,
                             "task_id": self._task_id, "done": self._done, "reward": self._reward,
                             "data": self._key.data, "memory": self._key.memory}}
        state_id = uuid.uuid4().hex
        _SAVED.put(state_id, state)
        return {"state_id": state_id, **({"state": state} if include_state else {})}

    def set_env_state(self, state: Any = None, state_id: str | None = None) -> dict[str, Any]:
        """Restore a state of :meth:`get_env_state` (given whole, or by its ``state_id``) into this session.

        The session continues exactly as the one that saved it would; on any refusal (unknown id, a
        state of another env or configuration, a malformed one) this session is left as it was.

        Returns:
            The session's :class:`VmbState` as a dict.

        Raises:
            ConfigError: the state cannot be restored here (a :class:`~vmb_gym.errors.StateError` from the env).
        """
        self._touch()
        if state_id is not None:
            state = _SAVED.get(str(state_id))
            if state is None:
                raise ConfigError(f"unknown state_id {str(state_id)[:40]!r}: this server process keeps the newest "
                                  f"{SAVED_STATES} states; send the state itself instead")
        if not isinstance(state, dict) or not isinstance(state.get("env"), dict) \
                or not isinstance(state.get("session"), dict):
            raise ConfigError("set_state needs {'state_id': ID} or {'state': {'env': {...}, 'session': {...}}} "
                              "as get_state answered it")
        session = state["session"]
        key = self._pool.key(session.get("data"), session.get("memory"))
        env = self._env if key == self._key and self._env is not None else self._pool.acquire(key)
        try:
            with _ENV_LOCK:
                cast(Any, env).set_state(state["env"])
        except Exception:
            if env is not self._env:
                self._pool.release(key, env)
            raise
        if env is not self._env:
            self._drop_env()
            self._env, self._key = env, key
        self._episode_id, self._step_count = _text_or_none(session.get("episode_id")), _count(session.get("step_count"))
        self._task_id, self._done = _text_or_none(session.get("task_id")), bool(session.get("done"))
        reward = session.get("reward")
        self._reward = float(reward) if isinstance(reward, int | float) and not isinstance(reward, bool) else None
        self._state_key = key
        return self.state.model_dump()

    async def set_env_state_async(self, state: Any = None, state_id: str | None = None) -> dict[str, Any]:
        """:meth:`set_env_state` in a worker thread (a stream state replays its writes)."""
        return await self._run(self.set_env_state, state, state_id, inline=False)

    # ------------------------------------------------------------------ mechanics
    async def _run(self, method: Callable[..., dict[str, Any]], *args: Any, inline: bool = True,
                   **kwargs: Any) -> dict[str, Any]:
        if inline and _ENV_LOCK.acquire(blocking=False):
            try:
                return method(*args, **kwargs)
            finally:
                _ENV_LOCK.release()
        return await asyncio.get_running_loop().run_in_executor(None, lambda: method(*args, **kwargs))

    def _reset_options(self, task_id: str | None, scenario_id: int | None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if self._pool.env_id == "VehicleMemStream-v0":
            if task_id is not None:
                options["anchor_task_id"] = str(task_id)
            if scenario_id is not None:
                options["scenario_id"] = int(scenario_id)
        elif scenario_id is not None:
            raise ConfigError("scenario_id is a VehicleMemStream-v0 reset argument; VehicleMem-v0 takes task_id")
        elif task_id is not None:
            options["task_id"] = str(task_id)
        return options

    def expire_if_idle(self) -> bool:
        """Close the session if it has been idle past the timeout (its env goes back); whether it is expired."""
        if not self._expired and self._timeout is not None and self._clock() - self._last > self._timeout:
            self._expired = True
            self._drop_env()
        return self._expired

    def _touch(self) -> None:
        if self.expire_if_idle():
            raise SessionExpired(f"the session was idle longer than the server's session timeout "
                                 f"({self._timeout} s) and is closed; open a new session")
        self._last = self._clock()

    def _drop_env(self) -> None:
        if self._env is not None and self._key is not None:
            self._pool.release(self._key, self._env)
        self._env = None
        self._key = None
