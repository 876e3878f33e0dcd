"""Group rollouts from one saved episode: :func:`fork`, saved states by id, and a TRL tool env over them.

GRPO compares the rollouts of a group; in ``VehicleMemStream-v0`` a rollout's reward depends on
the memory it wrote, so rollouts that start from different stores are not a fair group. Fork
them from one state instead: every fork starts from the same car, the same store and the same
stream position, and they differ only by what each does next.

* :func:`fork`: ``n`` envs at one state (built with the same arguments, then ``set_state``);
* :func:`save_state` / :func:`saved_state`: states kept in process under an id, so a dataset row can
  name one (``{"prompt": ..., "state_id": ID}``);
* :class:`StreamForkToolEnv`: TRL's ``environment_factory`` shape (:class:`~vmb_gym.envs.tool_episode.ToolEpisode`)
  over ``VehicleMemStream-v0``: ``reset(env_state=JSON)`` or ``reset(state_id=ID)`` restores the
  saved state, the tools are the request tools plus ``store``/``update``/``delete``/``skip``, and
  ``get_reward()`` is the return of the continuation up to the end of the current (or next) request
  (``until="request"``) or of the timeline (``until="episode"``);
* :func:`fork_points` / :func:`fork_rows`: group starts. A writer takes the stream env through a
  timeline once; at each request (``at="request"``) or history chunk (``at="chunk"``) the state is
  saved as a :class:`ForkPoint`, and :meth:`ForkPoint.row` is a GRPO dataset row that carries it
  (``{"prompt": ..., "env_state": JSON}``). TRL repeats each row ``num_generations`` times, so the
  G rollouts of a group restore the same state: the same store, whatever the writer wrote before.
  The verifiers adapter (:mod:`vmb_gym.integrations.verifiers_stream`) makes one task per point.

Example (G continuations of one mid-stream state, without the trainer)::

    env = gym.make("VehicleMemStream-v0", files=[1], window_days=2).unwrapped
    env.reset(seed=0)
    ...                                   # stream and write up to the point of interest
    group = fork(env, n=8)                # 8 envs with identical stores
    state_id = save_state(env.get_state())
    rows = [{"prompt": [...], "state_id": state_id}]     # GRPOTrainer(num_generations=8, ...)
    GRPOTrainer(..., environment_factory=lambda: StreamForkToolEnv(files=[1], window_days=2))

Or let :func:`fork_rows` walk the timeline and make one row per request (any writer)::

    rows = fork_rows(env, cite_all, at="request")        # [{"prompt": [...], "env_state": "{...}"}, ...]
"""

from __future__ import annotations

import hashlib
import pickle
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym
import orjson

from vmb_gym.envs.env_state import EnvState
from vmb_gym.envs.tool_episode import ToolEpisode
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError, StateError
from vmb_gym.memory.cache import LRUCache

__all__ = ["FORK_AT", "SAVED_STATES", "ForkPoint", "StreamForkToolEnv", "Writer", "cite_all", "closing_action",
           "fork", "fork_points", "fork_rows", "load_state", "save_state", "saved_state", "skip_all", "state_digest",
           "step_episode"]

#: Most states :func:`save_state` keeps in process (the newest).
SAVED_STATES = 1024
_SAVED = LRUCache(SAVED_STATES)
UNTIL = ("request", "episode")
#: Where :func:`fork_points` saves a group start: when a request arrives, or when a history chunk does.
FORK_AT = ("request", "chunk")
SKIP: dict[str, Any] = {"name": "skip", "arguments": {}}
FINISH: dict[str, Any] = {"name": "finish", "arguments": {}}

#: A stream policy: ``(observation, info) -> action`` (writes while history streams, tool calls at requests).
Writer = Callable[[str, dict[str, Any]], Any]


