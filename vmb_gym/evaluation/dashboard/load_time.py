"""How fast a built dashboard opens in headless Chromium (what ``scripts/bench.py`` prints).

The page marks itself ready once its task table is drawn (``window.VMB_READY_MS``, from
navigation start) and times each drill-down from the click to its rendering
(``window.VMB_TASK_MS``). A fresh browser opens the page ``repeats`` times; the load time of a
visit is the later of the ready mark and the end of the load event.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from vmb_gym.evaluation.dashboard.browser import HeadlessChromium
from vmb_gym.evaluation.dashboard.screenshots import READY, TASK_LOADED

__all__ = ["LoadTimes", "copy_runs", "measure_load"]

_LOADED = ("(() => { const n = performance.getEntriesByType('navigation')[0];"
           " return Math.max(window.VMB_READY_MS, n ? n.loadEventEnd : 0); })()")


@dataclass(frozen=True)
class LoadTimes:
    """Seconds to open the dashboard and a drill-down.

    Attributes:
        first: the first visit's load time (a new browser profile: nothing cached).
        best: the fastest of the visits.
        task: the slowest drill-down opening (click to rendered), over the visits.
        tasks: rows in the task index.
        runs: runs in the dashboard.
    """

    first: float
    best: float
    task: float
    tasks: int
    runs: int


def measure_load(index_html: str | os.PathLike[str], repeats: int = 3) -> LoadTimes:
    """Open ``index_html`` ``repeats`` times in headless Chromium and time it (see the module doc).

    Raises:
        ConfigError: no Chromium is installed.
        BrowserError: the page did not become ready.
    """
    url = Path(index_html).resolve().as_uri()
    loads, opens = [], []
    with HeadlessChromium(timeout=60) as browser:
        for i in range(repeats):
            browser.open(f"{url}?visit={i}")
            browser.wait_for(READY)
            loads.append(float(browser.evaluate(_LOADED)) / 1000)
            # a task low in the first page of the table (the table draws 250 rows at first)
            last = browser.evaluate(
                f"window.VMB_DATA.tasks[Math.max(0, Math.min(window.VMB_DATA.tasks.length, 200) - 1 - {i})][0]")
            browser.click(f"#tasks tbody tr[data-task={json.dumps(last)}]")
            browser.wait_for(f"{TASK_LOADED} === {json.dumps(last)}")
            opens.append(float(browser.evaluate("window.VMB_TASK_MS")) / 1000)
        tasks, runs = browser.evaluate("[window.VMB_DATA.tasks.length, window.VMB_DATA.runs.length]")
    return LoadTimes(first=loads[0], best=min(loads), task=max(opens), tasks=int(tasks), runs=int(runs))


def copy_runs(sources: list[Path], count: int, folder: Path) -> list[Path]:
    """``count`` run directories in ``folder``, copies of ``sources`` in turn under distinct names."""
    out = []
    for i in range(count):
        src = sources[i % len(sources)]
        dst = folder / f"{src.name}-{i:02d}"
        if dst.exists():
            shutil.rmtree(dst)
        dst.mkdir(parents=True)
        for name in ("config.json", "results.jsonl", "metric.json"):
            if (src / name).is_file():
                shutil.copyfile(src / name, dst / name)
        out.append(dst)
    return out
