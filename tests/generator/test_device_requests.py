"""Tests of the generator's ``device_requests`` option: requests that name the device, not its setting."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tests.generator.built_queries import QUOTE, SMALL
from tests.generator.built_queries import built as _built
from vmb_gym.errors import ConfigError
from vmb_gym.generator import GeneratorOptions
from vmb_gym.generator.banks import DEVICE_NOUNS
from vmb_gym.generator.catalog import catalogue


def test_option_is_validated_and_left_out_of_json_when_off() -> None:
    assert "device_requests" not in GeneratorOptions().to_json()
    assert GeneratorOptions(device_requests=0.4).to_json()["device_requests"] == 0.4
    assert GeneratorOptions.from_json(GeneratorOptions(device_requests=0.4).to_json()).device_requests == 0.4
    with pytest.raises(ConfigError, match="device_requests must be a share"):
        GeneratorOptions(device_requests=-0.1)


def test_only_the_requests_change_and_they_name_the_device() -> None:
    off = _built(SMALL)
    on = _built(dataclasses.replace(SMALL, device_requests=1.0))
    assert [h for *_, h in on] == [h for *_, h in off]  # the same histories, byte for byte
    assert [g for _, _, g, _ in on] == [g for _, _, g, _ in off]  # the same gold calls
    changed = [(a, b, meta) for (meta, a, _, _), (_, b, _, _) in zip(off, on, strict=True) if a != b]
    assert len(changed) >= 10
    for before, after, meta in changed:
        module = meta["gold_calls"][0]["name"].split("_")[1]
        said = QUOTE.search(after).group(1)
        assert any(noun in said for noun in DEVICE_NOUNS[module]), (module, said)
        # the setting's own spoken names are gone from the request
        nouns = [n for n in catalogue()[meta["gold_calls"][0]["name"]].nouns if "{t}" not in n]
        assert not any(re.search(rf"\b{re.escape(n)}\b", said) for n in nouns if n not in DEVICE_NOUNS[module]), said
        assert before.split("said:")[0] == after.split("said:")[0]  # the situation is unchanged


def test_cli_refuses_the_option_for_the_embedded_benchmark(tmp_path) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "vmb_gym.cli", "generate", "--benchmark", "--device-requests", "0.5",
                          "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "--like go with --out DIR" in out.stderr
    assert not (tmp_path / "manifest.json").exists()