def fork(env: Any, state: EnvState | None = None, n: int = 2) -> list[Any]:
    """``n`` new envs built like ``env``, each restored to ``state`` (default: ``env``'s state now).

    Built with ``gym.make(env.spec)`` when the env came from ``gym.make``, else copied with pickle.
    ``env`` itself is left as it is.

    Raises:
        ConfigError: ``n`` is not a positive integer, or the env has no ``get_state``.
        StateError: ``state`` is not one of this env's (another version, env or configuration).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError(f"n must be a positive integer, got {n!r}")
    base: Any = env.unwrapped
    if not callable(getattr(base, "get_state", None)):
        raise ConfigError(f"{type(base).__name__} has no get_state(); fork needs a vmb_gym vehicle env")
    state = base.get_state() if state is None else state
    envs = []
    for _ in range(n):
        copy: Any = gym.make(base.spec).unwrapped if base.spec is not None else pickle.loads(pickle.dumps(base))
        copy.set_state(state)
        envs.append(copy)
    return envs


def save_state(state: EnvState) -> str:
    """Keep ``state`` in process and return its id (for a dataset row's ``state_id``)."""
    key = uuid.uuid4().hex
    _SAVED.put(key, state)
    return key


def saved_state(state_id: str) -> EnvState:
    """The state :func:`save_state` kept under ``state_id``.

    Raises:
        StateError: no such id (never saved, or pushed out by the newest :data:`SAVED_STATES`).
    """
    state = _SAVED.get(str(state_id))
    if state is None:
        raise StateError(f"unknown state_id {str(state_id)[:40]!r}: save the state with save_state() in this "
                         f"process first (the newest {SAVED_STATES} are kept)")
    return cast(EnvState, state)


def closing_action(phase: str | None) -> dict[str, Any]:
    """What ends the current stream item without acting: ``skip`` while history streams, else ``finish``."""
    return dict(SKIP if phase == "write" else FINISH)


def skip_all(obs: str, info: dict[str, Any]) -> Any:
    """A writer that stores nothing (skips every chunk) and finishes every request at once."""
    return closing_action(info.get("phase"))


def cite_all(obs: str, info: dict[str, Any]) -> Any:
    """A writer that stores each chunk as one entry citing all its lines, then skips; finishes every request."""
    ids = [ln["line_id"] for ln in info.get("lines") or []]
    if info.get("phase") != "write" or not ids:
        return closing_action(info.get("phase"))
    return [{"name": "store", "arguments": {"line_ids": ids}}, dict(SKIP)]


def state_digest(state: EnvState) -> str:
    """A short hash of ``state``'s JSON (sorted keys): equal states, equal digests (e.g. a group's starts)."""
    blob = orjson.dumps(state.to_json_data(), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()[:16]


def load_state(obj: EnvState | Mapping[str, Any] | str | bytes) -> EnvState:
    """An :class:`EnvState` from itself, its :meth:`~EnvState.to_json_data` dict, or that dict's JSON text.

    Raises:
        StateError: text that is not JSON, or data that is no env state.
    """
    if isinstance(obj, str | bytes):
        try:
            obj = orjson.loads(obj)
        except orjson.JSONDecodeError as exc:
            raise StateError(f"expected an env state as JSON text (ForkPoint.state_json()), got unreadable text "
                             f"({exc})") from exc
    return EnvState.from_json_data(obj)


@dataclass(frozen=True)
class ForkPoint:
    """A group start: the state of a stream episode at a request or chunk, and what a rollout sees there.

    Attributes:
        state: the saved episode.
        observation: the observation the env gave last (what a restored rollout starts from).
        instructions: the env's instructions (its first observation's head: the tools and modules).
        phase: ``"query"`` (a request just arrived) or ``"write"`` (a history chunk did).
        task_id: the request's task id at a ``"query"`` point, else None.
    """

    state: EnvState
    observation: str
    instructions: str
    phase: str
    task_id: str | None

    @property
    def id(self) -> str:
        """``<scenario>@<timeline position>``: unique within one walk of a timeline."""
        return f"{self.state.data['scenario_id']}@{self.state.data['pos']}"

    def state_json(self) -> str:
        """The state as JSON text (:func:`load_state` reads it back; it survives datasets and processes)."""
        return orjson.dumps(self.state.to_json_data()).decode()

    def row(self) -> dict[str, Any]:
        """A GRPO dataset row: the instructions as the system message, and the state.

        TRL calls ``StreamForkToolEnv.reset(**row)``, which restores the state and returns
        :attr:`observation` (appended to the empty user message).
        """
        return {"prompt": [{"role": "system", "content": self.instructions}, {"role": "user", "content": ""}],
                "env_state": self.state_json()}


def _arrived(info: Mapping[str, Any], at: str) -> bool:
    """Whether the step whose info this is brought a new item of the kind ``at`` names."""
    return "request" in info if at == "request" else "lines" in info


def fork_points(env: Any, writer: Writer = cite_all, *, at: str = "request", every: int = 1, seed: int | None = None,
                options: dict[str, Any] | None = None) -> Iterator[ForkPoint]:
    """Reset ``env`` (a ``VehicleMemStream-v0``), run ``writer`` through the timeline, yield a point at each arrival.

    The writer acts at every step, also at the requests between points; every ``every``-th
    arrival of a request (``at="request"``) or a chunk (``at="chunk"``) is saved before the writer
    acts on it. The env is left at the end of the timeline.

    Raises:
        ConfigError: ``at`` is not one of :data:`FORK_AT`, ``every`` is not a positive integer, or ``env``
            is not a stream env.
    """
    if at not in FORK_AT:
        raise ConfigError(f"at must be one of {FORK_AT}, got {at!r}")
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ConfigError(f"every must be a positive integer, got {every!r}")
    base: Any = env.unwrapped
    if not isinstance(base, VehicleMemStreamEnv):
        raise ConfigError(f"fork points walk a VehicleMemStream-v0 timeline, got {type(base).__name__}")
    return _walk(base, writer, at, every, seed, options)


def _walk(base: VehicleMemStreamEnv, writer: Writer, at: str, every: int, seed: int | None,
          options: dict[str, Any] | None) -> Iterator[ForkPoint]:
    obs, info = base.reset(seed=seed, options=options)
    instructions = base._intro  # the head of the first observation: tools and modules
    arrivals = 0
    while True:
        if _arrived(info, at):
            if arrivals % every == 0:
                yield ForkPoint(base.get_state(), obs, instructions, str(info["phase"]),
                                info.get("task_id") if info["phase"] == "query" else None)
            arrivals += 1
        obs, _, terminated, truncated, info = base.step(writer(obs, info))
        if terminated or truncated:
            return


def fork_rows(env: Any, writer: Writer = cite_all, *, at: str = "request", every: int = 1, episodes: int = 1,
              seed: int | None = 0) -> list[dict[str, Any]]:
    """GRPO dataset rows (:meth:`ForkPoint.row`) of the points of ``episodes`` timelines of ``env``.

    The first timeline starts with ``reset(seed=seed)``, the next ones walk the env's scenario cycle.
    With ``GRPOTrainer(num_generations=G, environment_factory=lambda: StreamForkToolEnv(**env_kwargs))``
    (``env_kwargs``: ``env``'s arguments) each row is one group of G rollouts from one state.

    Raises:
        ConfigError: see :func:`fork_points`; ``episodes`` is not a positive integer.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ConfigError(f"episodes must be a positive integer, got {episodes!r}")
    return [point.row() for i in range(episodes)
            for point in fork_points(env, writer, at=at, every=every, seed=seed if i == 0 else None)]


def step_episode(episode: StreamForkToolEnv, action: Any) -> str:
    """Run one action (a call, a list of calls, or a reply's text) in a rollout; its observation.

    The adapters whose model turns are text (verifiers) step with it; TRL calls the tool methods.
    """
    return episode._step(action)


class StreamForkToolEnv(ToolEpisode):
    """One continuation of a saved ``VehicleMemStream-v0`` state per rollout, with the env's tools as methods.

    ``reset(env_state=JSON)`` restores a state carried by the dataset row (:meth:`ForkPoint.row`;
    any process can read it), ``reset(state_id=ID)`` the state :func:`save_state` kept under ``ID``
    in this process; either returns the observation the policy saw last there. Without either a
    fresh timeline starts (``task_id`` then pins the window's request). Every rollout of a group
    (one row, repeated) starts from the same store, and a reused instance forgets its last rollout.
    ``get_reward()`` first plays a rollout the model left open to its end (``skip`` each chunk,
    ``finish`` each request: :func:`closing_action`).

    Args:
        until: ``"request"``: the rollout ends when the current (or next) request ends;
            ``"episode"``: when the timeline ends.
        **env_kwargs: ``VehicleMemStream-v0``'s arguments (the same as the env that saved the state).
    """

    def __init__(self, *, until: str = "request", **env_kwargs: Any) -> None:
        if until not in UNTIL:
            raise ConfigError(f"until must be one of {UNTIL}, got {until!r}")
        super().__init__(seed=0)
        self.until = until
        self.env = cast(VehicleMemStreamEnv, gym.make("VehicleMemStream-v0", **env_kwargs).unwrapped)
        self._state_id: str | None = None
        self._env_state: EnvState | None = None
        self._return = 0.0
        #: ``"write"`` while history streams, ``"query"`` at a request, ``"done"`` after the timeline.
        self.phase: str | None = None

    def reset(self, task_id: str | None = None, state_id: str | None = None,
              env_state: EnvState | Mapping[str, Any] | str | None = None, **kwargs: Any) -> str:
        """Restore the state of ``env_state`` or ``state_id`` (or start a timeline) and return the observation.

        Raises:
            StateError: an unknown ``state_id``, or an ``env_state`` that is no state of this env's.
        """
        self._state_id = None if state_id is None else str(state_id)
        self._env_state = None if env_state is None else load_state(env_state)
        return super().reset(task_id, **kwargs)

    @property
    def over(self) -> bool:
        """Whether the rollout has ended (or none was started)."""
        return self._done

    def get_reward(self) -> float:
        """The rollout's return; a rollout the model left open is played to its end first (:func:`closing_action`)."""
        while not self._done:
            self._step(closing_action(self.phase))
        return super().get_reward()

    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        self._return = 0.0
        state = self._env_state if self._state_id is None else saved_state(self._state_id)
        if state is None:
            options = {"anchor_task_id": task_id} if task_id is not None else None
            obs, info = self.env.reset(seed=seed, options=options)
            self.phase = info.get("phase")
            return obs, info
        self.env.set_state(state)
        query = state.data.get("query")
        self.phase = "query" if query else ("done" if state.data.get("over") else "write")
        info = {"task_id": query["runtime"]["task_id"] if query else None, "state_id": self._state_id,
                "phase": self.phase}
        return str(state.data.get("last_obs", "")), info

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self.phase = info.get("phase", self.phase)
        over = terminated or truncated or (self.until == "request" and "query_metrics" in info)
        return obs, self._return, bool(over), info

    # ------------------------------------------------------------------ write tools
    def store(self, text: str = "", line_ids: list[int] | None = None, people: list[str] | None = None) -> str:
        """Store a memory entry: cite streamed lines (their text is stored when no text is given) and/or write a note.

        Args:
            text: The note to store.
            line_ids: Ids (#N) of streamed lines the entry comes from.
            people: Who the entry is about.

        Returns:
            The new entry's id, or an error.
        """
        args: dict[str, Any] = {"text": text} if text else {}
        if line_ids:
            args["line_ids"] = list(line_ids)
        if people:
            args["people"] = list(people)
        return self._step({"name": "store", "arguments": args})

    def update(self, entry_id: str, text: str) -> str:
        """Supersede a stored entry with new text.

        Args:
            entry_id: The id store returned.
            text: The new text.

        Returns:
            The new revision's id, or an error.
        """
        return self._step({"name": "update", "arguments": {"entry_id": entry_id, "text": text}})

    def delete(self, entry_id: str) -> str:
        """Delete a stored entry: it is never returned by search_memory again.

        Args:
            entry_id: The id store returned.

        Returns:
            A confirmation, or an error.
        """
        return self._step({"name": "delete", "arguments": {"entry_id": entry_id}})

    def skip(self) -> str:
        """Done with this history chunk: stream the next one.

        Returns:
            The next chunk or request.
        """
        return self._step({"name": "skip", "arguments": {}})
