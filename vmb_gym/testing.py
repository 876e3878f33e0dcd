"""Contract checkers for third-party envs, memory modules and policies (and for vmb_gym's own).

Each checker runs a short, seeded battery and raises a :class:`ContractError` (an
``AssertionError``) whose message says what was expected and what was found:

* :func:`check_vmb_env`: Gymnasium's ``check_env``, seeded determinism across two instances, a
  pickle round trip (fresh and mid-episode), the ``get_state``/``set_state`` round trip
  (:func:`check_state_round_trip`) and :func:`bombard`, malformed actions that must never make
  ``step()`` raise;
* :func:`check_memory_module`: ``as_of`` respected, no line of another scenario, isolation between
  instances, incremental writes (``observe``) and determinism;
* :func:`check_policy`: the ``reset``/``act`` contract, actions the env can read, an episode that
  ends within the step limit, and the same actions under the same seed.

Example:
    >>> import vmb_gym
    >>> from vmb_gym.testing import check_memory_module, check_vmb_env
    >>> check_vmb_env("VehicleMem-v0", bombard_actions=50)          # doctest: +SKIP
    >>> check_memory_module("bm25")                                   # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import gymnasium as gym
import numpy as np

from vmb_gym.types import EvidenceEvent, HistoryLine, Query, Scenario

__all__ = [
    "CONTRACT_SCRIPT",
    "CONTRACT_T0",
    "ContractError",
    "EnvContractError",
    "FuzzReport",
    "MemoryContractError",
    "PolicyContractError",
    "bombard",
    "check_memory_module",
    "check_policy",
    "check_state_round_trip",
    "check_vmb_env",
    "contract_scenario",
    "memory_checks",
    "random_action",
    "random_value",
]


class ContractError(AssertionError):
    """A contract check failed; the message says what was expected and what was found."""


class EnvContractError(ContractError):
    """An env broke the env contract."""


class MemoryContractError(ContractError):
    """A memory module broke the memory contract."""


class PolicyContractError(ContractError):
    """A policy broke the policy contract."""


EnvSource = str | gym.Env | Callable[[], gym.Env]


# ------------------------------------------------------------------------------------------ fuzzing
def random_value(rng: np.random.Generator, depth: int = 0) -> object:
    """A random JSON-ish value, sometimes nasty (NaN, huge strings, surrogate-free Unicode, nesting)."""
    kind = int(rng.integers(12 if depth < 3 else 8))
    if kind == 0:
        return int(rng.integers(-5, 120))
    if kind == 1:
        return [math.nan, math.inf, -math.inf, -1e308, 0.5, 22.0][int(rng.integers(6))]
    if kind == 2:
        return bool(rng.integers(2))
    if kind == 3:
        return None
    if kind == 4:
        words = ["driver", "passenger", "all", "front", "rear", "blue", "Blue", "3D", "主驾", "", " ", "left"]
        return words[int(rng.integers(12))]
    if kind == 5:
        return "x" * int(rng.integers(0, 5000))
    if kind == 6:
        return "".join(
            chr(int(c)) for c in rng.integers(0, 0x2FFFF, size=int(rng.integers(1, 12))) if not 0xD800 <= c <= 0xDFFF
        )
    if kind == 7:
        return int(rng.integers(-(2**62), 2**62))
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 4)))]
    return {str(random_value(rng, 3))[:10]: random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 3)))}


def random_action(rng: np.random.Generator, names: Sequence[str], params: dict[str, list[str]]) -> object:
    """One random action in any of the accepted (or not) forms: calls, lists, cut JSON, call text, bytes."""
    kind = int(rng.integers(10))
    name = names[int(rng.integers(len(names)))]
    args = {p: random_value(rng) for p in params.get(name, []) if rng.random() < 0.8}
    if rng.random() < 0.1:
        args["unexpected"] = random_value(rng)
    call = {"name": name, "arguments": args}
    if kind <= 3:
        return call
    if kind == 4:
        return [call, {"name": names[int(rng.integers(len(names)))], "arguments": {}}]
    if kind == 5:
        text = json.dumps(call, default=str)
        cut = int(rng.integers(len(text) + 1))
        return text[:cut]
    if kind == 6:
        return f"{name}(" + ", ".join(f"{k}={json.dumps(v, default=str)[:30]}" for k, v in args.items()) + ")"
    if kind == 7:
        nested: object = call
        for _ in range(int(rng.integers(1, 60))):
            nested = {"name": nested} if rng.random() < 0.5 else [nested]
        return nested
    if kind == 8:
        return random_value(rng)
    return bytes(rng.integers(0, 256, size=int(rng.integers(0, 40))).astype(np.uint8).tolist())


def fuzz_vocabulary() -> tuple[list[str], dict[str, list[str]]]:
    """Tool names (every vehicle API, the meta and memory-writing tools, a few wrong ones) and their parameters."""
    from vmb_gym.vehicle import API_SPECS

    names = sorted(API_SPECS) + ["list_module_tools", "search_memory", "finish", "carcontrol_fly", "",
                                 "LIST_MODULE_TOOLS"]
    params = {n: [p.name for p in s.params] for n, s in API_SPECS.items()}
    params["list_module_tools"] = ["module_name"]
    params["search_memory"] = ["query", "top_k"]
    return names, params


@dataclass
class FuzzReport:
    """What :func:`bombard` saw: counts, and one line per failure (the action that caused it)."""

    actions: int = 0
    rejected: int = 0
    failures: list[str] = field(default_factory=list)
    state_changes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No exception, no observation outside the space, no state changed by an unreadable action."""
        return not self.failures and not self.state_changes


