"""``vmb generate`` words new households with the natural renderer; splits and the embedded set stay template."""

from __future__ import annotations

import json
from pathlib import Path

from vmb_gym.generator import GeneratorOptions


def _cli_renderer(tmp_path: Path, name: str, *extra: str) -> str:
    from vmb_gym.cli import main as vmb_main

    out = tmp_path / name
    assert vmb_main(["generate", "--out", str(out), *extra]) == 0
    meta = json.loads(next((out / "meta").glob("*.json")).read_text())
    return meta["generator"]["options"].get("renderer", "template")


def test_vmb_generate_defaults_to_natural_but_splits_stay_template(tmp_path: Path) -> None:
    small = ["--seed", "3", "--scenarios", "1", "--queries-per-scenario", "3", "--history-length", "80", "--days", "7"]
    assert _cli_renderer(tmp_path, "plain", *small) == "natural"
    assert _cli_renderer(tmp_path, "tpl", *small, "--renderer", "template") == "template"
    options = GeneratorOptions(queries_per_scenario=3, history_length=80, days=7).to_json()
    manifest = {"splits": {"test": {"seed": 5, "scenarios": 1}}, "options": options}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    split = ["--split", "test", "--manifest", str(tmp_path / "manifest.json")]
    assert _cli_renderer(tmp_path, "split", *split) == "template"  # a split keeps its manifest's renderer
