"""Tests of the generator's ``indirect_requests`` option: requests that name only a situation or a reason."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tests.generator.built_queries import QUOTE, SMALL
from tests.generator.built_queries import built as _built
from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions
from vmb_gym.generator.banks import DEVICE_NOUNS, REASONS
from vmb_gym.generator.catalog import catalogue


def test_option_is_validated_and_left_out_of_json_when_off() -> None:
    assert "indirect_requests" not in GeneratorOptions().to_json()
    assert GeneratorOptions(indirect_requests=0.5).to_json()["indirect_requests"] == 0.5
    assert GeneratorOptions.from_json(GeneratorOptions(indirect_requests=0.5).to_json()).indirect_requests == 0.5
    with pytest.raises(ConfigError, match="indirect_requests must be a share"):
        GeneratorOptions(indirect_requests=1.5)


def test_only_situation_and_reason_requests_change_and_they_name_no_setting_or_device() -> None:
    off = _built(SMALL)
    on = _built(dataclasses.replace(SMALL, indirect_requests=1.0))
    assert [h for *_, h in on] == [h for *_, h in off]  # the same histories, byte for byte
    assert [g for _, _, g, _ in on] == [g for _, _, g, _ in off]  # the same gold calls
    changed = [(a, b, meta) for (meta, a, _, _), (_, b, _, _) in zip(off, on, strict=True) if a != b]
    kinds = {meta["reasoning_type"] for _, _, meta in changed}
    assert kinds == {"conditional_constraint", "state_shift"}, kinds
    assert len(changed) >= 10
    for before, after, meta in changed:
        api = meta["gold_calls"][0]["name"]
        said = QUOTE.search(after).group(1)
        nouns = [n for n in catalogue()[api].nouns if "{t}" not in n] + list(DEVICE_NOUNS.get(api.split("_")[1], ()))
        assert not any(re.search(rf"\b{re.escape(n)}\b", said, re.IGNORECASE) for n in nouns), said
        assert before.split("said:")[0] == after.split("said:")[0]  # the situation is unchanged
        if meta["reasoning_type"] == "conditional_constraint":
            assert meta["situation"]["condition_holds"] is True  # otherwise nothing in the request points anywhere
        else:  # the reason said again is the one an evidence line of the target gives
            reason = next(r for r in REASONS if said.startswith(r[2]))
            assert any(reason[0].lower() in ev["text"].lower() for ev in meta["evidence"]), (said, meta["evidence"])


def test_the_share_is_respected() -> None:
    base = _built(SMALL)
    half = _built(dataclasses.replace(SMALL, indirect_requests=0.5))
    full = _built(dataclasses.replace(SMALL, indirect_requests=1.0))
    n_half = sum(a != b for (_, a, _, _), (_, b, _, _) in zip(base, half, strict=True))
    n_full = sum(a != b for (_, a, _, _), (_, b, _, _) in zip(base, full, strict=True))
    assert 0 < n_half < n_full


def test_the_natural_renderer_rewords_an_indirect_request_without_naming_the_setting() -> None:
    opts = dataclasses.replace(SMALL, renderer="natural", indirect_requests=1.0)
    plain = dataclasses.replace(SMALL, indirect_requests=1.0)
    pairs = [(a, b, meta) for (meta, a, _, _), (_, b, _, _) in zip(_built(plain), _built(opts), strict=True)]
    reworded = [b for a, b, meta in pairs if meta["reasoning_type"] == "state_shift" and "again" in b
                and QUOTE.search(a) and QUOTE.search(a).group(1) not in b]
    assert reworded, "no indirect request was said the natural way"