def _state(env: gym.Env) -> Any:
    runtime = getattr(env, "runtime", None)
    sim = getattr(runtime, "sim", None)
    return sim.flatten() if sim is not None else None


def bombard(env: gym.Env, actions: int = 200, *, seed: int = 0,
            words: tuple[list[str], dict[str, list[str]]] | None = None, progress: bool = False) -> FuzzReport:
    """Send ``actions`` random, mostly malformed actions to ``env`` (reset after each episode); never raises.

    Every 10th action the car's flattened state (``env.runtime.sim``, when the env has one) is kept;
    an unreadable action must leave it unchanged.

    Args:
        env: the env (its ``unwrapped`` is stepped).
        actions: how many actions to send.
        seed: seed of the action generator and of the first reset.
        words: ``(names, params)`` of the tools to draw from (default :func:`fuzz_vocabulary`).
        progress: show a tqdm bar.
    """
    env = env.unwrapped
    names, params = words or fuzz_vocabulary()
    rng = np.random.default_rng(seed)
    report = FuzzReport(actions=actions)
    env.reset(seed=seed)
    steps: Iterable[int] = range(actions)
    if progress:
        from tqdm import tqdm

        steps = tqdm(steps, desc="fuzz", unit="action", mininterval=1.0)
    for i in steps:
        action = random_action(rng, names, params)
        before = _state(env) if i % 10 == 0 else None
        try:
            obs, _, terminated, truncated, info = env.step(action)
        except Exception as exc:  # noqa: BLE001 - the thing this exists to catch
            report.failures.append(
                f"exception at action {i}: {type(exc).__name__}: {exc}\n  action: {str(action)[:300]}"
            )
            env.reset()
            continue
        if not env.observation_space.contains(obs):
            report.failures.append(f"observation outside the space at action {i}: {str(obs)[:200]!r}")
        calls = info.get("calls") or []
        if calls and calls[0].get("name") is None:
            report.rejected += 1
            if before is not None and _state(env) != before:
                report.state_changes.append(f"state changed by an unreadable action {i}: {str(action)[:200]}")
        if terminated or truncated:
            env.reset()
    return report


# ------------------------------------------------------------------------------------------ envs
def _make(source: EnvSource, kwargs: dict[str, Any]) -> gym.Env:
    if isinstance(source, str):
        return gym.make(source, **kwargs)
    if isinstance(source, gym.Env):
        if source.spec is not None:
            return gym.make(source.spec, **kwargs)
        return pickle.loads(pickle.dumps(source))
    return source()


def _comparable(value: Any) -> str:
    """A step's output as text, without wall-clock figures (keys naming seconds, latency or ms)."""
    def scrub(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: scrub(x) for k, x in v.items()
                    if not any(w in str(k) for w in ("seconds", "latency", "_ms", "elapsed", "wall"))}
        if isinstance(v, list | tuple):
            return [scrub(x) for x in v]
        return v
    return json.dumps(scrub(value), default=repr, sort_keys=True)


