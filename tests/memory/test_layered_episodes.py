"""layered: episodes, salience, request parsing, relevant superseded revisions (no model weights)."""

from __future__ import annotations

from datetime import timedelta

from vmb_gym.memory.audit import audit_hits
from vmb_gym.memory.layered import LayeredMemory
from vmb_gym.memory.retrieval import HashingEmbedder
from vmb_gym.memory.extraction import SPECIAL_SETTINGS, Vocabulary, salience
from vmb_gym.types import Scenario

from .conftest import make_lines, make_query

GARY, JUSTIN, PAT = "Gary Allen", "Justin Martinez", "Patricia Garcia"
DAY = 1440

# (minute offset, speaker, text): drives separated by long pauses (sessions)
SCRIPT = [
    (0, GARY, "Time to relax."),                                                        # 1
    (1, JUSTIN, "Green light, nice choice. The ambient light does feel calm in here."),  # 2
    (2, GARY, "I always associate green with forests."),                                # 3
    (60, PAT, "Are you on the keynote, or is it more of a panel situation?"),           # 4 chit-chat
    (61, GARY, "Just a panel. I hope the room has windows."),                           # 5 chit-chat
    (DAY, PAT, "Can you turn up the radio volume a bit?"),                               # 6
    (DAY + 1, GARY, "Crank it up to 26, then!"),                                         # 7 no setting named
    (2 * DAY, GARY, "Let me set the reading light to 8, I need to see these maps."),    # 8
    (3 * DAY, GARY, "Reading light down to 6, that is plenty tonight."),                # 9
    (4 * DAY, GARY, "Set the reading light to 5."),                                      # 10
    (5 * DAY, GARY, "Reading light to 4 please."),                                       # 11
    (6 * DAY, PAT, "My back is fully healed now, I can sit normally again."),          # 12
    (7 * DAY, GARY, "I need to visit the District Court on Main Street next week."),    # 13
]


def _scenario(queries=()) -> Scenario:
    lines = make_lines(SCRIPT)
    return Scenario(1, (GARY, JUSTIN, PAT), lines, tuple(queries), "synthetic")


def _memory(scenario: Scenario, **kw) -> LayeredMemory:
    mem = LayeredMemory(semantic=False, **kw)
    mem.ingest(scenario)
    return mem


def test_episode_line_is_cited_and_shown_with_its_change():
    sc = _scenario()
    mem = _memory(sc)
    (change,) = [c for c in mem.changes if c.line_id == 2]
    assert change.support == (1,) and "light.ambient" in change.settings
    hits = mem.search("Let's get the calming ambient light back", as_of=sc.lines[-1].timestamp, top_k=3)
    fact = next(h for h in hits if h.layer == "fact" and 2 in h.line_ids)
    assert 1 in fact.line_ids  # "Time to relax." is the request the change answers
    assert "Time to relax." in fact.text and "(context)" in fact.text
    without = _memory(sc, episode_links=False)
    hits = without.search("Let's get the calming ambient light back", as_of=sc.lines[-1].timestamp, top_k=3)
    assert all(1 not in h.line_ids for h in hits if h.layer == "fact")


def test_chit_chat_that_names_a_device_is_not_a_fact_revision():
    sc = _scenario()
    mem = _memory(sc)
    noisy = {c.line_id: c.salience for c in mem.changes if c.line_id in (4, 5)}
    assert noisy and all(v < 1 for v in noisy.values())
    facts = mem.facts(sc.lines[-1].timestamp)
    cited = {r.line_id for f in facts for r in f.revisions}
    assert not cited & {4, 5}
    assert {8, 9, 10, 11} <= cited
    assert salience("Let me lower the headrest to 3.") >= 2
    assert salience("Are you on the keynote, or is it more of a panel situation?") == 0


def test_change_without_a_setting_word_continues_the_episode():
    sc = _scenario()
    mem = _memory(sc)
    (crank,) = [c for c in mem.changes if c.line_id == 7]
    assert {"radio", "volume"} <= crank.settings and "26" in crank.values and crank.support == (6,)


def test_speaker_and_named_people_of_a_request():
    mem = _memory(_scenario())
    named, speaker = mem._people_in(
        "At 8:00 PM, Gary was sitting in the driver's seat waiting for Justin. He opened his book and told the "
        "car: 'I need my usual reading brightness.'")
    assert speaker == GARY and named == {GARY, JUSTIN}
    named, speaker = mem._people_in("At 7:00 AM, Justin drove Gary. Patricia told Gary: 'Too bright.'")
    assert speaker == PAT and named == {GARY, JUSTIN, PAT}
    # two people share a first name: full or last names resolve them, the bare first name does not
    mem.speakers = ("Daniel Anderson", "Daniel Lee", "Kimberly Green")
    named, speaker = mem._people_in("At 9:00 AM, Daniel Lee drove. Anderson told Lee: 'Back to normal.'")
    assert speaker == "Daniel Anderson" and named == {"Daniel Anderson", "Daniel Lee"}


