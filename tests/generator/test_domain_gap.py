"""The domain gap (``vmb_gym.generator.domain_gap``) and ``vmb validate-benchmark --against``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.generator.domain_gap import (
    NAME_MASK,
    NUMBER_MASK,
    copy_share,
    domain_gap,
    mask_line,
    read_history_lines,
    sample_evenly,
)

WORDS_A = ["morning", "coffee", "garden", "weekend", "library", "concert", "market", "river", "school",
           "bakery", "painting", "yoga", "chess", "museum", "travel", "cousin", "dinner", "movie"]
WORDS_B = ["quarterly", "invoice", "server", "deadline", "budget", "spreadsheet", "compliance", "audit",
           "vendor", "kernel", "pipeline", "deploy", "sprint", "roadmap", "ticket", "backlog", "metric", "ledger"]
GLUE = ["i", "think", "the", "a", "we", "really", "maybe", "that", "was", "so", "and", "but"]


def _sentence(rng: random.Random, words: list[str], length: int = 12) -> str:
    return " ".join(rng.choice(words + GLUE) for _ in range(length)).capitalize() + "."


def _write(folder: Path, files: list[list[tuple[str, str]]]) -> Path:
    """A release-style folder: ``history/history_N.txt`` of (speaker, text) lines."""
    (folder / "history").mkdir(parents=True)
    for n, lines in enumerate(files, start=1):
        body = "".join(f"[2025-03-0{1 + i % 9} 08:{i % 60:02d}] {who}: {text}\n" for i, (who, text) in enumerate(lines))
        (folder / "history" / f"history_{n}.txt").write_text(body, encoding="utf-8")
    return folder


def _files(seed: int, words: list[str], people: tuple[str, ...], numbers: range, n_files: int = 3,
           per_file: int = 100) -> list[list[tuple[str, str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_files):
        lines = []
        for _ in range(per_file):
            who, other = rng.sample(people, 2)
            first = other.split()[0]
            sentence = _sentence(rng, words)  # draws before the level and hour, as in one f-string
            lines.append((who, f"{first}, {sentence} Level {rng.choice(numbers)} at {rng.randint(1, 12)}:30."))
        out.append(lines)
    return out


def test_identical_sets_cannot_be_told_apart_and_are_all_copied(tmp_path: Path) -> None:
    files = _files(1, WORDS_A, ("Gary Allen", "Nina Park", "Omar Diaz"), range(1, 10))
    a, b = _write(tmp_path / "a", files), _write(tmp_path / "b", files)
    gap = domain_gap(a, b, lines=300)
    assert abs(gap.auc - 0.5) < 0.12
    assert gap.copy_share == 1.0 and gap.copied_lines == gap.copy_checked_lines == 300
    assert gap.words_per_line["generated"] == gap.words_per_line["official"]
    assert gap.type_token_ratio["generated"] == gap.type_token_ratio["official"]
    assert gap.vocabulary_seen_share == 1.0


def test_different_wording_is_told_apart(tmp_path: Path) -> None:
    people = ("Gary Allen", "Nina Park", "Omar Diaz")
    a = _write(tmp_path / "a", _files(1, WORDS_A, people, range(1, 10)))
    b = _write(tmp_path / "b", _files(2, WORDS_B, people, range(1, 10)))
    gap = domain_gap(a, b, lines=300)
    assert gap.auc > 0.97
    assert gap.copy_share < 0.05
    top_gen = {f for f, _ in gap.top_generated}
    top_off = {f for f, _ in gap.top_official}
    assert top_gen & set(WORDS_A) and top_off & set(WORDS_B)
    assert gap.vocabulary_seen_share < 0.6


def test_names_and_numbers_do_not_give_it_away(tmp_path: Path) -> None:
    """Same wording, different households and value ranges: masked, the classifier is at chance."""
    a = _write(tmp_path / "a", _files(1, WORDS_A, ("Gary Allen", "Nina Park", "Omar Diaz"), range(1, 5)))
    b = _write(tmp_path / "b", _files(2, WORDS_A, ("Lena Kowalski", "Tariq Osei", "Mei Suzuki"), range(50, 99)))
    gap = domain_gap(a, b, lines=300)
    assert abs(gap.auc - 0.5) < 0.12
    features = {f for f, _ in gap.top_generated + gap.top_official}
    assert not features & {"gary", "lena", "allen", "kowalski", "50", "3"}


def test_mask_line_masks_household_names_and_numbers() -> None:
    from vmb_gym.generator.domain_gap import _name_pattern  # same-module helper under test

    names = _name_pattern(["Gary Allen", "Nina Park"])
    text = "Gary Allen said Nina's seat at 22.5 degrees by 8:30, Park agreed; Egleston did not."
    assert mask_line(text, names) == (f"{NAME_MASK} said {NAME_MASK} seat at {NUMBER_MASK} degrees by "
                                      f"{NUMBER_MASK}, {NAME_MASK} agreed; Egleston did not.")


def test_copy_share_counts_eight_word_runs_after_normalising_quotes() -> None:
    official = ["Honestly, I don\u2019t think we ever really sorted out the garden plans last spring."]
    generated = ["so i don't think we ever really sorted out the garden, ok",  # 8-word run, curly quote
                 "I don't think we ever really sorted it",                     # 7 shared words only
                 "Short line."]
    share, copied, examples = copy_share(generated, official)
    assert (copied, round(share, 3)) == (1, 0.333)
    assert examples == [generated[0]]


def test_sample_evenly_takes_lines_round_robin_across_files() -> None:
    files = [[f"a{i}" for i in range(100)], [f"b{i}" for i in range(5)], [f"c{i}" for i in range(100)]]
    sample = sample_evenly(files, 30, seed=0)
    counts = {p: sum(s.startswith(p) for s in sample) for p in "abc"}
    assert counts == {"a": 13, "b": 5, "c": 12} or counts == {"a": 12, "b": 5, "c": 13}
    assert len(set(sample)) == 30


def test_bad_folder_is_a_config_error_listing_the_paths_tried(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="tried") as info:
        read_history_lines(f"official:{tmp_path / 'missing'}")
    assert str(tmp_path / "missing") in str(info.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="history"):
        read_history_lines(tmp_path / "empty")


def test_cli_against_bad_folder_fails_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    assert main(["validate-benchmark", "--out", str(tmp_path / "r"), "--against", "official:/no/such/dir"]) == 2
    out = capsys.readouterr().out
    assert "tried /no/such/dir" in out and not (tmp_path / "r").exists()


def test_cli_help_explains_against(capsys: pytest.CaptureFixture[str]) -> None:
    from vmb_gym.cli import main

    with pytest.raises(SystemExit):
        main(["validate-benchmark", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--against" in text and "domain gap" in text and "copy share" in text


def test_add_domain_gap_writes_it_into_the_report(tmp_path: Path) -> None:
    from vmb_gym.cli.validate_benchmark import add_domain_gap

    people = ("Gary Allen", "Nina Park", "Omar Diaz")
    a = _write(tmp_path / "a", _files(1, WORDS_A, people, range(1, 10)))
    b = _write(tmp_path / "b", _files(2, WORDS_B, people, range(1, 10)))
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.md").write_text("# Benchmark validation report\n", encoding="utf-8")
    report = {"ok": True}
    section = add_domain_gap(report, str(out), str(a), str(b), lines=300)
    saved = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert saved["domain_gap"]["auc"] > 0.97 and saved["domain_gap"]["against"] == str(b)
    assert "line classifier AUC" in section and section in (out / "report.md").read_text(encoding="utf-8")
    # histories without QA files: what the requests name is not measured, and the report says why
    assert "qa" in saved["request_profile"]["error"].lower() and "not measured" in section


@pytest.mark.needs_shared
@pytest.mark.slow
def test_embedded_benchmark_is_far_from_the_official_release(official: Path) -> None:
    """The measured gap of the shipped set (issue #17: 0.999 before the realistic renderer)."""
    gap = domain_gap("default", official, lines=1000)
    assert 0.5 < gap.auc <= 1.0 and gap.copy_share < 0.005
    assert gap.files_official == 40