def _rollout(env: gym.Env, seed: int, steps: int, *, reset: bool = True) -> list[str]:
    """Seeded reset then ``steps`` actions sampled from a space seeded with ``seed``; each step as text."""
    trace = []
    if reset:
        obs, info = env.reset(seed=seed)
        trace.append(_comparable([obs, info]))
    space = env.action_space
    space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(space.sample())
        trace.append(_comparable([obs, float(reward), bool(terminated), bool(truncated), info]))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append(_comparable([obs, info]))
    return trace


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"step {i}: {x[:200]} != {y[:200]}"
    return f"lengths {len(a)} != {len(b)}"


def check_vmb_env(env: EnvSource, *, seed: int = 0, steps: int = 12, bombard_actions: int = 200,
                  mid_episode_pickle: bool = True, state_round_trip: bool = True, **make_kwargs: Any) -> None:
    """Check an env id (``gym.make`` with ``make_kwargs``), an env, or an env factory against the contract.

    With ``state_round_trip`` (and an env with ``get_state``/``set_state``), :func:`check_state_round_trip`
    runs too.

    Raises:
        EnvContractError: ``check_env`` failed, two seeded instances differ, the pickled copy
            acts differently, a restored state continues differently, or a malformed action made
            ``step()`` raise.

    Example:
        >>> check_vmb_env("VehicleMemStream-v0", files=[1], steps=6, bombard_actions=30)  # doctest: +SKIP
    """
    from gymnasium.utils.env_checker import check_env

    first, second = _make(env, make_kwargs), _make(env, make_kwargs)
    try:
        check_env(first.unwrapped, skip_render_check=True)
    except Exception as exc:
        raise EnvContractError(f"expected Gymnasium's check_env to pass, found {type(exc).__name__}: {exc}") from exc
    a, b = _rollout(first.unwrapped, seed, steps), _rollout(second.unwrapped, seed, steps)
    if a != b:
        raise EnvContractError(f"expected two instances reset with seed={seed} to act the same, "
                               f"found a difference at {_first_difference(a, b)}")
    fresh = _make(env, make_kwargs).unwrapped
    try:
        copy = pickle.loads(pickle.dumps(fresh))
    except Exception as exc:
        raise EnvContractError(f"expected a fresh env to pickle, found {type(exc).__name__}: {exc}") from exc
    if _rollout(copy, seed, steps) != a:
        raise EnvContractError(
            "expected the unpickled copy of a fresh env to act like the original, found a difference"
        )
    if mid_episode_pickle:
        _check_mid_episode_pickle(_make(env, make_kwargs).unwrapped, seed, steps)
    if state_round_trip and callable(getattr(first.unwrapped, "get_state", None)):
        check_state_round_trip(lambda: _make(env, make_kwargs).unwrapped, seed=seed, steps=steps)
    report = bombard(_make(env, make_kwargs), bombard_actions, seed=seed)
    if not report.ok:
        raise EnvContractError(f"expected step() to accept {bombard_actions} malformed actions, found "
                               f"{len(report.failures) + len(report.state_changes)} failures:\n"
                               + "\n".join((report.failures + report.state_changes)[:5]))


def _check_mid_episode_pickle(env: gym.Env, seed: int, steps: int) -> None:
    env.reset(seed=seed)
    env.action_space.seed(seed)
    env.step(env.action_space.sample())
    try:
        copy = pickle.loads(pickle.dumps(env))
    except Exception as exc:
        raise EnvContractError(f"expected an env to pickle after reset() and one step, "
                               f"found {type(exc).__name__}: {exc}") from exc
    a, b = _rollout(env, seed + 1, steps, reset=False), _rollout(copy, seed + 1, steps, reset=False)
    if a != b:
        raise EnvContractError(f"expected the unpickled mid-episode copy to continue like the original, "
                               f"found a difference at {_first_difference(a, b)}")


# ------------------------------------------------------------------------------------------ forkable states
#: The action that ends any item: ``skip`` ends a history chunk (the calls after it are not run); at a
#: request ``skip`` is an invalid call and ``finish`` ends it.
_END_ITEM = [{"name": "skip", "arguments": {}}, {"name": "finish", "arguments": {}}]
#: Most steps a continuation takes to end its episode with :data:`_END_ITEM`.
_END_LIMIT = 5000


