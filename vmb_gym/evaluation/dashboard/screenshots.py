"""Screenshots of a built dashboard in headless Chromium: the overview and one drill-down."""

from __future__ import annotations

import json
import os
from pathlib import Path

from vmb_gym.evaluation.dashboard.browser import HeadlessChromium

__all__ = ["READY", "TASK_LOADED", "take_screenshots"]

#: JavaScript conditions: the page has rendered its task table / a task's drill-down.
READY = "document.body.dataset.ready === 'true'"
TASK_LOADED = "document.body.dataset.taskLoaded"

#: A task whose runs disagree (some pass, some fail): the most telling drill-down.
_DISAGREEING = ("(() => { const t = window.VMB_DATA.tasks.find(r => r[5].includes(1) && r[5].includes(0));"
                " return (t || window.VMB_DATA.tasks[0])[0]; })()")


def take_screenshots(index_html: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                     task_id: str | None = None, width: int = 1400, height: int = 1000) -> list[Path]:
    """Write ``dashboard.png`` (the overview, whole page) and ``dashboard_task.png`` (a drill-down).

    Args:
        index_html: the site's ``index.html``.
        out_dir: the folder for the two PNG files (created).
        task_id: the task to open (default: the first one on which the runs disagree).
        width: viewport width.
        height: viewport height (the drill-down shot is one viewport).

    Raises:
        ConfigError: no Chromium is installed.
        BrowserError: the page did not render.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    url = Path(index_html).resolve().as_uri()
    overview, detail = out / "dashboard.png", out / "dashboard_task.png"
    with HeadlessChromium(width=width, height=height) as browser:
        browser.open(url)
        browser.wait_for(READY)
        browser.screenshot(overview, full_page=True)
        chosen = task_id or browser.evaluate(_DISAGREEING)
        browser.click(f"#tasks tbody tr[data-task={json.dumps(chosen)}]")
        browser.wait_for(TASK_LOADED)
        browser.screenshot(detail)
    return [overview, detail]
