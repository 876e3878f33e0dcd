"""The line prior's kinds (words, cues, embeddings), its AUC measure and the candidate lines it is fitted on."""

from __future__ import annotations

import numpy as np
import pytest

from vmb_agents.sb3.slots.line_prior import (
    N_CUES,
    N_FEATURES,
    LineEmbedder,
    LinePrior,
    cue_vector,
    line_prior_auc,
    states_value,
)
from tests.agents.sb3.test_line_prior import CHATTER, REAL
from vmb_gym.errors import ConfigError


def _examples(values: range) -> list[tuple[str, bool]]:
    return [(t.format(v=v), True) for v in values for t in REAL] + \
           [(t.format(v=v), False) for v in values for t in CHATTER]


def test_states_value_finds_setting_values_and_skips_chatter() -> None:
    assert states_value("I'd like the seat heating at level 2 from now on.")
    assert states_value("Turn the ambient light to purple, please.")
    assert not states_value("Let's talk about it tonight.")
    assert not states_value("The editor wants me to expand the section on his early life.")


def test_cue_vector_reads_the_lexicon_cues() -> None:
    van = cue_vector("In my work van the trunk opening is always stuck at 10 percent.")
    plain = cue_vector("Let's talk about it tonight.")
    assert van.shape == plain.shape == (N_CUES,)
    assert van[4] == 1.0 and plain[4] == 0.0  # "elsewhere": a work van
    assert van[0] == 1.0  # "preference": always
    assert van[-2] > 0 and plain[-2] == 0  # the trunk is named, nothing in the chatter is
    assert cue_vector("Is it on?")[7] == 1.0  # a question


@pytest.mark.parametrize("kind", ["vocab", "cues", "words+cues", "minilm", "both"])
def test_each_kind_fits_ranks_and_round_trips(kind: str) -> None:
    prior = LinePrior.fit(_examples(range(10, 60, 5)), kind=kind, embedder="hashing-64")
    real = prior.many([t.format(v=77) for t in REAL])
    chatter = prior.many([t.format(v=77) for t in CHATTER])
    auc = line_prior_auc(prior, candidates=([*[t.format(v=77) for t in REAL], *[t.format(v=77) for t in CHATTER]],
                                            [True] * len(REAL) + [False] * len(CHATTER)))
    assert auc == pytest.approx(float(np.mean([r > c for r in real for c in chatter])))
    assert auc >= 0.75
    width = {"vocab": N_FEATURES, "cues": N_CUES, "words+cues": N_FEATURES + N_CUES, "minilm": 64 + N_CUES,
             "both": N_FEATURES + 64 + N_CUES}[kind]
    assert prior.coef.shape == (width,) and prior.width() == width
    again = LinePrior.from_json(prior.to_json())
    line = CHATTER[0].format(v=3)
    assert again.kind == kind and again(line) == pytest.approx(prior(line), abs=1e-6)


def test_old_sidecar_reads_words_and_bad_kinds_are_refused() -> None:
    prior = LinePrior.fit(_examples(range(10, 40, 10)))
    data = prior.to_json()
    assert data["kind"] == "words" and "embedder" not in data
    del data["kind"]
    assert LinePrior.from_json(data).kind == "words"
    with pytest.raises(ConfigError, match="line-prior kind"):
        LinePrior.fit(_examples(range(10, 40, 10)), kind="bert")
    with pytest.raises(ConfigError, match=f"has {64 + N_CUES} weights"):
        LinePrior(np.zeros(3), 0.0, kind="minilm", embedder="hashing-64")
    with pytest.raises(ConfigError, match="unknown line-prior embedder"):
        LineEmbedder("gpt-9")


def test_auc_needs_both_classes_and_is_one_for_a_perfect_ranking() -> None:
    prior = LinePrior.fit(_examples(range(10, 60, 5)), kind="cues")
    with pytest.raises(ConfigError, match="needs evidence and other"):
        line_prior_auc(prior, candidates=(["a", "b"], [False, False]))
    bodies = ["Update on the trunk opening: 40 percent from today.", "Funny, the taxi had the trunk at 40 percent."]
    assert line_prior_auc(prior, candidates=(bodies, [prior(bodies[0]) > prior(bodies[1]),
                                                      prior(bodies[0]) <= prior(bodies[1])])) == 1.0


def test_embedder_caches_and_agrees_with_itself() -> None:
    emb = LineEmbedder("hashing-32")
    first = emb.embed(["seat heating level 0", "the rental car"])
    again = emb.embed(["the rental car", "seat heating level 0"])
    assert np.array_equal(first[::-1], again)
    assert emb.embed([]).shape == (0, 32)


def test_fit_line_prior_words_is_the_old_fit_and_the_log_names_the_auc(monkeypatch: pytest.MonkeyPatch) -> None:
    from vmb_agents.sb3.slots import line_prior as module
    from vmb_gym.envs.task_set import TaskSet

    scenarios = [TaskSet.load("default", files=[1]).scenarios[1]]
    old = LinePrior.fit(LinePrior.examples_from_scenarios(scenarios), seed=0)
    lines: list[str] = []
    monkeypatch.setattr(module, "AUC_SCENARIOS", 1)
    new = module.fit_line_prior(scenarios, "words", seed=0, log=lines.append,
                                auc_data={"held_out": "default", "official": "", "broken": "official:/nowhere"})
    assert np.array_equal(old.coef, new.coef) and old.intercept == new.intercept
    assert len(lines) == 1 and lines[0].startswith("line prior (words): 2000 lines of 1 training households")
    assert "AUC broken skipped" in lines[0] and "AUC official" not in lines[0]  # "" = no official data
    expected = module.prior_auc_on(new, "default", 1)
    assert f"AUC held_out {expected:.3f}" in lines[0]
    with pytest.raises(ConfigError, match="line-prior kind"):
        module.fit_line_prior(scenarios, "bert")
