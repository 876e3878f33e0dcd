"""The tasks an env serves: scenarios loaded once, filtered, indexed by task id."""

from __future__ import annotations

import numbers
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.types import REASONING_TYPES, Query, Scenario


@dataclass
class TaskSet:
    """Queries of some scenarios, in a fixed order, with lookups by task id and scenario."""

    scenarios: dict[int, Scenario]
    queries: list[Query]
    _by_id: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_id = {q.task_id: i for i, q in enumerate(self.queries)}

    @classmethod
    def load(
        cls,
        data: str | Sequence[Scenario],
        *,
        files: str | int | Iterable[int] | None = None,
        task_ids: Sequence[str] | None = None,
        reasoning_types: Sequence[str] | None = None,
        need_qa: bool = False,
    ) -> TaskSet:
        """Load ``data`` (a spec string or scenarios) and apply the filters.

        ``files`` is read by :func:`parse_files` (``"1-3,7"``, ``[1, 2, 3]``, ``5``).

        Raises:
            ConfigError: ``files`` is malformed, a filter leaves no task, or names an unknown
                reasoning type.
        """
        files = parse_files(files)
        if isinstance(data, str):
            scenarios = _load_cached(data, tuple(files) if files is not None else None)
        else:
            scenarios = tuple(data)
            if files is not None:
                keep = set(files)
                scenarios = tuple(s for s in scenarios if s.scenario_id in keep)
        if reasoning_types is not None:
            unknown = set(reasoning_types) - set(REASONING_TYPES)
            if unknown:
                raise ConfigError(f"unknown reasoning types {sorted(unknown)}; expected some of {REASONING_TYPES}")
        queries = [q for s in scenarios for q in s.queries]
        if task_ids is not None:
            wanted = set(task_ids)
            missing = wanted - {q.task_id for q in queries}
            if missing:
                raise ConfigError(
                    f"task ids {sorted(missing)[:5]} are not in data {data if isinstance(data, str) else '<scenarios>'}"
                )
            queries = [q for q in queries if q.task_id in wanted]
        if reasoning_types is not None:
            queries = [q for q in queries if q.reasoning_type in set(reasoning_types)]
        if need_qa:
            queries = [q for q in queries if q.qa is not None]
        if not queries:
            raise ConfigError(
                "no task is left after loading and filtering; check data, files, task_ids and reasoning_types"
                + (" (QA mode needs generated data with question forms)" if need_qa else "")
            )
        return cls({s.scenario_id: s for s in scenarios}, queries)

    def __len__(self) -> int:
        return len(self.queries)

    def index_of(self, task_id: str) -> int:
        """Position of ``task_id`` in :attr:`queries`."""
        try:
            return self._by_id[task_id]
        except (KeyError, TypeError):
            sample = ", ".join(list(self._by_id)[:5])
            raise ConfigError(f"unknown task_id {task_id!r}; expected an id like {sample} ...") from None

    def scenario_of(self, query: Query) -> Scenario:
        """The scenario a query belongs to."""
        return self.scenarios[query.scenario_id]

    def charset(self, extra: str = "") -> str:
        """Every character the data (and ``extra``) can put into an observation."""
        chars = set(string.printable) | set(extra)
        for s in self.scenarios.values():
            chars |= scenario_chars(s)
        chars -= set("\x0b\x0c")
        return "".join(sorted(chars))


#: Each scenario's characters, by the scenario object's identity (each entry holds its scenario, so no
#: other object can take its id meanwhile; loaded scenarios are shared objects, see vmb_gym.data.official).
_SCENARIO_CHARS: dict[int, tuple[Scenario, frozenset[str]]] = {}
_SCENARIO_CHARS_MAX = 4096


def scenario_chars(scenario: Scenario) -> frozenset[str]:
    """Every character of a scenario's lines (text and speaker) and queries (text, gold memory, QA question)."""
    found = _SCENARIO_CHARS.get(id(scenario))
    if found is not None and found[0] is scenario:
        return found[1]
    chars: set[str] = set()
    for line in scenario.lines:
        chars.update(line.text)
        chars.update(line.speaker)
    for q in scenario.queries:
        chars.update(q.text)
        chars.update(q.gold_memory)
        if q.qa is not None:
            chars.update(q.qa.question)
    if len(_SCENARIO_CHARS) >= _SCENARIO_CHARS_MAX:
        _SCENARIO_CHARS.clear()
    _SCENARIO_CHARS[id(scenario)] = (scenario, frozenset(chars))
    return _SCENARIO_CHARS[id(scenario)][1]


def parse_files(files: str | int | Iterable[int] | None) -> list[int] | None:
    """The scenario numbers of an env's ``files=`` argument, ascending, or None (every scenario).

    Accepts the CLI's ``--files`` syntax (``"1-3,7"``, read by
    :func:`vmb_gym.data.parse_file_range`), one number, or an iterable of numbers.

    Raises:
        ConfigError: anything else (the message shows the accepted forms).
    """
    if files is None:
        return None
    if isinstance(files, str):
        from vmb_gym.data import parse_file_range

        try:
            return parse_file_range(files)
        except ConfigError as exc:
            raise ConfigError(f"files={files!r}: {exc}") from None
    expected = "expected files as scenario numbers: '1-3,7' (the --files syntax), 5 or [1, 2, 3]"
    if isinstance(files, bool):
        raise ConfigError(f"{expected}; found {files!r}")
    try:
        items: list[Any] = [files] if isinstance(files, (int, numbers.Integral)) else list(files)
    except TypeError:
        raise ConfigError(f"{expected}; found {files!r}") from None
    bad = [f for f in items if isinstance(f, bool) or not isinstance(f, numbers.Integral) or f < 1]
    if bad or not items:
        raise ConfigError(f"{expected}; found {files!r}" + (f" (not a positive number: {bad[0]!r})" if bad else ""))
    return sorted({int(f) for f in items})


@lru_cache(maxsize=8)
def _load_cached(spec: str, files: tuple[int, ...] | None) -> tuple[Scenario, ...]:
    from vmb_gym.data import load_scenarios

    return tuple(load_scenarios(spec, files=files))
