"""``load_gold`` reads the QA files alone and gives the tasks ``load_scenarios`` gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vmb_gym.data import data_folder, embedded_benchmark_dir, load_gold, load_scenarios
from vmb_gym.errors import ConfigError, DataError


def test_same_tasks_and_gold_as_the_full_loader() -> None:
    full = [q for s in load_scenarios("default") for q in s.queries]
    gold = load_gold("default")
    assert len(gold) == len(full) == 500
    for a, b in zip(gold, full, strict=True):
        assert (a.task_id, a.scenario_id, a.index, a.text, a.reasoning_type) == \
            (b.task_id, b.scenario_id, b.index, b.text, b.reasoning_type)
        assert a.gold_calls == b.gold_calls and a.gold_call_strings == b.gold_call_strings
        assert a.unparsed_gold == b.unparsed_gold and a.gold_memory == b.gold_memory
        assert a.evidence == () and a.as_of is None and a.qa is None  # history-derived: not read


def test_history_files_are_not_read(tmp_path: Path) -> None:
    source = embedded_benchmark_dir()
    for sub in ("history", "qa_data"):
        (tmp_path / sub).mkdir()
    for n in (1, 2):
        shutil.copy(source / "qa_data" / f"qa_{n}.json", tmp_path / "qa_data")
        (tmp_path / "history" / f"history_{n}.txt").write_text("not a history line\n", encoding="utf-8")
    with pytest.raises(DataError, match="history_1.txt:1"):
        load_scenarios(str(tmp_path))
    queries = load_gold(str(tmp_path), [2, 1])
    assert [q.task_id for q in queries[:1]] == ["2_0"] and queries[-1].scenario_id == 1


def test_same_selection_errors(tmp_path: Path) -> None:
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "history_3.txt").write_text("", encoding="utf-8")
    with pytest.raises(DataError, match=r"requested scenario\(s\) \[4\], found only 3"):
        load_gold(str(tmp_path), [4])
    with pytest.raises(DataError, match="expected the QA file of scenario 3"):
        load_gold(str(tmp_path))
    with pytest.raises(ConfigError, match="official:DIR"):
        data_folder("official:")
