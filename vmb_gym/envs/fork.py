"""Group rollouts from one saved episode: :func:`fork`, saved states by id, and a TRL tool env over them.

GRPO compares the rollouts of a group; in ``VehicleMemStream-v0`` a rollout's reward depends on
the memory it wrote, so rollouts that start from different stores are not a fair group. Fork
them from one state instead: every fork starts from the same car, the same store and the same
stream position, and they differ only by what each does next.

* :func:`fork`: ``n`` envs at one state (built with the same arguments, then ``set_state``);
* :func:`save_state` / :func:`saved_state`: states kept in process under an id, so a dataset row can
  name one (``{"prompt": ..., "state_id": ID}``);
* :class:`StreamForkToolEnv`: TRL's ``environment_factory`` shape (:class:`~vmb_gym.envs.tool_episode.ToolEpisode`)
  over ``VehicleMemStream-v0``: ``reset(state_id=ID)`` restores the saved state, the tools are the
  request tools plus ``store``/``update``/``delete``/``skip``, and ``get_reward()`` is the return of
  the continuation up to the end of the current (or next) request (``until="request"``) or of the
  timeline (``until="episode"``).

Example (G continuations of one mid-stream state, without the trainer)::

    env = gym.make("VehicleMemStream-v0", files=[1], window_days=2).unwrapped
    env.reset(seed=0)
    ...                                   # stream and write up to the point of interest
    group = fork(env, n=8)                # 8 envs with identical stores
    state_id = save_state(env.get_state())
    rows = [{"prompt": [...], "state_id": state_id}]     # GRPOTrainer(num_generations=8, ...)
    GRPOTrainer(..., environment_factory=lambda: StreamForkToolEnv(files=[1], window_days=2))
"""

from __future__ import annotations

import pickle
import uuid
from typing import Any, cast

import gymnasium as gym

from vmb_gym.envs.env_state import EnvState
from vmb_gym.envs.tool_episode import ToolEpisode
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError, StateError
from vmb_gym.memory.cache import LRUCache

__all__ = ["SAVED_STATES", "StreamForkToolEnv", "fork", "save_state", "saved_state"]

#: Most states :func:`save_state` keeps in process (the newest).
SAVED_STATES = 1024
_SAVED = LRUCache(SAVED_STATES)
UNTIL = ("request", "episode")


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


class StreamForkToolEnv(ToolEpisode):
    """One continuation of a saved ``VehicleMemStream-v0`` state per rollout, with the env's tools as methods.

    ``reset(state_id=ID)`` restores the state :func:`save_state` kept under ``ID`` (a dataset
    row's column) and returns the observation the policy saw last there; without ``state_id`` a
    fresh timeline starts (``task_id`` then pins the window's request). Every rollout of a
    group that names the same ``state_id`` starts from the same store.

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
        self._return = 0.0

    def reset(self, task_id: str | None = None, state_id: str | None = None, **kwargs: Any) -> str:
        """Restore the state saved under ``state_id`` (or start a timeline) and return the observation."""
        self._state_id = None if state_id is None else str(state_id)
        return super().reset(task_id, **kwargs)

    def _start(self, task_id: str | None, seed: int | None) -> tuple[str, dict[str, Any]]:
        self._return = 0.0
        if self._state_id is None:
            options = {"anchor_task_id": task_id} if task_id is not None else None
            return self.env.reset(seed=seed, options=options)
        state = saved_state(self._state_id)
        self.env.set_state(state)
        query = state.data.get("query")
        info = {"task_id": query["runtime"]["task_id"] if query else None, "state_id": self._state_id}
        return str(state.data.get("last_obs", "")), info

    def _advance(self, action: dict[str, Any]) -> tuple[str, float, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
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