def _state_text(state: Any) -> str:
    to_json = getattr(state, "to_json_data", None)
    return _comparable(to_json() if callable(to_json) else state)


def _state_difference(a: Any, b: Any, path: str = "state") -> str:
    """Where two JSON values first differ (``state.data.runtime.vehicle: ...``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _state_difference(a.get(k), b.get(k), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _state_difference(x, y, f"{path}[{i}]")
    return f"{path}: {json.dumps(a, default=repr)[:200]} != {json.dumps(b, default=repr)[:200]}"


def _continue(env: Any, actions: Sequence[Any]) -> list[str]:
    """Step ``actions``, then :data:`_END_ITEM` until the episode ends; each step as text."""
    trace = []
    for i in range(len(actions) + _END_LIMIT):
        obs, reward, terminated, truncated, info = env.step(actions[i] if i < len(actions) else _END_ITEM)
        trace.append(_comparable([obs, float(reward), bool(terminated), bool(truncated), info]))
        if terminated or truncated:
            break
    return trace


def _fork_points(make: Callable[[], Any], seed: int, steps: int) -> Iterator[tuple[str, Any]]:
    """Envs stopped where a state is saved: after reset, after ``steps // 2`` sampled actions and, for
    an env whose info has a ``phase`` (``VehicleMemStream-v0``), at its first request after a write."""
    env = make()
    env.reset(seed=seed)
    yield "after reset()", env
    env = make()
    env.reset(seed=seed)
    env.action_space.seed(seed)
    done = False
    for _ in range(max(1, steps // 2)):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = done or terminated or truncated
        if done:
            break
    if not done:
        yield f"after {max(1, steps // 2)} sampled actions", env
    for label, chunks in (("mid-stream, after 3 chunks with writes", 3), ("at a request, after writes and a search",
                                                                           _END_LIMIT)):
        env = _written(make(), seed, chunks)
        if env is not None:
            yield label, env


def _written(env: Any, seed: int, chunks: int) -> Any:
    """A stream env (info with ``phase``) after ``chunks`` chunks each given a note and a ``skip``, stopped
    there while still in the history (or at the first request, with one search made); None otherwise."""
    _, info = env.reset(seed=seed)
    if "phase" not in info:
        return None
    for _ in range(chunks):
        if info.get("phase") != "write":
            break
        lines = info.get("lines") or []
        cited = {"line_ids": [lines[0]["line_id"]]} if lines else {}
        note = {"name": "store", "arguments": {"text": "checker note", **cited}}
        _, _, terminated, _, info = env.step([note, _END_ITEM[0]])
        if terminated:
            return None
    if info.get("phase") == "write" and chunks < _END_LIMIT:
        env.step({"name": "store", "arguments": {"text": "mid-chunk note"}})
        return env
    if info.get("phase") == "query" and chunks == _END_LIMIT:
        env.step({"name": "search_memory", "arguments": {"query": "checker note"}})
        return env
    return None


def check_state_round_trip(make: Callable[[], Any], *, seed: int = 0, steps: int = 12) -> None:
    """Check ``get_state``/``set_state``: a restored state continues exactly like the original.

    At each point of :func:`_fork_points` the state is saved (and pickled); the original runs
    ``steps`` sampled actions and then ends its episode; the state is restored into a fresh env
    and into the same env, whose ``get_state()`` must equal the saved one, and which must give
    the same observations, rewards, terminations and infos (final metrics included) for the
    same actions.

    Args:
        make: builds the (unwrapped) env, with the same arguments each time.
        seed: seed of the resets and of the sampled actions.
        steps: sampled actions of each continuation.

    Raises:
        EnvContractError: the state does not pickle, or a restored env differs from the original.
    """
    for label, env in _fork_points(make, seed, steps):
        state = env.get_state()
        try:
            blob = pickle.dumps(state)
        except Exception as exc:
            raise EnvContractError(f"expected get_state() {label} to pickle, found {type(exc).__name__}: {exc}") \
                from exc
        saved = _state_text(state)
        space = make().action_space
        space.seed(seed + 1)
        actions = [space.sample() for _ in range(steps)]
        original = _continue(env, actions)
        for target, into in (("a fresh env", make()), ("the same env", env)):
            into.set_state(pickle.loads(blob))
            restored = _state_text(into.get_state())
            if restored != saved:
                where = _state_difference(json.loads(saved), json.loads(restored))
                raise EnvContractError(f"expected get_state() of {target} restored {label} to equal the saved "
                                       f"state, found a difference at {where}")
            trace = _continue(into, actions)
            if trace != original:
                raise EnvContractError(f"expected {target} restored {label} to continue like the original, "
                                       f"found a difference at {_first_difference(original, trace)}")


# ------------------------------------------------------------------------------------------ memory
#: Start time and (minute offset, speaker, text) rows of :func:`contract_scenario`'s history.
CONTRACT_T0 = datetime(2025, 3, 10, 8, 0)
CONTRACT_SCRIPT = [
    (0, "Gary Allen", "I really love this green instrument panel. It reminds me of the forest."),
    (1, "Justin Martinez", "It does look nice. Calming, actually."),
    (60, "Patricia Garcia", "I prefer the navigation voice to be detailed so I never miss a turn."),
    (61, "Gary Allen", "Good call, detailed directions help in the city."),
    (1440, "Patricia Garcia", "Green is too dark for me at night. I prefer white, so I changed the panel to white."),
    (1441, "Gary Allen", "No problem, I know what you mean about the gauges."),
    (2880, "Justin Martinez", "It's getting hot. Let's turn on the seat ventilation and set it to level 3."),
    (2881, "Gary Allen", "The afternoon sun is relentless today."),
    (4320, "Gary Allen", "I finished the chapter on Egleston's early years."),
    (4321, "Patricia Garcia", "That pamphlet is going to be great."),
    (5760, "Patricia Garcia", "I'm tall, so I need the headrest all the way up at 44."),
    (7200, "Gary Allen", "I'm much shorter. Let me lower the headrest to 3."),
]


def contract_scenario(scenario_id: int = 1) -> Scenario:
    """A small synthetic household (12 lines over 5 days, 2 queries) the memory checker runs on."""
    lines = tuple(
        HistoryLine(i + 1, CONTRACT_T0 + timedelta(minutes=m), sp, tx) for i, (m, sp, tx) in enumerate(CONTRACT_SCRIPT)
    )

    def query(index: int, text: str, ids: tuple[int, ...]) -> Query:
        events = tuple(EvidenceEvent(lines[i - 1].text, lines[i - 1].timestamp, (i,)) for i in ids)
        gold = "\n".join(f"[{lines[i - 1].timestamp:%B %d, %Y}] {lines[i - 1].text}" for i in ids)
        return Query(f"{scenario_id}_{index}", scenario_id, index, text, "preference_conflict", (), (), gold, events,
                     lines[-1].timestamp + timedelta(minutes=1))

    queries = (query(0, "Gary wants his usual green instrument panel color back.", (1, 5)),
               query(1, "Patricia: I need to adjust the headrest height.", (11, 12)))
    return Scenario(scenario_id, ("Gary Allen", "Justin Martinez", "Patricia Garcia"), lines, queries, "synthetic")


def _memory_factory(module: Any, kwargs: dict[str, Any]) -> Callable[[], Any]:
    from vmb_gym.memory import make_memory

    if isinstance(module, str):
        return lambda: make_memory(module, **kwargs)
    if isinstance(module, type) or callable(module) and not hasattr(module, "ingest"):
        return lambda: module(**kwargs)
    raise MemoryContractError(f"expected a registered name, a class or a factory (the checker needs fresh "
                              f"instances), found an instance of {type(module).__name__}")


def _search(mem: Any, text: str, as_of: datetime, top_k: int | None = None) -> list[Any]:
    """``mem``'s hits for ``text`` (default depth: the most one ``search_memory`` returns, ``MAX_TOP_K``)."""
    if top_k is None:
        from vmb_gym.envs.tool_runtime import MAX_TOP_K

        top_k = MAX_TOP_K
    return list(mem.search(text, as_of=as_of, top_k=top_k))


