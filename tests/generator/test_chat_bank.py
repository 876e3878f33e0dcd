"""The LM chat bank's tooling: prompts, reading replies, filters, the bank file and its measure."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from vmb_gym.errors import ConfigError, DataError
from vmb_gym.generator import GeneratorOptions, generate
from vmb_gym.generator.chat_bank import bank_gap, bank_lines, build_bank, line_problem, load_bank, write_bank
from vmb_gym.generator.chat_bank_prompts import MAX_TURN_WORDS, chat_prompt, parse_reply

REPLY = (" Hi Tom, how was the night rota at the hospital this week? Was it as busy as you feared?\n"
         "Tom: (laughing) Busier. We had three admissions before midnight and the new manager kept calling.\n"
         "Maya: That sounds exhausting, Tom. Did you get any sleep afterwards at all?\n"
         "Jenny: I slept until noon, then went for a long walk by the river to clear my head.\n"
         "\n"
         "This conversation shows how friends support each other.\n"
         "Maya: never read")


def test_prompts_are_a_function_of_seed_and_index() -> None:
    assert chat_prompt(7, 3) == chat_prompt(7, 3)
    assert chat_prompt(7, 3) != chat_prompt(7, 4)
    p = chat_prompt(7, 3)
    assert p.a != p.b and p.a in p.text and p.b in p.text
    keys = {chat_prompt(1, i).key.split(":")[0] for i in range(60)}
    assert keys == {"job", "interest", "everyday"}


def test_parse_reply_reads_turns_until_the_model_leaves_the_conversation() -> None:
    turns = parse_reply(REPLY, "Maya", "Tom")
    assert [s for s, _ in turns] == [0, 1, 0, 1]  # the made-up "Jenny" answers Maya, so she is Tom
    assert turns[0][1] == "Hi {b}, how was the night rota at the hospital this week? Was it as busy as you feared?"
    assert turns[1][1].startswith("Busier.")  # the stage direction is gone
    assert "{b}" in turns[2][1]
    assert all("never read" not in t for _, t in turns)


def test_parse_reply_cuts_long_and_unfinished_turns_at_a_sentence() -> None:
    long = " ".join(["This is a sentence of exactly ten words, more or less."] * 6)
    (_, text), = parse_reply(" " + long, "Ana", "Ben")
    assert len(text.split()) <= MAX_TURN_WORDS and text.endswith(".")
    (_, cut), = parse_reply(" I went to the market. Then I bought some", "Ana", "Ben")
    assert cut == "I went to the market."


@pytest.mark.parametrize(("text", "problem"), [
    ("I turned the seat heating up last night before bed.", "vehicle"),
    ("We drove out to the coast on Sunday with the kids.", "vehicle"),
    ("The music at the wedding was lovely, everyone danced.", "vehicle"),
    ("She ran 12 miles before breakfast, can you imagine?", "number"),
    ("Sure thing.", "short"),
    ("I think think think the whole thing was great fun.", "repeat"),
    ("Es muy bueno para la familia de mi hermano.", "foreign"),
    ("As an AI I cannot have friends but I can help you.", "broken"),
    ("I never finished the book about the old lighthouse keeper and", "broken"),
    ("The new ward manager finally sorted out the handover notes.", None),
])
def test_line_problem(text: str, problem: str | None) -> None:
    assert line_problem(text) == problem


def _records() -> list[dict[str, str]]:
    return [{"a": "Maya", "b": "Tom", "key": "job:nurse", "reply": REPLY},
            {"a": "Ana", "b": "Ben", "key": "everyday", "reply": REPLY.replace("Maya", "Ana").replace("Tom", "Ben")},
            {"a": "Ana", "b": "Ben", "key": "everyday", "reply": " We drove to the lake. Lovely day for it.\nBen: ok"}]


def test_build_bank_filters_repeats_and_copies() -> None:
    bank, stats = build_bank(_records())
    assert [c["key"] for c in bank] == ["job:nurse"]  # the second repeats every turn, the third keeps none
    assert stats["duplicate"] == 4 and stats["conversations"] == 1 and stats["kept_turns"] == 4
    official = ["we had three admissions before midnight and the new manager kept calling all night"]
    bank, stats = build_bank(_records()[:1], official=official)
    assert stats["copied"] == 1 and stats["kept_turns"] == 3
    assert all("admissions" not in t for _, t in bank[0]["turns"])


def test_bank_file_round_trip_is_byte_stable(tmp_path: Path) -> None:
    bank, stats = build_bank(_records())
    write_bank(bank, tmp_path / "a.jsonl.gz", stats)
    write_bank(bank, tmp_path / "b.jsonl.gz", stats)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    loaded = load_bank(tmp_path / "a.jsonl.gz")
    assert list(loaded) == ["job:nurse"] and len(loaded["job:nurse"][0]) == 4
    assert bank_lines(tmp_path / "a.jsonl.gz")[0].startswith("Hi xname, how was")


def test_load_bank_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="build_chat_bank"):
        load_bank(tmp_path / "missing.jsonl.gz")
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(json.dumps({"something": "else"}).encode()))
    with pytest.raises(DataError, match="header"):
        load_bank(bad)


def test_bank_gap_measures_bank_lines_against_a_folder(tmp_path: Path) -> None:
    generate(GeneratorOptions(seed=3, scenarios=1, history_length=200, renderer="natural"), tmp_path / "nat")
    lines = [f"I spent the {w} working on the {x} report for the clinic, it took ages."
             for w in ("morning", "evening", "weekend", "afternoon") for x in ("audit", "budget", "rota", "intake")]
    convos = [{"key": "everyday", "turns": [[k % 2, t] for k, t in enumerate(lines[i:i + 4])]} for i in range(0, 16, 4)]
    write_bank(convos * 4, tmp_path / "bank.jsonl.gz", {})
    out = bank_gap(tmp_path / "bank.jsonl.gz", tmp_path / "nat", compare=tmp_path / "nat", lines=60)
    assert out["lines_per_side"] == 60
    assert out["bank_auc"] > 0.95  # one repeated sentence frame is easy to tell from conversation
    assert out["compare_auc"] == pytest.approx(0.5, abs=0.15)  # a set against itself
    write_bank(convos[:1], tmp_path / "tiny.jsonl.gz", {})
    with pytest.raises(DataError, match="at least 50"):
        bank_gap(tmp_path / "tiny.jsonl.gz", tmp_path / "nat")


def test_script_help_names_every_step() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import build_chat_bank

    with pytest.raises(SystemExit) as exit_info:
        build_chat_bank.main(["--help"])
    assert exit_info.value.code == 0
    with pytest.raises(ConfigError, match="sample step"):
        build_chat_bank.main(["build", "--raw", "/nonexistent/raw.jsonl", "--out", "/tmp/never.jsonl.gz"])
