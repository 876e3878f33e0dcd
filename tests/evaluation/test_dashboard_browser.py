"""vmb dashboard in a real browser: headless Chromium opens the site, clicks a filter and a task.

Skipped, with the reason, only where no Chromium is installed (``scripts/setup.sh`` installs
Debian's ``chromium`` when it can). One of the runs carries hostile text in a request and in its
directory name: the page must show it as text and run none of it.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections import Counter
from pathlib import Path

import pytest

from vmb_gym.cli import main
from vmb_gym.evaluation.dashboard import build_site, make_server
from vmb_gym.evaluation.dashboard.browser import HeadlessChromium, find_chromium
from vmb_gym.evaluation.dashboard.load_time import measure_load
from vmb_gym.evaluation.dashboard.screenshots import READY, TASK_LOADED

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="no Chromium found (chromium, google-chrome or $VMB_CHROMIUM): run scripts/setup.sh or "
           "`apt-get install -y chromium` to run the browser test")

LIMIT = 10
EVIL = '</script><img src=x onerror="document.body.dataset.pwned=1"> & <b>bold</b>'
EVIL_RUN = "rules-<b>x"


def _results(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[list[dict]]]:
    """A site over an oracle and a rules run made by vmb eval; the rules run's first request made hostile."""
    root = tmp_path_factory.mktemp("runs")
    runs = []
    for policy in ("oracle", "rules"):
        run = root / f"{policy}-bm25"
        assert main(["eval", "--policy", policy, "--memory", "bm25", "--limit", str(LIMIT), "--out", str(run),
                     "--no-progress", "--no-plots"]) == 0
        runs.append(run)
    hostile = root / EVIL_RUN
    shutil.copytree(runs[1], hostile)
    records = _results(hostile)
    records[0]["request"] = EVIL
    (hostile / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path_factory.mktemp("site")
    build_site([hostile, *runs], out)
    return out, [records, _results(runs[0]), _results(runs[1])]


def _rows(browser: HeadlessChromium) -> list[str]:
    return browser.evaluate("[...document.querySelectorAll('#tasks tbody tr')].map(r => r.dataset.task)")


def test_filters_and_drill_down_in_headless_chromium(site: tuple[Path, list[list[dict]]]) -> None:
    out, (hostile, _, rules) = site
    with HeadlessChromium() as browser:
        browser.open((out / "index.html").resolve().as_uri())
        browser.wait_for(READY)
        assert _rows(browser) == [r["task_id"] for r in rules]
        assert browser.evaluate("document.querySelector('#tasks thead').textContent").count(EVIL_RUN) == 1

        # a reasoning-type chip, clicked with the mouse, keeps only that type
        target = next(r for r in rules if r.get("attribution") and r["task_id"] != hostile[0]["task_id"])
        kind, label = target["reasoning_type"], target["attribution"]["label"]
        count = Counter(r["reasoning_type"] for r in rules)[kind]
        browser.click(f'#filter-type .chip[data-type="{kind}"]')
        browser.wait_for(f"document.querySelectorAll('#tasks tbody tr').length === {count}")
        assert _rows(browser) == [r["task_id"] for r in rules if r["reasoning_type"] == kind]
        assert browser.evaluate("document.getElementById('shown-summary').textContent").startswith(
            f"{count} of {LIMIT} tasks")

        # the failure-label select narrows further: tasks where any run has that label
        browser.evaluate(f"(() => {{ const s = document.getElementById('filter-label'); s.value = {json.dumps(label)};"
                         " s.dispatchEvent(new Event('change')); })()")
        expected = [r["task_id"] for r in rules if r["reasoning_type"] == kind
                    and (r.get("attribution") or {}).get("label") == label]
        browser.wait_for(f"document.querySelectorAll('#tasks tbody tr').length === {len(expected)}")
        assert _rows(browser) == expected

        # open a task: request, gold-marked lines and calls of each run, side by side
        task = target
        browser.click(f'#tasks tbody tr[data-task="{task["task_id"]}"]')
        browser.wait_for(f"{TASK_LOADED} === {json.dumps(task['task_id'])}")
        assert browser.evaluate("document.getElementById('detail-request').textContent") == task["request"]
        cards = browser.evaluate(
            "[...document.querySelectorAll('#detail-runs .run-card')].map(c => ({"
            " name: c.querySelector('h3').textContent,"
            " gold: [...c.querySelectorAll('li.line.gold .lid')].map(e => e.textContent),"
            " calls: [...c.querySelectorAll('li.call .name')].map(e => e.textContent)}))")
        assert [c["name"] for c in cards] == [EVIL_RUN, "oracle-bm25", "rules-bm25"]
        memory = task["memory"]
        hit_gold = sorted(set(memory["hit_lines"]) & set(memory["evidence_lines"]))
        missed = sorted(set(memory["evidence_lines"]) - set(memory["hit_lines"]))
        assert sorted(int(x[1:]) for x in cards[2]["gold"]) == sorted(hit_gold + missed)
        assert browser.evaluate(
            "document.querySelectorAll('#detail-runs .run-card')[2].querySelectorAll('li.line.gold').length"
        ) == len(hit_gold) + len(missed)
        assert cards[2]["calls"] == [c["name"] for c in task["trajectory"]["calls"]]

        # hostile text shows as text and runs nothing
        browser.click("#detail-close")
        browser.evaluate(f"location.hash = '#task=' + encodeURIComponent({json.dumps(hostile[0]['task_id'])})")
        browser.wait_for(f"{TASK_LOADED} === {json.dumps(hostile[0]['task_id'])}")
        assert browser.evaluate("document.getElementById('detail-request').textContent") == EVIL
        assert browser.evaluate("document.body.dataset.pwned") is None
        assert browser.evaluate("document.querySelectorAll('img, b').length") == 0


def test_site_served_over_http_loads_task_files_on_demand(site: tuple[Path, list[list[dict]]]) -> None:
    out, (_, _, rules) = site
    server = make_server(out, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host, port = server.server_address[:2]
        with HeadlessChromium() as browser:
            browser.open(f"http://{host}:{port}/index.html")
            browser.wait_for(READY)
            assert browser.evaluate("document.querySelectorAll('script[src^=\"tasks/\"]').length") == 0
            last = rules[-1]["task_id"]
            browser.click(f'#tasks tbody tr[data-task="{last}"]')
            browser.wait_for(f"{TASK_LOADED} === {json.dumps(last)}")
            assert browser.evaluate(
                "[...document.querySelectorAll('script[src^=\"tasks/\"]')].map(s => s.getAttribute('src'))"
            ) == [f"tasks/t{LIMIT - 1}.js"]
    finally:
        server.shutdown()
        server.server_close()


def test_load_time_measure_reports_the_sites_size(site: tuple[Path, list[list[dict]]]) -> None:
    out, _ = site
    times = measure_load(out / "index.html", repeats=1)
    assert (times.runs, times.tasks) == (3, LIMIT)
    assert times.first == times.best and times.first > 0 and times.task > 0  # measured, not asserted fast


def _choose(browser: HeadlessChromium, select_id: str, value: str) -> None:
    browser.evaluate(
        f"(() => {{ const s = document.getElementById({json.dumps(select_id)}); s.value = {json.dumps(value)};"
        " s.dispatchEvent(new Event('change')); })()"
    )


def test_module_run_and_outcome_filters(site: tuple[Path, list[list[dict]]]) -> None:
    out, (_, _, rules) = site
    with HeadlessChromium() as browser:
        browser.open((out / "index.html").resolve().as_uri())
        browser.wait_for(READY)
        module = Counter(m for r in rules for m in r["gold_modules"]).most_common(1)[0][0]
        _choose(browser, "filter-module", module)
        assert _rows(browser) == [r["task_id"] for r in rules if module in r["gold_modules"]]
        _choose(browser, "filter-module", "")
        # runs disagree: the oracle passes every task, so these are the tasks the rules run fails
        _choose(browser, "filter-outcome", "differ")
        assert _rows(browser) == [r["task_id"] for r in rules if not r["metrics"]["exact_match"]]
        _choose(browser, "filter-outcome", "")
        # a label in the oracle run (index 1): the oracle has no failure, so nothing is shown
        label = next(r["attribution"]["label"] for r in rules if r.get("attribution"))
        _choose(browser, "filter-label", label)
        _choose(browser, "filter-run", "1")
        assert _rows(browser) == []
        assert browser.evaluate("document.getElementById('shown-summary').textContent") == f"0 of {LIMIT} tasks"
        _choose(browser, "filter-run", "2")
        assert _rows(browser) == [r["task_id"] for r in rules if (r.get("attribution") or {}).get("label") == label]
