"""``vmb train sb3`` prints its peak RSS after each phase and keeps the figures in ``summary.json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from vmb_agents.train import sb3_slots
from vmb_agents.train.common import peak_rss_mib, print_peak_rss

PHASES = {"catalogue": "fitting the catalogue", "demonstrations": "the demonstrations",
          "behaviour_cloning": "behaviour cloning", "ppo": "PPO", "evaluation": "the evaluation"}


def test_print_peak_rss_prints_the_process_peak(capsys: pytest.CaptureFixture[str]) -> None:
    before = peak_rss_mib()
    printed = print_peak_rss("a phase")
    assert before <= printed <= peak_rss_mib() and printed > 10  # MiB of a Python process with numpy
    assert capsys.readouterr().out == f"peak RSS after a phase: {printed:,.0f} MiB\n"


def test_a_training_run_logs_the_peak_rss_of_every_phase(tiny_data: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = sb3_slots.Args(data=tiny_data, eval_data=tiny_data, official_data="", timesteps=16, n_steps=8,
                          batch_size=8, bc_epochs=2, max_steps=4, out=str(out), progress=False, line_prior=False)
    summary = sb3_slots.main(args)
    log = capsys.readouterr().out
    printed = {m.group(1): float(m.group(2).replace(",", ""))
               for m in re.finditer(r"^peak RSS after (.+): ([\d,]+) MiB$", log, re.MULTILINE)}
    assert set(printed) == set(PHASES.values())
    peaks = json.loads((out / "summary.json").read_text())["peak_rss_mib"]
    assert peaks == summary["peak_rss_mib"] and set(peaks) == set(PHASES)
    for key, phase in PHASES.items():
        assert printed[phase] == round(peaks[key])  # the log line is the summary's figure
    values = [peaks[k] for k in PHASES]
    assert values == sorted(values) and values[0] > 10  # a peak never falls
