"""Authored scenes in the natural renderer: the bank checks, how scenes are drawn, fitted and typeset."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from vmb_gym.errors import DataError
from vmb_gym.generator import GeneratorOptions, banks, build_scenario, talk, talk_scenes
from vmb_gym.generator.bank_data import load
from vmb_gym.generator.records import Person
from vmb_gym.generator.talk_scenes import EVERYDAY, INTEREST, JOB, Scene, SceneBank, SceneDraw, build_bank

SMALL = {"seed": 11, "scenarios": 1, "history_length": 1500, "days": 21, "renderer": "natural"}
_TEXT = re.compile(r"^\[[^\]]+\] [^:]+: (.*)$")


def _person(first: str, occupation: str) -> Person:
    return Person(first, "Quinn", "f", occupation, "somewhere", ("the report",))


def _scene(sid: str, size: int, kind: str = EVERYDAY, key: str = "weather", question_at: int = -1) -> Scene:
    lines = tuple(("A" if i % 2 == 0 else "B", f"Line {i} of {sid}, {{b}}{'?' if i == question_at else '.'}")
                  for i in range(size))
    return Scene(sid, kind, key, lines)


def test_shipped_bank_is_well_formed_and_car_free() -> None:
    bank = talk_scenes.load_bank()  # raises DataError on malformed scenes
    assert len(bank) >= 50
    occupations = {o for o, _, _ in banks.OCCUPATIONS}
    for (kind, key), scenes in bank.by_key.items():
        assert key in {JOB: occupations, INTEREST: set(load("interests").INTERESTS)}.get(kind, {key})
        for scene in scenes:
            assert talk_scenes.MIN_LINES <= len(scene.lines) <= talk_scenes.MAX_LINES
            for speaker, text in scene.lines:
                assert speaker in "AB" and not re.search(r"\d", text)
                assert "{" not in re.sub(r"\{[ab]\}", "", text)
                assert talk_scenes.vehicle_line(text) is None, (scene.sid, text)
    assert len(bank.rejected) <= 0.15 * (len(bank) + len(bank.rejected))  # the vocabulary check keeps most scenes
    assert len({s.sid for s in bank.scenes()}) == len(bank)


@pytest.mark.parametrize(("text", "flagged"), [
    ("Could you turn the fan up a bit?", True),
    ("I spent the whole drive home thinking about it.", True),
    ("Put the songs on shuffle, I can't take that one again.", True),  # a value word beside a module word
    ("The reading light in the study is broken.", True),
    ("Honestly, the lowest point was the meeting.", True),  # a scale word the matcher reads
    ("My phone died in the middle of the call.", False),  # a module word alone is everyday speech
    ("We got there at high tide, so the whole flock was up.", False),  # a value word alone too
    ("The mechanic says the engine is fine.", False),
    ("The pottery wheel wobbles on every third turn.", False),  # a car-only function word alone
])
def test_vehicle_line(text: str, flagged: bool) -> None:
    assert (talk_scenes.vehicle_line(text) is not None) is flagged


@pytest.mark.parametrize(("scenes", "problem"), [
    ({"nurse": (("C: Hello there.",) * 8,)}, "expected 'A: text'"),
    ({"nurse": (("A: We met at 9.",) * 8,)}, "a digit"),
    ({"nurse": (("A: Hi {c}, how was it?",) * 8,)}, "a brace"),
    ({"nurse": (("A: Short.",) * 2,)}, "lines, found 2"),
    ({"astronaut": (("A: Long day.",) * 8,)}, "is no job"),
])
def test_malformed_bank_is_a_data_error(scenes: dict, problem: str) -> None:
    with pytest.raises(DataError, match=problem):
        build_bank([(JOB, scenes)])


def test_car_scenes_are_left_out_and_listed() -> None:
    ok = tuple(f"{'AB'[i % 2]}: A perfectly ordinary line, {{b}}." for i in range(8))
    car = ok[:-1] + ("B: Then we took the car to the coast.",)
    bank = build_bank([(EVERYDAY, {"weather": (ok, car)})])
    assert [s.sid for s in bank.scenes()] == ["everyday:weather:0"]
    assert bank.rejected == (("everyday:weather:1", "car"),)


def test_pick_uses_the_sharers_keys_and_never_repeats() -> None:
    ana, ben = _person("Ana", "nurse"), _person("Ben", "chef")
    mine = [_scene(f"n{i}", 10, JOB, "nurse") for i in range(3)] + [_scene("k0", 10, INTEREST, "knitting")]
    theirs = [_scene("c0", 10, JOB, "chef")]
    other = [_scene("x0", 10, JOB, "pilot")]
    bank = SceneBank({(JOB, "nurse"): tuple(mine[:3]), (INTEREST, "knitting"): (mine[3],), (JOB, "chef"): tuple(theirs),
                      (JOB, "pilot"): tuple(other)})
    draw = SceneDraw(1.0, bank)
    rng = random.Random(0)
    picked = [draw.pick(rng, ana, ben, (["knitting"], [])) for _ in range(7)]
    got = [p for p in picked if p is not None]
    assert len(got) == 5 and picked[5:] == [None, None]  # every scene once, then nothing is left
    assert {s.sid for s, _ in got} == {"n0", "n1", "n2", "k0", "c0"}  # never the pilot's
    assert all(mine_ == (s.sid != "c0") for s, mine_ in got)  # the chef's scene has Ben as A
    assert SceneDraw(0.0, bank).pick(rng, ana, ben, (["knitting"], [])) is None


def test_pick_prefers_scenes_that_fit() -> None:
    bank = SceneBank({(EVERYDAY, "weather"): (_scene("long", 16), _scene("short", 8))})
    rng = random.Random(1)
    ana, ben = _person("Ana", "nurse"), _person("Ben", "chef")
    assert all(SceneDraw(1.0, bank).pick(rng, ana, ben, ([], []), lines=10)[0].sid == "short" for _ in range(20))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 20, 33])
def test_scene_chat_has_exactly_n_lines(n: int) -> None:
    people = [_person("Ana", "nurse"), _person("Ben", "chef")]
    scene = _scene("s", 10, question_at=6)
    out = talk.scene_chat(random.Random(n), people, 1, 0, n, scene)
    assert len(out) == n
    k = min(n, talk._scene_cut(scene.lines, n))
    assert [u.speaker for u in out[:k]] == [1 if s == "A" else 0 for s, _ in scene.lines[:k]]  # A is the first person
    assert all("Ana" in u.text and "{" not in u.text for u in out[:k])  # {b} filled with the other's name
    if n < 10:
        assert not out[k - 1].text.endswith("?")  # never cut between a question and its answer
    assert all("{" not in u.text and "[" not in u.text for u in out)


def test_scene_lines_are_typeset() -> None:
    rng = random.Random(2)
    said = Counter(talk.scene_line("I don't know, {b}. It's late.", rng, {"{b}": "Ben"}) for _ in range(500))
    assert sum(n for t, n in said.items() if "don\u2019t" in t) > 400  # most apostrophes curly
    assert sum(n for t, n in said.items() if "\u2014" in t) > 10  # now and then a dash
    assert all("Ben" in t for t in said)


def _history_texts(**kw: object) -> list[str]:
    sc = build_scenario(GeneratorOptions(**{**SMALL, **kw}), 0)
    return [_TEXT.match(raw).group(1) for raw in sc.history.splitlines()]


def test_scenes_in_natural_histories(monkeypatch: pytest.MonkeyPatch) -> None:
    picks: list[str] = []
    orig = SceneDraw.pick

    def record(self: SceneDraw, *args: object, **kw: object) -> tuple[Scene, bool] | None:
        got = orig(self, *args, **kw)
        if got is not None:
            picks.append(got[0].sid)
        return got

    monkeypatch.setattr(SceneDraw, "pick", record)
    texts = _history_texts()
    assert len(picks) >= 12 and len(picks) == len(set(picks))  # no scene twice in one history
    bank = {s.sid: s for s in talk_scenes.load_bank().scenes()}
    flat = "\n".join(texts).replace("\u2019", "'")
    found = sum(" ".join(bank[sid].lines[0][1].split()[:4]).replace("\u2019", "'").split("{")[0] in flat
                for sid in picks)
    assert found >= 0.8 * len(picks)  # their opening lines are in the history
    assert _history_texts() == texts  # same seed, same bytes


def test_scene_share_zero_and_template_draw_no_scene(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(talk, "scene_chat", lambda *a, **k: calls.append(1) or [])
    monkeypatch.setattr(talk, "SCENE_SHARE", 0.0)
    _history_texts()
    _history_texts(renderer="template")
    assert calls == []


def test_scene_draw_gives_the_longest_talks_the_scenes(monkeypatch: pytest.MonkeyPatch) -> None:
    people = [_person("Ana", "nurse"), _person("Ben", "chef")]
    bank = SceneBank({(EVERYDAY, "weather"): tuple(_scene(f"w{i}", 10) for i in range(3)),
                      (JOB, "nurse"): (_scene("n0", 10, JOB, "nurse"),),
                      (JOB, "pilot"): (_scene("p0", 10, JOB, "pilot"),)})
    monkeypatch.setattr(talk_scenes, "load_bank", lambda: bank)
    assert talk_scenes.SceneDraw(1.0).supply(people, ([], [])) == 4  # not the pilot's scene
    assert talk.scene_draw(people, [3, 12, 9, 7, 11, 2, 8]).min_lines == 8  # the 4th longest talk
    assert talk.scene_draw(people, [6, 12, 5]).min_lines == talk.SCENE_MIN_LINES  # more scenes than talks
    monkeypatch.setattr(talk_scenes, "load_bank", lambda: SceneBank({}))
    assert talk.scene_draw(people, [30, 20]).min_lines > 30  # no scene for this household



def test_scene_share_is_the_share_of_long_talks(monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes: list[bool] = []
    orig = SceneDraw.pick

    def record(self: SceneDraw, *args: object, **kw: object) -> tuple[Scene, bool] | None:
        got = orig(self, *args, **kw)
        outcomes.append(got is not None)
        return got

    monkeypatch.setattr(SceneDraw, "pick", record)
    monkeypatch.setattr(talk, "SCENE_SHARE", 0.5)
    _history_texts()
    assert len(outcomes) >= 40 and 0.35 <= sum(outcomes) / len(outcomes) <= 0.65
