"""vmb dashboard: the site's files, numbers, drill-down payloads, escaping, CLI and --serve (no browser)."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import urllib.request
from pathlib import Path

import pytest

from vmb_gym.cli import main
from vmb_gym.data import load_gold, read_history
from vmb_gym.data.embedded import embedded_benchmark_dir
from vmb_gym.evaluation.compare import compare_runs
from vmb_gym.evaluation.dashboard import build_site, make_server
from vmb_gym.evaluation.dashboard.overview import Table
from vmb_gym.evaluation.dashboard.site import js_data, render_table
from vmb_gym.evaluation.runs import load_runs

LIMIT = 8


def _results(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def _load_js(path: Path, prefix: bytes, suffix: bytes) -> dict:
    raw = path.read_bytes()
    assert raw.startswith(prefix) and raw.endswith(suffix)
    return json.loads(raw[len(prefix):-len(suffix)])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """An oracle and a rules run (bm25) on the first tasks of the default set, made by vmb eval."""
    root = tmp_path_factory.mktemp("runs")
    out = []
    for policy in ("oracle", "rules"):
        run = root / f"{policy}-bm25"
        assert main(["eval", "--policy", policy, "--memory", "bm25", "--limit", str(LIMIT), "--out", str(run),
                     "--no-progress", "--no-plots"]) == 0
        out.append(run)
    return out


@pytest.fixture(scope="module")
def site(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    index = build_site(runs, out)
    assert index == out / "index.html"
    return out


def test_site_has_one_detail_file_per_task_and_an_index_row_each(site: Path, runs: list[Path]) -> None:
    data = _load_js(site / "data" / "index.js", b"window.VMB_DATA = ", b";\n")
    task_ids = [r["task_id"] for r in _results(runs[0])]
    assert [row[0] for row in data["tasks"]] == task_ids
    assert sorted(p.name for p in (site / "tasks").iterdir()) == sorted(f"t{n}.js" for n in range(LIMIT))
    assert [r["name"] for r in data["runs"]] == ["oracle-bm25", "rules-bm25"]
    rules = {r["task_id"]: r for r in _results(runs[1])}
    for row in data["tasks"]:
        rec = rules[row[0]]
        assert row[1] == rec["reasoning_type"] and row[2] == rec["gold_modules"]
        assert row[5] == [1, int(rec["metrics"]["exact_match"])]  # the oracle passes every task
        assert row[6] == [None, (rec.get("attribution") or {}).get("label")]
    assert (site / "assets" / "app.js").is_file() and (site / "assets" / "style.css").is_file()


def test_runs_table_shows_each_runs_metric_json(site: Path, runs: list[Path]) -> None:
    html = (site / "index.html").read_text()
    for run in runs:
        metric = json.loads((run / "metric.json").read_text())
        cells = [f"{metric[k]:.3f}" for k in ("exact_match_rate", "state_f1_change", "state_f1_positive", "tool_f1")]
        row = next(line for line in html.splitlines() if f"<td>{run.name}</td>" in line)
        assert all(f'<td class="num">{c}</td>' in row for c in cells), (row, cells)
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # no CDN
    # the paired difference of vmb compare (rules - oracle, the first run), with its interval and sign test
    (pair,) = compare_runs(load_runs(runs)).paired
    esm = pair["exact_match"]
    row = next(line for line in html.splitlines() if line.startswith("<tr><td>rules-bm25</td><td>oracle-bm25</td>"))
    assert f"<td>{esm['mean']:+.3f}</td><td>[{esm['ci_low']:+.3f}, {esm['ci_high']:+.3f}]</td>" in row
    assert f"<td>{esm['p_sign']:.3g}</td>" in row


def test_detail_marks_gold_lines_and_carries_history_text_calls_and_differences(site: Path, runs: list[Path]) -> None:
    rules = _results(runs[1])
    lines = {ln.line_id: ln for ln in read_history(Path(embedded_benchmark_dir()) / "history" / "history_1.txt")[0]}
    for n, rec in enumerate(rules):
        payload = _load_js(site / "tasks" / f"t{n}.js", b"vmbTask(", b");\n")
        assert payload["id"] == rec["task_id"] and payload["request"] == rec["request"]
        cell = payload["runs"][1]
        memory = rec["memory"]
        hits, gold = set(memory["hit_lines"]), set(memory["evidence_lines"])
        assert {ln["id"] for ln in cell["retrieved"]["lines"]} == hits
        assert {ln["id"] for ln in cell["retrieved"]["lines"] if ln["gold"]} == hits & gold
        assert {ln["id"] for ln in cell["retrieved"]["missed"]} == gold - hits
        if rec["scenario_id"] == 1:
            for ln in cell["retrieved"]["lines"]:
                assert (ln["speaker"], ln["text"]) == (lines[ln["id"]].speaker, lines[ln["id"]].text)
        assert [c["name"] for c in cell["calls"]] == [c["name"] for c in rec["trajectory"]["calls"]]
        assert cell["differences"] == rec["differences"]
        assert cell["label"] == (rec.get("attribution") or {}).get("label")
        assert payload["runs"][0]["differences"] == []  # the oracle's state matches the gold


def test_data_and_tables_escape_untrusted_text() -> None:
    evil = '</script><img src=x onerror="alert(1)">&'
    assert b"<" not in js_data({"request": evil})
    assert json.loads(js_data({"request": evil})) == {"request": evil}
    html = render_table(Table(("run",), ("text",), ((evil,),)), "t")
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;" in html


def test_cli_builds_the_site_and_refuses_a_folder_that_is_not_a_run(
        runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", *map(str, runs), "--out", str(tmp_path / "site")]) == 0
    assert (tmp_path / "site" / "index.html").is_file()
    capsys.readouterr()
    assert main(["dashboard", str(tmp_path), "--out", str(tmp_path / "site2")]) == 2
    err = capsys.readouterr().err
    assert "expected a run directory holding config.json and results.jsonl" in err


def test_serve_gives_the_site_over_http(site: Path) -> None:
    server = make_server(site, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        body = urllib.request.urlopen(f"http://{host}:{port}/index.html", timeout=10).read()
        assert body == (site / "index.html").read_bytes()
        detail = urllib.request.urlopen(f"http://{host}:{port}/tasks/t0.js", timeout=10).read()
        assert detail.startswith(b"vmbTask(")
    finally:
        server.shutdown()
        server.server_close()


def test_stream_run_drill_down_takes_the_request_from_the_data(tmp_path: Path) -> None:
    run = tmp_path / "stream"
    assert main(["eval-stream", "--writer", "rules", "--files", "1", "--window-days", "0.5", "--no-progress",
                 "--out", str(run)]) == 0
    queries = {q["task_id"]: q for r in _results(run) for q in r["queries"]}
    build_site([run], tmp_path / "site")
    gold = {q.task_id: q for q in load_gold("default", [1])}
    data = _load_js(tmp_path / "site" / "data" / "index.js", b"window.VMB_DATA = ", b";\n")
    assert [row[0] for row in data["tasks"]] == list(queries)
    for row in data["tasks"]:
        payload = _load_js(tmp_path / "site" / "tasks" / f"t{row[4]}.js", b"vmbTask(", b");\n")
        assert payload["request"] == gold[row[0]].text
        assert [c["name"] for c in payload["gold_calls"]] == [c.name for c in gold[row[0]].gold_calls]
        assert payload["runs"][0]["exact_match"] == float(queries[row[0]]["exact_match"])


def test_setup_skips_the_chromium_install_with_a_message_without_apt_get(tmp_path: Path) -> None:
    setup = (Path(__file__).resolve().parents[2] / "scripts" / "setup.sh").read_text()
    start = setup.index("# Debian's chromium")
    block = setup[start:setup.index('PIP=".venv/bin/python -m pip"', start)]
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "id").symlink_to(shutil.which("id"))  # no chromium, no apt-get on this PATH
    done = subprocess.run(["/bin/bash", "-euc", block], env={"PATH": str(tmp_path / "bin")},
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert "the dashboard's browser test will be skipped" in done.stdout