def check_memory_module(module: Any, **kwargs: Any) -> None:
    """Check a memory module (registered name, class or factory; built with ``kwargs``) against the contract.

    Search-capable modules: nothing later than ``as_of``; no line of another scenario after an
    ingest; no entry written in one instance visible in another; ``observe`` line by line sees a
    line only once observed and ends with the hits of one ``ingest``; two instances give the same hits.
    Context-only modules: the context holds nothing said after the query's ``as_of``, and two instances agree.

    Raises:
        MemoryContractError: with what was expected and what was found.

    Example:
        >>> from vmb_gym.memory.retrieval import HashingEmbedder
        >>> check_memory_module("hybrid", embedder=HashingEmbedder())  # doctest: +SKIP
    """
    for _name, check in memory_checks(module, **kwargs):
        check()


def memory_checks(module: Any, **kwargs: Any) -> Iterator[tuple[str, Callable[[], None]]]:
    """The checks of :func:`check_memory_module`, in order, as ``(name, check)`` pairs (``vmb check memory``).

    Each ``check()`` raises :class:`MemoryContractError`. The first checks the ``MemoryModule``
    protocol; the ones after it (search or context checks) follow only when it passed.

    Raises:
        MemoryContractError: ``module`` is an instance, not a name, class or factory.
    """
    make = _memory_factory(module, kwargs)
    built: list[Any] = []

    def protocol() -> None:
        from vmb_gym.memory import MemoryModule

        mem = make()
        if not isinstance(mem, MemoryModule):
            raise MemoryContractError(f"expected an object with the MemoryModule protocol, found {type(mem).__name__}")
        built.append(mem)

    yield "an object with the MemoryModule protocol", protocol
    if not built:
        return
    if getattr(built[0], "provides_search", False):
        sc = contract_scenario(1)
        yield "no hit later than as_of, no line of another scenario", lambda: _check_as_of_and_scenarios(make, sc)
        yield "instances isolated, hits deterministic", lambda: _check_isolation_and_determinism(make, sc)
        yield "observe() line by line ends where ingest() does", lambda: _check_incremental(make, sc)
    else:
        yield "the context holds nothing said after as_of, instances agree", lambda: _check_context(make)