def test_superseded_revisions_shown_are_the_ones_the_request_matches():
    sc = _scenario()
    mem = _memory(sc, max_revisions=2)
    now = sc.lines[-1].timestamp
    (reading,) = [f for f in mem.facts(now) if f.setting.startswith("light.reading") and f.person == GARY]
    assert [r.line_id for r in reading.revisions] == [8, 9, 10, 11]
    hits = mem.search("the maps are hard to see, reading light like before", as_of=now, top_k=5)
    hit = next(h for h in hits if h.layer == "fact" and 11 in h.line_ids)
    # the active revision plus the earlier revision about the maps, not merely the newest ones
    assert set(hit.line_ids) == {11, 8}
    assert "[superseded]" in hit.text and "see these maps" in hit.text
    assert mem.violations == 0


def test_a_fact_hit_shows_at_most_four_revisions_by_default():
    # six reading-light revisions: the budget keeps the active one and the three that match best
    script = [(k * DAY, GARY, f"Set the reading light to {level}.") for k, level in enumerate((9, 8, 7, 6, 5, 4))]
    script[1] = (DAY, GARY, "Let me set the reading light to 8, I need to see these maps.")
    sc = Scenario(1, (GARY, JUSTIN, PAT), make_lines(script), (), "synthetic")
    now = sc.lines[-1].timestamp
    query = "reading light like when I read the maps"
    hit = next(h for h in _memory(sc).search(query, as_of=now, top_k=3) if h.layer == "fact")
    assert len(hit.line_ids) == 4 and hit.text.count("[superseded]") == 3
    assert {6, 2} <= set(hit.line_ids)  # the active revision and the one about the maps
    wide = next(h for h in _memory(sc, max_revisions=6).search(query, as_of=now, top_k=3) if h.layer == "fact")
    assert sorted(wide.line_ids) == [1, 2, 3, 4, 5, 6]


def test_as_of_cuts_revisions_and_episode_lines():
    sc = _scenario()
    mem = _memory(sc)
    before = sc.lines[8].timestamp  # line 9's time: lines 10 and 11 do not exist yet
    for h in mem.search("reading light", as_of=before, top_k=10):
        assert not set(h.line_ids) & {10, 11, 12, 13}
        assert h.timestamp is None or h.timestamp <= before
    assert mem.violations == 0


def test_destination_and_situation_facts():
    v = Vocabulary()
    assert "navigation.destination" in v.settings("I need to visit the District Court on Main Street next week.")
    assert "person.state" in v.settings("My back is fully healed now, I can sit normally again.")
    assert not SPECIAL_SETTINGS & v.settings("The court case was interesting to read about.")
    sc = _scenario()
    mem = _memory(sc)
    now = sc.lines[-1].timestamp
    hits = mem.search("Gary told the car: 'Navigate to the court I mentioned.'", as_of=now, top_k=3)
    assert 13 in hits[0].line_ids
    # a situation fact counts for requests about that person only
    hits = mem.search("At 8:00 AM, Patricia said: 'Back to my standard seat.'", as_of=now, top_k=2)
    assert any(12 in h.line_ids for h in hits)


def test_device_is_the_most_strongly_named_setting():
    v = Vocabulary()
    ex = v.extract("It's hot today. Set the AC airflow to blow toward my face.")
    assert ex is not None and ex.key.split("|")[0] == "airConditioner.fan"
    assert v.hints("I can barely see the projection against the bright road.") >= {"HUD"}


def test_prefiltered_matching_equals_a_full_scan():
    v = Vocabulary()
    for text in [ln[2] for ln in SCRIPT] + ["Switch the A/C to defog, the 24-hour clock and the HUD's glare!",
                                             "seat heating on, head-up display at 3D"]:
        low = text.lower()
        full = {k: max(len(m.group(0)) for m in p.finditer(low)) for k, p in v._patterns.items() if p.search(low)}
        got = {k: n for k, n in v.strengths(text).items() if k not in SPECIAL_SETTINGS}
        assert got == full


def test_semantic_mode_recall_on_episode_queries():
    lines = make_lines(SCRIPT)
    q = make_query(lines, 0, "At 8:00 PM, Gary told Justin: 'Time for my relaxing green ambient light.'", [(1, 2)])
    q2 = make_query(lines, 1, "At 9:00 AM, Gary said: 'Reading light back to how I like it.'", [(8,), (11,)])
    sc = Scenario(1, (GARY, JUSTIN, PAT), lines, (q, q2), "synthetic")
    mem = LayeredMemory(embedder=HashingEmbedder())
    mem.ingest(sc)
    for query in sc.queries:
        hits = mem.search(query.text, as_of=query.as_of, top_k=3)
        assert audit_hits(query, hits, ks=(3,))["recall@3"] == 1.0
    assert mem.violations == 0
    later = lines[-1].timestamp + timedelta(minutes=5)
    eid = mem.store("Gary wants the reading light at 7 from now on", people=(GARY,), setting="light.reading",
                    when=later)
    hits = mem.search("reading light", as_of=later, top_k=3)
    assert any(h.entry_id == eid or "at 7 from now on" in h.text for h in hits)