def _check_as_of_and_scenarios(make: Callable[[], Any], sc: Scenario) -> None:
    line = HistoryLine(1, CONTRACT_T0, "Zed Quux", "The sunroof must stay closed, always.")
    other = Scenario(2, ("Zed Quux",), (line,), (), "synthetic")
    cut = sc.lines[5].timestamp
    mem = make()
    mem.ingest(other)
    mem.ingest(sc)
    for text in ("headrest height", "seat ventilation level", "instrument panel white green"):
        hits = _search(mem, text, cut)
        late = [h for h in hits if (h.timestamp is not None and h.timestamp > cut) or any(i > 6 for i in h.line_ids)]
        if late:
            raise MemoryContractError(f"expected no hit later than as_of={cut} for {text!r}, found {late[:2]}")
    ids = {ln.line_id for ln in sc.lines}
    cross = [h for h in _search(mem, "sunroof closed always", sc.lines[-1].timestamp)
             if "sunroof" in h.text.lower() or not set(h.line_ids) <= ids]
    if cross:
        raise MemoryContractError(f"expected no line of scenario 2 after ingesting scenario 1, found {cross[:2]}")
    if getattr(mem, "violations", 0):
        raise MemoryContractError(f"expected 0 as_of/scenario violations, found {mem.violations}")


def _check_isolation_and_determinism(make: Callable[[], Any], sc: Scenario) -> None:
    now = sc.lines[-1].timestamp
    a, b = make(), make()
    a.ingest(sc)
    b.ingest(sc)
    for text in ("headrest height", "green instrument panel", "navigation voice"):
        ha, hb = _search(a, text, now, 5), _search(b, text, now, 5)
        if [(h.line_ids, h.text) for h in ha] != [(h.line_ids, h.text) for h in hb]:
            raise MemoryContractError(f"expected two instances to return the same hits for {text!r}, "
                                      f"found {[h.line_ids for h in ha]} and {[h.line_ids for h in hb]}")
    try:
        a.store("Gary keeps a spare umbrella under the passenger seat", people=("Gary Allen",), when=now)
    except NotImplementedError:
        return
    leaked = [
        h for h in _search(b, "spare umbrella passenger seat", now + timedelta(minutes=1), 10) if "umbrella" in h.text
    ]
    if leaked:
        raise MemoryContractError(
            f"expected an entry stored in one instance to stay out of another, found {leaked[:1]}"
        )


def _check_incremental(make: Callable[[], Any], sc: Scenario) -> None:
    mem = make()
    try:
        mem.reset(sc.scenario_id, sc.speakers)
        for ln in sc.lines[:6]:
            mem.observe(ln)
    except NotImplementedError:
        return
    early = {i for h in _search(mem, "headrest", sc.lines[5].timestamp, 10) for i in h.line_ids}
    if early & {11, 12}:
        raise MemoryContractError(
            f"expected lines 11-12 unseen before they are observed, found hits on {sorted(early)}"
        )
    for ln in sc.lines[6:]:
        mem.observe(ln)
    batch = make()
    batch.ingest(sc)
    now = sc.lines[-1].timestamp
    for text in ("headrest height", "green instrument panel"):
        seen = [h.line_ids for h in _search(mem, text, now, 5)]
        whole = [h.line_ids for h in _search(batch, text, now, 5)]
        if seen != whole:
            raise MemoryContractError(f"expected observe() line by line to end where ingest() does for {text!r}, "
                                      f"found hits {seen} against {whole}")


def _check_context(make: Callable[[], Any]) -> None:
    sc = contract_scenario(1)
    early = sc.queries[1]
    early = Query(early.task_id, early.scenario_id, early.index, early.text, early.reasoning_type, (), (),
                  early.gold_memory, early.evidence, sc.lines[5].timestamp)
    a, b = make(), make()
    a.ingest(sc)
    b.ingest(sc)
    text = a.context(early)
    if text != b.context(early):
        raise MemoryContractError("expected two instances to give the same context for one query, found two")
    if early.gold_memory and early.gold_memory in text:
        return  # gold memory is the query's own annotation, not the history
    later = [ln.text for ln in sc.lines[6:] if ln.text in text]
    if later:
        raise MemoryContractError(f"expected no line said after as_of={early.as_of} in the context, found {later[:1]}")


# ------------------------------------------------------------------------------------------ policies
def _episode(env: gym.Env, policy: Any, seed: int, task_id: str | None, limit: int) -> list[str]:
    from vmb_gym.envs.actions import parse_action
    from vmb_gym.errors import ActionError

    obs, info = env.reset(seed=seed, options={"task_id": task_id} if task_id else None)
    policy.reset(obs, info)
    actions: list[str] = []
    for _ in range(limit):
        action = policy.act(obs, info)
        try:
            parse_action(action)
        except ActionError as exc:
            raise PolicyContractError(
                f"expected an action the env can read, found {str(action)[:200]!r}: {exc}"
            ) from exc
        actions.append(json.dumps(action, default=repr, sort_keys=True))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return actions
    raise PolicyContractError(
        f"expected the episode to end within {limit} steps (the env's limit), found it still running"
    )


def check_policy(policy: Any, env: gym.Env, *, seed: int = 0, task_ids: Sequence[str | None] = (None,),
                 max_steps: int | None = None) -> None:
    """Check a policy (an instance, or a factory ``f(env)`` for the determinism check) against the contract.

    Runs one episode per task id twice: every action must parse, every episode must end within the
    env's step limit, and the same seed must give the same actions (a factory builds a fresh
    policy for each run; an instance is reset and reused, so it must reseed itself in ``reset``).

    Raises:
        PolicyContractError: with what was expected and what was found.

    Example:
        >>> env = gym.make("VehicleMem-v0")                              # doctest: +SKIP
        >>> check_policy(lambda e: make_policy("random", e, seed=0), env)  # doctest: +SKIP
    """
    build = policy if callable(policy) and not hasattr(policy, "act") else (lambda _env: policy)
    first = build(env)
    for name in ("reset", "act"):
        if not callable(getattr(first, name, None)):
            raise PolicyContractError(f"expected a policy with reset(observation, info) and act(observation, info), "
                                      f"found {type(first).__name__} without {name}()")
    limit = (max_steps or int(getattr(env.unwrapped, "max_steps", 50))) + 1
    for i, task_id in enumerate(task_ids):
        a = _episode(env, first if i == 0 else build(env), seed, task_id, limit)
        b = _episode(env, build(env), seed, task_id, limit)
        if a != b:
            raise PolicyContractError(f"expected the same actions under seed={seed} on task {task_id}, "
                                      f"found {a[:3]} and {b[:3]}")
